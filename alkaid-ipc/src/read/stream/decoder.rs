//! The push-based (sans-IO) decoder at the core of every stream reader.

use alkaid_buffer::Buffer;
use alkaid_schema::SchemaRef;

use crate::error::{IpcError, Result};
use crate::fb;
use crate::mapping::{Mapping, mapping};
use crate::read::framing::{Prefix, body_length, parse_prefix};
use crate::read::options::ReadOptions;
use crate::read::state::{Decoded, ReadState, parse_message};

/// Decodes an IPC stream from bytes handed to it as they arrive: feed it with
/// [`push`](Self::push), take messages out with [`next_message`](Self::next_message). It never blocks and
/// never reads on its own, so async runtimes and network code can drive it.
///
/// Pushed bytes are held until their message is complete. A body of 4 MiB or more whose
/// metadata has arrived is copied, from then on, straight into memory of its own (an
/// anonymous mapping, with huge pages where [`set_huge_pages`](crate::set_huge_pages)
/// allows), so that each byte is copied once and fresh pages are touched once.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
/// use alkaid_ipc::{Decoded, Decoder, StreamWriter, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
/// let column: ArrayRef = Arc::new(Int64Array::from(vec![7, 8, 9]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
/// let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default())?;
/// writer.write(&batch)?;
/// let bytes = writer.into_inner()?;
///
/// // Bytes arrive 5 at a time; messages come out when they are complete.
/// let mut decoder = Decoder::new();
/// let mut rows = 0;
/// for chunk in bytes.chunks(5) {
///     decoder.push(chunk);
///     while let Some(message) = decoder.next_message()? {
///         if let Decoded::Batch(batch, _) = message {
///             rows += batch.num_rows();
///         }
///     }
/// }
/// decoder.finish()?;
/// assert_eq!(rows, 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct Decoder {
    state: ReadState,
    pending: Vec<u8>,
    start: usize,
    /// Bytes of the stream before `pending[0]`: dropped from its front, or pushed straight
    /// into an arriving body.
    drained: usize,
    ended: bool,
    last: Option<MessageInfo>,
    /// A large body whose metadata was read, filled as its bytes are pushed.
    arriving: Option<Arriving>,
}

/// A message body of at least [`MAPPED`](crate::mapping::MAPPED) bytes being filled in
/// memory of its own (see `mapping.rs`): pushed bytes are copied once, into it, instead of into the
/// pending bytes and then out of them.
#[derive(Debug)]
struct Arriving {
    metadata: Vec<u8>,
    info: MessageInfo,
    body: Mapping,
    filled: usize,
}

/// Where a decoded message lay in the stream and how it was framed: what `alkaid inspect`
/// prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageInfo {
    /// Byte position of the message (its prefix) from the start of the input.
    pub offset: usize,
    /// Bytes of prefix (continuation marker and length; 4 in the legacy framing).
    pub prefix_bytes: usize,
    /// Bytes of flatbuffer metadata, padding included.
    pub metadata_bytes: usize,
    /// Bytes of body.
    pub body_bytes: usize,
    /// The body's buffer compression, if any: `"LZ4_FRAME"` or `"ZSTD"`.
    pub compression: Option<&'static str>,
}

impl Decoder {
    /// A decoder with default options (full validation).
    pub fn new() -> Self {
        Self::with_options(ReadOptions::default())
    }

    /// A decoder with `options`.
    pub fn with_options(options: ReadOptions) -> Self {
        Self {
            state: ReadState::new(options),
            ..Self::default()
        }
    }

    /// Hands the decoder more bytes of the stream.
    pub fn push(&mut self, mut bytes: &[u8]) {
        if let Some(arriving) = &mut self.arriving {
            let n = (arriving.body.len() - arriving.filled).min(bytes.len());
            arriving.body[arriving.filled..arriving.filled + n].copy_from_slice(&bytes[..n]);
            arriving.filled += n;
            self.drained += n;
            bytes = &bytes[n..];
        }
        if self.start > 0 && self.start >= self.pending.len() / 2 {
            self.pending.drain(..self.start);
            self.drained += self.start;
            self.start = 0;
        }
        self.pending.extend_from_slice(bytes);
    }

    /// Decodes one message that arrived already apart from its framing, as a Flight
    /// stream carries them: its `Message` flatbuffer and its body. Every check and option
    /// of [`next_message`](Self::next_message) applies; the body's buffers are used where
    /// they lie (copied only where compressed, or misaligned for their type).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
    /// use alkaid_buffer::Buffer;
    /// use alkaid_ipc::{Decoded, Decoder, MessageEncoder, WriteOptions};
    /// use alkaid_schema::{DataType, Field, Schema};
    ///
    /// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
    /// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    /// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
    /// let mut encoder = MessageEncoder::new(schema, WriteOptions::default())?;
    /// let mut messages = vec![encoder.schema_message()];
    /// messages.extend(encoder.encode(&batch, &Default::default())?);
    ///
    /// let mut decoder = Decoder::new();
    /// for message in &messages {
    ///     let body = Buffer::from(message.body_slices().collect::<Vec<_>>().concat());
    ///     if let Decoded::Batch(read, _) = decoder.decode_message(message.flatbuffer(), body)? {
    ///         assert_eq!(read.num_rows(), 3);
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// If the message is invalid, or out of place (a batch before the schema).
    pub fn decode_message(&mut self, metadata: &[u8], body: Buffer) -> Result<Decoded> {
        self.state.decode(metadata, body)
    }

    /// The unfilled rest of a large body being received, when there is one: a reader that
    /// can read into memory it is given (a socket, an async reader) reads the next bytes of
    /// the stream straight into it and reports them with [`filled`](Self::filled), saving
    /// the copy that [`push`](Self::push) makes. `None` when the decoder wants its bytes
    /// through `push`.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
    /// # use alkaid_ipc::{Decoded, Decoder, StreamWriter, WriteOptions};
    /// # use alkaid_schema::{DataType, Field, Schema};
    /// # let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
    /// # let column: ArrayRef = Arc::new(Int64Array::from(vec![7i64; 1 << 20]));
    /// # let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
    /// # let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default())?;
    /// # writer.write(&batch)?;
    /// # let stream = writer.into_inner()?;
    /// // An 8 MiB body: once its metadata is pushed, the rest goes straight into its memory.
    /// let mut input = &stream[..];
    /// let mut decoder = Decoder::new();
    /// let mut batches = 0;
    /// loop {
    ///     while let Some(message) = decoder.next_message()? {
    ///         batches += matches!(message, Decoded::Batch(..)) as usize;
    ///     }
    ///     if input.is_empty() {
    ///         break;
    ///     }
    ///     let n = match decoder.room() {
    ///         Some(room) => {
    ///             let n = room.len().min(input.len());
    ///             room[..n].copy_from_slice(&input[..n]);
    ///             decoder.filled(n);
    ///             n
    ///         }
    ///         None => {
    ///             let n = input.len().min(4096);
    ///             decoder.push(&input[..n]);
    ///             n
    ///         }
    ///     };
    ///     input = &input[n..];
    /// }
    /// decoder.finish()?;
    /// assert_eq!(batches, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn room(&mut self) -> Option<&mut [u8]> {
        let arriving = self.arriving.as_mut()?;
        let filled = arriving.filled;
        Some(&mut arriving.body[filled..]).filter(|room| !room.is_empty())
    }

    /// Records that the first `n` bytes of [`room`](Self::room) were filled with the
    /// stream's next bytes.
    ///
    /// # Panics
    /// If `n` is more than the room's length: that is a bug of the caller, not bad input.
    pub fn filled(&mut self, n: usize) {
        let arriving = self
            .arriving
            .as_mut()
            .filter(|a| a.body.len() - a.filled >= n)
            .expect("filled no more than the room given");
        arriving.filled += n;
        self.drained += n;
    }

    /// The schema of the batches, once its message has been decoded: the stream's, or the
    /// columns of it the options select.
    pub fn schema(&self) -> Option<&SchemaRef> {
        self.state.batch_schema()
    }

    /// Where the message [`next_message`](Self::next_message) last returned lay, and how it
    /// was framed.
    pub fn last_message(&self) -> Option<&MessageInfo> {
        self.last.as_ref()
    }

    /// Whether the end-of-stream marker was seen.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// The next complete message, or `None` when more bytes are needed (or the stream
    /// ended).
    ///
    /// # Errors
    /// If the bytes are not a valid stream; the decoder should not be used after that.
    pub fn next_message(&mut self) -> Result<Option<Decoded>> {
        if self.ended {
            return Ok(None);
        }
        if let Some(arriving) = &self.arriving {
            if arriving.filled < arriving.body.len() {
                return Ok(None);
            }
            let arriving = self.arriving.take().expect("checked just above");
            self.last = Some(arriving.info);
            let body = arriving.body.into_buffer()?;
            return self.state.decode(&arriving.metadata, body).map(Some);
        }
        let available = &self.pending[self.start..];
        let Some(prefix) = parse_prefix(available, &self.state.options)? else {
            return Ok(None);
        };
        let (header, metadata) = match prefix {
            Prefix::End => {
                self.ended = true;
                return Ok(None);
            }
            Prefix::Message { header, metadata } => (header, metadata),
        };
        let Some(meta) = available.get(header..header + metadata) else {
            return Ok(None);
        };
        let message = parse_message(meta, &self.state.options)?;
        let body_len = body_length(message.bodyLength())?;
        let compression = compression_of(&message);
        let total = (header + metadata)
            .checked_add(body_len)
            .ok_or_else(|| IpcError::malformed("a message body of more than usize::MAX bytes"))?;
        let info = MessageInfo {
            offset: self.drained + self.start,
            prefix_bytes: header,
            metadata_bytes: metadata,
            body_bytes: body_len,
            compression,
        };
        let Some(body) = available.get(header + metadata..total) else {
            // A large body still arriving goes into memory of its own from here on.
            if let Some(mut target) = mapping(body_len) {
                let here = &available[header + metadata..];
                target[..here.len()].copy_from_slice(here);
                self.arriving = Some(Arriving {
                    metadata: meta.to_vec(),
                    info,
                    body: target,
                    filled: here.len(),
                });
                self.start = self.pending.len();
            }
            return Ok(None);
        };
        self.last = Some(info);
        let body = Buffer::from_slice_ref(body);
        let meta = meta.to_vec();
        self.start += total;
        self.state.decode(&meta, body).map(Some)
    }

    /// Checks that the input ended cleanly: after the end-of-stream marker, or between
    /// messages. Call it when the input is exhausted.
    ///
    /// # Errors
    /// [`IpcErrorKind::Truncated`](crate::IpcErrorKind::Truncated) if a message was cut
    /// off, or no schema arrived.
    pub fn finish(&self) -> Result<()> {
        if let Some(arriving) = &self.arriving {
            return Err(IpcError::truncated(format!(
                "the stream ends {} bytes into the {}-byte body of the message at byte {}",
                arriving.filled,
                arriving.body.len(),
                arriving.info.offset
            )));
        }
        let rest = &self.pending[self.start..];
        if !self.ended && !rest.is_empty() && rest != [0xFF; 4] {
            return Err(IpcError::truncated(format!(
                "the stream ends inside the message at byte {} ({} bytes of it arrived)",
                self.drained + self.start,
                rest.len()
            )));
        }
        if self.state.schema.is_none() {
            return Err(IpcError::truncated("the stream ends before its schema"));
        }
        Ok(())
    }
}

/// The compression a record batch or dictionary message declares for its body.
fn compression_of(message: &fb::Message<'_>) -> Option<&'static str> {
    let compression = match message.header_type() {
        fb::MessageHeader::RecordBatch => message.header_as_record_batch()?.compression(),
        fb::MessageHeader::DictionaryBatch => {
            message.header_as_dictionary_batch()?.data()?.compression()
        }
        _ => None,
    }?;
    Some(match compression.codec() {
        fb::CompressionType::LZ4_FRAME => "LZ4_FRAME",
        fb::CompressionType::ZSTD => "ZSTD",
        _ => "unknown",
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
    use alkaid_schema::{DataType, Field, Schema};

    use super::*;
    use crate::{IpcErrorKind, StreamWriter, WriteOptions};

    /// A stream of a small batch, a batch whose body is past the mapping threshold, and a
    /// small one again.
    fn stream() -> (Vec<RecordBatch>, Vec<u8>) {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int32, true)]));
        let batch = |rows: i32| {
            let column: ArrayRef = Arc::new(Int32Array::from((0..rows).collect::<Vec<_>>()));
            RecordBatch::try_new(schema.clone(), vec![column]).unwrap()
        };
        let batches = vec![batch(3), batch(1_500_000), batch(5)];
        let mut writer =
            StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
        for b in &batches {
            writer.write(b).unwrap();
        }
        (batches, writer.into_inner().unwrap())
    }

    fn same(a: &RecordBatch, b: &RecordBatch) -> bool {
        a.num_columns() == b.num_columns()
            && (0..a.num_columns())
                .all(|i| alkaid_data::equal(&a.column(i).to_data(), &b.column(i).to_data()))
    }

    /// Every message of `bytes` pushed `chunk` bytes at a time: each batch and where its
    /// message lay.
    fn decode(bytes: &[u8], chunk: usize) -> Vec<(RecordBatch, MessageInfo)> {
        let mut decoder = Decoder::new();
        let mut out = Vec::new();
        for piece in bytes.chunks(chunk) {
            decoder.push(piece);
            while let Some(message) = decoder.next_message().unwrap() {
                if let Decoded::Batch(batch, _) = message {
                    out.push((batch, decoder.last_message().unwrap().clone()));
                }
            }
        }
        decoder.finish().unwrap();
        out
    }

    #[test]
    fn large_bodies_arriving_in_pieces_decode_as_when_whole() {
        let (batches, bytes) = stream();
        let whole = decode(&bytes, bytes.len());
        assert_eq!(whole.len(), 3);
        assert!(whole[1].1.body_bytes >= crate::mapping::MAPPED);
        // Pieces that end inside the metadata, inside the body and exactly at its end.
        for chunk in [1_000_003, 65_536, 6_000_000, 4096 * 1024 + 7] {
            let pieces = decode(&bytes, chunk);
            assert_eq!(pieces.len(), 3, "{chunk}-byte pieces");
            for ((batch, info), (expected, whole_info)) in pieces.iter().zip(&whole) {
                assert_eq!(info, whole_info, "{chunk}-byte pieces");
                assert!(same(batch, expected), "{chunk}-byte pieces");
            }
        }
        for ((batch, _), expected) in whole.iter().zip(&batches) {
            assert!(same(batch, expected));
        }
    }

    #[test]
    fn a_stream_that_ends_inside_an_arriving_body_is_truncated() {
        let (_, bytes) = stream();
        let mut decoder = Decoder::new();
        let cut = bytes.len() / 2;
        decoder.push(&bytes[..cut]);
        while decoder.next_message().unwrap().is_some() {}
        let err = decoder.finish().unwrap_err();
        assert_eq!(err.kind(), IpcErrorKind::Truncated, "{err}");
        assert!(
            err.message().contains("-byte body of the message at byte"),
            "{err}"
        );
    }
}

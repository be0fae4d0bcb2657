//! What the stream and file writers share: the encoder's messages framed onto an
//! [`Output`] (a `Write`, or the spool of buffers of `spool.rs`), and where each went.

use std::io::{IoSlice, Seek, SeekFrom, Write};

use alkaid_array::RecordBatch;
use alkaid_schema::{Metadata, SchemaRef};

use super::message::{Body, framed_len, write_all_vectored, write_message};
use super::message_encoder::{EncodedMessage, MessageEncoder, MessageKind};
use super::options::WriteOptions;
use crate::dictionary::DictionaryIds;
use crate::error::Result;
use crate::fb;

/// A `Write` that counts what went through it, for the file footer's block offsets.
pub(crate) struct Counting<W> {
    pub inner: W,
    pub position: u64,
    /// How to move within `inner`, for a writer asked to write compressed bodies as they
    /// are compressed (`W: Seek`): `Seek::seek`, which a `W` without `Seek` cannot name.
    pub seek: Option<fn(&mut W, SeekFrom) -> std::io::Result<u64>>,
}

impl<W: Write> Counting<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            position: 0,
            seek: None,
        }
    }
}

impl<W: Write + Seek> Counting<W> {
    /// Lets the writer go back to a message's header after writing its body.
    pub fn enable_seeking(&mut self) {
        self.seek = Some(<W as Seek>::seek);
    }
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.position += n as u64;
        Ok(n)
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(bytes)?;
        self.position += bytes.len() as u64;
        Ok(())
    }

    /// Passed on, so that the inner writer's vectored writes (one reservation for a whole
    /// message in a `Vec`) are not lost to the default, which writes one slice per call.
    fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> std::io::Result<usize> {
        let n = self.inner.write_vectored(slices)?;
        self.position += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Where a writer's bytes go.
pub(crate) trait Output {
    /// Bytes taken so far: the next message's offset in a file.
    fn position(&self) -> u64;

    /// One framed message (marker, length, flatbuffer, padding, body); the sizes of its
    /// metadata part and of its body.
    fn message(
        &mut self,
        flatbuffer: &[u8],
        body: Option<&Body>,
        alignment: usize,
    ) -> Result<(usize, usize)>;

    /// Bytes of the framing around messages: a file's magic, the end-of-stream marker,
    /// the footer.
    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()>;

    /// Every slice, in order: the pieces of a body compressed as it is written.
    fn slices(&mut self, slices: &mut [IoSlice<'_>]) -> std::io::Result<()> {
        slices.iter().try_for_each(|slice| self.bytes(slice))
    }

    fn flush(&mut self) -> std::io::Result<()>;

    /// Moves to `position` (counted as [`position`](Self::position) is), for an output
    /// that can ([`Counting::enable_seeking`]); others never are asked.
    fn seek_to(&mut self, position: u64) -> std::io::Result<()> {
        let _ = position;
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

impl<W: Write> Output for Counting<W> {
    fn position(&self) -> u64 {
        self.position
    }

    fn message(
        &mut self,
        flatbuffer: &[u8],
        body: Option<&Body>,
        alignment: usize,
    ) -> Result<(usize, usize)> {
        write_message(self, flatbuffer, body, alignment)
    }

    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.write_all(bytes)
    }

    fn slices(&mut self, slices: &mut [IoSlice<'_>]) -> std::io::Result<()> {
        write_all_vectored(self, slices)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Write::flush(self)
    }

    fn seek_to(&mut self, position: u64) -> std::io::Result<()> {
        let seek = self.seek.ok_or(std::io::ErrorKind::Unsupported)?;
        // Relative: the writer counts from where it started, which need not be the start
        // of the file.
        let delta = position as i128 - self.position as i128;
        let delta = i64::try_from(delta).map_err(|_| std::io::ErrorKind::InvalidInput)?;
        seek(&mut self.inner, SeekFrom::Current(delta))?;
        self.position = position;
        Ok(())
    }
}

pub(crate) struct WriterCore<O: Output> {
    pub out: O,
    pub encoder: MessageEncoder,
    pub dictionary_blocks: Vec<fb::Block>,
    pub batch_blocks: Vec<fb::Block>,
}

impl<O: Output> WriterCore<O> {
    /// Writes the schema message.
    pub fn new(
        out: O,
        schema: SchemaRef,
        ids: Option<DictionaryIds>,
        options: WriteOptions,
        file: bool,
    ) -> Result<Self> {
        let mut core = Self {
            out,
            encoder: MessageEncoder::with_ids(schema, ids, options, file)?,
            dictionary_blocks: Vec::new(),
            batch_blocks: Vec::new(),
        };
        let schema_message = core.encoder.schema_message();
        core.message(&schema_message)?;
        Ok(core)
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        self.encoder.schema()
    }

    /// Writes the dictionaries `batch` needs that were not sent yet, then `batch`.
    pub fn write(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<()> {
        for mut message in self.encoder.encode(batch, metadata)? {
            let block = match message.is_deferred() {
                true => self.compressed_as_written(&mut message)?,
                false => self.message(&message)?,
            };
            match message.kind() {
                MessageKind::Dictionary => self.dictionary_blocks.push(block),
                MessageKind::RecordBatch => self.batch_blocks.push(block),
                MessageKind::Schema => {}
            }
        }
        Ok(())
    }

    /// Writes one message; its block (where it went). A failed write names the message
    /// and the byte it started at.
    fn message(&mut self, message: &EncodedMessage) -> Result<fb::Block> {
        let start = self.out.position();
        let alignment = self.encoder.options().alignment();
        let (meta, body) = self
            .out
            .message(message.flatbuffer(), message.body(), alignment)
            .map_err(|e| e.context(self.writing(message.kind(), start)))?;
        Ok(fb::Block::new(start as i64, meta as i32, body as i64))
    }

    /// Writes a message whose body is compressed as it is written: room for the header
    /// (zeros), each buffer as soon as it and those before it are compressed, then the
    /// header over the room, whose size does not depend on the compressed lengths it
    /// holds. The bytes are those [`message`](Self::message) writes.
    fn compressed_as_written(&mut self, message: &mut EncodedMessage) -> Result<fb::Block> {
        let start = self.out.position();
        let alignment = self.encoder.options().alignment();
        let mut write = || -> Result<(usize, usize)> {
            let room = framed_len(message.flatbuffer(), alignment);
            self.out.bytes(&vec![0; room])?;
            let out = &mut self.out;
            self.encoder
                .compress_deferred(message, |slices| out.slices(slices))?;
            let end = self.out.position();
            self.out.seek_to(start)?;
            let (meta, _) = self.out.message(message.flatbuffer(), None, alignment)?;
            self.out.seek_to(end)?;
            Ok((meta, message.body_len()))
        };
        let (meta, body) = write().map_err(|e| e.context(self.writing(message.kind(), start)))?;
        Ok(fb::Block::new(start as i64, meta as i32, body as i64))
    }

    /// "writing <the message> at byte <start>", for errors.
    fn writing(&self, kind: MessageKind, start: u64) -> String {
        let which = match kind {
            MessageKind::Schema => "the schema message".to_string(),
            MessageKind::Dictionary => {
                format!("dictionary message {}", self.dictionary_blocks.len())
            }
            MessageKind::RecordBatch => format!("record batch {}", self.batch_blocks.len()),
        };
        format!("writing {which} at byte {start}")
    }

    /// The end-of-stream marker.
    pub fn write_end(&mut self) -> Result<()> {
        let start = self.out.position();
        self.out
            .bytes(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
            .map_err(|e| {
                crate::IpcError::from(e)
                    .context(format!("writing the end-of-stream marker at byte {start}"))
            })
    }
}

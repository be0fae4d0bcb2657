//! The file reader: footer first, then any batch by index.

use std::io::{Read, Seek, SeekFrom};

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_schema::{Metadata, SchemaRef};

use super::body::read_known;
use super::body_parts::{Body, merge_ranges};
use super::framing::{Prefix, body_length, parse_prefix};
use super::options::ReadOptions;
use super::state::{Decoded, ReadState, parse_footer};
use super::stream_schema::check_stream_schema;
use crate::error::{IpcError, Result};
use crate::fb;
use crate::schema::decode_metadata;

/// Random access to bytes: a file (through `Read + Seek`) or memory already in a [`Buffer`].
pub trait ByteSource {
    /// Total length in bytes.
    fn len(&mut self) -> Result<u64>;

    /// Whether the source is empty.
    fn is_empty(&mut self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// The `len` bytes at `offset`; the caller checked they lie inside the source.
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Buffer>;
}

/// Memory in a `Buffer` (a memory-mapped file, say): every read is a slice, no copy.
impl ByteSource for Buffer {
    fn len(&mut self) -> Result<u64> {
        Ok(Buffer::len(self) as u64)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Buffer> {
        Ok(self.slice(offset as usize, len))
    }
}

/// A `Read + Seek` (a `std::fs::File`, a `Cursor`): each read is one seek and one read
/// into a new allocation.
#[derive(Debug)]
pub struct Seekable<R>(pub R);

impl<R: Read + Seek> ByteSource for Seekable<R> {
    fn len(&mut self) -> Result<u64> {
        Ok(self.0.seek(SeekFrom::End(0))?)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Buffer> {
        self.0.seek(SeekFrom::Start(offset))?;
        // The caller checked that the range lies inside the source, whose length came from
        // seeking to its end: the bytes are there.
        let bytes = read_known(&mut self.0, len)?;
        if bytes.len() != len {
            return Err(IpcError::truncated(
                "the file is shorter than its footer says",
            ));
        }
        Ok(bytes)
    }
}

const MAGICS: [&[u8]; 2] = [b"ALKAID1", b"ARROW1"];

/// Reads an IPC file: the footer first, then any batch by index without reading the others.
///
/// Accepts `ALKAID1` and `ARROW1` files, and checks that the magic at both ends agrees.
/// Over a [`Buffer`] (see [`FileReader::from_buffer`]) decoding is zero-copy: arrays share
/// the buffer's memory, and a buffer is copied only when it is compressed or misaligned
/// for its type. Over a file it is [`FileReader::try_new`].
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, RecordBatch, StringArray};
/// use alkaid_buffer::Buffer;
/// use alkaid_ipc::{FileReader, FileWriter, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
/// let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default())?;
/// for words in [["a", "b"], ["c", "d"]] {
///     let column: ArrayRef = Arc::new(StringArray::from(words.to_vec()));
///     writer.write(&RecordBatch::try_new(schema.clone(), vec![column])?)?;
/// }
/// let bytes = Buffer::from(writer.into_inner()?);
///
/// let mut reader = FileReader::from_buffer(bytes)?;
/// assert_eq!(reader.num_batches(), 2);
/// let second = reader.batch(1)?; // the first is never decoded
/// assert_eq!(second.num_rows(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FileReader<S: ByteSource> {
    source: S,
    pub(super) state: ReadState,
    pub(super) batches: Vec<fb::Block>,
    metadata: Metadata,
    file_len: u64,
    pub(super) next: usize,
    /// Where iteration stops: the number of batches, unless [`select_batches`] narrowed it.
    ///
    /// [`select_batches`]: FileReader::select_batches
    pub(super) end: usize,
    /// The row count of each batch, once read from its metadata.
    pub(super) rows: Vec<Option<usize>>,
}

impl<R: Read + Seek> FileReader<Seekable<R>> {
    /// Opens a file through `Read + Seek`, with default options.
    ///
    /// # Errors
    /// If the magic, the footer or a dictionary is invalid.
    pub fn try_new(input: R) -> Result<Self> {
        Self::open(Seekable(input), ReadOptions::default())
    }
}

impl FileReader<Buffer> {
    /// Opens a file held in memory; decoded arrays share `bytes`.
    ///
    /// # Errors
    /// If the magic, the footer or a dictionary is invalid.
    pub fn from_buffer(bytes: Buffer) -> Result<Self> {
        Self::open(bytes, ReadOptions::default())
    }
}

impl<S: ByteSource> FileReader<S> {
    /// Opens a file from any source, with `options`.
    ///
    /// # Errors
    /// If the magic, the footer or a dictionary is invalid.
    pub fn open(mut source: S, options: ReadOptions) -> Result<Self> {
        let file_len = source.len()?;
        // Smallest file: 8 bytes of leading magic, 4 of footer length, 6 of trailing magic.
        if file_len < 18 {
            return Err(IpcError::truncated(format!(
                "{file_len} bytes are too few for an IPC file"
            )));
        }
        // The magic, and the prefix of the schema message that follows it.
        let head = source.read_at(0, 16)?;
        // The padding after the magic is not read (Arrow C++ writes zeros and checks only
        // the magic), so whatever a writer left there is accepted.
        let magic = MAGICS
            .into_iter()
            .find(|m| head.starts_with(m))
            .ok_or_else(|| {
                IpcError::malformed(format!(
                    "the file does not start with ALKAID1 or ARROW1 (its first bytes are {:?})",
                    String::from_utf8_lossy(&head[..7])
                ))
            })?;
        let tail_len = 4 + magic.len();
        let tail = source.read_at(file_len - tail_len as u64, tail_len)?;
        if &tail[4..] != magic {
            return Err(IpcError::malformed(format!(
                "the file starts with {} but does not end with it",
                String::from_utf8_lossy(magic)
            )));
        }
        let footer_len = i32::from_le_bytes(tail[..4].try_into().expect("4 bytes"));
        let footer_len = u64::try_from(footer_len)
            .ok()
            .filter(|&n| n > 0 && n + (tail_len as u64) + 8 <= file_len)
            .ok_or_else(|| IpcError::malformed(format!("footer length {footer_len}")))?;
        if footer_len > options.max_metadata_bytes as u64 {
            return Err(IpcError::limit(format!(
                "the footer is {footer_len} bytes, more than the metadata limit of {}",
                options.max_metadata_bytes
            )));
        }
        let footer_bytes =
            source.read_at(file_len - tail_len as u64 - footer_len, footer_len as usize)?;
        let mut state = ReadState::new(options);
        let footer = parse_footer(&footer_bytes, &state.options)?;
        let schema = footer
            .schema()
            .ok_or_else(|| IpcError::malformed("the footer has no schema"))?;
        state.set_schema(schema)?;
        let footer_loc = schema._tab.loc();
        let metadata = decode_metadata(footer.custom_metadata())?;
        let batches: Vec<fb::Block> = footer.recordBatches().iter().flatten().copied().collect();
        let batch_count = batches.len();
        let mut reader = Self {
            source,
            state,
            batches,
            metadata,
            file_len,
            next: 0,
            end: batch_count,
            rows: vec![None; batch_count],
        };
        let footer_start = file_len - tail_len as u64 - footer_len;
        reader.check_stream_schema(&head[8..], &footer_bytes, footer_loc, footer_start)?;
        // The footer borrows its own bytes, not the reader, so it is walked in place. A file
        // holds one dictionary per id, which later blocks may only extend: the state
        // refuses a second definition, which would decode earlier batches against the
        // wrong values.
        reader.state.one_dictionary_per_id = true;
        for (i, block) in footer.dictionaries().iter().flatten().enumerate() {
            match reader
                .block(block)
                .map_err(|e| e.context(format!("dictionary block {i}")))?
            {
                Decoded::Dictionary { .. } => {}
                _ => {
                    return Err(IpcError::malformed(format!(
                        "dictionary block {i} is not a dictionary batch"
                    )));
                }
            }
        }
        Ok(reader)
    }

    /// The schema of the batches: the file's, or the columns of it the options select
    /// ([`ReadOptions::with_columns`](crate::ReadOptions::with_columns)).
    pub fn schema(&self) -> SchemaRef {
        self.state.batch_schema().cloned().expect("read in open")
    }

    /// The source the reader reads from.
    pub fn get_ref(&self) -> &S {
        &self.source
    }

    /// The footer's custom metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        self.batches.len()
    }

    /// Batch `index`, read and decoded on its own.
    ///
    /// # Errors
    /// If `index` is out of range or the batch is invalid.
    pub fn batch(&mut self, index: usize) -> Result<RecordBatch> {
        self.batch_with_metadata(index).map(|(batch, _)| batch)
    }

    /// Batch `index` and the custom metadata of its message.
    ///
    /// # Errors
    /// If `index` is out of range or the batch is invalid.
    pub fn batch_with_metadata(&mut self, index: usize) -> Result<(RecordBatch, Metadata)> {
        let block = *self.batches.get(index).ok_or_else(|| {
            IpcError::invalid_argument(format!(
                "batch {index} of a file with {} batches",
                self.batches.len()
            ))
        })?;
        match self
            .block(&block)
            .map_err(|e| e.context(format!("batch {index}")))?
        {
            Decoded::Batch(batch, metadata) => Ok((batch, metadata)),
            _ => Err(IpcError::malformed(format!(
                "block of batch {index} is not a record batch"
            ))),
        }
    }

    /// Reads the schema message that opens the file's stream (right after the leading
    /// magic) and checks it against the footer's. `end` is where the footer starts.
    /// `prefix` is the 8 bytes after the magic.
    fn check_stream_schema(
        &mut self,
        prefix: &[u8],
        footer: &[u8],
        footer_loc: usize,
        end: u64,
    ) -> Result<()> {
        let options = &self.state.options;
        let Some(Prefix::Message { header, metadata }) = parse_prefix(prefix, options)? else {
            return Err(IpcError::malformed(
                "the file's stream does not start with a schema message",
            ));
        };
        let message_len = header + metadata;
        if 8 + message_len as u64 > end {
            return Err(IpcError::malformed(format!(
                "the file's schema message ({message_len} bytes) does not fit before the footer"
            )));
        }
        let framed = self.source.read_at(8, message_len)?;
        let schema = self.state.schema.as_ref().expect("set from the footer");
        check_stream_schema(
            &framed,
            footer,
            footer_loc,
            schema,
            &self.state.ids,
            options,
        )
    }

    /// Reads and decodes the message in `block`: of a record batch that a projection
    /// narrows, only the byte ranges of the selected columns' buffers (merged across gaps
    /// of up to [`ReadOptions::with_fetch_gap`] bytes, each read on its own).
    fn block(&mut self, block: &fb::Block) -> Result<Decoded> {
        let message = self.block_metadata(block)?;
        let metadata = &message.framed[message.header..message.header + message.metadata];
        let body = match self.state.needed_ranges(metadata)? {
            Some(ranges) => {
                let reads = merge_ranges(ranges, self.state.options.fetch_gap);
                let mut parts = Vec::with_capacity(reads.len());
                for range in reads {
                    let bytes = self
                        .source
                        .read_at(message.body_offset + range.start as u64, range.len())?;
                    parts.push((range.start, bytes));
                }
                Body::from_parts(message.body_len, parts)
            }
            None => Body::whole(self.source.read_at(message.body_offset, message.body_len)?),
        };
        self.state.decode_body(metadata, body)
    }

    /// The metadata of the message in `block`, read without its body; checks that the
    /// block lies inside the file.
    pub(super) fn block_metadata(&mut self, block: &fb::Block) -> Result<BlockMetadata> {
        let (offset, meta_len, body_len) =
            (block.offset(), block.metaDataLength(), block.bodyLength());
        let bad = || {
            IpcError::malformed(format!(
                "a block ({meta_len} + {body_len} bytes at {offset}) lies outside the file"
            ))
        };
        let offset = u64::try_from(offset).map_err(|_| bad())?;
        let meta_len = usize::try_from(meta_len).map_err(|_| bad())?;
        let body_len = body_length(body_len)?;
        offset
            .checked_add(meta_len as u64)
            .and_then(|e| e.checked_add(body_len as u64))
            .filter(|&e| e <= self.file_len)
            .ok_or_else(bad)?;
        // The prefix is at most 8 bytes; padding to the block's alignment at most 63.
        if meta_len > self.state.options.max_metadata_bytes.saturating_add(72) {
            return Err(IpcError::limit(format!(
                "a block declares {meta_len} bytes of metadata, more than the limit of {}",
                self.state.options.max_metadata_bytes
            )));
        }
        let framed = self.source.read_at(offset, meta_len)?;
        let (header, metadata) = match parse_prefix(&framed, &self.state.options)? {
            Some(Prefix::Message { header, metadata }) if header + metadata <= meta_len => {
                (header, metadata)
            }
            _ => {
                return Err(IpcError::malformed(
                    "a block does not start with a message prefix",
                ));
            }
        };
        Ok(BlockMetadata {
            framed,
            header,
            metadata,
            body_offset: offset + meta_len as u64,
            body_len,
        })
    }
}

/// A block's framed metadata, read ahead of its body.
pub(super) struct BlockMetadata {
    /// The prefix, the flatbuffer and its padding.
    pub framed: Buffer,
    /// Where the flatbuffer starts in `framed`.
    pub header: usize,
    /// The flatbuffer's length.
    pub metadata: usize,
    pub body_offset: u64,
    pub body_len: usize,
}

impl<S: ByteSource> Iterator for FileReader<S> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        self.next += 1;
        Some(self.batch(self.next - 1))
    }
}

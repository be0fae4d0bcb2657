//! The file readers' core, apart from any I/O: the footer's blocks, and reads as steps of
//! byte ranges to fetch ([`Fetch`]) followed by the decoding of what was fetched. The
//! synchronous file reader answers each step from a [`ByteSource`](crate::ByteSource), an
//! async reader from a ranged source (an object store); both drive the same steps, so both
//! make the same requests. The reads themselves are in `prelude.rs` (the head and the
//! dictionaries) and `batch.rs` (batches and row counts).
//!
//! What is fetched, in order:
//! - before the first batch (the "prelude"): the head of the file (its magic and the schema
//!   message, up to the first block) and the metadata of every dictionary block, in one
//!   step; then the bodies of the dictionaries that the selected columns use;
//! - per batch: its metadata and body in one step; when a projection leaves columns out,
//!   the metadata first and then only the selected buffers' ranges (merged across gaps of
//!   up to [`ReadOptions::with_fetch_gap`] bytes, each kept as its own buffer).

use std::ops::Range;

use alkaid_buffer::Buffer;
use alkaid_schema::{Metadata, SchemaRef};

use crate::error::{IpcError, Result};
use crate::fb;
use crate::read::framing::{Prefix, body_length, parse_prefix};
use crate::read::options::ReadOptions;
use crate::read::state::{ReadState, parse_footer};
use crate::schema::decode_metadata;

/// An open IPC file, apart from its bytes: each read is a [`Step`] whose fetches the
/// caller answers from wherever the file lies. Made by [`FileOpening`](crate::FileOpening);
/// [`FileReader`](crate::FileReader) and alkaid-ipc-async's file reader drive it.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
/// use alkaid_buffer::Buffer;
/// use alkaid_ipc::{FileOpening, FileWriter, Opened, ReadOptions, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("n", DataType::Int32, false),
///     Field::new("s", DataType::Utf8, false),
/// ]));
/// let columns: Vec<ArrayRef> = vec![
///     Arc::new(Int32Array::from(vec![1, 2])),
///     Arc::new(StringArray::from(vec!["a", "b"])),
/// ];
/// let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default())?;
/// writer.write(&RecordBatch::try_new(schema, columns)?)?;
/// let file = Buffer::from(writer.into_inner()?);
/// // Whatever serves byte ranges: here a slice of memory, with every request recorded.
/// let mut requests = Vec::new();
/// let mut fetch = |range: std::ops::Range<u64>| {
///     requests.push(range.clone());
///     Ok(file.slice(range.start as usize, (range.end - range.start) as usize))
/// };
///
/// let options = ReadOptions::default().with_columns([1]);
/// let opening = FileOpening::new(file.len() as u64, options)?;
/// let suffix = fetch(opening.range())?;
/// let Opened::Ready(mut decoder) = opening.resume(suffix)? else {
///     unreachable!("a small footer arrives with the first fetch")
/// };
/// let (batch, _) = decoder.read_batch(0)?.run(&mut decoder, &mut fetch)?;
/// assert_eq!(batch.num_columns(), 1);
/// // The end of the file; its head; the batch's metadata; the selected column's buffers.
/// assert_eq!(requests.len(), 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FileDecoder {
    pub(super) state: ReadState,
    /// The footer's blocks, each checked when it is read: a damaged block costs only its
    /// own batch.
    pub(super) batches: Vec<fb::Block>,
    pub(super) dictionaries: Vec<fb::Block>,
    metadata: Metadata,
    pub(super) file_len: u64,
    /// The row count of each batch, once read from its metadata.
    pub(super) rows: Vec<Option<usize>>,
    /// What the prelude checks, until it has run.
    pub(super) prelude: Option<Prelude>,
}

/// What checking the file's head needs: the footer holds the schema the head's schema
/// message must match.
#[derive(Debug)]
pub(super) struct Prelude {
    pub footer: Buffer,
    /// Where the footer's schema table is in `footer`.
    pub footer_schema: usize,
    pub footer_start: u64,
    pub magic: &'static [u8],
}

/// A block of the footer, checked to lie inside the file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Block {
    pub offset: u64,
    pub metadata_len: usize,
    pub body_len: usize,
}

impl Block {
    /// Where the framed metadata lies in the file.
    pub fn metadata(&self) -> Range<u64> {
        self.offset..self.body_start()
    }

    pub fn body_start(&self) -> u64 {
        self.offset + self.metadata_len as u64
    }

    /// Where the body lies in the file.
    pub fn body(&self) -> Range<u64> {
        self.body_start()..self.body_start() + self.body_len as u64
    }
}

/// A block's message, read ahead of its body: the framed metadata and where its
/// flatbuffer lies in it.
#[derive(Debug)]
pub(super) struct Framed {
    bytes: Buffer,
    header: usize,
    metadata: usize,
}

impl Framed {
    /// Parses the prefix of a block's framed metadata.
    pub fn parse(bytes: Buffer, options: &ReadOptions) -> Result<Self> {
        match parse_prefix(&bytes, options)? {
            Some(Prefix::Message { header, metadata }) if header + metadata <= bytes.len() => {
                Ok(Self {
                    bytes,
                    header,
                    metadata,
                })
            }
            _ => Err(IpcError::malformed(
                "a block does not start with a message prefix",
            )),
        }
    }

    /// The message flatbuffer.
    pub fn flatbuffer(&self) -> &[u8] {
        &self.bytes[self.header..self.header + self.metadata]
    }
}

impl FileDecoder {
    /// Reads the footer (`footer`, at `footer_start` of a file of `file_len` bytes that
    /// ends with `magic`).
    pub(crate) fn from_footer(
        footer: Buffer,
        footer_start: u64,
        magic: &'static [u8],
        file_len: u64,
        options: ReadOptions,
    ) -> Result<Self> {
        let mut state = ReadState::new(options);
        let parsed = parse_footer(&footer, &state.options)?;
        let schema = parsed
            .schema()
            .ok_or_else(|| IpcError::malformed("the footer has no schema"))?;
        state.set_schema(schema)?;
        // A file holds one dictionary per id, which later blocks may only extend: the
        // state refuses a second definition, which would decode earlier batches against
        // the wrong values.
        state.one_dictionary_per_id = true;
        let footer_schema = schema._tab.loc();
        let metadata = decode_metadata(parsed.custom_metadata())?;
        let batches: Vec<fb::Block> = parsed.recordBatches().iter().flatten().copied().collect();
        let dictionaries = parsed.dictionaries().iter().flatten().copied().collect();
        let rows = vec![None; batches.len()];
        Ok(Self {
            state,
            rows,
            batches,
            dictionaries,
            metadata,
            file_len,
            prelude: Some(Prelude {
                footer,
                footer_schema,
                footer_start,
                magic,
            }),
        })
    }

    /// The schema of the batches: the file's, or the columns of it the options select
    /// ([`ReadOptions::with_columns`]).
    pub fn schema(&self) -> SchemaRef {
        self.state
            .batch_schema()
            .cloned()
            .expect("read with the footer")
    }

    /// The footer's custom metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        self.batches.len()
    }

    /// Where batch `index` starts in the file, as the footer says (checked only when the
    /// batch is read), or `None` past the last batch or for a negative offset. For
    /// splitting a file's batches among readers by byte range, as query engines do.
    pub fn batch_offset(&self, index: usize) -> Option<u64> {
        u64::try_from(self.batches.get(index)?.offset()).ok()
    }

    /// Checks that `batches` is a range of this file's batches, for a reader about to
    /// iterate over it.
    ///
    /// # Errors
    /// If the range is reversed or ends past the last batch.
    pub fn check_batch_range(&self, batches: &Range<usize>) -> Result<()> {
        let count = self.batches.len();
        if batches.start > batches.end || batches.end > count {
            return Err(IpcError::invalid_argument(format!(
                "batches {}..{} of a file with {count} batches",
                batches.start, batches.end
            )));
        }
        Ok(())
    }

    /// The length of the file, in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The options the file is read with.
    pub fn options(&self) -> &ReadOptions {
        &self.state.options
    }

    /// The block of batch `index`, checked.
    pub(super) fn block(&self, index: usize) -> Result<Block> {
        let block = self.batches.get(index).ok_or_else(|| {
            IpcError::invalid_argument(format!(
                "batch {index} of a file with {} batches",
                self.batches.len()
            ))
        })?;
        checked_block(block, self.file_len, &self.state.options)
            .map_err(|e| e.context(format!("batch {index}")))
    }
}

/// Checks that `fetched` holds the bytes of `ranges`: one buffer per range, of its length.
pub(super) fn check_fetched(ranges: &[Range<u64>], fetched: &[Buffer]) -> Result<()> {
    if fetched.len() != ranges.len() {
        return Err(IpcError::invalid_argument(format!(
            "{} ranges were fetched for a step that asked for {}",
            fetched.len(),
            ranges.len()
        )));
    }
    for (range, bytes) in ranges.iter().zip(fetched) {
        if bytes.len() as u64 != range.end - range.start {
            return Err(IpcError::truncated(format!(
                "the source returned {} bytes for bytes {}..{} of the file",
                bytes.len(),
                range.start,
                range.end
            )));
        }
    }
    Ok(())
}

/// A footer block, checked to lie inside the file with metadata within the limit.
pub(super) fn checked_block(
    block: &fb::Block,
    file_len: u64,
    options: &ReadOptions,
) -> Result<Block> {
    let (offset, metadata_len, body_len) =
        (block.offset(), block.metaDataLength(), block.bodyLength());
    let bad = || {
        IpcError::malformed(format!(
            "{metadata_len} + {body_len} bytes at {offset} lie outside the file"
        ))
    };
    let offset = u64::try_from(offset).map_err(|_| bad())?;
    let metadata_len = usize::try_from(metadata_len).map_err(|_| bad())?;
    let body_len = body_length(body_len)?;
    offset
        .checked_add(metadata_len as u64)
        .and_then(|e| e.checked_add(body_len as u64))
        .filter(|&e| e <= file_len)
        .ok_or_else(bad)?;
    // The prefix is at most 8 bytes; padding to the block's alignment at most 63.
    if metadata_len > options.max_metadata_bytes.saturating_add(72) {
        return Err(IpcError::limit(format!(
            "{metadata_len} bytes of metadata, more than the limit of {}",
            options.max_metadata_bytes
        )));
    }
    Ok(Block {
        offset,
        metadata_len,
        body_len,
    })
}

/// What to do with the fetched bytes: decode them, or plan the next fetch.
type Then<T> = Box<dyn FnOnce(&mut FileDecoder, Vec<Buffer>) -> Result<Step<T>> + Send>;

/// Byte ranges of the file that a read needs before it can go on.
///
/// Fetch every range of [`ranges`](Self::ranges) (in any order, concurrently if the source
/// can), then hand the bytes, in the order of the ranges, to [`resume`](Self::resume).
#[must_use = "a read goes on only when its ranges are fetched and handed to resume"]
pub struct Fetch<T> {
    ranges: Vec<Range<u64>>,
    then: Then<T>,
}

/// The next step of a read: more bytes to fetch, or its result.
#[must_use = "a read goes on only when its ranges are fetched and handed to resume"]
pub enum Step<T> {
    /// Fetch these ranges and resume.
    Fetch(Fetch<T>),
    /// The read is done.
    Done(T),
}

impl<T: 'static> Fetch<T> {
    pub(crate) fn new(
        ranges: Vec<Range<u64>>,
        then: impl FnOnce(&mut FileDecoder, Vec<Buffer>) -> Result<Step<T>> + Send + 'static,
    ) -> Self {
        Self {
            ranges,
            then: Box::new(then),
        }
    }

    /// The byte ranges to fetch, each inside the file; an empty range is answered with an
    /// empty buffer, without asking the source.
    pub fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }

    /// Goes on with `fetched`: the bytes of [`ranges`](Self::ranges), in their order.
    ///
    /// # Errors
    /// If a range's bytes are missing or of the wrong length (a source that returned
    /// fewer bytes than asked, say), or decoding what they hold fails.
    pub fn resume(self, decoder: &mut FileDecoder, fetched: Vec<Buffer>) -> Result<Step<T>> {
        check_fetched(&self.ranges, &fetched)?;
        (self.then)(decoder, fetched)
    }

    /// This read, followed by `next` on its result.
    pub(crate) fn and_then<U: 'static>(
        self,
        next: impl FnOnce(&mut FileDecoder, T) -> Result<Step<U>> + Send + 'static,
    ) -> Fetch<U> {
        let then = self.then;
        Fetch::new(self.ranges, move |decoder, fetched| {
            match then(decoder, fetched)? {
                Step::Done(value) => next(decoder, value),
                Step::Fetch(more) => Ok(Step::Fetch(more.and_then(next))),
            }
        })
    }
}

impl<T: 'static> Step<T> {
    /// This step, followed by `next` on its result.
    pub(crate) fn and_then<U: 'static>(
        self,
        decoder: &mut FileDecoder,
        next: impl FnOnce(&mut FileDecoder, T) -> Result<Step<U>> + Send + 'static,
    ) -> Result<Step<U>> {
        match self {
            Step::Done(value) => next(decoder, value),
            Step::Fetch(fetch) => Ok(Step::Fetch(fetch.and_then(next))),
        }
    }

    /// Answers every fetch from `fetch_range` one range at a time, until the result.
    ///
    /// # Errors
    /// What `fetch_range` or a step returns.
    pub fn run(
        self,
        decoder: &mut FileDecoder,
        mut fetch_range: impl FnMut(Range<u64>) -> Result<Buffer>,
    ) -> Result<T> {
        let mut step = self;
        loop {
            match step {
                Step::Done(value) => return Ok(value),
                Step::Fetch(fetch) => {
                    let fetched = fetch
                        .ranges()
                        .iter()
                        .map(|range| match range.is_empty() {
                            true => Ok(Buffer::empty()),
                            false => fetch_range(range.clone()),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    step = fetch.resume(decoder, fetched)?;
                }
            }
        }
    }
}

impl<T> std::fmt::Debug for Fetch<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetch")
            .field("ranges", &self.ranges)
            .finish_non_exhaustive()
    }
}

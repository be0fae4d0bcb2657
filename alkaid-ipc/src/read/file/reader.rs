//! The synchronous file reader: footer first, then any batch by index, each read from a
//! [`ByteSource`] as [`FileDecoder`] plans it.

use std::io::{Read, Seek, SeekFrom};

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_schema::{Metadata, SchemaRef};

use crate::error::{IpcError, Result};
use crate::read::body::from_read::read_known;
use crate::read::file::decoder::{FileDecoder, Step};
use crate::read::file::open::{FileOpening, Opened};
use crate::read::options::ReadOptions;

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

/// Reads an IPC file: the footer first, then any batch by index without reading the others.
///
/// Accepts `ALKAID1` and `ARROW1` files, and checks that the magic at both ends agrees.
/// Over a [`Buffer`] (see [`FileReader::from_buffer`]) decoding is zero-copy: arrays share
/// the buffer's memory, and a buffer is copied only when it is compressed or misaligned
/// for its type. Over a file it is [`FileReader::try_new`]. What it reads, and in which
/// order, is [`FileDecoder`]'s plan, which async readers of remote files share.
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
    pub(super) decoder: FileDecoder,
    pub(super) next: usize,
    /// Where iteration stops: the number of batches, unless [`select_batches`] narrowed it.
    ///
    /// [`select_batches`]: FileReader::select_batches
    pub(super) end: usize,
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
    /// Opens a file from any source, with `options`: reads its footer, checks its head and
    /// decodes its dictionaries.
    ///
    /// # Errors
    /// If the magic, the footer or a dictionary is invalid.
    pub fn open(mut source: S, options: ReadOptions) -> Result<Self> {
        let file_len = source.len()?;
        let mut opening = FileOpening::new(file_len, options)?;
        let mut decoder = loop {
            let range = opening.range();
            let bytes = source.read_at(range.start, (range.end - range.start) as usize)?;
            match opening.resume(bytes)? {
                Opened::Ready(decoder) => break *decoder,
                Opened::Fetch(more) => opening = more,
            }
        };
        let prelude = decoder.read_prelude()?;
        run(prelude, &mut decoder, &mut source)?;
        let end = decoder.num_batches();
        Ok(Self {
            source,
            decoder,
            next: 0,
            end,
        })
    }

    /// The schema of the batches: the file's, or the columns of it the options select
    /// ([`ReadOptions::with_columns`](crate::ReadOptions::with_columns)).
    pub fn schema(&self) -> SchemaRef {
        self.decoder.schema()
    }

    /// The source the reader reads from.
    pub fn get_ref(&self) -> &S {
        &self.source
    }

    /// The footer's custom metadata.
    pub fn metadata(&self) -> &Metadata {
        self.decoder.metadata()
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        self.decoder.num_batches()
    }

    /// Where batch `index` starts in the file, as the footer says
    /// ([`FileDecoder::batch_offset`](crate::FileDecoder::batch_offset)).
    pub fn batch_offset(&self, index: usize) -> Option<u64> {
        self.decoder.batch_offset(index)
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
        let step = self.decoder.read_batch(index)?;
        run(step, &mut self.decoder, &mut self.source)
    }

    /// Answers `step`'s fetches from the source.
    pub(super) fn run<T: 'static>(&mut self, step: Step<T>) -> Result<T> {
        run(step, &mut self.decoder, &mut self.source)
    }
}

/// Answers `step`'s fetches from `source`, one range at a time.
fn run<T: 'static>(
    step: Step<T>,
    decoder: &mut FileDecoder,
    source: &mut impl ByteSource,
) -> Result<T> {
    step.run(decoder, |range| {
        source.read_at(range.start, (range.end - range.start) as usize)
    })
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

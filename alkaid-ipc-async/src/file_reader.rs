//! An IPC file read from a [`RangeSource`] (an object store, say): alkaid-ipc's
//! [`FileDecoder`] plans every fetch, exactly as for the synchronous reader, and this
//! reader answers each step's ranges concurrently.

use std::ops::Range;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    FileDecoder, FileOpening, IpcError, IpcErrorKind, Opened, ReadOptions, Result, Step,
};
use alkaid_schema::{Metadata, SchemaRef};
use futures_core::Stream;
use futures_util::{StreamExt, TryStreamExt, stream};

use crate::source::RangeSource;

/// The record batches of an IPC file whose bytes are fetched by range.
///
/// Opening costs one request (the last 64 KiB, which usually hold the whole footer:
/// [`ReadOptions::with_footer_prefetch`]) and a second only when the footer is larger.
/// The first batch read also fetches the head of the file and the dictionaries the
/// selected columns use; each batch then fetches its metadata and body, or with a
/// projection ([`ReadOptions::with_columns`]) its metadata and then only the selected
/// buffers' ranges. The ranges of one step are fetched concurrently, up to
/// [`ReadOptions::with_concurrent_fetches`] at a time.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
/// use alkaid_buffer::Buffer;
/// use alkaid_ipc::{FileWriter, ReadOptions, WriteOptions};
/// use alkaid_ipc_async::AsyncFileReader;
/// use alkaid_schema::{DataType, Field, Schema};
/// use futures_util::TryStreamExt;
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
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
/// // Any RangeSource: memory here, an object store with the `object_store` feature.
/// let file = Buffer::from(writer.into_inner()?);
///
/// let options = ReadOptions::default().with_column_names(["s"]);
/// let reader = AsyncFileReader::open(file, options).await?;
/// assert_eq!(reader.schema().fields()[0].name(), "s");
/// let batches: Vec<RecordBatch> = reader.into_stream().try_collect().await?;
/// assert_eq!(batches[0].num_columns(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncFileReader<S> {
    source: S,
    decoder: FileDecoder,
    next: usize,
    /// Where iteration stops: the number of batches, unless narrowed.
    end: usize,
}

impl<S: RangeSource> AsyncFileReader<S> {
    /// Opens the file: reads its footer, in one request or two.
    ///
    /// # Errors
    /// If fetching fails, or the file's end or footer is invalid.
    pub async fn open(source: S, options: ReadOptions) -> Result<Self> {
        let wanted = options.footer_prefetch().max(18) as u64;
        let (file_len, suffix) = source.fetch_suffix(wanted).await?;
        let mut opening = FileOpening::new(file_len, options)?;
        let mut fetched = suffix;
        let decoder = loop {
            match opening.resume(fetched)? {
                Opened::Ready(decoder) => break *decoder,
                Opened::Fetch(more) => {
                    fetched = source.fetch(more.range()).await?;
                    opening = more;
                }
            }
        };
        let end = decoder.num_batches();
        Ok(Self {
            source,
            decoder,
            next: 0,
            end,
        })
    }

    /// The schema of the batches: the file's, or the columns of it the options select.
    pub fn schema(&self) -> SchemaRef {
        self.decoder.schema()
    }

    /// The footer's custom metadata.
    pub fn metadata(&self) -> &Metadata {
        self.decoder.metadata()
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        self.decoder.num_batches()
    }

    /// The source the reader reads from.
    pub fn get_ref(&self) -> &S {
        &self.source
    }

    /// Checks the head of the file and decodes the dictionaries now rather than with the
    /// first batch, so that their errors come first.
    ///
    /// # Errors
    /// If fetching fails, or the head or a dictionary is invalid.
    pub async fn read_dictionaries(&mut self) -> Result<()> {
        let step = self.decoder.read_prelude()?;
        self.run(step).await
    }

    /// Batch `index`, fetched and decoded on its own.
    ///
    /// # Errors
    /// If `index` is out of range, fetching fails or the batch is invalid.
    pub async fn batch(&mut self, index: usize) -> Result<RecordBatch> {
        self.batch_with_metadata(index)
            .await
            .map(|(batch, _)| batch)
    }

    /// Batch `index` and the custom metadata of its message.
    ///
    /// # Errors
    /// As [`batch`](Self::batch).
    pub async fn batch_with_metadata(&mut self, index: usize) -> Result<(RecordBatch, Metadata)> {
        let step = self.decoder.read_batch(index)?;
        self.run(step).await
    }

    /// Makes [`into_stream`](Self::into_stream) and [`next_batch`](Self::next_batch)
    /// yield batches `range` (and then stop).
    ///
    /// # Errors
    /// If the range is reversed or ends past the last batch.
    pub fn select_batches(&mut self, range: Range<usize>) -> Result<()> {
        let batches = self.decoder.num_batches();
        if range.start > range.end || range.end > batches {
            return Err(IpcError::new(
                IpcErrorKind::InvalidArgument,
                format!(
                    "batches {}..{} of a file with {batches} batches",
                    range.start, range.end
                ),
            ));
        }
        (self.next, self.end) = (range.start, range.end);
        Ok(())
    }

    /// The next batch of the selected range, or `None` after the last.
    pub async fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        if self.next >= self.end {
            return None;
        }
        self.next += 1;
        Some(self.batch(self.next - 1).await)
    }

    /// The number of rows of batch `index`, from its metadata alone.
    ///
    /// # Errors
    /// If `index` is out of range, fetching fails or the metadata is invalid.
    pub async fn batch_rows(&mut self, index: usize) -> Result<usize> {
        let step = self.decoder.batch_rows(index)?;
        self.run(step).await
    }

    /// Rows `rows` of the file, counted across its batches: the batches that hold them,
    /// each sliced to its part of the range. Finding them fetches the metadata of the
    /// batches up to the range's end (16 at a time), never a body outside the range.
    ///
    /// # Errors
    /// If the range is reversed or ends past the file's rows, or fetching fails; the
    /// stream's items fail as [`batch`](Self::batch) does.
    pub async fn read_rows(
        &mut self,
        rows: Range<usize>,
    ) -> Result<impl Stream<Item = Result<RecordBatch>> + Send + '_> {
        let step = self.decoder.plan_rows(rows)?;
        let parts = self.run(step).await?;
        // Each part is fetched when the stream is polled for it: one batch in memory.
        Ok(stream::unfold(
            (self, parts.into_iter()),
            |(reader, mut parts)| async move {
                let (index, offset, len) = parts.next()?;
                let batch = reader.batch(index).await.map(|b| b.slice(offset, len));
                Some((batch, (reader, parts)))
            },
        ))
    }

    /// The selected batches, in order, as a [`Stream`]; each is fetched when the stream
    /// is polled for it.
    pub fn into_stream(self) -> impl Stream<Item = Result<RecordBatch>> + Send {
        stream::unfold(self, |mut reader| async move {
            let batch = reader.next_batch().await?;
            Some((batch, reader))
        })
    }

    /// Answers `step`'s fetches from the source, each step's ranges concurrently.
    async fn run<T: 'static>(&mut self, mut step: Step<T>) -> Result<T> {
        let concurrency = self.decoder.options().concurrent_fetches();
        loop {
            match step {
                Step::Done(value) => return Ok(value),
                Step::Fetch(fetch) => {
                    let source = &self.source;
                    let fetched: Vec<Buffer> = stream::iter(fetch.ranges().to_vec())
                        .map(|range| async move {
                            match range.is_empty() {
                                true => Ok(Buffer::empty()),
                                false => source.fetch(range).await,
                            }
                        })
                        .buffered(concurrency)
                        .try_collect()
                        .await?;
                    step = fetch.resume(&mut self.decoder, fetched)?;
                }
            }
        }
    }
}

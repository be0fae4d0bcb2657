//! An IPC file read from a [`RangeSource`] (an object store, say): alkaid-ipc's
//! [`FileDecoder`] plans every fetch, exactly as for the synchronous reader, and this
//! reader answers each step's ranges concurrently.

use std::collections::VecDeque;
use std::ops::Range;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    BatchPlan, FileDecoder, FileOpening, IpcError, IpcErrorKind, Opened, ReadOptions, Result, Step,
};
use alkaid_schema::{Metadata, SchemaRef};
use futures_core::Stream;
use futures_util::stream;

use crate::source::RangeSource;

/// A batch's plan and its fetched bytes, waiting to be decoded.
type Fetched = (BatchPlan, Vec<Buffer>);

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
    /// How many batches the stream reads together.
    readahead: usize,
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
            readahead: 4,
        })
    }

    /// How many batches [`into_stream`](Self::into_stream) fetches ahead (4 by default, at
    /// least 1): when it needs a batch it does not hold, it plans the next `batches`
    /// batches (their metadata in one step, when a projection needs it) and fetches all
    /// their ranges in the next, so that a source with latency (an object store) waits two
    /// round trips per group rather than per batch. Each batch is decoded only when the
    /// stream is polled for it: the fetched bytes of up to `batches` batches are held, and
    /// one decoded batch.
    pub fn with_readahead(mut self, batches: usize) -> Self {
        self.readahead = batches.max(1);
        self
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

    /// Where batch `index` starts in the file, as the footer says
    /// ([`FileDecoder::batch_offset`]).
    pub fn batch_offset(&self, index: usize) -> Option<u64> {
        self.decoder.batch_offset(index)
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
        self.decoder.check_batch_range(&range)?;
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

    /// The selected batches, in order, as a [`Stream`]. With a readahead of `k`
    /// ([`with_readahead`](Self::with_readahead)), the byte ranges of the next `k` batches
    /// are fetched together when the stream needs a batch it does not hold, and each batch
    /// is decoded only when it is polled for: at most `k` batches' fetched bytes and one
    /// decoded batch are held.
    pub fn into_stream(self) -> impl Stream<Item = Result<RecordBatch>> + Send {
        stream::unfold(
            (self, VecDeque::new()),
            |(mut reader, mut ahead): (Self, VecDeque<Result<Fetched>>)| async move {
                if ahead.is_empty() {
                    // The head and dictionaries first, once, rather than with every batch.
                    if let Err(e) = reader.read_dictionaries().await {
                        reader.next = reader.end;
                        return Some((Err(e), (reader, ahead)));
                    }
                    ahead = reader.fetch_ahead().await;
                }
                let (plan, bytes) = match ahead.pop_front()? {
                    Ok(fetched) => fetched,
                    Err(e) => return Some((Err(e), (reader, ahead))),
                };
                let batch = reader.decoder.decode_planned(plan, bytes);
                Some((batch.map(|(batch, _)| batch), (reader, ahead)))
            },
        )
    }

    /// Plans the next `readahead` batches (their metadata in one step, when a projection
    /// needs it) and fetches all their ranges in the next.
    async fn fetch_ahead(&mut self) -> VecDeque<Result<Fetched>> {
        let group = self.next..self.end.min(self.next + self.readahead);
        self.next = group.end;
        let steps = group.map(|index| self.decoder.plan_batch(index)).collect();
        let plans = self.run_together(steps).await;
        let wanted = plans
            .iter()
            .map(|plan| plan.as_ref().ok().map(|p| p.ranges().to_vec()))
            .collect();
        let fetched = self.fetch_grouped(wanted).await;
        plans
            .into_iter()
            .zip(fetched)
            .map(|(plan, bytes)| Ok((plan?, bytes.expect("fetched for every plan")?)))
            .collect()
    }

    /// Answers `step`'s fetches from the source, each step's ranges concurrently.
    async fn run<T: 'static>(&mut self, step: Step<T>) -> Result<T> {
        let mut results = self.run_together(vec![Ok(step)]).await;
        results.pop().expect("one result per step")
    }

    /// Answers the fetches of several reads in lockstep: the ranges all of them need next
    /// are fetched together (up to the concurrency limit at a time), then each read goes on
    /// with its own, in order. A read that fails (its ranges, or decoding) fails alone.
    async fn run_together<T: 'static>(
        &mut self,
        mut steps: Vec<Result<Step<T>>>,
    ) -> Vec<Result<T>> {
        loop {
            let wanted: Vec<Option<Vec<Range<u64>>>> = steps
                .iter()
                .map(|step| match step {
                    Ok(Step::Fetch(fetch)) => Some(fetch.ranges().to_vec()),
                    _ => None,
                })
                .collect();
            if wanted.iter().all(Option::is_none) {
                break;
            }
            let fetched = self.fetch_grouped(wanted).await;
            for (step, bytes) in steps.iter_mut().zip(fetched) {
                let Some(bytes) = bytes else { continue };
                // Taken out to be resumed; the placeholder costs no allocation.
                let placeholder = Err(IpcError::new(IpcErrorKind::Io, String::new()));
                let Ok(Step::Fetch(fetch)) = std::mem::replace(step, placeholder) else {
                    unreachable!("only pending fetches asked for bytes")
                };
                *step = bytes.and_then(|bytes| fetch.resume(&mut self.decoder, bytes));
            }
        }
        steps
            .into_iter()
            .map(|step| match step {
                Ok(Step::Done(value)) => Ok(value),
                Ok(Step::Fetch(_)) => unreachable!("every fetch was answered"),
                Err(e) => Err(e),
            })
            .collect()
    }

    /// Fetches the ranges of every read that has some (`None`: nothing to fetch for it) in
    /// one call of the source; each read gets its bytes in order, or the first error among
    /// its ranges.
    async fn fetch_grouped(
        &self,
        wanted: Vec<Option<Vec<Range<u64>>>>,
    ) -> Vec<Option<Result<Vec<Buffer>>>> {
        let concurrency = self.decoder.options().concurrent_fetches();
        // Empty ranges are answered here; the source sees the others.
        let asked: Vec<Range<u64>> = wanted
            .iter()
            .flatten()
            .flatten()
            .filter(|r| !r.is_empty())
            .cloned()
            .collect();
        let answers = match asked.is_empty() {
            true => Vec::new(),
            false => self.source.fetch_many(asked, concurrency).await,
        };
        let mut answers = answers.into_iter();
        wanted
            .into_iter()
            .map(|ranges| {
                let ranges = ranges?;
                let mut bytes = Vec::with_capacity(ranges.len());
                let mut failed = None;
                for range in ranges {
                    let answer = match range.is_empty() {
                        true => Ok(Buffer::empty()),
                        false => answers.next().unwrap_or_else(|| Err(missing())),
                    };
                    match answer {
                        Ok(b) => bytes.push(b),
                        Err(e) => failed = failed.or(Some(e)),
                    }
                }
                Some(match failed {
                    Some(e) => Err(e),
                    None => Ok(bytes),
                })
            })
            .collect()
    }
}

/// The error for a range a source left unanswered.
fn missing() -> IpcError {
    IpcError::new(
        IpcErrorKind::Truncated,
        "the source answered fewer ranges than it was asked for",
    )
}

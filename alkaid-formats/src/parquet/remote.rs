//! Parquet read from any [`RangeSource`] (an object store, HTTP, memory, a local file),
//! asynchronously and by ranges: the footer first (one request for its last 64 KiB, which
//! holds most footers whole), the page index when a predicate can use it, then only the
//! column chunks of the selected columns in the row groups that survive pruning, and of
//! those only the pages the page index keeps.

use std::ops::Range;
use std::sync::Arc;

use alkaid_ipc_async::RangeSource;
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::async_reader::{AsyncFileReader, ParquetRecordBatchStreamBuilder};
use parquet::errors::ParquetError;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader};

use super::ReadOptions;
use crate::batches::unpanicked;
use crate::error::{FormatError, Result};
use crate::stream::{BatchStream, ReadError, answer};

/// Bytes fetched from the end of the file to find the footer: most footers fit, so the
/// footer costs one request; a longer one costs a second.
const FOOTER_GUESS: usize = 64 * 1024;

/// Ranges fetched at once.
const CONCURRENT_FETCHES: usize = 8;

/// The batches of the Parquet file behind `source` that `options` select; `place` names
/// the file in errors (a path or URL).
///
/// # Errors
/// If the source fails, the footer is invalid, or `options` name columns or row groups the
/// file does not have.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// use alkaid_formats::parquet::{self as pq, ReadOptions};
/// use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
/// use alkaid_schema::{DataType, Field, Schema};
/// use futures_util::TryStreamExt;
/// use std::sync::Arc;
///
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
/// let n: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![n])?;
/// let mut file = Vec::new();
/// let mut writer = pq::ParquetWriter::try_new(&mut file, schema, &pq::WriteOptions::default())?;
/// writer.write(&batch)?;
/// writer.finish()?;
///
/// // Any RangeSource: here the bytes in memory; an object store through
/// // alkaid_ipc_async::ObjectStoreSource.
/// let source = alkaid_buffer::Buffer::from_vec(file);
/// let stream = pq::read_source(source, "n.parquet", ReadOptions::default()).await?;
/// let batches: Vec<RecordBatch> = stream.try_collect().await?;
/// assert_eq!(batches[0].num_rows(), 3);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// # })
/// # }
/// ```
pub async fn read_source<S: RangeSource + 'static>(
    source: S,
    place: impl Into<String>,
    options: ReadOptions,
) -> Result<BatchStream> {
    let place = place.into();
    let failed = |e: ParquetError| FormatError::new(&place, e);
    let len = source
        .size()
        .await
        .map_err(|e| FormatError::new(&place, e))?;
    let mut reader = RangeReader {
        source: Arc::new(source),
        len,
        page_index: options.page_index(),
    };
    let reader_options = options.reader_options();
    let metadata = ArrowReaderMetadata::load_async(&mut reader, reader_options)
        .await
        .map_err(failed)?;
    let builder = ParquetRecordBatchStreamBuilder::new_with_metadata(reader, metadata);
    let builder = options.configure(builder, len, &place)?;
    let stream = unpanicked(|| builder.build())
        .map_err(|e| FormatError::new(&place, e))?
        .map_err(failed)?;
    let schema = Arc::clone(stream.schema());
    BatchStream::new(place, &schema, stream.map(|b| b.map_err(ReadError::from)))
}

/// The batches of the Parquet object at `path` in `store`, read by ranges.
///
/// # Errors
/// As [`read_source`].
#[cfg(feature = "object_store")]
pub async fn read_object(
    store: Arc<dyn object_store::ObjectStore>,
    path: &object_store::path::Path,
    options: ReadOptions,
) -> Result<BatchStream> {
    let source = alkaid_ipc_async::ObjectStoreSource::new(store, path.clone());
    read_source(source, path.to_string(), options).await
}

/// A [`RangeSource`] as arrow-rs's asynchronous file: every range is checked against the
/// file's length before it is asked for (the footer's offsets are hostile until checked),
/// and every answer against the range's length.
struct RangeReader<S> {
    source: Arc<S>,
    len: u64,
    page_index: PageIndexPolicy,
}

impl<S: RangeSource + 'static> RangeReader<S> {
    fn fetch_all(
        &self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'static, parquet::errors::Result<Vec<Bytes>>> {
        let source = Arc::clone(&self.source);
        let len = self.len;
        Box::pin(async move {
            if let Some(bad) = ranges.iter().find(|r| r.start > r.end || r.end > len) {
                return Err(ParquetError::General(format!(
                    "bytes {}..{} asked for, but the file has {len}",
                    bad.start, bad.end
                )));
            }
            let wanted: Vec<Range<u64>> =
                ranges.iter().filter(|r| r.start < r.end).cloned().collect();
            let mut fetched = source
                .fetch_many(wanted, CONCURRENT_FETCHES)
                .await
                .into_iter();
            let mut answers = Vec::with_capacity(ranges.len());
            for range in ranges {
                if range.start == range.end {
                    answers.push(Bytes::new());
                    continue;
                }
                let buffer = fetched
                    .next()
                    .ok_or_else(|| ParquetError::General("a range went unanswered".into()))?
                    .map_err(|e| ParquetError::External(Box::new(e)))?;
                answers.push(answer(&range, buffer).map_err(ParquetError::External)?);
            }
            Ok(answers)
        })
    }
}

impl<S: RangeSource + 'static> AsyncFileReader for RangeReader<S> {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        let all = self.fetch_all(vec![range]);
        Box::pin(async move { Ok(all.await?.pop().unwrap_or_default()) })
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, parquet::errors::Result<Vec<Bytes>>> {
        self.fetch_all(ranges)
    }

    fn get_metadata<'a>(
        &'a mut self,
        _options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        Box::pin(async move {
            let len = self.len;
            let reader = ParquetMetaDataReader::new()
                .with_page_index_policy(self.page_index)
                .with_prefetch_hint(Some(FOOTER_GUESS));
            Ok(Arc::new(reader.load_and_finish(self, len).await?))
        })
    }
}

//! Parquet read from any [`RangeSource`] (an object store, HTTP, memory, a local file),
//! asynchronously and by ranges: the footer first (one request for its last 64 KiB, which
//! holds most footers whole), the page index when a predicate can use it, then only the
//! column chunks of the selected columns in the row groups that survive pruning, and of
//! those only the pages the page index keeps.

use std::ops::Range;
use std::sync::Arc;

use alkaid_ipc_async::RangeSource;
use bytes::Bytes;
use std::panic::AssertUnwindSafe;

use bytes::Buf;
use futures_util::future::BoxFuture;
use futures_util::{FutureExt, StreamExt};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::async_reader::{
    AsyncFileReader, MetadataFetch, ParquetRecordBatchStreamBuilder,
};
use parquet::errors::ParquetError;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader};
use parquet::file::reader::{ChunkReader, Length};

use super::pages::check_pages;
use super::{ParquetReadOptions, footer, int96};
use crate::batches::{panicked, unpanicked};
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
/// use alkaid_formats::parquet::{self as pq, ParquetReadOptions};
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
/// let stream = pq::read_source(source, "n.parquet", ParquetReadOptions::default()).await?;
/// let batches: Vec<RecordBatch> = stream.try_collect().await?;
/// assert_eq!(batches[0].num_rows(), 3);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// # })
/// # }
/// ```
pub async fn read_source<S: RangeSource + 'static>(
    source: S,
    place: impl Into<String>,
    options: ParquetReadOptions,
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
        pages: false,
    };
    let reader_options = options.reader_options();
    let load = ArrowReaderMetadata::load_async(&mut reader, reader_options);
    let metadata = AssertUnwindSafe(load)
        .catch_unwind()
        .await
        .map_err(|panic| FormatError::new(&place, panicked(panic)))?
        .map_err(failed)?;
    let metadata = options
        .retyped(metadata)
        .map_err(|e| FormatError::new(&place, e))?;
    // From here on what is fetched is column chunks and pages: their headers are checked.
    reader.pages = true;
    let builder =
        ParquetRecordBatchStreamBuilder::new_with_metadata(reader.clone(), metadata.clone());
    let (builder, decoded) = options.configure_guarded(builder, len, &place)?;
    // INT96 values are checked before the first batch, not here: the schema stays
    // readable whatever the values.
    let int96 = decoded.int96_columns(&metadata);
    let check = (!int96.is_empty()).then(|| {
        let (reader, metadata) = (reader.clone(), metadata.clone());
        let row_groups = decoded.row_groups.clone();
        async move {
            int96_check(reader, len, &metadata, &row_groups, &int96)
                .await
                .err()
        }
    });
    // The footer's key-value metadata, which arrow-rs's stream leaves out of its schema.
    let metadata = builder.schema().metadata().clone();
    let parquet_schema = builder.parquet_schema().clone();
    let stream = unpanicked(|| builder.build())
        .map_err(|e| FormatError::new(&place, e))?
        .map_err(failed)?;
    let schema = stream.schema().as_ref().clone().with_metadata(metadata);
    let schema = super::variant::annotate(schema, &parquet_schema)
        .map_err(|e| FormatError::new(&place, e))?;
    let checked = futures_util::stream::iter(check)
        .filter_map(|check| check)
        .map(Err);
    let stream = checked.chain(stream.map(|b| b.map_err(ReadError::from)));
    BatchStream::new(place, &schema, stream)
}

/// [`int96::check`] of the INT96 `columns` of `row_groups`, their column chunks fetched.
async fn int96_check<S: RangeSource + 'static>(
    mut reader: RangeReader<S>,
    len: u64,
    metadata: &ArrowReaderMetadata,
    row_groups: &[usize],
    columns: &[(usize, arrow_schema_60::TimeUnit)],
) -> std::result::Result<(), ReadError> {
    let chunks: Vec<Range<u64>> = row_groups
        .iter()
        .flat_map(|&g| {
            let group = metadata.metadata().row_group(g);
            columns.iter().map(move |&(c, _)| {
                let (start, len) = group.column(c).byte_range();
                start..start.saturating_add(len)
            })
        })
        .collect();
    let pieces = reader.get_byte_ranges(chunks.clone()).await?;
    let fetched = Fetched {
        pieces: chunks.iter().map(|r| r.start).zip(pieces).collect(),
        len,
    };
    int96::check(Arc::new(fetched), metadata, row_groups, columns)?;
    Ok(())
}

/// The batches of the Parquet object at `path` in `store`, read by ranges.
///
/// # Errors
/// As [`read_source`].
#[cfg(feature = "object_store")]
pub async fn read_object(
    store: Arc<dyn object_store::ObjectStore>,
    path: &object_store::path::Path,
    options: ParquetReadOptions,
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
    /// Whether fetched bytes are column chunks or pages, whose headers are walked before
    /// arrow-rs reads them (`pages.rs`); the footer and page index are not.
    pages: bool,
}

impl<S> Clone for RangeReader<S> {
    fn clone(&self) -> Self {
        Self {
            source: Arc::clone(&self.source),
            ..*self
        }
    }
}

impl<S: RangeSource + 'static> RangeReader<S> {
    fn fetch_all(
        &self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'static, parquet::errors::Result<Vec<Bytes>>> {
        let source = Arc::clone(&self.source);
        let (len, pages) = (self.len, self.pages);
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
                let bytes = answer(&range, buffer).map_err(ParquetError::External)?;
                if pages {
                    check_pages(&bytes).map_err(|e| {
                        ParquetError::General(format!("bytes {}..{}: {e}", range.start, range.end))
                    })?;
                }
                answers.push(bytes);
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

    /// The footer (one request for the file's last [`FOOTER_GUESS`] bytes, a second when
    /// it is longer) and, when asked for, the page index (one request for its span), each
    /// checked before arrow-rs decodes it (`footer.rs`).
    fn get_metadata<'a>(
        &'a mut self,
        _options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        Box::pin(async move {
            let len = self.len;
            let refused = |e: String| ParquetError::General(e);
            let tail_start = len.saturating_sub(FOOTER_GUESS as u64);
            let tail = self.get_bytes(tail_start..len).await?;
            let Some(range) = footer::footer_range(&tail, len).map_err(refused)? else {
                return Err(ParquetError::General(
                    "the footer is encrypted, which this reader does not take".into(),
                ));
            };
            let footer_start = range.start;
            let footer = match range.start >= tail_start {
                true => tail
                    .slice((range.start - tail_start) as usize..(range.end - tail_start) as usize),
                false => self.get_bytes(range).await?,
            };
            let metadata = footer::decode(&footer, footer_start).map_err(refused)?;
            if self.page_index == PageIndexPolicy::Skip {
                return Ok(Arc::new(metadata));
            }
            let ranges = footer::index_ranges(&metadata, len).map_err(refused)?;
            let Some(span) = footer::span(&ranges) else {
                return Ok(Arc::new(metadata));
            };
            let index = self.get_bytes(span.clone()).await?;
            footer::check_index(&ranges, span.start, &index).map_err(refused)?;
            let fetched = Fetched {
                pieces: vec![(span.start, index)],
                len,
            };
            let mut index = ParquetMetaDataReader::new_with_metadata(metadata)
                .with_page_index_policy(self.page_index);
            AssertUnwindSafe(index.load_page_index(fetched))
                .catch_unwind()
                .await
                .map_err(|panic| refused(panicked(panic)))??;
            Ok(Arc::new(unpanicked(|| index.finish()).map_err(refused)??))
        })
    }
}

/// Pieces of the file (each from its start), fetched already: arrow-rs's source of the
/// page index, and of the INT96 check's column chunks.
struct Fetched {
    pieces: Vec<(u64, Bytes)>,
    /// The file's length.
    len: u64,
}

impl Fetched {
    /// Bytes `range` of the file, from the piece that holds them.
    fn slice(&self, range: Range<u64>) -> parquet::errors::Result<Bytes> {
        self.pieces
            .iter()
            .find_map(|(start, bytes)| {
                let from = usize::try_from(range.start.checked_sub(*start)?).ok()?;
                let to = usize::try_from(range.end.checked_sub(*start)?).ok()?;
                (from <= to && to <= bytes.len()).then(|| bytes.slice(from..to))
            })
            .ok_or_else(|| {
                ParquetError::General(format!(
                    "bytes {}..{} were not fetched",
                    range.start, range.end
                ))
            })
    }
}

impl MetadataFetch for Fetched {
    fn fetch(&mut self, range: Range<u64>) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        let slice = self.slice(range);
        Box::pin(async move { slice })
    }
}

impl Length for Fetched {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for Fetched {
    type T = bytes::buf::Reader<Bytes>;

    /// The rest of the piece that holds `start`.
    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        let end = self
            .pieces
            .iter()
            .filter(|(from, bytes)| *from <= start && start < from + bytes.len() as u64)
            .map(|(from, bytes)| from + bytes.len() as u64)
            .next()
            .unwrap_or(start);
        Ok(self.slice(start..end)?.reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.slice(start..start.saturating_add(length as u64))
    }
}

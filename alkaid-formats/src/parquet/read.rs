//! Reading Parquet files into Alkaid batches.

use std::fs::File;
use std::path::Path;

use std::ops::Range;
use std::sync::Arc;

use alkaid_arrow::arrow60::{array_to_arrow, batch_from_arrow, schema_from_arrow};
use alkaid_compute::Predicate;
use arrow_array_60::RecordBatchReader;
use arrow_array_60::cast::AsArray;
use arrow_schema_60::ArrowError;
use bytes::Bytes;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowPredicate, ArrowPredicateFn, ArrowReaderBuilder, ArrowReaderMetadata, ArrowReaderOptions,
    ParquetRecordBatchReaderBuilder, RowFilter,
};
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, RowGroupMetaData};
use parquet::file::reader::ChunkReader;

use super::pages::EndIsAnError;
use super::prune::Pruning;
use super::{footer, int96, leaves};
use crate::batches::{Batches, unpanicked};
use crate::error::{FormatError, Result};

/// What to read of a Parquet file.
#[derive(Debug, Clone, PartialEq)]
pub struct ParquetReadOptions {
    columns: Option<Vec<String>>,
    row_groups: Option<Vec<usize>>,
    limit: Option<usize>,
    batch_size: usize,
    predicate: Option<Predicate>,
    /// Names in `columns` the file lacks are passed over rather than refused.
    absent_columns_allowed: bool,
    /// A predicate the file's columns do not take is dropped rather than refused.
    predicate_if_applicable: bool,
    byte_range: Option<Range<u64>>,
    /// INT96 timestamps are read in microseconds rather than nanoseconds.
    int96_in_microseconds: bool,
}

impl Default for ParquetReadOptions {
    fn default() -> Self {
        Self {
            columns: None,
            row_groups: None,
            limit: None,
            batch_size: 8192,
            predicate: None,
            absent_columns_allowed: false,
            predicate_if_applicable: false,
            byte_range: None,
            int96_in_microseconds: false,
        }
    }
}

impl ParquetReadOptions {
    /// Reads only these columns, by name; a dotted path (`a.b`) names a field inside a
    /// struct. The columns come in the file's order. A name the file does not have is an
    /// error.
    pub fn with_columns(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.columns = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// As [`with_columns`](Self::with_columns), but a name the file does not have is
    /// passed over: for a table of files whose columns differ.
    pub fn with_columns_if_present(
        mut self,
        names: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.absent_columns_allowed = true;
        self.with_columns(names)
    }

    /// Reads only the row groups whose middle byte lies in `range`: a file split into
    /// byte ranges among readers is read once, each row group by one reader.
    pub fn with_byte_range(mut self, range: Range<u64>) -> Self {
        self.byte_range = Some(range);
        self
    }

    /// Reads only these row groups, in this order.
    pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
        self.row_groups = Some(row_groups.into_iter().collect());
        self
    }

    /// Stops after `rows` rows.
    pub fn with_limit(mut self, rows: usize) -> Self {
        self.limit = Some(rows);
        self
    }

    /// Reads only the rows where `predicate` is true (a null is false, as in `WHERE`). Row
    /// groups whose statistics rule it out are skipped, then pages whose statistics in the
    /// page index rule it out; the predicate's columns are decoded first and the other
    /// columns only for the rows it keeps. Its columns are top-level columns of the file,
    /// whether or not [`with_columns`](Self::with_columns) selects them.
    pub fn with_predicate(mut self, predicate: Predicate) -> Self {
        self.predicate = Some(predicate);
        self
    }

    /// As [`with_predicate`](Self::with_predicate) where the file's columns take
    /// `predicate`; a file that lacks one of its columns, or holds one as a type the
    /// comparison does not take, is read whole. For a table of files whose columns differ,
    /// whose reader filters the rows itself.
    pub fn with_predicate_if_applicable(mut self, predicate: Predicate) -> Self {
        self.predicate_if_applicable = true;
        self.with_predicate(predicate)
    }

    /// Reads INT96 timestamps (Impala's, Hive's, Spark's) in microseconds, Spark's own
    /// resolution, rather than nanoseconds. By default they read as nanoseconds, and a
    /// value outside what nanoseconds hold (before 1677 or after 2262, as Spark writes
    /// `9999-12-31`) is an error naming its column, row group and value; pyarrow and
    /// arrow-rs wrap such a value into another date without a word. In microseconds a
    /// value reads as Spark reads it back (its arithmetic wraps as Spark's writer does, so
    /// that Spark's year 290000 is year 290000), but loses any sub-microsecond digits.
    pub fn with_int96_as_microseconds(mut self) -> Self {
        self.int96_in_microseconds = true;
        self
    }

    /// Rows per batch (8,192 by default; at least 1).
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }
}

/// The batches of the Parquet file at `path`.
///
/// # Errors
/// If the file cannot be opened or its footer is invalid.
pub fn read(path: impl AsRef<Path>) -> Result<Batches> {
    read_with(path, ParquetReadOptions::default())
}

/// The batches of the Parquet file at `path` that `options` select.
///
/// # Errors
/// If the file cannot be opened, its footer is invalid, or `options` name columns or row
/// groups it does not have.
pub fn read_with(path: impl AsRef<Path>, options: ParquetReadOptions) -> Result<Batches> {
    let place = path.as_ref().display().to_string();
    let file = File::open(path).map_err(|e| FormatError::new(&place, e))?;
    open(file, place, options)
}

/// The batches of a Parquet file held in memory.
///
/// # Errors
/// As [`read_with`].
pub fn read_bytes(bytes: impl Into<Bytes>, options: ParquetReadOptions) -> Result<Batches> {
    open(bytes.into(), "Parquet bytes".to_string(), options)
}

fn open<T: ChunkReader + 'static>(
    reader: T,
    place: String,
    options: ParquetReadOptions,
) -> Result<Batches> {
    let file_len = reader.len();
    let metadata = footer::load(&reader, options.page_index(), options.reader_options())
        .and_then(|metadata| options.retyped(metadata))
        .map_err(|e| FormatError::new(&place, e))?;
    // Page headers are read through a source whose end is an error (`pages.rs`).
    let source = EndIsAnError(Arc::new(reader));
    let builder =
        ParquetRecordBatchReaderBuilder::new_with_metadata(source.clone(), metadata.clone());
    let (builder, decoded) = options.configure_guarded(builder, file_len, &place)?;
    // INT96 values are checked before the first batch, not here: the schema stays
    // readable (`alkaid schema`) whatever the values.
    let int96 = decoded.int96_columns(&metadata);
    let mut unchecked = (!int96.is_empty()).then(|| (metadata.clone(), decoded.row_groups, int96));
    // arrow-rs's reader drops the file's key-value metadata from its schema; the
    // footer's schema has it.
    let footer_metadata = builder.schema().metadata().clone();
    let parquet_schema = builder.parquet_schema().clone();
    let mut reader = unpanicked(|| builder.build())
        .map_err(|e| FormatError::new(&place, e))?
        .map_err(|e| FormatError::new(&place, e))?;
    let schema = reader
        .schema()
        .as_ref()
        .clone()
        .with_metadata(footer_metadata);
    let schema = super::variant::annotate(schema, &parquet_schema)
        .map_err(|e| FormatError::new(&place, e))?;
    let batches = std::iter::from_fn(move || {
        if let Some((metadata, row_groups, columns)) = unchecked.take() {
            let source = Arc::new(source.clone());
            if let Err(e) = int96::check(source, &metadata, &row_groups, &columns) {
                return Some(Err(ArrowError::ExternalError(e.into())));
            }
        }
        reader.next()
    });
    Batches::new(place, &schema, batches)
}

impl ParquetReadOptions {
    /// arrow-rs's options for reading the footer: the page index too when a predicate
    /// can use it.
    pub(crate) fn reader_options(&self) -> ArrowReaderOptions {
        ArrowReaderOptions::new().with_page_index_policy(self.page_index())
    }

    /// `metadata` with the leaf types these options and the file's sizes ask for: INT96
    /// in microseconds when asked, byte arrays too large for 32-bit offsets with 64-bit
    /// ones (`leaves.rs`).
    pub(crate) fn retyped(
        &self,
        metadata: ArrowReaderMetadata,
    ) -> Result<ArrowReaderMetadata, String> {
        let microseconds = self.int96_in_microseconds;
        leaves::retyped(metadata, self.reader_options(), |file, column, leaf| {
            leaves::with_large_offsets(file, column, leaf).or_else(|| {
                microseconds
                    .then(|| int96::in_microseconds(file, column, leaf))
                    .flatten()
            })
        })
    }

    /// Whether the footer's page index is read: when a predicate can use it.
    pub(crate) fn page_index(&self) -> PageIndexPolicy {
        match self.predicate {
            Some(_) => PageIndexPolicy::Optional,
            None => PageIndexPolicy::Skip,
        }
    }

    /// [`configure`](Self::configure) inside the panic guard: pruning reads the footer's
    /// and page index's statistics through arrow-rs.
    pub(crate) fn configure_guarded<T>(
        &self,
        builder: ArrowReaderBuilder<T>,
        file_len: u64,
        place: &str,
    ) -> Result<(ArrowReaderBuilder<T>, Decoded)> {
        unpanicked(|| self.configure(builder, file_len, place))
            .map_err(|e| FormatError::new(place, e))?
    }

    /// `builder` (over a file of `file_len` bytes whose footer it holds) set to read what
    /// these options select, and what that decodes: the sync and async readers share it.
    fn configure<T>(
        &self,
        mut builder: ArrowReaderBuilder<T>,
        file_len: u64,
        place: &str,
    ) -> Result<(ArrowReaderBuilder<T>, Decoded)> {
        let refused = |message: String| FormatError::new(place, message);
        check_chunks(builder.metadata(), file_len).map_err(refused)?;
        let mut leaves = ProjectionMask::all();
        if let Some(names) = &self.columns {
            let parquet_schema = builder.parquet_schema();
            let paths: Vec<String> = parquet_schema
                .columns()
                .iter()
                .map(|c| c.path().string())
                .collect();
            let present = |name: &&String| {
                paths
                    .iter()
                    .any(|path| path == *name || path.starts_with(&format!("{name}.")))
            };
            // arrow-rs's mask passes over a name it does not find; here that is an error
            // unless asked otherwise.
            if let Some(missing) = names.iter().find(|name| !present(name))
                && !self.absent_columns_allowed
            {
                return Err(refused(format!(
                    "no column {missing:?} (the file has {})",
                    paths.join(", ")
                )));
            }
            let names = names.iter().filter(present).map(String::as_str);
            let mask = ProjectionMask::columns(parquet_schema, names);
            leaves = mask.clone();
            builder = builder.with_projection(mask);
        }
        let count = builder.metadata().num_row_groups();
        let mut row_groups: Vec<usize> = match &self.row_groups {
            Some(row_groups) => {
                if let Some(bad) = row_groups.iter().find(|&&g| g >= count) {
                    return Err(refused(format!(
                        "row group {bad} selected, but the file has {count}"
                    )));
                }
                row_groups.clone()
            }
            None => (0..count).collect(),
        };
        if let Some(range) = &self.byte_range {
            let groups = builder.metadata().row_groups();
            row_groups.retain(|&g| range.contains(&middle_byte(&groups[g])));
        }
        let arrow_schema = Arc::clone(builder.schema());
        let schema = schema_from_arrow(&arrow_schema).map_err(|e| FormatError::new(place, e))?;
        let predicate = match self.predicate.as_ref().map(|p| (p, p.check(&schema))) {
            Some((_, Err(_))) if self.predicate_if_applicable => None,
            Some((_, Err(e))) => {
                return Err(refused(format!("the predicate cannot be evaluated: {e}")));
            }
            Some((predicate, Ok(()))) => Some(predicate),
            None => None,
        };
        if let Some(predicate) = predicate {
            let metadata = Arc::clone(builder.metadata());
            let pruning = Pruning::new(predicate, &metadata, &arrow_schema);
            row_groups = pruning.row_groups(&row_groups);
            if let Some(selection) = pruning.pages(&row_groups) {
                builder = builder.with_row_selection(selection);
            }
            let columns = predicate.columns();
            let mask = ProjectionMask::columns(
                builder.parquet_schema(),
                columns.iter().map(String::as_str),
            );
            leaves.union(&mask);
            builder = builder.with_row_filter(RowFilter::new(vec![Box::new(row_filter(
                mask,
                predicate.clone(),
            ))]));
        }
        if self.row_groups.is_some() || predicate.is_some() || self.byte_range.is_some() {
            builder = builder.with_row_groups(row_groups.clone());
        }
        if let Some(limit) = self.limit {
            builder = builder.with_limit(limit);
        }
        let decoded = Decoded { row_groups, leaves };
        Ok((builder.with_batch_size(self.batch_size), decoded))
    }
}

/// What a configured reader decodes: these row groups (after pruning), these leaf columns
/// (selected, or read by the predicate).
pub(crate) struct Decoded {
    pub(crate) row_groups: Vec<usize>,
    leaves: ProjectionMask,
}

impl Decoded {
    /// The INT96 columns decoded, with the unit each is read in.
    pub(crate) fn int96_columns(
        &self,
        metadata: &ArrowReaderMetadata,
    ) -> Vec<(usize, arrow_schema_60::TimeUnit)> {
        let mut columns = int96::columns(metadata);
        columns.retain(|&(leaf, _)| self.leaves.leaf_included(leaf));
        columns
    }
}

/// The predicate as arrow-rs's row filter: each batch of the predicate's columns crosses to
/// Alkaid, the kernels decide, and only the rows they keep are decoded in the other columns.
fn row_filter(mask: ProjectionMask, predicate: Predicate) -> impl ArrowPredicate {
    ArrowPredicateFn::new(mask, move |batch: arrow_array_60::RecordBatch| {
        let batch = batch_from_arrow(&batch).map_err(|e| ArrowError::ExternalError(e.into()))?;
        let keep = predicate
            .evaluate(&batch)
            .map_err(|e| ArrowError::ComputeError(e.to_string()))?;
        Ok(array_to_arrow(&keep).as_boolean().clone())
    })
}

/// The middle byte of a row group's column chunks (checked to lie in the file).
fn middle_byte(group: &RowGroupMetaData) -> u64 {
    let start = group
        .columns()
        .iter()
        .map(|c| c.byte_range().0)
        .min()
        .unwrap_or(0);
    let len: u64 = group.columns().iter().map(|c| c.byte_range().1).sum();
    start.saturating_add(len / 2)
}

/// Checks that every column chunk the footer lists lies inside the file. arrow-rs trusts
/// these numbers and panics on a negative one (found by the `parquet` fuzz target), so a
/// hostile footer is refused here, naming the row group and column.
fn check_chunks(metadata: &ParquetMetaData, file_len: u64) -> Result<(), String> {
    for (g, group) in metadata.row_groups().iter().enumerate() {
        for (c, chunk) in group.columns().iter().enumerate() {
            let start = chunk
                .dictionary_page_offset()
                .unwrap_or_else(|| chunk.data_page_offset());
            let len = chunk.compressed_size();
            let inside = u64::try_from(start)
                .ok()
                .zip(u64::try_from(len).ok())
                .and_then(|(start, len)| start.checked_add(len))
                .is_some_and(|end| end <= file_len);
            if !inside {
                return Err(format!(
                    "row group {g}, column {c} ({}): {len} bytes at {start} lie outside the \
                     {file_len}-byte file",
                    chunk.column_path()
                ));
            }
        }
    }
    Ok(())
}

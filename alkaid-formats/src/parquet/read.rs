//! Reading Parquet files into Alkaid batches.

use std::fs::File;
use std::path::Path;

use arrow_array_60::RecordBatchReader;
use bytes::Bytes;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;

use crate::batches::{Batches, unpanicked};
use crate::error::{FormatError, Result};

/// What to read of a Parquet file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    columns: Option<Vec<String>>,
    row_groups: Option<Vec<usize>>,
    limit: Option<usize>,
    batch_size: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            columns: None,
            row_groups: None,
            limit: None,
            batch_size: 8192,
        }
    }
}

impl ReadOptions {
    /// Reads only these columns, by name; a dotted path (`a.b`) names a field inside a
    /// struct. The columns come in the file's order. A name the file does not have is an
    /// error.
    pub fn with_columns(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.columns = Some(names.into_iter().map(Into::into).collect());
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
    read_with(path, ReadOptions::default())
}

/// The batches of the Parquet file at `path` that `options` select.
///
/// # Errors
/// If the file cannot be opened, its footer is invalid, or `options` name columns or row
/// groups it does not have.
pub fn read_with(path: impl AsRef<Path>, options: ReadOptions) -> Result<Batches> {
    let place = path.as_ref().display().to_string();
    let file = File::open(path).map_err(|e| FormatError::new(&place, e))?;
    open(file, place, options)
}

/// The batches of a Parquet file held in memory.
///
/// # Errors
/// As [`read_with`].
pub fn read_bytes(bytes: impl Into<Bytes>, options: ReadOptions) -> Result<Batches> {
    open(bytes.into(), "Parquet bytes".to_string(), options)
}

fn open<T: ChunkReader + 'static>(
    reader: T,
    place: String,
    options: ReadOptions,
) -> Result<Batches> {
    let failed = |e: parquet::errors::ParquetError| FormatError::new(&place, e);
    let file_len = reader.len();
    let mut builder = unpanicked(|| ParquetRecordBatchReaderBuilder::try_new(reader))
        .map_err(|e| FormatError::new(&place, e))?
        .map_err(failed)?;
    check_chunks(builder.metadata(), file_len).map_err(|e| FormatError::new(&place, e))?;
    if let Some(names) = &options.columns {
        let parquet_schema = builder.parquet_schema();
        let paths: Vec<String> = parquet_schema
            .columns()
            .iter()
            .map(|c| c.path().string())
            .collect();
        // arrow-rs's mask passes over a name it does not find; here that is an error.
        if let Some(missing) = names.iter().find(|name| {
            !paths
                .iter()
                .any(|path| path == *name || path.starts_with(&format!("{name}.")))
        }) {
            return Err(FormatError::new(
                &place,
                format!("no column {missing:?} (the file has {})", paths.join(", ")),
            ));
        }
        let mask = ProjectionMask::columns(parquet_schema, names.iter().map(String::as_str));
        builder = builder.with_projection(mask);
    }
    if let Some(row_groups) = &options.row_groups {
        let count = builder.metadata().num_row_groups();
        if let Some(bad) = row_groups.iter().find(|&&g| g >= count) {
            return Err(FormatError::new(
                &place,
                format!("row group {bad} selected, but the file has {count}"),
            ));
        }
        builder = builder.with_row_groups(row_groups.clone());
    }
    if let Some(limit) = options.limit {
        builder = builder.with_limit(limit);
    }
    let reader = unpanicked(|| builder.with_batch_size(options.batch_size).build())
        .map_err(|e| FormatError::new(&place, e))?
        .map_err(failed)?;
    let schema = reader.schema();
    Batches::new(place, &schema, reader)
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

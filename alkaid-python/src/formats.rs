//! Parquet, CSV and newline-delimited JSON from Python, through alkaid-formats: read from a
//! path into a reader of Alkaid batches, written from any batch or stream producer.

use std::path::PathBuf;

use alkaid_formats::{Batches as FormatBatches, csv, json, parquet};
use pyo3::prelude::*;

use crate::error::to_py;
use crate::ipc::batches_of;
use crate::reader::{Batches, PyRecordBatchReader};

/// A reader of `batches`, their errors as text.
fn reader_of(batches: FormatBatches) -> PyRecordBatchReader {
    let schema = batches.schema();
    let batches: Batches = Box::new(batches.map(|b| b.map_err(|e| e.to_string())));
    PyRecordBatchReader::new(schema, batches)
}

/// Reads the Parquet file at `path`: only `columns` (names; `a.b` names a field of a
/// struct), only `row_groups`, at most `limit` rows. Batches are read as the reader is. The
/// file's key-value metadata is the schema's. INT96 timestamps read in nanoseconds, and one
/// that nanoseconds cannot hold is an error; `int96_as_microseconds` reads them as Spark
/// does.
#[pyfunction]
#[pyo3(signature = (path, columns = None, row_groups = None, limit = None, batch_size = 8192, int96_as_microseconds = false))]
pub fn read_parquet(
    path: PathBuf,
    columns: Option<Vec<String>>,
    row_groups: Option<Vec<usize>>,
    limit: Option<usize>,
    batch_size: usize,
    int96_as_microseconds: bool,
) -> PyResult<PyRecordBatchReader> {
    let mut options = parquet::ParquetReadOptions::default().with_batch_size(batch_size);
    if int96_as_microseconds {
        options = options.with_int96_as_microseconds();
    }
    if let Some(columns) = columns {
        options = options.with_columns(columns);
    }
    if let Some(row_groups) = row_groups {
        options = options.with_row_groups(row_groups);
    }
    if let Some(limit) = limit {
        options = options.with_limit(limit);
    }
    Ok(reader_of(parquet::read_with(path, options).map_err(to_py)?))
}

/// The codec of a name, with `level` where it takes one.
fn codec(name: &str, level: Option<i32>) -> PyResult<parquet::Codec> {
    let unsigned = |default: u32| match level {
        Some(level) => u32::try_from(level).map_err(|_| to_py(format!("level {level} for {name}"))),
        None => Ok(default),
    };
    Ok(match name {
        "none" | "uncompressed" => parquet::Codec::Uncompressed,
        "snappy" => parquet::Codec::Snappy,
        "gzip" => parquet::Codec::Gzip(unsigned(6)?),
        "brotli" => parquet::Codec::Brotli(unsigned(5)?),
        "lz4" => parquet::Codec::Lz4,
        "zstd" => parquet::Codec::Zstd(level.unwrap_or(3)),
        other => {
            return Err(to_py(format!(
                "unknown compression {other:?} (none, snappy, gzip, brotli, lz4, zstd)"
            )));
        }
    })
}

/// Writes `data` (a batch, a reader, or any batch or stream producer) as a Parquet file
/// at `path`, with the interpreter released while encoding.
#[pyfunction]
#[pyo3(signature = (data, path, compression = "zstd", compression_level = None, row_group_size = None, metadata = None))]
pub fn write_parquet(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: PathBuf,
    compression: &str,
    compression_level: Option<i32>,
    row_group_size: Option<usize>,
    metadata: Option<Vec<(String, String)>>,
) -> PyResult<()> {
    let (schema, batches) = batches_of(data)?;
    let mut options =
        parquet::WriteOptions::default().with_codec(codec(compression, compression_level)?);
    if let Some(rows) = row_group_size {
        options = options.with_row_group_rows(rows);
    }
    for (key, value) in metadata.unwrap_or_default() {
        options = options.with_metadata(key, value);
    }
    py.detach(|| {
        let batches = batches.collect::<Result<Vec<_>, _>>()?;
        parquet::write(&path, schema, batches, &options).map_err(|e| e.to_string())
    })
    .map_err(to_py)
}

/// Reads the CSV file at `path`, its column types inferred from the first rows.
#[pyfunction]
#[pyo3(signature = (path, delimiter = ",", header = true, nulls = None, batch_size = 8192))]
pub fn read_csv(
    path: PathBuf,
    delimiter: &str,
    header: bool,
    nulls: Option<Vec<String>>,
    batch_size: usize,
) -> PyResult<PyRecordBatchReader> {
    let mut options = csv::CsvReadOptions::default()
        .with_delimiter(one_byte(delimiter)?)
        .with_header(header)
        .with_batch_size(batch_size);
    if let Some(nulls) = nulls {
        options = options.with_nulls(nulls);
    }
    Ok(reader_of(csv::read_with(path, options).map_err(to_py)?))
}

/// Writes `data` as a CSV file at `path`.
#[pyfunction]
#[pyo3(signature = (data, path, delimiter = ",", header = true))]
pub fn write_csv(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: PathBuf,
    delimiter: &str,
    header: bool,
) -> PyResult<()> {
    let (_, batches) = batches_of(data)?;
    let options = csv::WriteOptions::default()
        .with_delimiter(one_byte(delimiter)?)
        .with_header(header);
    py.detach(|| {
        let batches = batches.collect::<Result<Vec<_>, _>>()?;
        csv::write(&path, batches, &options).map_err(|e| e.to_string())
    })
    .map_err(to_py)
}

/// Reads the newline-delimited JSON file at `path`, its schema inferred from the first
/// lines.
#[pyfunction]
#[pyo3(signature = (path, batch_size = 8192))]
pub fn read_json(path: PathBuf, batch_size: usize) -> PyResult<PyRecordBatchReader> {
    let options = json::JsonReadOptions::default().with_batch_size(batch_size);
    Ok(reader_of(json::read_with(path, options).map_err(to_py)?))
}

/// Writes `data` as newline-delimited JSON at `path`.
#[pyfunction]
pub fn write_json(py: Python<'_>, data: &Bound<'_, PyAny>, path: PathBuf) -> PyResult<()> {
    let (_, batches) = batches_of(data)?;
    py.detach(|| {
        let batches = batches.collect::<Result<Vec<_>, _>>()?;
        json::write(&path, batches).map_err(|e| e.to_string())
    })
    .map_err(to_py)
}

/// A one-character delimiter as its byte.
fn one_byte(delimiter: &str) -> PyResult<u8> {
    match delimiter.as_bytes() {
        [byte] => Ok(*byte),
        _ => Err(to_py(format!(
            "the delimiter {delimiter:?} is not one ASCII character"
        ))),
    }
}

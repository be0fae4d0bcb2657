//! Inputs in Parquet, CSV and newline-delimited JSON, read through alkaid-formats: the
//! format from `--from`, else the extension, else (for Parquet) the file's first bytes.
//! From an object-store URL, Parquet is read by ranges (`remote.rs`); CSV and JSON a few
//! MiB at a time.

use std::path::Path;

use alkaid_array::RecordBatch;
use alkaid_formats::{csv, json, parquet};
use alkaid_schema::SchemaRef;
use clap::ValueEnum;

use crate::failure::Failure;
use crate::rows::RowReader;

/// An input's format (`--from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// An IPC file or stream (found by looking).
    Ipc,
    /// Parquet.
    Parquet,
    /// CSV with a header line; the column types are inferred from the first rows.
    Csv,
    /// Newline-delimited JSON; the schema is inferred from the first lines.
    Json,
}

impl InputFormat {
    /// The format of `path` by its extension, or by its first bytes (Parquet's `PAR1`).
    pub fn of(path: &str) -> Option<Self> {
        if let Some(format) = Self::by_extension(path) {
            return Some(format);
        }
        let mut magic = [0u8; 4];
        let parquet = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
            .is_ok_and(|()| &magic == b"PAR1");
        parquet.then_some(InputFormat::Parquet)
    }

    /// The format `path`'s extension names, if any but IPC's.
    pub fn by_extension(path: &str) -> Option<Self> {
        let extension = Path::new(path)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("parquet" | "pq") => Some(InputFormat::Parquet),
            Some("csv") => Some(InputFormat::Csv),
            Some("json" | "ndjson" | "jsonl") => Some(InputFormat::Json),
            _ => None,
        }
    }
}

fn failed(e: alkaid_formats::FormatError) -> Failure {
    Failure::new(e.to_string())
}

/// The batches of `path` (a local path or an object-store URL) in `format` (not IPC);
/// Parquet read with `parquet_options` (which may select columns).
pub fn open(
    path: &str,
    format: InputFormat,
    parquet_options: parquet::ParquetReadOptions,
) -> Result<RowReader, Failure> {
    if path == "-" {
        return Err(Failure::new(format!(
            "standard input is read as IPC only; write the {format:?} data to a file"
        )));
    }
    #[cfg(feature = "object-store")]
    if crate::location::is_url(path) {
        // Errors name the URL, not only the object's path.
        return crate::remote::batches(path, |source| async move {
            match format {
                InputFormat::Csv => csv::read_source(source, path, Default::default()).await,
                InputFormat::Json => json::read_source(source, path, Default::default()).await,
                _ => parquet::read_source(source, path, parquet_options).await,
            }
        });
    }
    let batches = match format {
        InputFormat::Parquet => parquet::read_with(path, parquet_options).map_err(failed)?,
        InputFormat::Csv => csv::read(path).map_err(failed)?,
        InputFormat::Json => json::read(path).map_err(failed)?,
        InputFormat::Ipc => unreachable!("IPC is read by input.rs"),
    };
    Ok(batches.into())
}

/// The positions of the columns `names` in `schema`.
fn indices(schema: &SchemaRef, names: &[String]) -> Result<Vec<usize>, Failure> {
    names
        .iter()
        .map(|name| {
            schema
                .index_of(name)
                .map_err(|e| Failure::new(format!("selecting column {name:?}: {e}")))
        })
        .collect()
}

/// `schema` with only the columns `names`, in that order.
pub fn project_schema(schema: &SchemaRef, names: &[String]) -> Result<SchemaRef, Failure> {
    let projected = schema
        .project(&indices(schema, names)?)
        .map_err(|e| Failure::new(e.to_string()))?;
    Ok(projected.into())
}

/// `batch` (of `schema`) with only the columns `names`, in that order (for the formats
/// whose readers do not select columns).
pub fn project(
    batch: &RecordBatch,
    names: &[String],
    schema: &SchemaRef,
) -> Result<RecordBatch, Failure> {
    batch
        .project(&indices(schema, names)?)
        .map_err(|e| Failure::new(e.to_string()))
}

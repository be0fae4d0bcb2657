//! Inputs in Parquet, CSV and newline-delimited JSON, read through alkaid-formats: the
//! format from `--from`, else the extension, else (for Parquet) the file's first bytes.

use std::path::Path;

use alkaid_array::RecordBatch;
use alkaid_formats::{Batches, csv, json, parquet};
use alkaid_schema::SchemaRef;
use clap::ValueEnum;

use crate::failure::Failure;

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
        let extension = Path::new(path)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("parquet" | "pq") => return Some(InputFormat::Parquet),
            Some("csv") => return Some(InputFormat::Csv),
            Some("json" | "ndjson" | "jsonl") => return Some(InputFormat::Json),
            _ => {}
        }
        let mut magic = [0u8; 4];
        let parquet = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
            .is_ok_and(|()| &magic == b"PAR1");
        parquet.then_some(InputFormat::Parquet)
    }
}

/// The batches of `path` in `format` (not IPC), with only `columns` when given.
pub fn open(
    path: &str,
    format: InputFormat,
    columns: Option<&[String]>,
) -> Result<Batches, Failure> {
    if path == "-" {
        return Err(Failure::new(format!(
            "standard input is read as IPC only; write the {format:?} data to a file"
        )));
    }
    let failed = |e: alkaid_formats::FormatError| Failure::new(e.to_string());
    let batches = match format {
        InputFormat::Parquet => {
            let mut options = parquet::ReadOptions::default();
            if let Some(columns) = columns {
                options = options.with_columns(columns.iter().cloned());
            }
            parquet::read_with(path, options).map_err(failed)?
        }
        InputFormat::Csv => csv::read(path).map_err(failed)?,
        InputFormat::Json => json::read(path).map_err(failed)?,
        InputFormat::Ipc => unreachable!("IPC is read by input.rs"),
    };
    Ok(batches)
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

//! Newline-delimited JSON, with arrow-rs's `arrow-json`: one object per line, read with a
//! schema inferred from the first lines (nested objects as structs, arrays as lists) or
//! given, and written. A line that fails is named by its number (`located.rs`).

mod located;

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_arrow::arrow60::{batch_to_arrow, schema_to_arrow};
use alkaid_schema::SchemaRef;
use arrow_json::reader::infer_json_schema_from_iterator;
use arrow_json::{LineDelimitedWriter, ReaderBuilder};

use crate::batches::Batches;
use crate::error::{FormatError, Result};
use located::LocatedDecoder;

/// How newline-delimited JSON is read.
#[derive(Debug, Clone)]
pub struct JsonReadOptions {
    schema: Option<SchemaRef>,
    infer_rows: usize,
    batch_size: usize,
}

impl Default for JsonReadOptions {
    fn default() -> Self {
        Self {
            schema: None,
            infer_rows: 1000,
            batch_size: 8192,
        }
    }
}

impl JsonReadOptions {
    /// Reads with `schema` instead of inferring one (fields it lacks are not read).
    pub fn with_schema(mut self, schema: SchemaRef) -> Self {
        self.schema = Some(schema);
        self
    }

    /// How many lines schema inference reads (1,000 by default).
    pub fn with_infer_rows(mut self, rows: usize) -> Self {
        self.infer_rows = rows.max(1);
        self
    }

    /// Rows per batch (8,192 by default).
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }
}

/// The batches of the newline-delimited JSON file at `path`.
///
/// # Errors
/// If the file cannot be opened, or inferring its schema fails.
pub fn read(path: impl AsRef<Path>) -> Result<Batches> {
    read_with(path, JsonReadOptions::default())
}

/// The batches of the newline-delimited JSON file at `path`, read with `options`.
///
/// # Errors
/// As [`read`].
pub fn read_with(path: impl AsRef<Path>, options: JsonReadOptions) -> Result<Batches> {
    let place = path.as_ref().display().to_string();
    let file = File::open(path).map_err(|e| FormatError::new(&place, e))?;
    reader(BufReader::new(file), place, options)
}

/// The batches of the newline-delimited JSON `input` (named `place` in errors).
///
/// # Errors
/// If reading or inferring the schema fails.
pub fn reader<R: BufRead + Seek + Send + 'static>(
    mut input: R,
    place: String,
    options: JsonReadOptions,
) -> Result<Batches> {
    let failed = |e: arrow_schema_60::ArrowError| FormatError::new(&place, e);
    let io_failed = |e: std::io::Error| FormatError::new(&place, e);
    let start = bom_length(input.fill_buf().map_err(io_failed)?);
    input.consume(start);
    let schema = match &options.schema {
        Some(schema) => Arc::new(schema_to_arrow(schema)),
        None => {
            let schema =
                infer(&mut input, options.infer_rows).map_err(|e| FormatError::new(&place, e))?;
            input
                .seek(SeekFrom::Start(start as u64))
                .map_err(io_failed)?;
            Arc::new(schema)
        }
    };
    let decoder = LocatedDecoder::new(builder(&schema, &options)).map_err(failed)?;
    Batches::new(place, &schema, crate::text_source::pushed(input, decoder))
}

/// The batches of the newline-delimited JSON behind `source` (an object store, HTTP,
/// memory: any alkaid-ipc-async `RangeSource`), named `place` in errors, fetched 4 MiB at a
/// time; a schema to infer is inferred from the first MiB.
///
/// # Errors
/// If the source fails or inferring the schema fails; a batch's errors come with it.
pub async fn read_source<S: alkaid_ipc_async::RangeSource + 'static>(
    source: S,
    place: impl Into<String>,
    options: JsonReadOptions,
) -> Result<crate::BatchStream> {
    let place = place.into();
    let (len, mut sample) = crate::text_source::sample(&source, &place).await?;
    let start = bom_length(sample.get_ref());
    sample.set_position(start as u64);
    let schema = match &options.schema {
        Some(schema) => Arc::new(schema_to_arrow(schema)),
        None => {
            let schema =
                infer(&mut sample, options.infer_rows).map_err(|e| FormatError::new(&place, e))?;
            Arc::new(schema)
        }
    };
    let decoder =
        LocatedDecoder::new(builder(&schema, &options)).map_err(|e| FormatError::new(&place, e))?;
    let batches = crate::text_source::decode(source, start as u64, len, decoder);
    crate::BatchStream::new(place, &schema, batches)
}

/// arrow-rs's decoder of `schema` as `options` ask: a field inferred from values of
/// several kinds reads each as text.
fn builder(schema: &arrow_schema_60::SchemaRef, options: &JsonReadOptions) -> ReaderBuilder {
    ReaderBuilder::new(Arc::clone(schema))
        .with_batch_size(options.batch_size)
        .with_coerce_primitive(options.schema.is_none())
}

/// The length of the UTF-8 byte-order mark at the start of `bytes`: 3, or 0 without one.
/// Windows tools write it; pyarrow and DuckDB skip it.
fn bom_length(bytes: &[u8]) -> usize {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// The schema of the first `rows` objects of `input` (blank lines skipped). A line that is
/// not JSON is named by its number and column in the file (arrow-rs's inference names
/// every line "line 1"). A field whose values are of several kinds infers as text, and
/// the reader then reads each as text ([`ReaderBuilder::with_coerce_primitive`]).
fn infer(
    input: &mut impl BufRead,
    rows: usize,
) -> std::result::Result<arrow_schema_60::Schema, String> {
    let mut values = Vec::new();
    let mut line = String::new();
    let mut number = 0;
    while values.len() < rows {
        line.clear();
        number += 1;
        let read = input
            .read_line(&mut line)
            .map_err(|e| format!("line {number}: {e}"))?;
        if read == 0 {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(line.trim_end()).map_err(|e| {
            let text = e.to_string();
            let reason = text.split(" at line ").next().unwrap_or(&text);
            format!("line {number}, column {}: not JSON: {reason}", e.column())
        })?;
        values.push(Ok(value));
    }
    infer_json_schema_from_iterator(values.into_iter()).map_err(|e| e.to_string())
}

/// Alkaid batches being written as newline-delimited JSON: one object per row, nulls left
/// out.
pub struct JsonWriter<W: Write> {
    inner: LineDelimitedWriter<W>,
}

impl<W: Write> JsonWriter<W> {
    /// A writer to `sink`.
    pub fn new(sink: W) -> Self {
        Self {
            inner: LineDelimitedWriter::new(sink),
        }
    }

    /// Writes `batch`.
    ///
    /// # Errors
    /// If a column's type has no JSON form or writing fails.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.inner
            .write(&batch_to_arrow(batch))
            .map_err(|e| FormatError::new("writing JSON", e))
    }

    /// Ends the output and hands the sink back.
    ///
    /// # Errors
    /// If writing fails.
    pub fn finish(mut self) -> Result<W> {
        self.inner
            .finish()
            .map_err(|e| FormatError::new("writing JSON", e))?;
        Ok(self.inner.into_inner())
    }
}

/// Writes `batches` as the newline-delimited JSON file at `path`.
///
/// # Errors
/// If the file cannot be created or a batch cannot be written.
pub fn write(path: impl AsRef<Path>, batches: impl IntoIterator<Item = RecordBatch>) -> Result<()> {
    let place = path.as_ref().display().to_string();
    let file = File::create(&path).map_err(|e| FormatError::new(&place, e))?;
    let mut writer = JsonWriter::new(BufWriter::new(file));
    for batch in batches {
        writer
            .write(&batch)
            .map_err(|e| FormatError::new(&place, e))?;
    }
    writer
        .finish()?
        .flush()
        .map_err(|e| FormatError::new(&place, e))
}

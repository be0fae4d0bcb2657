//! CSV: read with a delimiter, quote, escape, header, null spellings and comment lines, and a
//! schema inferred from the first rows (by arrow-csv) or given; written with the same
//! choices by arrow-csv. Text of integer, float, boolean and text columns with the standard
//! quoting is read by Alkaid's own reader (`direct.rs`, about 1.5 times arrow-csv's speed,
//! reading what arrow-csv reads); the rest by arrow-csv. Errors name the line.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_arrow::arrow60::{batch_to_arrow, schema_from_arrow, schema_to_arrow};
use arrow_csv::{ReaderBuilder, WriterBuilder};

use crate::batches::Batches;
use crate::error::{FormatError, Result};
use crate::text_source::PushDecoder;

mod columns;
mod direct;
mod infer;
mod options;

pub use options::CsvReadOptions;

/// The batches of the CSV file at `path`.
///
/// # Errors
/// If the file cannot be opened, or inferring its schema fails.
pub fn read(path: impl AsRef<Path>) -> Result<Batches> {
    read_with(path, CsvReadOptions::default())
}

/// The batches of the CSV file at `path`, read with `options`.
///
/// # Errors
/// As [`read`].
pub fn read_with(path: impl AsRef<Path>, options: CsvReadOptions) -> Result<Batches> {
    let place = path.as_ref().display().to_string();
    let file = File::open(path).map_err(|e| FormatError::new(&place, e))?;
    reader(file, place, options)
}

/// The batches of the CSV text `input` (named `place` in errors), which is read twice when
/// the schema is inferred (the sample, then from the start).
///
/// # Errors
/// If reading or inferring the schema fails.
pub fn reader<R: Read + Seek + Send + 'static>(
    mut input: R,
    place: String,
    options: CsvReadOptions,
) -> Result<Batches> {
    let failed = |e: arrow_schema_60::ArrowError| FormatError::new(&place, e);
    let format = options.format()?;
    let schema = match &options.schema {
        Some(schema) => Arc::new(schema_to_arrow(schema)),
        None => {
            // Leaves `input` at its start.
            let schema = infer::infer(&format, &mut BufReader::new(&mut input), options.infer_rows)
                .map_err(failed)?;
            Arc::new(schema)
        }
    };
    let decoder = decoder(&schema, &options, &place)?;
    let input = BufReader::with_capacity(READ_SIZE, input);
    Batches::new(place, &schema, crate::text_source::pushed(input, decoder))
}

/// Bytes read at a time.
const READ_SIZE: usize = 1 << 20;

/// The decoder of CSV text of `schema` read with `options`: Alkaid's own where it takes
/// them (`direct.rs`), arrow-csv's otherwise. The file reader and the ranged reader both
/// push their bytes through it.
fn decoder(
    schema: &arrow_schema_60::SchemaRef,
    options: &CsvReadOptions,
    place: &str,
) -> Result<Box<dyn PushDecoder>> {
    let ours = schema_from_arrow(schema).map_err(|e| FormatError::new(place, e))?;
    if direct::supports(&ours, options) {
        return Ok(Box::new(direct::DirectDecoder::new(
            Arc::new(ours),
            options,
        )));
    }
    let decoder = ReaderBuilder::new(Arc::clone(schema))
        .with_format(options.format()?)
        .with_batch_size(options.batch_size)
        .build_decoder();
    Ok(Box::new(decoder))
}

/// The batches of the CSV text behind `source` (an object store, HTTP, memory: any
/// alkaid-ipc-async `RangeSource`), named `place` in errors, fetched 4 MiB at a time; a
/// schema to infer is inferred from the first MiB.
///
/// # Errors
/// If the source fails or inferring the schema fails; a batch's errors come with it.
pub async fn read_source<S: alkaid_ipc_async::RangeSource + 'static>(
    source: S,
    place: impl Into<String>,
    options: CsvReadOptions,
) -> Result<crate::BatchStream> {
    let place = place.into();
    let (len, mut sample) = crate::text_source::sample(&source, &place).await?;
    let format = options.format()?;
    let schema = match &options.schema {
        Some(schema) => Arc::new(schema_to_arrow(schema)),
        None => {
            let schema = infer::infer(&format, &mut sample, options.infer_rows)
                .map_err(|e| FormatError::new(&place, e))?;
            Arc::new(schema)
        }
    };
    let decoder = decoder(&schema, &options, &place)?;
    let batches = crate::text_source::decode(source, 0, len, decoder);
    crate::BatchStream::new(place, &schema, batches)
}

/// How a CSV file is written.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    delimiter: u8,
    quote: u8,
    header: bool,
    null: String,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            delimiter: b',',
            quote: b'"',
            header: true,
            null: String::new(),
        }
    }
}

impl WriteOptions {
    /// The field delimiter (`,` by default).
    pub fn with_delimiter(mut self, delimiter: u8) -> Self {
        self.delimiter = delimiter;
        self
    }

    /// The quote (`"` by default), used where a field needs it.
    pub fn with_quote(mut self, quote: u8) -> Self {
        self.quote = quote;
        self
    }

    /// Whether the first line names the columns (yes by default).
    pub fn with_header(mut self, header: bool) -> Self {
        self.header = header;
        self
    }

    /// How a null is written (the empty field by default).
    pub fn with_null(mut self, null: impl Into<String>) -> Self {
        self.null = null.into();
        self
    }
}

/// Alkaid batches being written as CSV.
pub struct CsvWriter<W: Write> {
    inner: arrow_csv::Writer<W>,
}

impl<W: Write> CsvWriter<W> {
    /// A writer to `sink`.
    pub fn new(sink: W, options: &WriteOptions) -> Self {
        let inner = WriterBuilder::new()
            .with_delimiter(options.delimiter)
            .with_quote(options.quote)
            .with_header(options.header)
            .with_null(options.null.clone())
            .build(sink);
        Self { inner }
    }

    /// Writes `batch` (the header first, with the first batch).
    ///
    /// # Errors
    /// If a column's type has no CSV form (a list, a struct) or writing fails.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.inner
            .write(&batch_to_arrow(batch))
            .map_err(|e| FormatError::new("writing CSV", e))
    }

    /// Hands the sink back.
    pub fn finish(self) -> W {
        self.inner.into_inner()
    }
}

/// Writes `batches` as the CSV file at `path`.
///
/// # Errors
/// If the file cannot be created or a batch cannot be written.
pub fn write(
    path: impl AsRef<Path>,
    batches: impl IntoIterator<Item = RecordBatch>,
    options: &WriteOptions,
) -> Result<()> {
    let place = path.as_ref().display().to_string();
    let file = File::create(&path).map_err(|e| FormatError::new(&place, e))?;
    let mut writer = CsvWriter::new(BufWriter::new(file), options);
    for batch in batches {
        writer
            .write(&batch)
            .map_err(|e| FormatError::new(&place, e))?;
    }
    writer
        .finish()
        .flush()
        .map_err(|e| FormatError::new(&place, e))
}

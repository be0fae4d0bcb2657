//! CSV, with arrow-rs's `arrow-csv`: read with a delimiter, quote, escape, header, null
//! spellings and comment lines, and a schema inferred from the first rows or given; write
//! with the same choices. arrow-csv's errors name the line.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_arrow::arrow60::{batch_to_arrow, schema_to_arrow};
use alkaid_schema::SchemaRef;
use arrow_csv::reader::Format;
use arrow_csv::{ReaderBuilder, WriterBuilder};

use crate::batches::Batches;
use crate::error::{FormatError, Result};

/// How a CSV file is read.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
    header: bool,
    nulls: Vec<String>,
    comment: Option<u8>,
    schema: Option<SchemaRef>,
    infer_rows: usize,
    batch_size: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            delimiter: b',',
            quote: b'"',
            escape: None,
            header: true,
            nulls: vec![String::new()],
            comment: None,
            schema: None,
            infer_rows: 1000,
            batch_size: 8192,
        }
    }
}

impl ReadOptions {
    /// The field delimiter (`,` by default).
    pub fn with_delimiter(mut self, delimiter: u8) -> Self {
        self.delimiter = delimiter;
        self
    }

    /// The quote (`"` by default; a doubled quote inside quotes is one).
    pub fn with_quote(mut self, quote: u8) -> Self {
        self.quote = quote;
        self
    }

    /// An escape character inside quotes (none by default).
    pub fn with_escape(mut self, escape: u8) -> Self {
        self.escape = Some(escape);
        self
    }

    /// Whether the first line names the columns (yes by default; without it they are
    /// `column_1`, `column_2`, …).
    pub fn with_header(mut self, header: bool) -> Self {
        self.header = header;
        self
    }

    /// The spellings of a null (by default the empty field alone).
    pub fn with_nulls(mut self, spellings: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.nulls = spellings.into_iter().map(Into::into).collect();
        self
    }

    /// Lines starting with `comment` are skipped.
    pub fn with_comment(mut self, comment: u8) -> Self {
        self.comment = Some(comment);
        self
    }

    /// Reads with `schema` instead of inferring one.
    pub fn with_schema(mut self, schema: SchemaRef) -> Self {
        self.schema = Some(schema);
        self
    }

    /// How many rows schema inference reads (1,000 by default).
    pub fn with_infer_rows(mut self, rows: usize) -> Self {
        self.infer_rows = rows.max(1);
        self
    }

    /// Rows per batch (8,192 by default).
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }

    fn format(&self) -> Result<Format> {
        let mut format = Format::default()
            .with_delimiter(self.delimiter)
            .with_quote(self.quote)
            .with_header(self.header)
            .with_null_regex(self.null_regex()?);
        if let Some(escape) = self.escape {
            format = format.with_escape(escape);
        }
        if let Some(comment) = self.comment {
            format = format.with_comment(comment);
        }
        Ok(format)
    }

    /// One pattern for every null spelling, matched whole.
    fn null_regex(&self) -> Result<regex::Regex> {
        let spellings: Vec<String> = self.nulls.iter().map(|s| regex::escape(s)).collect();
        regex::Regex::new(&format!("^(?:{})$", spellings.join("|")))
            .map_err(|e| FormatError::new("the null spellings", e))
    }
}

/// The batches of the CSV file at `path`.
///
/// # Errors
/// If the file cannot be opened, or inferring its schema fails.
pub fn read(path: impl AsRef<Path>) -> Result<Batches> {
    read_with(path, ReadOptions::default())
}

/// The batches of the CSV file at `path`, read with `options`.
///
/// # Errors
/// As [`read`].
pub fn read_with(path: impl AsRef<Path>, options: ReadOptions) -> Result<Batches> {
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
    options: ReadOptions,
) -> Result<Batches> {
    let failed = |e: arrow_schema_60::ArrowError| FormatError::new(&place, e);
    let format = options.format()?;
    let schema = match &options.schema {
        Some(schema) => Arc::new(schema_to_arrow(schema)),
        None => {
            let (schema, _) = format
                .infer_schema(BufReader::new(&mut input), Some(options.infer_rows))
                .map_err(failed)?;
            input
                .seek(SeekFrom::Start(0))
                .map_err(|e| FormatError::new(&place, e))?;
            Arc::new(schema)
        }
    };
    let reader = ReaderBuilder::new(Arc::clone(&schema))
        .with_format(format)
        .with_batch_size(options.batch_size)
        .build(BufReader::new(input))
        .map_err(failed)?;
    Batches::new(place, &schema, reader)
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
    options: ReadOptions,
) -> Result<crate::BatchStream> {
    let place = place.into();
    let (len, sample) = crate::text_source::sample(&source, &place).await?;
    let format = options.format()?;
    let schema = match &options.schema {
        Some(schema) => Arc::new(schema_to_arrow(schema)),
        None => {
            let (schema, _) = format
                .infer_schema(sample, Some(options.infer_rows))
                .map_err(|e| FormatError::new(&place, e))?;
            Arc::new(schema)
        }
    };
    let decoder = ReaderBuilder::new(Arc::clone(&schema))
        .with_format(format)
        .with_batch_size(options.batch_size)
        .build_decoder();
    let batches = crate::text_source::decode(source, len, decoder);
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

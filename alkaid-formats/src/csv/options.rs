//! [`CsvReadOptions`]: how CSV is read, by arrow-csv's reader or Alkaid's own.

use alkaid_schema::SchemaRef;
use arrow_csv::reader::Format;

use crate::error::{FormatError, Result};

/// How a CSV file is read.
#[derive(Debug, Clone)]
pub struct CsvReadOptions {
    pub(super) delimiter: u8,
    pub(super) quote: u8,
    pub(super) escape: Option<u8>,
    pub(super) header: bool,
    pub(super) nulls: Vec<String>,
    pub(super) comment: Option<u8>,
    pub(super) schema: Option<SchemaRef>,
    pub(super) infer_rows: usize,
    pub(super) batch_size: usize,
}

impl Default for CsvReadOptions {
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

impl CsvReadOptions {
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

    pub(super) fn format(&self) -> Result<Format> {
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

//! Alkaid's own CSV reader for the common case: columns of integers, floats, booleans and
//! text, the standard quoting (a doubled quote inside quotes is one), no escape character
//! and no comment lines. Fields are parsed straight from the bytes read into the columns'
//! buffers; arrow-csv, which serves every other case, first copies each record's fields into
//! a buffer of its own (zeroed as it grows) through a byte-at-a-time state machine, and that
//! is most of its time.
//!
//! What is read is what arrow-csv reads from the same bytes, which the tests check on random
//! text: fields split as `csv-core` splits them (a quote opens a quoted field only as its
//! first byte; bytes after the closing quote are kept; `\r`, `\n` and `\r\n` end a record;
//! empty lines are skipped), numbers parsed by arrow-cast's parsers, `true`/`false` in any
//! case, nulls by the options' spellings, matched whole.

use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_schema::SchemaRef;
use arrow_schema_60::ArrowError;

use super::columns::{ColumnBuilder, column_for};
use super::options::CsvReadOptions;

/// Whether this reader takes text of `schema` read with `options`.
pub(crate) fn supports(schema: &alkaid_schema::Schema, options: &CsvReadOptions) -> bool {
    let special = [b'\r', b'\n'];
    let plain_bytes = options.delimiter != options.quote
        && !special.contains(&options.delimiter)
        && !special.contains(&options.quote);
    plain_bytes
        && options.escape.is_none()
        && options.comment.is_none()
        && schema
            .fields()
            .iter()
            .all(|field| column_for(field.data_type(), 0).is_some())
}

/// Where a field lies in the record's bytes.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    /// Quoted, with a doubled quote or bytes after the closing quote: the value is not a
    /// plain slice and is spelled out into the decoder's scratch.
    spelled: bool,
    quoted: bool,
}

/// Where the look at an unfinished record stopped: inside the quoted field that starts at
/// `start`, its quotes looked at up to `scan_from` (the fields before it are in `spans`).
#[derive(Clone, Copy)]
struct Resume {
    start: usize,
    scan_from: usize,
    spelled: bool,
}

/// CSV text in, Alkaid batches out: a push decoder, fed bytes as they come (an empty slice
/// at the end of the text), that hands out a batch whenever `batch_size` rows are decoded.
pub(crate) struct DirectDecoder {
    schema: SchemaRef,
    columns: Vec<Box<dyn ColumnBuilder>>,
    /// The bytes that are special outside quotes: the delimiter, `\r`, `\n`.
    special: [bool; 256],
    delimiter: u8,
    quote: u8,
    nulls: Vec<Vec<u8>>,
    /// The only null spelling is the empty field (the default).
    null_is_empty: bool,
    batch_size: usize,
    rows: usize,
    /// Records still to skip (the header).
    to_skip: usize,
    /// The record's number, counted from 1 with the header as arrow-csv counts.
    line: usize,
    /// The start of a record the bytes so far did not finish.
    partial: Vec<u8>,
    resume: Option<Resume>,
    spans: Vec<Span>,
    scratch: Vec<u8>,
}

impl DirectDecoder {
    /// A decoder of text of `schema` (which [`supports`] takes) read with `options`.
    pub(crate) fn new(schema: SchemaRef, options: &CsvReadOptions) -> Self {
        let mut special = [false; 256];
        for byte in [options.delimiter, b'\r', b'\n'] {
            special[usize::from(byte)] = true;
        }
        let capacity = options.batch_size.min(1 << 16);
        let columns = schema
            .fields()
            .iter()
            .map(|f| column_for(f.data_type(), capacity).expect("supports() took the schema"))
            .collect();
        Self {
            schema,
            columns,
            special,
            delimiter: options.delimiter,
            quote: options.quote,
            nulls: options
                .nulls
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect(),
            null_is_empty: options.nulls == [""],
            batch_size: options.batch_size,
            rows: 0,
            to_skip: usize::from(options.header),
            line: 1,
            partial: Vec::new(),
            resume: None,
            spans: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Decodes what it can of `bytes` and says how much it took: all of it, unless a batch
    /// filled up first. An empty slice ends the text (a last record without a line break
    /// is decoded then).
    pub(crate) fn decode(&mut self, bytes: &[u8]) -> Result<usize, ArrowError> {
        let at_end = bytes.is_empty();
        let mut taken = 0;
        if !self.partial.is_empty() {
            if self.rows == self.batch_size {
                return Ok(0);
            }
            taken = match self.finish_partial(bytes)? {
                Some(taken) => taken,
                None => return Ok(bytes.len()),
            };
        }
        while self.rows < self.batch_size && taken < bytes.len() {
            match self.record(&bytes[taken..], at_end)? {
                Some(used) => taken += used,
                None => {
                    self.partial.extend_from_slice(&bytes[taken..]);
                    taken = bytes.len();
                }
            }
        }
        Ok(taken)
    }

    /// Finishes the record the last bytes began with the first of `bytes`, a line at a time
    /// (a record ends only at a line break), and says how many of `bytes` it took; `None`
    /// if it took them all and still does not end. A record is looked at again only when a
    /// line break came, and then from where the last look stopped (`resume`), so a long
    /// record costs its length, not its length times its lines.
    fn finish_partial(&mut self, bytes: &[u8]) -> Result<Option<usize>, ArrowError> {
        let at_end = bytes.is_empty();
        let carried = self.partial.len();
        let mut joined = std::mem::take(&mut self.partial);
        let mut upto = 0;
        loop {
            let next = memchr::memchr2(b'\n', b'\r', &bytes[upto..])
                .map_or(bytes.len(), |found| upto + found + 1);
            joined.extend_from_slice(&bytes[upto..next]);
            upto = next;
            let line_ended = joined.last().is_some_and(|&b| b == b'\n' || b == b'\r');
            if (line_ended || at_end)
                && let Some(used) = self.record(&joined, at_end)?
            {
                // A record carried over ends in the new bytes (or at the end).
                return Ok(Some(used.saturating_sub(carried)));
            }
            if upto == bytes.len() {
                self.partial = joined;
                return Ok(None);
            }
        }
    }

    /// Decodes the record at the start of `bytes` (after any empty lines) and says how many
    /// bytes it took; `None` if the bytes end before it does and more may come.
    fn record(&mut self, bytes: &[u8], at_end: bool) -> Result<Option<usize>, ArrowError> {
        // A record looked at before stopped inside a quoted field: go on from there.
        let mut resumed = self.resume.take();
        let mut at = 0;
        if resumed.is_none() {
            while at < bytes.len() && (bytes[at] == b'\r' || bytes[at] == b'\n') {
                at += 1;
            }
            if at == bytes.len() {
                // Only line breaks: taken, and no record.
                return Ok(match at_end || at > 0 {
                    true => Some(at),
                    false => None,
                });
            }
            self.spans.clear();
        }
        let end = loop {
            let mut span = Span {
                start: at,
                end: at,
                spelled: false,
                quoted: false,
            };
            let open_quote = match resumed.take() {
                Some(resume) => {
                    span.start = resume.start;
                    span.spelled = resume.spelled;
                    at = resume.scan_from;
                    true
                }
                None if bytes[at] == self.quote => {
                    at += 1;
                    true
                }
                None => false,
            };
            if open_quote {
                span.quoted = true;
                loop {
                    match memchr::memchr(self.quote, &bytes[at..]) {
                        // Unclosed: at the end of the text the field runs to it.
                        None if at_end => {
                            span.spelled = true;
                            at = bytes.len();
                            break;
                        }
                        None => return Ok(self.suspend(&span, bytes.len())),
                        Some(found) => {
                            let closing = at + found;
                            match bytes.get(closing + 1) {
                                Some(&next) if next == self.quote => {
                                    span.spelled = true;
                                    at = closing + 2;
                                }
                                // A quote at the end of the bytes: doubled or closing?
                                None if !at_end => return Ok(self.suspend(&span, closing)),
                                _ => {
                                    at = closing + 1;
                                    break;
                                }
                            }
                        }
                    }
                }
            }
            let plain_from = at;
            at = self.next_special(bytes, at);
            span.spelled |= span.quoted && at > plain_from;
            span.end = at;
            self.spans.push(span);
            match bytes.get(at) {
                None if at_end => break at,
                None => return Ok(None),
                Some(&b) if b == self.delimiter => at += 1,
                // `\r` or `\n`; a `\n` after `\r` is skipped as an empty line.
                Some(_) => break at + 1,
            }
            if at == bytes.len() {
                // A delimiter last: an empty field follows, at the end of the text.
                if !at_end {
                    return Ok(None);
                }
                self.spans.push(Span {
                    start: at,
                    end: at,
                    spelled: false,
                    quoted: false,
                });
                break at;
            }
        };
        self.push_record(bytes)?;
        Ok(Some(end))
    }

    /// Remembers that the record stopped inside the quoted field `span`, whose quotes are
    /// looked at up to `scan_from`; the record is not finished.
    fn suspend(&mut self, span: &Span, scan_from: usize) -> Option<usize> {
        self.resume = Some(Resume {
            start: span.start,
            scan_from,
            spelled: span.spelled,
        });
        None
    }

    /// The first delimiter or line break in `bytes` from `at` (or the end): eight bytes at
    /// a time, then one at a time. Fields are short, so this beats a call to `memchr3`.
    fn next_special(&self, bytes: &[u8], mut at: usize) -> usize {
        while let Some(chunk) = bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let found = byte_at(word, self.delimiter) | byte_at(word, b'\n') | byte_at(word, b'\r');
            if found != 0 {
                // The lowest flag marks the first match (flags above it may be false).
                return at + (found.trailing_zeros() / 8) as usize;
            }
            at += 8;
        }
        while at < bytes.len() && !self.special[usize::from(bytes[at])] {
            at += 1;
        }
        at
    }

    /// Appends the fields in `spans` (of `bytes`) to the columns, or skips the header.
    fn push_record(&mut self, bytes: &[u8]) -> Result<(), ArrowError> {
        let line = self.line;
        self.line += 1;
        if self.to_skip > 0 {
            self.to_skip -= 1;
            return Ok(());
        }
        if self.spans.len() != self.columns.len() {
            return Err(ArrowError::CsvError(format!(
                "incorrect number of fields for line {line}, expected {} got {}",
                self.columns.len(),
                self.spans.len()
            )));
        }
        for (i, span) in self.spans.iter().enumerate() {
            let field = match (span.quoted, span.spelled) {
                (false, _) => &bytes[span.start..span.end],
                (true, false) => &bytes[span.start + 1..span.end - 1],
                (true, true) => {
                    spell(&bytes[span.start..span.end], self.quote, &mut self.scratch);
                    &self.scratch
                }
            };
            let column = &mut self.columns[i];
            let null = match self.null_is_empty {
                true => field.is_empty(),
                false => self.nulls.iter().any(|null| null == field),
            };
            if null {
                column.push_null();
            } else if let Err(message) = column.push(field) {
                let name = self.schema.fields()[i].name();
                return Err(ArrowError::ParseError(format!(
                    "line {line}, column {name:?}: {message}"
                )));
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// The rows decoded since the last flush, as a batch, if any.
    pub(crate) fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        if self.rows == 0 {
            return Ok(None);
        }
        let rows = std::mem::take(&mut self.rows);
        let columns = self
            .columns
            .iter_mut()
            .zip(self.schema.fields())
            .map(|(column, field)| {
                column.finish().map_err(|message| {
                    ArrowError::ParseError(format!("column {:?}: {message}", field.name()))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let options = alkaid_array::RecordBatchOptions {
            num_rows: Some(rows),
            ..Default::default()
        };
        RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
            .map(Some)
            .map_err(|e| ArrowError::ExternalError(e.into()))
    }
}

/// The high bit of each byte of `word` that equals `byte`, exact for the lowest such byte
/// (a borrow may flag bytes above it).
fn byte_at(word: u64, byte: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The value of the quoted field `raw` (from its opening quote to its last byte) into
/// `out`: quotes dropped, doubled quotes made one, what follows the closing quote kept.
fn spell(raw: &[u8], quote: u8, out: &mut Vec<u8>) {
    out.clear();
    let mut at = 1;
    while at < raw.len() {
        let byte = raw[at];
        if byte != quote {
            out.push(byte);
            at += 1;
        } else if raw.get(at + 1) == Some(&quote) {
            out.push(quote);
            at += 2;
        } else {
            // The closing quote: the rest is kept as it is.
            out.extend_from_slice(&raw[at + 1..]);
            return;
        }
    }
}

impl crate::text_source::PushDecoder for DirectDecoder {
    fn decode(&mut self, bytes: &[u8]) -> Result<usize, ArrowError> {
        DirectDecoder::decode(self, bytes)
    }

    fn flush(&mut self) -> Result<Option<arrow_array_60::RecordBatch>, ArrowError> {
        Ok(DirectDecoder::flush(self)?.map(|b| alkaid_arrow::arrow60::batch_to_arrow(&b)))
    }
}

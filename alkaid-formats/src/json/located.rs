//! Newline-delimited JSON through arrow-rs's push decoder, with a failure named by its
//! line: arrow-rs names neither the line of text that is not JSON nor the row whose value
//! does not fit its column's type, so its errors alone say only which batch failed. The
//! text of the batch being decoded is kept beside the decoder (one batch of text, as the
//! decoder's own tape holds), and when the batch fails, its lines are tried again one at
//! a time, first as JSON, then against the schema, to find the first that fails. Only a
//! failure pays for the search; a batch that decodes costs a copy of its text.

use arrow_json::ReaderBuilder;
use arrow_json::reader::Decoder;
use arrow_schema_60::ArrowError;

use crate::text_source::PushDecoder;

/// arrow-rs's JSON decoder, its failures named by line (counted from 1 at the start of
/// the text it is given).
pub(crate) struct LocatedDecoder {
    decoder: Decoder,
    /// How the decoder was built: each line is tried again with one like it.
    builder: ReaderBuilder,
    /// The text taken into the batch being decoded.
    text: Vec<u8>,
    /// The line breaks before `text`.
    lines_before: usize,
}

impl LocatedDecoder {
    /// The decoder `builder` builds, its failures named by line.
    pub(crate) fn new(builder: ReaderBuilder) -> Result<Self, ArrowError> {
        Ok(Self {
            decoder: builder.clone().build_decoder()?,
            builder,
            text: Vec::new(),
            lines_before: 0,
        })
    }

    /// `error` of the batch in `text`, named by the first line that fails on its own:
    /// as not JSON when the decoder found text that is not (`not_json`) or the text ends
    /// inside a value, else against the schema. As it is when no line fails, or when a
    /// line holds part of a value spread over several (which arrow-rs accepts, and a line
    /// alone cannot be judged by).
    fn located(&self, error: ArrowError, not_json: bool) -> ArrowError {
        let lines: Vec<&[u8]> = self.text.split(|&b| b == b'\n').collect();
        for (i, line) in lines.iter().enumerate() {
            let number = self.lines_before + i + 1;
            if line.trim_ascii().is_empty() {
                continue;
            }
            if let Err(e) = serde_json::from_slice::<serde_json::Value>(line) {
                // Text the decoder took as JSON yet a line alone is not: a value spread
                // over lines, unless the line is the last (a value the text cut short).
                let last = lines[i + 1..].iter().all(|l| l.trim_ascii().is_empty());
                if !not_json && !last {
                    break;
                }
                let text = e.to_string();
                let reason = text.split(" at line ").next().unwrap_or(&text);
                return ArrowError::JsonError(format!(
                    "line {number}, column {}: not JSON: {reason}",
                    e.column()
                ));
            }
            if !not_json && let Err(e) = self.decode_alone(line) {
                return ArrowError::JsonError(format!("line {number}: {}", message(&e)));
            }
        }
        error
    }

    /// `line` decoded by a decoder of its own.
    fn decode_alone(&self, line: &[u8]) -> Result<(), ArrowError> {
        let mut decoder = self.builder.clone().with_batch_size(1).build_decoder()?;
        decoder.decode(line)?;
        decoder.flush().map(drop)
    }
}

/// What `error` says, without the kind arrow-rs puts before it.
fn message(error: &ArrowError) -> String {
    match error {
        ArrowError::JsonError(message) | ArrowError::ParseError(message) => message.clone(),
        other => other.to_string(),
    }
}

impl PushDecoder for LocatedDecoder {
    fn decode(&mut self, bytes: &[u8]) -> Result<usize, ArrowError> {
        match self.decoder.decode(bytes) {
            Ok(taken) => {
                self.text.extend_from_slice(&bytes[..taken]);
                Ok(taken)
            }
            Err(e) => {
                self.text.extend_from_slice(bytes);
                Err(self.located(e, true))
            }
        }
    }

    fn flush(&mut self) -> Result<Option<arrow_array_60::RecordBatch>, ArrowError> {
        let batch = self.decoder.flush().map_err(|e| self.located(e, false))?;
        self.lines_before += memchr::memchr_iter(b'\n', &self.text).count();
        self.text.clear();
        Ok(batch)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema_60::{DataType, Field, Schema};

    use super::*;

    /// The first failure of decoding `text` with `decoder`, `chunk` bytes at a time, in
    /// batches of two rows.
    fn failure(text: &str, chunk: usize) -> String {
        let schema = Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Utf8, true),
        ]);
        let builder = ReaderBuilder::new(Arc::new(schema)).with_batch_size(2);
        let mut decoder = LocatedDecoder::new(builder).unwrap();
        let mut rest = text.as_bytes();
        loop {
            let taken = match decoder.decode(&rest[..chunk.min(rest.len())]) {
                Ok(taken) => taken,
                Err(e) => return e.to_string(),
            };
            let ended = rest.is_empty();
            rest = &rest[taken..];
            if taken == 0 || ended {
                match decoder.flush() {
                    Err(e) => return e.to_string(),
                    Ok(None) if ended => return "no failure".into(),
                    Ok(_) => {}
                }
            }
        }
    }

    #[test]
    fn a_failure_names_its_line_in_any_batch_and_chunk() {
        let good = "{\"a\": 1, \"b\": \"x\"}\n\r\n{\"a\": 2}\n{\"b\": \"y\"}\n\n{\"a\": 3}\n";
        for chunk in [1, 3, 7, 4096] {
            assert_eq!(failure(good, chunk), "no failure", "chunk {chunk}");
            // Line 8, in the third batch of two rows (blank lines 2 and 5 hold none).
            let text = format!("{good}{{\"a\": 4}}\n{{\"a\": \"four\"}}\n");
            let error = failure(&text, chunk);
            assert!(error.contains("line 8: "), "chunk {chunk}: {error}");
            assert!(error.contains("four"), "chunk {chunk}: {error}");
            let error = failure(&format!("{good}{{\"a\": 5}}\n{{\"a\" 5}}\n"), chunk);
            assert!(
                error.contains("line 8, column 6: not JSON"),
                "chunk {chunk}: {error}"
            );
            // The text ends inside a value.
            let error = failure(&format!("{good}{{\"a\": \n"), chunk);
            assert!(
                error.contains("line 7, column 6: not JSON"),
                "chunk {chunk}: {error}"
            );
            // A number past Int64, in the first batch.
            let error = failure("{\"a\": 1}\n{\"a\": 9223372036854775808}\n", chunk);
            assert!(error.contains("line 2: "), "chunk {chunk}: {error}");
        }
    }

    #[test]
    fn a_value_spread_over_lines_keeps_arrow_rs_error() {
        // arrow-rs reads `{"a":\n1}` as one row; the bad value is named by arrow-rs alone.
        let error = failure("{\"a\":\n1}\n{\"a\": \"x\"}\n", 4096);
        assert!(!error.contains("line"), "{error}");
        assert!(error.contains('x'), "{error}");
    }
}

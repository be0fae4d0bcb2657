//! A small JSON reader and string escaper, for the JSON that the format itself carries:
//! extension type descriptions (`ARROW:extension:metadata`) and the values of `arrow.json`
//! columns.
//!
//! The reader builds a [`JsonValue`] tree and refuses anything RFC 8259 does not allow
//! (trailing commas, comments, single quotes, unescaped control characters, lone
//! surrogates). Input is hostile: nesting deeper than [`MAX_JSON_DEPTH`] is an error rather
//! than a stack overflow, and memory stays proportional to the input.
//!
//! ```
//! use alkaid_schema::json::{JsonValue, parse_json};
//! let value = parse_json(r#"{"shape": [2, 3], "dim_names": ["x", "y"]}"#)?;
//! assert_eq!(value.get("shape").and_then(JsonValue::as_array).map(|a| a.len()), Some(2));
//! assert!(parse_json("[1, 2,]").is_err());
//! # Ok::<(), alkaid_schema::json::JsonError>(())
//! ```

use std::fmt;

/// Deepest nesting of arrays and objects the reader accepts.
pub const MAX_JSON_DEPTH: usize = 128;

/// A parsed JSON value. Numbers keep their text, so integers of any size survive.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonValue {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<JsonValue>),
    /// An object's members in their order (a repeated key is kept twice).
    Object(Vec<(String, JsonValue)>),
}

impl JsonValue {
    /// The member `key` of an object (the first, if repeated).
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The elements of an array.
    pub fn as_array(&self) -> Option<&[JsonValue]> {
        match self {
            JsonValue::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The text of a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// A number that is an integer in `i64`'s range (`3`, `-7`; not `3.0` or `1e3`).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            JsonValue::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// A number as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            JsonValue::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, JsonValue::Null)
    }
}

/// Compact JSON text: no white space, strings escaped, numbers as they were written or
/// made (a `Number` is written as its text, so it must be a valid JSON number).
impl fmt::Display for JsonValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_value(&mut out, self);
        f.write_str(&out)
    }
}

fn write_value(out: &mut String, value: &JsonValue) {
    match value {
        JsonValue::Null => out.push_str("null"),
        JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JsonValue::Number(text) => out.push_str(text),
        JsonValue::String(s) => write_json_string(out, s),
        JsonValue::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        JsonValue::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Why text is not JSON, and at which byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// The byte offset where reading stopped.
    pub position: usize,
    /// What was wrong there.
    pub reason: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.position)
    }
}

impl std::error::Error for JsonError {}

/// Parses `text` as one JSON value (white space around it allowed).
///
/// # Errors
/// [`JsonError`] naming the first byte that does not fit.
pub fn parse_json(text: &str) -> Result<JsonValue, JsonError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    reader.skip_space();
    let value = reader.value(0)?;
    reader.skip_space();
    if reader.at != reader.bytes.len() {
        return Err(reader.error("text after the value"));
    }
    Ok(value)
}

/// Appends `s` to `out` as a JSON string literal, quotes included.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, reason: &str) -> JsonError {
        JsonError {
            position: self.at,
            reason: reason.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn expect_word(&mut self, word: &str, value: JsonValue) -> Result<JsonValue, JsonError> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("not a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<JsonValue, JsonError> {
        match self.peek() {
            None => Err(self.error("the text ends where a value should be")),
            Some(b'n') => self.expect_word("null", JsonValue::Null),
            Some(b't') => self.expect_word("true", JsonValue::Bool(true)),
            Some(b'f') => self.expect_word("false", JsonValue::Bool(false)),
            Some(b'"') => self.string().map(JsonValue::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(open @ (b'[' | b'{')) => {
                if depth >= MAX_JSON_DEPTH {
                    return Err(self.error("nested deeper than 128 levels"));
                }
                self.at += 1;
                if open == b'[' {
                    self.array(depth + 1)
                } else {
                    self.object(depth + 1)
                }
            }
            Some(_) => Err(self.error("not a JSON value")),
        }
    }

    /// Calls `item` for each element up to `close`, with commas between.
    fn sequence(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.skip_space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.skip_space();
            item(self)?;
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(c) if c == close => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected a comma or the end of the list")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<JsonValue, JsonError> {
        let mut items = Vec::new();
        self.sequence(b']', |r| {
            items.push(r.value(depth)?);
            Ok(())
        })?;
        Ok(JsonValue::Array(items))
    }

    fn object(&mut self, depth: usize) -> Result<JsonValue, JsonError> {
        let mut members = Vec::new();
        self.sequence(b'}', |r| {
            if r.peek() != Some(b'"') {
                return Err(r.error("expected a string key"));
            }
            let key = r.string()?;
            r.skip_space();
            if r.peek() != Some(b':') {
                return Err(r.error("expected a colon after the key"));
            }
            r.at += 1;
            r.skip_space();
            members.push((key, r.value(depth)?));
            Ok(())
        })?;
        Ok(JsonValue::Object(members))
    }

    fn number(&mut self) -> Result<JsonValue, JsonError> {
        let start = self.at;
        let digits = |r: &mut Self| {
            let from = r.at;
            while let Some(b'0'..=b'9') = r.peek() {
                r.at += 1;
            }
            r.at - from
        };
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let digits_start = self.at;
        let leading_zero = self.peek() == Some(b'0');
        let integer = digits(self);
        if integer == 0 {
            return Err(self.error("a number needs digits"));
        }
        if leading_zero && integer > 1 {
            self.at = digits_start + 1;
            return Err(self.error("a number does not start with 0"));
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if digits(self) == 0 {
                return Err(self.error("a fraction needs digits"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if digits(self) == 0 {
                return Err(self.error("an exponent needs digits"));
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).expect("ASCII digits");
        Ok(JsonValue::Number(text.to_string()))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or_else(|| self.error("\\u needs four hex digits"))?;
        self.at += 4;
        Ok(digits)
    }

    /// A string whose opening quote is at the cursor.
    fn string(&mut self) -> Result<String, JsonError> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let run_start = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The input is a `str`, and the run stops only at ASCII bytes, so it is UTF-8.
            out.push_str(std::str::from_utf8(&self.bytes[run_start..self.at]).expect("UTF-8"));
            match self.peek() {
                None => return Err(self.error("the string is not closed")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escaped = self.peek().ok_or_else(|| self.error("the text ends"))?;
                    self.at += 1;
                    let c = match escaped {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => {
                            self.at -= 1;
                            return Err(self.error("an unknown escape"));
                        }
                    };
                    out.push(c);
                }
                Some(_) => return Err(self.error("a control character inside a string")),
            }
        }
    }

    /// The character of a `\u` escape whose `u` was just read (a pair for surrogates).
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let first = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&first) {
            if !self.bytes[self.at..].starts_with(b"\\u") {
                return Err(self.error("a lone high surrogate"));
            }
            self.at += 2;
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return Err(self.error("a high surrogate without its low half"));
            }
            0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else {
            first
        };
        char::from_u32(code).ok_or_else(|| self.error("a lone low surrogate"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_every_kind_parse() {
        let value = parse_json(
            r#" {"a": [1, -2.5e3, 0, true, false, null], "s": "x\"\\\/\n\u00e9\ud83d\ude00", "e": {}} "#,
        )
        .unwrap();
        let a = value.get("a").unwrap().as_array().unwrap();
        assert_eq!(a[0].as_i64(), Some(1));
        assert_eq!(a[1].as_f64(), Some(-2500.0));
        assert_eq!(a[1].as_i64(), None);
        assert_eq!(a[3], JsonValue::Bool(true));
        assert!(a[5].is_null());
        assert_eq!(value.get("s").unwrap().as_str(), Some("x\"\\/\né😀"));
        assert_eq!(value.get("e"), Some(&JsonValue::Object(vec![])));
        assert_eq!(value.get("missing"), None);
    }

    #[test]
    fn what_rfc_8259_forbids_is_refused_with_its_position() {
        let (mut found, mut expected) = (Vec::new(), Vec::new());
        for (text, position) in [
            ("[1, 2,]", 6),
            ("{'a': 1}", 1),
            ("01", 1),
            ("1.", 2),
            ("-", 1),
            ("\"a\u{1}\"", 2),
            ("\"\\ud800\"", 7),
            ("\"\\udc00\"", 7),
            ("\"\\x\"", 2),
            ("nul", 0),
            ("[1] 2", 4),
            ("", 0),
            ("{\"a\" 1}", 5),
            ("\"open", 5),
        ] {
            let error = parse_json(text).unwrap_err();
            found.push((text, error.position));
            expected.push((text, position));
        }
        assert_eq!(found, expected);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let ok = "[".repeat(MAX_JSON_DEPTH) + &"]".repeat(MAX_JSON_DEPTH);
        assert!(parse_json(&ok).is_ok());
        let deep = "[".repeat(100_000);
        assert!(
            parse_json(&deep)
                .unwrap_err()
                .reason
                .contains("nested deeper")
        );
    }

    #[test]
    fn values_are_written_as_compact_json_that_reads_back() {
        let text = r#"{"a":[1,-2.5e3,true,null,"q\"uote"],"b":{}}"#;
        let value = parse_json(text).unwrap();
        assert_eq!(value.to_string(), text);
        assert_eq!(parse_json(&value.to_string()).unwrap(), value);
    }

    #[test]
    fn written_strings_read_back() {
        for s in [
            "plain",
            "quote \" and \\ slash",
            "tab\tnew\nline\u{1}",
            "é😀",
        ] {
            let mut out = String::new();
            write_json_string(&mut out, s);
            assert_eq!(parse_json(&out).unwrap().as_str(), Some(s));
        }
    }
}

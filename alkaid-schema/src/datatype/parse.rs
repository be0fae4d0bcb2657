//! The text notation of data types, read back (see [`display`](super::display) for the
//! notation).
//!
//! A recursive-descent parser over the bytes of the text. Nesting is limited to
//! [`MAX_DEPTH`] levels so that hostile text cannot exhaust the stack; every error names
//! the byte offset and what was expected there.

use std::str::FromStr;
use std::sync::Arc;

use super::display::interval_name;
use super::{
    DataType, DecimalType, DecimalWidth, IntegerType, IntervalUnit, MapType, RunEndEncodedType,
    TimeUnit, UnionMode, UnionType,
};
use crate::{Field, Fields, Metadata, SchemaError};

/// The deepest nesting of types the parser accepts.
pub const MAX_DEPTH: usize = 64;

impl FromStr for DataType {
    type Err = SchemaError;

    /// Parses the notation that `Display` writes.
    ///
    /// # Errors
    /// [`SchemaError::Parse`] with the byte offset of the problem, or the error of the
    /// checked constructor the parsed parameters failed (e.g. a map with nullable keys).
    fn from_str(text: &str) -> Result<Self, SchemaError> {
        Parser::parse_all(text, "type", Parser::data_type)
    }
}

impl FromStr for Field {
    type Err = SchemaError;

    /// Parses a field in the notation `Display` writes: `name: Type[ not null][ {…}]`.
    fn from_str(text: &str) -> Result<Self, SchemaError> {
        Parser::parse_all(text, "field", Parser::field)
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// Parses all of `text` with `parse`; anything left over is an error.
    fn parse_all<T>(
        text: &'a str,
        what: &str,
        parse: impl FnOnce(&mut Self) -> Result<T, SchemaError>,
    ) -> Result<T, SchemaError> {
        let mut parser = Parser {
            text,
            pos: 0,
            depth: 0,
        };
        let parsed = parse(&mut parser)?;
        parser.skip_space();
        if parser.pos < text.len() {
            return Err(parser.error(&format!("expected the end of the {what}")));
        }
        Ok(parsed)
    }

    fn error(&self, expected: &str) -> SchemaError {
        // Report where the next token starts, not the whitespace before it.
        let untrimmed = &self.text[self.pos..];
        let rest = untrimmed.trim_start();
        let position = self.pos + (untrimmed.len() - rest.len());
        let found = match rest.chars().next() {
            None => "the end of the text".to_string(),
            Some(_) => {
                let snippet: String = rest.chars().take(12).collect();
                format!("{snippet:?}")
            }
        };
        SchemaError::Parse {
            position,
            message: format!("{expected}, found {found}"),
        }
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Consumes `token` if it comes next.
    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        let found = self.text[self.pos..].starts_with(token);
        if found {
            self.pos += token.len();
        }
        found
    }

    fn expect(&mut self, token: &str) -> Result<(), SchemaError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("expected {token:?}")))
        }
    }

    fn ident(&mut self) -> Result<&'a str, SchemaError> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let len = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_alphabetic() || c == '_' || (i > 0 && c.is_ascii_digit())))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return Err(self.error("expected a name"));
        }
        self.pos += len;
        Ok(&rest[..len])
    }

    /// Consumes `word` if the next identifier is exactly it.
    fn eat_word(&mut self, word: &str) -> bool {
        let start = self.pos;
        match self.ident() {
            Ok(found) if found == word => true,
            _ => {
                self.pos = start;
                false
            }
        }
    }

    fn integer<T: FromStr>(&mut self, what: &str) -> Result<T, SchemaError> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..].bytes().take_while(u8::is_ascii_digit).count();
        let parsed = rest[..sign + digits].parse::<T>();
        match parsed {
            Ok(value) if digits > 0 => {
                self.pos += sign + digits;
                Ok(value)
            }
            _ => Err(self.error(&format!("expected {what}"))),
        }
    }

    fn string(&mut self) -> Result<String, SchemaError> {
        self.skip_space();
        let opening = self.pos;
        if !self.eat("\"") {
            return Err(self.error("expected a quoted string"));
        }
        let mut out = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let escaped = match chars.next() {
                        Some((_, '"')) => '"',
                        Some((_, '\\')) => '\\',
                        Some((_, 'n')) => '\n',
                        Some((_, 'r')) => '\r',
                        Some((_, 't')) => '\t',
                        Some((_, 'u')) => self.unicode_escape(&mut chars, i)?,
                        _ => {
                            self.pos += i;
                            return Err(
                                self.error("expected an escape: \\\" \\\\ \\n \\r \\t \\u{…}")
                            );
                        }
                    };
                    out.push(escaped);
                }
                c => out.push(c),
            }
        }
        self.pos = opening;
        Err(self.error("expected a closing '\"'"))
    }

    fn unicode_escape(
        &mut self,
        chars: &mut std::str::CharIndices<'_>,
        start: usize,
    ) -> Result<char, SchemaError> {
        let bad = |parser: &mut Self| {
            parser.pos += start;
            Err(parser.error("expected a unicode escape \\u{hex}"))
        };
        if !matches!(chars.next(), Some((_, '{'))) {
            return bad(self);
        }
        let mut code = 0u32;
        let mut digits = 0;
        loop {
            match chars.next() {
                Some((_, '}')) if digits > 0 => break,
                Some((_, c)) if c.is_ascii_hexdigit() && digits < 6 => {
                    code = code * 16 + c.to_digit(16).expect("a hex digit");
                    digits += 1;
                }
                _ => return bad(self),
            }
        }
        match char::from_u32(code) {
            Some(c) => Ok(c),
            None => bad(self),
        }
    }

    fn time_unit(&mut self) -> Result<TimeUnit, SchemaError> {
        let start = self.pos;
        let word = self.ident()?;
        TimeUnit::ALL
            .into_iter()
            .find(|u| u.abbreviation() == word)
            .ok_or_else(|| {
                self.pos = start;
                self.error("expected a time unit: s, ms, us or ns")
            })
    }

    fn field(&mut self) -> Result<Field, SchemaError> {
        let name = match self.peek() {
            Some(b'"') => self.string()?,
            _ => self.ident()?.to_string(),
        };
        self.expect(":")?;
        let data_type = self.data_type()?;
        let nullable = if self.eat_word("not") {
            if !self.eat_word("null") {
                return Err(self.error("expected \"null\" after \"not\""));
            }
            false
        } else {
            true
        };
        let mut field = Field::new(name, data_type, nullable);
        if self.eat("{") {
            let mut metadata = Metadata::new();
            if !self.eat("}") {
                loop {
                    let key = self.string()?;
                    self.expect(":")?;
                    let value = self.string()?;
                    if metadata.insert(key.clone(), value).is_some() {
                        return Err(
                            self.error(&format!("expected each key once, but {key:?} repeats"))
                        );
                    }
                    if self.eat("}") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            field = field.with_metadata(metadata);
        }
        Ok(field)
    }

    /// Parses `(field, field, …)` after the type name; an empty list is allowed.
    fn field_list(&mut self) -> Result<Vec<Field>, SchemaError> {
        self.expect("(")?;
        let mut fields = Vec::new();
        if self.eat(")") {
            return Ok(fields);
        }
        loop {
            fields.push(self.field()?);
            if self.eat(")") {
                return Ok(fields);
            }
            self.expect(",")?;
        }
    }

    fn data_type(&mut self) -> Result<DataType, SchemaError> {
        if self.depth == MAX_DEPTH {
            return Err(self.error(&format!("expected at most {MAX_DEPTH} levels of nesting")));
        }
        self.depth += 1;
        let result = self.data_type_inner();
        self.depth -= 1;
        result
    }

    fn data_type_inner(&mut self) -> Result<DataType, SchemaError> {
        let start = self.pos;
        let name = self.ident()?;
        let simple = match name {
            "Null" => Some(DataType::Null),
            "Boolean" => Some(DataType::Boolean),
            "Float16" => Some(DataType::Float16),
            "Float32" => Some(DataType::Float32),
            "Float64" => Some(DataType::Float64),
            "Date32" => Some(DataType::Date32),
            "Date64" => Some(DataType::Date64),
            "Binary" => Some(DataType::Binary),
            "Utf8" => Some(DataType::Utf8),
            "LargeBinary" => Some(DataType::LargeBinary),
            "LargeUtf8" => Some(DataType::LargeUtf8),
            "BinaryView" => Some(DataType::BinaryView),
            "Utf8View" => Some(DataType::Utf8View),
            _ => IntegerType::ALL
                .into_iter()
                .map(IntegerType::to_data_type)
                .find(|t| t.to_string() == name),
        };
        if let Some(data_type) = simple {
            return Ok(data_type);
        }
        let data_type = match name {
            "Decimal32" | "Decimal64" | "Decimal128" | "Decimal256" => {
                let width = match name {
                    "Decimal32" => DecimalWidth::W32,
                    "Decimal64" => DecimalWidth::W64,
                    "Decimal128" => DecimalWidth::W128,
                    _ => DecimalWidth::W256,
                };
                self.expect("(")?;
                let precision = self.integer::<u8>("a precision")?;
                self.expect(",")?;
                let scale = self.integer::<i8>("a scale from -128 to 127")?;
                self.expect(")")?;
                DataType::Decimal(DecimalType::try_new(width, precision, scale)?)
            }
            "Time32" | "Time64" => {
                self.expect("(")?;
                let unit = self.time_unit()?;
                self.expect(")")?;
                if name == "Time32" {
                    DataType::time32(unit)?
                } else {
                    DataType::time64(unit)?
                }
            }
            "Timestamp" => {
                self.expect("(")?;
                let unit = self.time_unit()?;
                let timezone = if self.eat(",") {
                    Some(Arc::from(self.string()?))
                } else {
                    None
                };
                self.expect(")")?;
                DataType::Timestamp(unit, timezone)
            }
            "Duration" => {
                self.expect("(")?;
                let unit = self.time_unit()?;
                self.expect(")")?;
                DataType::Duration(unit)
            }
            "Interval" => {
                self.expect("(")?;
                let at = self.pos;
                let word = self.ident()?;
                let units = [
                    IntervalUnit::YearMonth,
                    IntervalUnit::DayTime,
                    IntervalUnit::MonthDayNano,
                ];
                let Some(unit) = units.into_iter().find(|u| interval_name(*u) == word) else {
                    self.pos = at;
                    return Err(self.error("expected YearMonth, DayTime or MonthDayNano"));
                };
                self.expect(")")?;
                DataType::Interval(unit)
            }
            "FixedSizeBinary" => {
                self.expect("(")?;
                let width = self.integer::<i32>("a width")?;
                self.expect(")")?;
                DataType::FixedSizeBinary(width)
            }
            "List" | "LargeList" | "ListView" | "LargeListView" => {
                self.expect("(")?;
                let item = Arc::new(self.field()?);
                self.expect(")")?;
                match name {
                    "List" => DataType::List(item),
                    "LargeList" => DataType::LargeList(item),
                    "ListView" => DataType::ListView(item),
                    _ => DataType::LargeListView(item),
                }
            }
            "FixedSizeList" => {
                self.expect("(")?;
                let size = self.integer::<i32>("a list size")?;
                self.expect(",")?;
                let item = Arc::new(self.field()?);
                self.expect(")")?;
                DataType::FixedSizeList(item, size)
            }
            "Struct" => DataType::Struct(Fields::from(self.field_list()?)),
            "Map" => {
                self.expect("(")?;
                let entries = self.field()?;
                let sorted = if self.eat(",") {
                    if !self.eat_word("sorted") {
                        return Err(self.error("expected \"sorted\""));
                    }
                    true
                } else {
                    false
                };
                self.expect(")")?;
                DataType::Map(MapType::try_new(entries, sorted)?)
            }
            "Union" => {
                self.expect("(")?;
                let mode = if self.eat_word("Sparse") {
                    UnionMode::Sparse
                } else if self.eat_word("Dense") {
                    UnionMode::Dense
                } else {
                    return Err(self.error("expected Sparse or Dense"));
                };
                let (mut ids, mut fields) = (Vec::new(), Vec::new());
                while self.eat(",") {
                    ids.push(self.integer::<i32>("a type id")?);
                    self.expect("=>")?;
                    fields.push(self.field()?);
                }
                self.expect(")")?;
                DataType::Union(UnionType::try_new(fields, ids, mode)?)
            }
            "Dictionary" => {
                self.expect("(")?;
                let at = self.pos;
                let key = IntegerType::from_data_type(&self.data_type()?).ok_or_else(|| {
                    self.pos = at;
                    self.error("expected an integer key type")
                })?;
                self.expect(",")?;
                let value = self.data_type()?;
                let ordered = if self.eat(",") {
                    if !self.eat_word("ordered") {
                        return Err(self.error("expected \"ordered\""));
                    }
                    true
                } else {
                    false
                };
                self.expect(")")?;
                DataType::Dictionary {
                    key,
                    value: Box::new(value),
                    ordered,
                }
            }
            "RunEndEncoded" => {
                self.expect("(")?;
                let run_ends = self.field()?;
                self.expect(",")?;
                let values = self.field()?;
                self.expect(")")?;
                DataType::RunEndEncoded(RunEndEncodedType::try_new(run_ends, values)?)
            }
            _ => {
                self.pos = start;
                return Err(self.error("expected a data type"));
            }
        };
        data_type.validate()?;
        Ok(data_type)
    }
}

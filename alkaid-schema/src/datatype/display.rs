//! The text notation of data types and fields, written.
//!
//! One notation, readable and stable, that [`parse`](super::parse) reads back exactly:
//!
//! | type | text |
//! | --- | --- |
//! | scalars | `Null`, `Boolean`, `Int8` … `UInt64`, `Float16` … `Float64`, `Date32`, `Date64`, `Binary`, `Utf8`, `LargeBinary`, `LargeUtf8`, `BinaryView`, `Utf8View` |
//! | decimals | `Decimal128(38, 2)` (also 32, 64, 256) |
//! | times | `Time32(ms)`, `Time64(ns)`, `Duration(s)`, `Timestamp(us)`, `Timestamp(us, "Europe/Paris")` |
//! | intervals | `Interval(YearMonth)`, `Interval(DayTime)`, `Interval(MonthDayNano)` |
//! | fixed width | `FixedSizeBinary(16)`, `FixedSizeList(3, item: Float32)` |
//! | lists | `List(item: Int32)`, `LargeList(…)`, `ListView(…)`, `LargeListView(…)` |
//! | struct | `Struct(a: Int32, "b c": Utf8 not null)` |
//! | map | `Map(entries: Struct(key: Utf8 not null, value: Int32) not null, sorted)` |
//! | union | `Union(Dense, 0 => a: Int32, 5 => b: Utf8)` |
//! | dictionary | `Dictionary(Int32, Utf8)`, `Dictionary(UInt8, Utf8, ordered)` |
//! | run-end encoded | `RunEndEncoded(run_ends: Int32 not null, values: Utf8)` |
//!
//! A field is `name: Type`, then ` not null` if it is not nullable, then its metadata as
//! `{"key": "value", …}` if it has any. Names that are not plain identifiers, timezones,
//! and metadata are double-quoted strings with `\"`, `\\`, `\n`, `\r`, `\t` and `\u{…}`
//! escapes.

use std::fmt::{self, Display, Formatter, Write};

use super::{DataType, IntervalUnit, UnionMode};
use crate::Field;

impl Display for DataType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Null => f.write_str("Null"),
            Self::Boolean => f.write_str("Boolean"),
            Self::Int8 => f.write_str("Int8"),
            Self::Int16 => f.write_str("Int16"),
            Self::Int32 => f.write_str("Int32"),
            Self::Int64 => f.write_str("Int64"),
            Self::UInt8 => f.write_str("UInt8"),
            Self::UInt16 => f.write_str("UInt16"),
            Self::UInt32 => f.write_str("UInt32"),
            Self::UInt64 => f.write_str("UInt64"),
            Self::Float16 => f.write_str("Float16"),
            Self::Float32 => f.write_str("Float32"),
            Self::Float64 => f.write_str("Float64"),
            Self::Decimal(d) => {
                write!(
                    f,
                    "{}({}, {})",
                    d.width().type_name(),
                    d.precision(),
                    d.scale()
                )
            }
            Self::Date32 => f.write_str("Date32"),
            Self::Date64 => f.write_str("Date64"),
            Self::Time(unit) => {
                write!(
                    f,
                    "Time{}({})",
                    DataType::time_bit_width(*unit),
                    unit.abbreviation()
                )
            }
            Self::Timestamp(unit, None) => write!(f, "Timestamp({})", unit.abbreviation()),
            Self::Timestamp(unit, Some(tz)) => {
                write!(f, "Timestamp({}, ", unit.abbreviation())?;
                write_quoted(f, tz)?;
                f.write_char(')')
            }
            Self::Duration(unit) => write!(f, "Duration({})", unit.abbreviation()),
            Self::Interval(unit) => write!(f, "Interval({})", interval_name(*unit)),
            Self::FixedSizeBinary(width) => write!(f, "FixedSizeBinary({width})"),
            Self::Binary => f.write_str("Binary"),
            Self::Utf8 => f.write_str("Utf8"),
            Self::LargeBinary => f.write_str("LargeBinary"),
            Self::LargeUtf8 => f.write_str("LargeUtf8"),
            Self::BinaryView => f.write_str("BinaryView"),
            Self::Utf8View => f.write_str("Utf8View"),
            Self::List(item) => write!(f, "List({item})"),
            Self::LargeList(item) => write!(f, "LargeList({item})"),
            Self::ListView(item) => write!(f, "ListView({item})"),
            Self::LargeListView(item) => write!(f, "LargeListView({item})"),
            Self::FixedSizeList(item, size) => write!(f, "FixedSizeList({size}, {item})"),
            Self::Struct(fields) => {
                f.write_str("Struct(")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{field}")?;
                }
                f.write_char(')')
            }
            Self::Map(map) => {
                write!(f, "Map({}", map.entries())?;
                if map.keys_sorted() {
                    f.write_str(", sorted")?;
                }
                f.write_char(')')
            }
            Self::Union(union) => {
                f.write_str(match union.mode() {
                    UnionMode::Sparse => "Union(Sparse",
                    UnionMode::Dense => "Union(Dense",
                })?;
                for (id, field) in union.type_ids().iter().zip(union.fields().iter()) {
                    write!(f, ", {id} => {field}")?;
                }
                f.write_char(')')
            }
            Self::Dictionary {
                key,
                value,
                ordered,
            } => {
                write!(f, "Dictionary({}, {value}", key.to_data_type())?;
                if *ordered {
                    f.write_str(", ordered")?;
                }
                f.write_char(')')
            }
            Self::RunEndEncoded(ree) => {
                write!(f, "RunEndEncoded({}, {})", ree.run_ends(), ree.values())
            }
        }
    }
}

/// Writes a field in the notation: `name: Type[ not null][ {metadata}]`.
pub(crate) fn write_field(f: &mut Formatter<'_>, field: &Field) -> fmt::Result {
    write_name(f, field.name())?;
    write!(f, ": {}", field.data_type())?;
    if !field.is_nullable() {
        f.write_str(" not null")?;
    }
    if !field.metadata().is_empty() {
        f.write_str(" {")?;
        for (i, (key, value)) in field.metadata().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_quoted(f, key)?;
            f.write_str(": ")?;
            write_quoted(f, value)?;
        }
        f.write_char('}')?;
    }
    Ok(())
}

pub(crate) fn interval_name(unit: IntervalUnit) -> &'static str {
    match unit {
        IntervalUnit::YearMonth => "YearMonth",
        IntervalUnit::DayTime => "DayTime",
        IntervalUnit::MonthDayNano => "MonthDayNano",
    }
}

/// Whether `name` can be written without quotes: an identifier, `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn write_name(f: &mut Formatter<'_>, name: &str) -> fmt::Result {
    if is_plain_name(name) {
        f.write_str(name)
    } else {
        write_quoted(f, name)
    }
}

fn write_quoted(f: &mut Formatter<'_>, text: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c.is_control() => write!(f, "\\u{{{:x}}}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

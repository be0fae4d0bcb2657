//! The C data interface's format strings: how a [`DataType`] is spelled in an
//! `ArrowSchema`, and read back.
//!
//! A format string describes one level of a type; children and a dictionary travel as
//! separate schemas. A dictionary type is spelled as its key type, with the values' type
//! in the `dictionary` schema; the flags (nullable, dictionary ordered, map keys sorted)
//! live outside the string. Every type of the format has a spelling.

use std::sync::Arc;

use super::{
    DataType, DecimalType, DecimalWidth, IntegerType, IntervalUnit, MapType, RunEndEncodedType,
    TimeUnit, UnionMode, UnionType,
};
use crate::error::SchemaError;
use crate::field::{FieldRef, Fields};

fn invalid(reason: String) -> SchemaError {
    SchemaError::InvalidType {
        type_name: "C data interface format",
        reason,
    }
}

fn unit_letter(unit: TimeUnit) -> char {
    match unit {
        TimeUnit::Second => 's',
        TimeUnit::Millisecond => 'm',
        TimeUnit::Microsecond => 'u',
        TimeUnit::Nanosecond => 'n',
    }
}

fn integer_format(key: IntegerType) -> &'static str {
    match key {
        IntegerType::Int8 => "c",
        IntegerType::Int16 => "s",
        IntegerType::Int32 => "i",
        IntegerType::Int64 => "l",
        IntegerType::UInt8 => "C",
        IntegerType::UInt16 => "S",
        IntegerType::UInt32 => "I",
        IntegerType::UInt64 => "L",
    }
}

impl DataType {
    /// The format string of this type in the C data interface. A dictionary type gives its
    /// key type's format (its values are described by the schema's `dictionary`). A
    /// timestamp with an empty time zone is written as one without, and read back so.
    ///
    /// ```
    /// use alkaid_schema::{DataType, TimeUnit};
    /// assert_eq!(DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())).c_format(), "tsu:UTC");
    /// assert_eq!(DataType::decimal(128, 10, 2)?.c_format(), "d:10,2");
    /// assert_eq!("Union(Dense, 3 => a: Int8, 9 => b: Utf8)".parse::<DataType>()?.c_format(), "+ud:3,9");
    /// # Ok::<(), alkaid_schema::SchemaError>(())
    /// ```
    pub fn c_format(&self) -> String {
        let mut format = String::new();
        // Writing into a `String` cannot fail.
        let _ = self.write_c_format(&mut format);
        format
    }

    /// Writes [`c_format`](Self::c_format) to `out` (an export writes it beside the
    /// field's name, without a `String` of its own).
    pub(crate) fn write_c_format(&self, out: &mut impl std::fmt::Write) -> std::fmt::Result {
        match self {
            DataType::Null => out.write_str("n"),
            DataType::Boolean => out.write_str("b"),
            DataType::Int8 => out.write_str("c"),
            DataType::UInt8 => out.write_str("C"),
            DataType::Int16 => out.write_str("s"),
            DataType::UInt16 => out.write_str("S"),
            DataType::Int32 => out.write_str("i"),
            DataType::UInt32 => out.write_str("I"),
            DataType::Int64 => out.write_str("l"),
            DataType::UInt64 => out.write_str("L"),
            DataType::Float16 => out.write_str("e"),
            DataType::Float32 => out.write_str("f"),
            DataType::Float64 => out.write_str("g"),
            DataType::Decimal(d) => {
                let (p, s) = (d.precision(), d.scale());
                match d.width() {
                    DecimalWidth::W128 => write!(out, "d:{p},{s}"),
                    DecimalWidth::W32 => write!(out, "d:{p},{s},32"),
                    DecimalWidth::W64 => write!(out, "d:{p},{s},64"),
                    DecimalWidth::W256 => write!(out, "d:{p},{s},256"),
                }
            }
            DataType::Date32 => out.write_str("tdD"),
            DataType::Date64 => out.write_str("tdm"),
            DataType::Time(unit) => write!(out, "tt{}", unit_letter(*unit)),
            DataType::Timestamp(unit, zone) => {
                write!(
                    out,
                    "ts{}:{}",
                    unit_letter(*unit),
                    zone.as_deref().unwrap_or("")
                )
            }
            DataType::Duration(unit) => write!(out, "tD{}", unit_letter(*unit)),
            DataType::Interval(IntervalUnit::YearMonth) => out.write_str("tiM"),
            DataType::Interval(IntervalUnit::DayTime) => out.write_str("tiD"),
            DataType::Interval(IntervalUnit::MonthDayNano) => out.write_str("tin"),
            DataType::FixedSizeBinary(width) => write!(out, "w:{width}"),
            DataType::Binary => out.write_str("z"),
            DataType::LargeBinary => out.write_str("Z"),
            DataType::BinaryView => out.write_str("vz"),
            DataType::Utf8 => out.write_str("u"),
            DataType::LargeUtf8 => out.write_str("U"),
            DataType::Utf8View => out.write_str("vu"),
            DataType::List(_) => out.write_str("+l"),
            DataType::LargeList(_) => out.write_str("+L"),
            DataType::ListView(_) => out.write_str("+vl"),
            DataType::LargeListView(_) => out.write_str("+vL"),
            DataType::FixedSizeList(_, size) => write!(out, "+w:{size}"),
            DataType::Struct(_) => out.write_str("+s"),
            DataType::Map(_) => out.write_str("+m"),
            DataType::Union(union) => {
                let mode = match union.mode() {
                    UnionMode::Dense => "d",
                    UnionMode::Sparse => "s",
                };
                write!(out, "+u{mode}:")?;
                for (i, id) in union.type_ids().iter().enumerate() {
                    write!(out, "{}{id}", if i == 0 { "" } else { "," })?;
                }
                Ok(())
            }
            DataType::Dictionary { key, .. } => out.write_str(integer_format(*key)),
            DataType::RunEndEncoded(_) => out.write_str("+r"),
        }
    }

    /// The type a C data interface schema describes: its `format`, its `children` (as
    /// fields) and, for a dictionary, the field of its values and whether it is ordered.
    /// `keys_sorted` is the map flag.
    ///
    /// # Errors
    /// If the format is unknown or malformed, or the children do not fit it (a list
    /// without its one child, a map whose child is not a two-field struct).
    ///
    /// ```
    /// use alkaid_schema::{DataType, Field};
    /// let item = Field::new("item", DataType::Int32, true);
    /// let list = DataType::from_c_format("+l", vec![item.into()], None, false)?;
    /// assert_eq!(list, "List(item: Int32)".parse()?);
    /// assert!(DataType::from_c_format("+l", vec![], None, false).is_err());
    /// # Ok::<(), alkaid_schema::SchemaError>(())
    /// ```
    pub fn from_c_format(
        format: &str,
        children: Vec<FieldRef>,
        dictionary: Option<(FieldRef, bool)>,
        keys_sorted: bool,
    ) -> Result<DataType, SchemaError> {
        let level = level_from_format(format, children, keys_sorted)?;
        let Some((values, ordered)) = dictionary else {
            return Ok(level);
        };
        let key = IntegerType::from_data_type(&level).ok_or_else(|| {
            invalid(format!(
                "expected an integer key format for a dictionary, found \"{format}\""
            ))
        })?;
        Ok(DataType::Dictionary {
            key,
            value: Box::new(values.data_type().clone()),
            ordered,
        })
    }
}

fn unit_of(letter: &str, format: &str) -> Result<TimeUnit, SchemaError> {
    match letter {
        "s" => Ok(TimeUnit::Second),
        "m" => Ok(TimeUnit::Millisecond),
        "u" => Ok(TimeUnit::Microsecond),
        "n" => Ok(TimeUnit::Nanosecond),
        _ => Err(invalid(format!("unknown time unit in \"{format}\""))),
    }
}

fn number<T: std::str::FromStr>(text: &str, format: &str) -> Result<T, SchemaError> {
    text.parse().map_err(|_| {
        invalid(format!(
            "expected a number, found \"{text}\" in \"{format}\""
        ))
    })
}

/// One level of a type from its format and children.
fn level_from_format(
    format: &str,
    children: Vec<FieldRef>,
    keys_sorted: bool,
) -> Result<DataType, SchemaError> {
    let count = children.len();
    let leaf = |data_type: DataType| {
        if count == 0 {
            Ok(data_type)
        } else {
            Err(invalid(format!(
                "expected no children for \"{format}\", found {count}"
            )))
        }
    };
    let only_child = |mut children: Vec<FieldRef>| match children.len() {
        1 => Ok(children.remove(0)),
        n => Err(invalid(format!(
            "expected one child for \"{format}\", found {n}"
        ))),
    };
    let simple = match format {
        "n" => Some(DataType::Null),
        "b" => Some(DataType::Boolean),
        "c" => Some(DataType::Int8),
        "C" => Some(DataType::UInt8),
        "s" => Some(DataType::Int16),
        "S" => Some(DataType::UInt16),
        "i" => Some(DataType::Int32),
        "I" => Some(DataType::UInt32),
        "l" => Some(DataType::Int64),
        "L" => Some(DataType::UInt64),
        "e" => Some(DataType::Float16),
        "f" => Some(DataType::Float32),
        "g" => Some(DataType::Float64),
        "z" => Some(DataType::Binary),
        "Z" => Some(DataType::LargeBinary),
        "vz" => Some(DataType::BinaryView),
        "u" => Some(DataType::Utf8),
        "U" => Some(DataType::LargeUtf8),
        "vu" => Some(DataType::Utf8View),
        "tdD" => Some(DataType::Date32),
        "tdm" => Some(DataType::Date64),
        "tiM" => Some(DataType::Interval(IntervalUnit::YearMonth)),
        "tiD" => Some(DataType::Interval(IntervalUnit::DayTime)),
        "tin" => Some(DataType::Interval(IntervalUnit::MonthDayNano)),
        _ => None,
    };
    if let Some(data_type) = simple {
        return leaf(data_type);
    }
    match format {
        "+l" => return Ok(DataType::List(only_child(children)?)),
        "+L" => return Ok(DataType::LargeList(only_child(children)?)),
        "+vl" => return Ok(DataType::ListView(only_child(children)?)),
        "+vL" => return Ok(DataType::LargeListView(only_child(children)?)),
        "+s" => return Ok(DataType::Struct(Fields::from(children))),
        "+m" => {
            return Ok(DataType::Map(MapType::try_new(
                only_child(children)?,
                keys_sorted,
            )?));
        }
        "+r" => {
            let [run_ends, values]: [FieldRef; 2] = children.try_into().map_err(|c: Vec<_>| {
                invalid(format!(
                    "expected run ends and values under \"+r\", found {} children",
                    c.len()
                ))
            })?;
            let ree = RunEndEncodedType::try_new(run_ends, values)?;
            return Ok(DataType::RunEndEncoded(ree));
        }
        _ => {}
    }
    if let Some(time) = format.strip_prefix("tt") {
        return leaf(DataType::Time(unit_of(time, format)?));
    }
    if let Some(duration) = format.strip_prefix("tD") {
        return leaf(DataType::Duration(unit_of(duration, format)?));
    }
    if let Some(rest) = format.strip_prefix("ts") {
        let (unit, zone) = rest
            .split_once(':')
            .ok_or_else(|| invalid(format!("expected \"ts<unit>:<zone>\", found \"{format}\"")))?;
        let zone = (!zone.is_empty()).then(|| Arc::<str>::from(zone));
        return leaf(DataType::Timestamp(unit_of(unit, format)?, zone));
    }
    if let Some(width) = format.strip_prefix("w:") {
        return leaf(DataType::FixedSizeBinary(number(width, format)?));
    }
    if let Some(size) = format.strip_prefix("+w:") {
        return Ok(DataType::FixedSizeList(
            only_child(children)?,
            number(size, format)?,
        ));
    }
    if let Some(params) = format.strip_prefix("d:") {
        let parts: Vec<&str> = params.split(',').collect();
        let (precision, scale, bits) = match parts[..] {
            [p, s] => (p, s, "128"),
            [p, s, bits] => (p, s, bits),
            _ => {
                return Err(invalid(format!(
                    "expected \"d:<precision>,<scale>[,<bits>]\", found \"{format}\""
                )));
            }
        };
        let width = match bits {
            "32" => DecimalWidth::W32,
            "64" => DecimalWidth::W64,
            "128" => DecimalWidth::W128,
            "256" => DecimalWidth::W256,
            other => return Err(invalid(format!("unknown decimal width {other}"))),
        };
        let decimal =
            DecimalType::try_new(width, number(precision, format)?, number(scale, format)?)?;
        return leaf(DataType::Decimal(decimal));
    }
    if let Some(rest) = format.strip_prefix("+u") {
        let (mode, ids) = match rest.split_once(':') {
            Some(("d", ids)) => (UnionMode::Dense, ids),
            Some(("s", ids)) => (UnionMode::Sparse, ids),
            _ => {
                return Err(invalid(format!(
                    "expected \"+ud:\" or \"+us:\", found \"{format}\""
                )));
            }
        };
        let ids = if ids.is_empty() {
            Vec::new()
        } else {
            ids.split(',')
                .map(|id| number::<i32>(id, format))
                .collect::<Result<Vec<_>, _>>()?
        };
        return Ok(DataType::Union(UnionType::try_new(
            Fields::from(children),
            ids,
            mode,
        )?));
    }
    Err(invalid(format!("unknown format \"{format}\"")))
}

//! The type pyarrow infers for a sequence of Python values: `bool` → `Boolean`, `int` →
//! `Int64` (`UInt64` when a value needs it), `float` (with or without `int`s) →
//! `Float64`, `str` → `Utf8`, `bytes`/`bytearray` → `Binary`, `datetime.date` →
//! `Date32`, `datetime.time` → `Time(us)`, `datetime.datetime` → `Timestamp(us)` in the
//! zone of the first aware value, `datetime.timedelta` → `Duration(us)`,
//! `decimal.Decimal` → a decimal wide enough for every value, a list or tuple → a list of
//! the type of every element, a dict → a struct of every key seen (in order of first
//! appearance), only `None` → `Null`.

use std::sync::Arc;

use alkaid_schema::{DataType, DecimalType, DecimalWidth, Field, Fields, TimeUnit};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};

use super::python::Modules;
use crate::error::{to_py, within};

/// What the values seen so far need.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Nothing,
    Bool,
    /// Integers; whether one needs 64 unsigned bits.
    Int {
        unsigned: bool,
    },
    Float,
    Str,
    Bytes,
    Date,
    Time,
    DateTime {
        zone: Option<String>,
    },
    TimeDelta,
    /// Decimals: the most digits before the point and after it.
    Decimal {
        whole: u32,
        scale: u32,
    },
    List(Box<Seen>),
    Struct(Vec<(String, Seen)>),
}

/// The type pyarrow infers for `values`.
///
/// # Errors
/// For values of kinds that do not share a type (`1` and `"a"`), naming the row, or of a
/// kind no type holds.
pub(crate) fn infer(modules: &Modules<'_>, values: &[Bound<'_, PyAny>]) -> PyResult<DataType> {
    let mut seen = Seen::Nothing;
    for (row, value) in values.iter().enumerate() {
        if value.is_none() || adds_nothing(&seen, value) {
            continue;
        }
        seen = see(modules, seen, value).map_err(|e| within(format!("row {row}"), e))?;
    }
    Ok(seen.data_type())
}

/// Whether `value` is a plain value of the kind `seen` already holds, which changes
/// nothing: the common case, tested without building a [`Seen`] (most of inference's
/// cost otherwise).
fn adds_nothing(seen: &Seen, value: &Bound<'_, PyAny>) -> bool {
    match seen {
        Seen::Int { unsigned } => {
            value.is_exact_instance_of::<PyInt>() && (*unsigned || value.extract::<i64>().is_ok())
        }
        Seen::Float => {
            value.is_exact_instance_of::<PyFloat>() || value.is_exact_instance_of::<PyInt>()
        }
        Seen::Str => value.is_exact_instance_of::<PyString>(),
        Seen::Bool => value.is_exact_instance_of::<PyBool>(),
        Seen::Bytes => value.is_exact_instance_of::<PyBytes>(),
        _ => false,
    }
}

/// `seen` after `value`.
fn see(modules: &Modules<'_>, seen: Seen, value: &Bound<'_, PyAny>) -> PyResult<Seen> {
    if value.is_none() {
        return Ok(seen);
    }
    let kind = kind_of(modules, value)?;
    merge(seen, kind, value)
}

/// What `value` alone needs.
fn kind_of(modules: &Modules<'_>, value: &Bound<'_, PyAny>) -> PyResult<Seen> {
    Ok(if value.is_instance_of::<PyBool>() {
        Seen::Bool
    } else if value.is_instance_of::<PyInt>() {
        let unsigned = value.extract::<i64>().is_err();
        if unsigned && value.extract::<u64>().is_err() {
            return Err(to_py(format!("{value} does not fit 64 bits")));
        }
        Seen::Int { unsigned }
    } else if value.is_instance_of::<PyFloat>() {
        Seen::Float
    } else if value.is_instance_of::<PyString>() {
        Seen::Str
    } else if value.is_instance_of::<PyBytes>() || value.is_instance_of::<PyByteArray>() {
        Seen::Bytes
    } else if value.is_instance(&modules.datetime)? {
        Seen::DateTime {
            zone: zone_name(value)?,
        }
    } else if value.is_instance(&modules.date)? {
        Seen::Date
    } else if value.is_instance(&modules.time)? {
        Seen::Time
    } else if value.is_instance(&modules.timedelta)? {
        Seen::TimeDelta
    } else if value.is_instance(&modules.decimal)? {
        let (whole, scale) = decimal_digits(value)?;
        Seen::Decimal { whole, scale }
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut element = Seen::Nothing;
        for item in value.try_iter()? {
            element = see(modules, element, &item?)?;
        }
        Seen::List(Box::new(element))
    } else if let Ok(dict) = value.cast::<PyDict>() {
        let mut fields: Vec<(String, Seen)> = Vec::new();
        for (key, item) in dict.iter() {
            let name: String = key
                .extract()
                .map_err(|_| to_py(format!("a dict key {key} is not a str")))?;
            fields.push((name, see(modules, Seen::Nothing, &item)?));
        }
        Seen::Struct(fields)
    } else {
        let name = value.get_type().name()?;
        return Err(to_py(format!("no type holds a {name} ({value})")));
    })
}

/// What `seen` and a value of kind `next` need together.
fn merge(seen: Seen, next: Seen, value: &Bound<'_, PyAny>) -> PyResult<Seen> {
    Ok(match (seen, next) {
        (Seen::Nothing, next) => next,
        (seen, Seen::Nothing) => seen,
        (Seen::Int { unsigned: a }, Seen::Int { unsigned: b }) => Seen::Int { unsigned: a || b },
        (Seen::Int { .. } | Seen::Float, Seen::Int { .. } | Seen::Float) => Seen::Float,
        (Seen::Decimal { whole, scale }, Seen::Decimal { whole: w, scale: s }) => Seen::Decimal {
            whole: whole.max(w),
            scale: scale.max(s),
        },
        (Seen::DateTime { zone }, Seen::DateTime { zone: other }) => Seen::DateTime {
            zone: zone.or(other),
        },
        (Seen::List(a), Seen::List(b)) => Seen::List(Box::new(merge(*a, *b, value)?)),
        (Seen::Struct(mut fields), Seen::Struct(more)) => {
            for (name, kind) in more {
                match fields.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, known)) => {
                        *known = merge(std::mem::replace(known, Seen::Nothing), kind, value)?
                    }
                    None => fields.push((name, kind)),
                }
            }
            Seen::Struct(fields)
        }
        (seen, next) if seen == next => seen,
        (seen, next) => {
            let name = value.get_type().name()?;
            return Err(to_py(format!(
                "{value} ({name}) does not share a type with the values before it ({} and {})",
                seen.data_type(),
                next.data_type()
            )));
        }
    })
}

impl Seen {
    fn data_type(&self) -> DataType {
        match self {
            Seen::Nothing => DataType::Null,
            Seen::Bool => DataType::Boolean,
            Seen::Int { unsigned: false } => DataType::Int64,
            Seen::Int { unsigned: true } => DataType::UInt64,
            Seen::Float => DataType::Float64,
            Seen::Str => DataType::Utf8,
            Seen::Bytes => DataType::Binary,
            Seen::Date => DataType::Date32,
            Seen::Time => DataType::Time(TimeUnit::Microsecond),
            Seen::DateTime { zone } => {
                DataType::Timestamp(TimeUnit::Microsecond, zone.as_deref().map(Arc::from))
            }
            Seen::TimeDelta => DataType::Duration(TimeUnit::Microsecond),
            Seen::Decimal { whole, scale } => {
                let precision = (whole + scale).max(1);
                let (width, precision) = match precision {
                    0..=38 => (DecimalWidth::W128, precision),
                    _ => (DecimalWidth::W256, precision.min(76)),
                };
                let scale = (*scale).min(precision) as i8;
                let decimal = DecimalType::try_new(width, precision as u8, scale);
                DataType::Decimal(decimal.expect("a precision of 1 to 76, a scale within it"))
            }
            Seen::List(element) => {
                DataType::List(Arc::new(Field::new("item", element.data_type(), true)))
            }
            Seen::Struct(fields) => DataType::Struct(Fields::from(
                fields
                    .iter()
                    .map(|(name, kind)| Field::new(name.as_str(), kind.data_type(), true))
                    .collect::<Vec<_>>(),
            )),
        }
    }
}

/// The digits of a `Decimal` before its point and after it.
fn decimal_digits(value: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    let parts = value.call_method0("as_tuple")?;
    let digits = parts.getattr("digits")?.len()? as i64;
    let exponent = parts.getattr("exponent")?;
    let exponent: i64 = exponent
        .extract()
        .map_err(|_| to_py(format!("the Decimal {value} is not a finite number")))?;
    let scale = (-exponent).max(0);
    let whole = (digits + exponent).max(0);
    Ok((whole as u32, scale as u32))
}

/// The zone an aware `datetime` names, as Arrow spells it: an IANA name (`zoneinfo`'s
/// `key`, pytz's `zone`), else its offset (`+05:30`, `UTC` for zero).
pub(crate) fn zone_name(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let zone = value.getattr("tzinfo")?;
    if zone.is_none() {
        return Ok(None);
    }
    for attribute in ["key", "zone"] {
        if let Ok(name) = zone.getattr(attribute).and_then(|n| n.extract::<String>()) {
            return Ok(Some(name));
        }
    }
    let offset = value.call_method0("utcoffset")?;
    let seconds: f64 = offset.call_method0("total_seconds")?.extract()?;
    let minutes = (seconds / 60.0).round() as i64;
    if minutes == 0 {
        return Ok(Some("UTC".to_string()));
    }
    let sign = if minutes < 0 { '-' } else { '+' };
    let minutes = minutes.abs();
    Ok(Some(format!(
        "{sign}{:02}:{:02}",
        minutes / 60,
        minutes % 60
    )))
}

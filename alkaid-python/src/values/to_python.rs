//! Arrays to Python values, as pyarrow's `to_pylist` gives them: `None` for a null,
//! `int`, `float`, `bool`, `str`, `bytes`, `decimal.Decimal`, `datetime.date`/`time`/
//! `datetime` (aware in the array's zone)/`timedelta`, a `list` for each list, a `dict`
//! for a struct, a list of `(key, value)` tuples for a map, the value itself for a
//! dictionary, run-end encoded or union slot, and `(months, days, nanoseconds)` for an
//! interval. Each family is read once in its widest member (cast by alkaid-compute), so
//! one reader serves every width.

use alkaid_array::display::format_value;
use alkaid_array::types::{
    Float64Type, Int64Type, IntervalDayTimeType, IntervalMonthDayNanoType, UInt64Type,
};
use alkaid_array::{Array, AsArray, LargeBinaryArray, LargeListArray};
use alkaid_array::{MapArray, StringViewArray, StructArray, UnionArray};
use alkaid_compute::{CastOptions, cast};
use alkaid_schema::{DataType, Field, IntervalUnit};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use super::civil::{civil_from_days, seconds_and_nanos};
use super::python::Modules;
use crate::error::to_py;

/// How a reader of a nested value reads a child column, given its field: the one of
/// `by_field.rs`, which knows the extension types, or the plain [`values`].
pub(super) type Child<'a, 'py> =
    &'a dyn Fn(&Modules<'py>, &Field, &dyn Array) -> PyResult<Bound<'py, PyList>>;

/// Every slot of `array` as Python values, reading nested columns by their type alone.
pub(super) fn plain<'py>(
    modules: &Modules<'py>,
    array: &dyn Array,
) -> PyResult<Bound<'py, PyList>> {
    values(modules, array, &|modules, _, array| plain(modules, array))
}

/// Every slot of `array` as a Python value (see the module's header), each child of a
/// list or struct read by `child` with its field.
pub(super) fn values<'py>(
    modules: &Modules<'py>,
    array: &dyn Array,
    child: Child<'_, 'py>,
) -> PyResult<Bound<'py, PyList>> {
    let py = modules.py;
    match array.data_type() {
        DataType::Null => PyList::new(py, (0..array.len()).map(|_| py.None())),
        DataType::Boolean => {
            let bools = array.as_boolean();
            each(py, array, |i| {
                Ok(bools.value(i).into_pyobject(py)?.to_owned().into_any())
            })
        }
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let ints = widest(array, &DataType::Int64)?;
            let ints = ints.as_primitive::<Int64Type>();
            each(py, array, |i| {
                Ok(ints.value(i).into_pyobject(py)?.into_any())
            })
        }
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            let ints = widest(array, &DataType::UInt64)?;
            let ints = ints.as_primitive::<UInt64Type>();
            each(py, array, |i| {
                Ok(ints.value(i).into_pyobject(py)?.into_any())
            })
        }
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            let floats = widest(array, &DataType::Float64)?;
            let floats = floats.as_primitive::<Float64Type>();
            each(py, array, |i| {
                Ok(floats.value(i).into_pyobject(py)?.into_any())
            })
        }
        DataType::Decimal(_) => each(py, array, |i| {
            modules.decimal.call1((format_value(array, i),))
        }),
        DataType::Date32
        | DataType::Date64
        | DataType::Time(_)
        | DataType::Timestamp(..)
        | DataType::Duration(_)
        | DataType::Interval(_) => temporal(modules, array),
        // Read in place, each layout its own way: a cast to one layout first cost a
        // quarter of the time.
        DataType::Utf8 => {
            let text = array.as_string::<i32>();
            each(py, array, |i| {
                Ok(PyString::new(py, text.value(i)).into_any())
            })
        }
        DataType::LargeUtf8 => {
            let text = array.as_string::<i64>();
            each(py, array, |i| {
                Ok(PyString::new(py, text.value(i)).into_any())
            })
        }
        DataType::Utf8View => {
            let text = typed::<StringViewArray>(array)?;
            each(py, array, |i| {
                Ok(PyString::new(py, text.value(i)).into_any())
            })
        }
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => {
            let bytes = widest(array, &DataType::LargeBinary)?;
            let bytes = typed::<LargeBinaryArray>(bytes.as_ref())?;
            each(py, array, |i| {
                Ok(PyBytes::new(py, bytes.value(i)).into_any())
            })
        }
        DataType::List(field)
        | DataType::LargeList(field)
        | DataType::ListView(field)
        | DataType::LargeListView(field)
        | DataType::FixedSizeList(field, _) => {
            let lists = widest(array, &DataType::LargeList(field.clone()))?;
            let lists = typed::<LargeListArray>(lists.as_ref())?;
            let children = child(modules, field, lists.values().as_ref())?;
            let offsets = lists.offsets();
            each(py, array, |i| {
                let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                Ok(children.get_slice(start, end).into_any())
            })
        }
        DataType::Struct(fields) => {
            let structs = typed::<StructArray>(array)?;
            let columns = structs
                .columns()
                .iter()
                .zip(fields.iter())
                .map(|(column, field)| child(modules, field, column.as_ref()))
                .collect::<PyResult<Vec<_>>>()?;
            each(py, array, |i| {
                let dict = PyDict::new(py);
                for (field, column) in fields.iter().zip(&columns) {
                    dict.set_item(field.name(), column.get_item(i)?)?;
                }
                Ok(dict.into_any())
            })
        }
        DataType::Map(_) => {
            let maps = typed::<MapArray>(array)?;
            let keys = values(modules, maps.keys().as_ref(), child)?;
            let items = values(modules, maps.values().as_ref(), child)?;
            let offsets = maps.offsets();
            each(py, array, |i| {
                let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                let pairs = (start..end)
                    .map(|j| PyTuple::new(py, [keys.get_item(j)?, items.get_item(j)?]))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, pairs)?.into_any())
            })
        }
        DataType::Union(_) => {
            let unions = typed::<UnionArray>(array)?;
            let slots = (0..array.len())
                .map(|i| {
                    let (index, at) = unions.locate(i);
                    let member = unions.children()[index].slice(at, 1);
                    values(modules, member.as_ref(), child)?.get_item(0)
                })
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, slots)
        }
        DataType::Dictionary { value, .. } => {
            values(modules, widest(array, value)?.as_ref(), child)
        }
        DataType::RunEndEncoded(run) => {
            let decoded = widest(array, run.values().data_type())?;
            values(modules, decoded.as_ref(), child)
        }
    }
}

/// Dates, times, timestamps, durations and intervals.
fn temporal<'py>(modules: &Modules<'py>, array: &dyn Array) -> PyResult<Bound<'py, PyList>> {
    let py = modules.py;
    let data_type = array.data_type().clone();
    if let DataType::Interval(unit) = &data_type {
        return intervals(py, array, *unit);
    }
    let counts = widest(array, &DataType::Int64)?;
    let counts = counts.as_primitive::<Int64Type>();
    let beyond = |i: usize, what: &str| {
        to_py(format!(
            "row {i}: {} does not fit Python's {what}",
            format_value(array, i)
        ))
    };
    // Python's types hold microseconds; nanoseconds below them are not rounded away.
    let micros = |i: usize, nanos: i64, what: &str| match nanos % 1_000 {
        0 => Ok(nanos / 1_000),
        _ => Err(beyond(i, what)),
    };
    match &data_type {
        DataType::Date32 | DataType::Date64 => each(py, array, |i| {
            let days = match data_type {
                DataType::Date32 => counts.value(i),
                _ => counts.value(i).div_euclid(86_400_000),
            };
            let (year, month, day) = civil_from_days(days);
            if !(1..=9999).contains(&year) {
                return Err(beyond(i, "date"));
            }
            modules.date.call1((year, month, day))
        }),
        DataType::Time(unit) => each(py, array, |i| {
            let (seconds, nanos) = seconds_and_nanos(counts.value(i), *unit);
            if !(0..86_400).contains(&seconds) {
                return Err(beyond(i, "time"));
            }
            let micro = micros(i, nanos, "time")?;
            let (hour, minute, second) = (seconds / 3_600, seconds / 60 % 60, seconds % 60);
            modules.time.call1((hour, minute, second, micro))
        }),
        DataType::Duration(unit) => each(py, array, |i| {
            let (seconds, nanos) = seconds_and_nanos(counts.value(i), *unit);
            let micro = micros(i, nanos, "timedelta")?;
            modules.timedelta.call1((0, seconds, micro))
        }),
        DataType::Timestamp(unit, zone) => {
            let zone = zone.as_deref().map(|zone| modules.zone(zone)).transpose()?;
            each(py, array, |i| {
                let (seconds, nanos) = seconds_and_nanos(counts.value(i), *unit);
                let micro = micros(i, nanos, "datetime")?;
                let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
                if !(1..=9999).contains(&year) {
                    return Err(beyond(i, "datetime"));
                }
                let second = seconds.rem_euclid(86_400);
                let (hour, minute, second) = (second / 3_600, second / 60 % 60, second % 60);
                let fields = (year, month, day, hour, minute, second, micro);
                match &zone {
                    None => modules.datetime.call1(fields),
                    Some(zone) => {
                        let (y, mo, d, h, mi, s, us) = fields;
                        let utc = modules
                            .datetime
                            .call1((y, mo, d, h, mi, s, us, &modules.utc))?;
                        utc.call_method1("astimezone", (zone,))
                    }
                }
            })
        }
        other => Err(to_py(format!("{other} is not a temporal type"))),
    }
}

/// Intervals: months as an `int`, day-time as `(days, milliseconds)`, month-day-nano as
/// `(months, days, nanoseconds)` (pyarrow's `MonthDayNano` is such a tuple).
fn intervals<'py>(
    py: Python<'py>,
    array: &dyn Array,
    unit: IntervalUnit,
) -> PyResult<Bound<'py, PyList>> {
    match unit {
        IntervalUnit::YearMonth => {
            let months = widest(array, &DataType::Int64)?;
            let months = months.as_primitive::<Int64Type>();
            each(py, array, |i| {
                Ok(months.value(i).into_pyobject(py)?.into_any())
            })
        }
        IntervalUnit::DayTime => {
            let values = array.as_primitive::<IntervalDayTimeType>();
            each(py, array, |i| {
                let v = values.value(i);
                Ok(PyTuple::new(py, [v.days, v.milliseconds])?.into_any())
            })
        }
        IntervalUnit::MonthDayNano => {
            let values = array.as_primitive::<IntervalMonthDayNanoType>();
            each(py, array, |i| {
                let v = values.value(i);
                let months = v.months.into_pyobject(py)?.into_any();
                let days = v.days.into_pyobject(py)?.into_any();
                let nanos = v.nanoseconds.into_pyobject(py)?.into_any();
                Ok(PyTuple::new(py, [months, days, nanos])?.into_any())
            })
        }
    }
}

/// The list of `value(i)` for each slot of `array`, `None` for a null one, made at its
/// length and filled in place (no vector of the values first: at a million values that
/// was a fifth of the time). After an error the remaining slots are not computed.
fn each<'py>(
    py: Python<'py>,
    array: &dyn Array,
    mut value: impl FnMut(usize) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let nulls = array.nulls();
    let mut failure = None;
    let list = PyList::new(
        py,
        (0..array.len()).map(|i| {
            let valid = nulls.is_none_or(|n| n.is_valid(i));
            match (valid && failure.is_none()).then(|| value(i)) {
                Some(Ok(value)) => value,
                Some(Err(error)) => {
                    failure = Some(error);
                    py.None().into_bound(py)
                }
                None => py.None().into_bound(py),
            }
        }),
    )?;
    match failure {
        Some(error) => Err(error),
        None => Ok(list),
    }
}

/// `array` cast to `to`, the widest member of its family (shared when it is one).
fn widest(array: &dyn Array, to: &DataType) -> PyResult<alkaid_array::ArrayRef> {
    cast(array, to, CastOptions::STRICT).map_err(to_py)
}

/// `array` as the typed array `A`.
fn typed<A: Array + 'static>(array: &dyn Array) -> PyResult<&A> {
    array
        .as_any()
        .downcast_ref::<A>()
        .ok_or_else(|| to_py(format!("{} is not the array expected", array.data_type())))
}

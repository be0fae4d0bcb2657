//! Python values to an array of a given type, column by column: each family is built in
//! its widest member (`Int64`, `UInt64`, `Float64`, `LargeUtf8`, `LargeBinary`, counts of
//! a time unit as `Int64`, `LargeList`) and cast to the type asked (by alkaid-compute,
//! strictly: a value that does not fit is an error naming its row, never wrapped); lists
//! and structs build their children the same way (maps from dicts or lists of pairs,
//! intervals as `to_pylist` gives them: months as an `int`, `(days, milliseconds)`,
//! `(months, days, nanoseconds)`). A union puts each value in the member of its own
//! inferred type, else the first member that takes it. `None` is a null of any type.

use std::sync::Arc;

use alkaid_array::types::{Float64Type, Int64Type, UInt64Type};
use alkaid_array::types::{IntervalDayTimeType, IntervalMonthDayNanoType, IntervalYearMonthType};
use alkaid_array::{
    Array, ArrayRef, BooleanArray, FixedSizeBinaryArray, LargeBinaryArray, LargeListArray,
    LargeStringArray, MapArray, NullArray, PrimitiveArray, StringArray, StringViewArray,
    StructArray, UnionArray,
};
use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano};
use alkaid_buffer::{NullBuffer, OffsetBuffer};
use alkaid_compute::{CastOptions, cast};
use alkaid_schema::{DataType, Field, IntervalUnit, MapType, TimeUnit, UnionMode, UnionType};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMemoryView, PyString, PyStringMethods};

use super::civil::{days_from_civil, per_second};
use super::infer::infer;
use super::python::Modules;
use crate::error::{to_py, within};

/// `values` as an array of `data_type`.
///
/// # Errors
/// For a value that is not of the type's kind, or does not fit it, naming its row.
pub(crate) fn build(
    modules: &Modules<'_>,
    values: &[Bound<'_, PyAny>],
    data_type: &DataType,
) -> PyResult<ArrayRef> {
    let widest: ArrayRef = match data_type {
        DataType::Null => match values.iter().position(|v| !v.is_none()) {
            None => Arc::new(NullArray::new(values.len())),
            Some(row) => return Err(to_py(format!("row {row}: {} is not None", values[row]))),
        },
        DataType::Boolean => Arc::new(
            values
                .iter()
                .enumerate()
                .map(|(row, v)| optional(row, v, |v| v.extract::<bool>()))
                .collect::<PyResult<BooleanArray>>()?,
        ),
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            Arc::new(primitive::<Int64Type>(values, |v| v.extract::<i64>())?)
        }
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            Arc::new(primitive::<UInt64Type>(values, |v| v.extract::<u64>())?)
        }
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            Arc::new(primitive::<Float64Type>(values, |v| v.extract::<f64>())?)
        }
        DataType::Decimal(_) => Arc::new(texts(values, |v| {
            // Plain notation: `str` of a Decimal may be scientific (`1E+3`).
            v.call_method1("__format__", ("f",))?.extract::<String>()
        })?),
        DataType::Date32 | DataType::Date64 => {
            let days = primitive::<Int64Type>(values, |v| date_days(modules, v))?;
            let days = cast(&days, &DataType::Int32, CastOptions::STRICT).map_err(to_py)?;
            let dates = cast(days.as_ref(), &DataType::Date32, CastOptions::STRICT);
            dates.map_err(to_py)?
        }
        DataType::Time(unit) => counts(values, |v| time_count(modules, v, *unit))?,
        DataType::Timestamp(unit, _) => counts(values, |v| {
            count_or_int(v, |v| timestamp_count(modules, v, *unit))
        })?,
        DataType::Duration(unit) => counts(values, |v| {
            count_or_int(v, |v| duration_count(modules, v, *unit))
        })?,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => strings(values, data_type)?,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            Arc::new(binaries(values)?)
        }
        DataType::FixedSizeBinary(width) => {
            let bytes = binaries(values)?;
            let width = usize::try_from(*width).map_err(to_py)?;
            if let Some(row) =
                (0..bytes.len()).find(|&i| !bytes.is_null(i) && bytes.value(i).len() != width)
            {
                return Err(to_py(format!(
                    "row {row}: {} bytes where the type holds {width}",
                    bytes.value(row).len()
                )));
            }
            let items = (0..bytes.len()).map(|i| (!bytes.is_null(i)).then(|| bytes.value(i)));
            Arc::new(FixedSizeBinaryArray::try_from_iter(width, items).map_err(to_py)?)
        }
        DataType::List(field)
        | DataType::LargeList(field)
        | DataType::ListView(field)
        | DataType::LargeListView(field)
        | DataType::FixedSizeList(field, _) => lists(modules, values, field)?,
        DataType::Struct(fields) => {
            let nulls = validity(values);
            let columns = fields
                .iter()
                .map(|field| {
                    let column = values
                        .iter()
                        .enumerate()
                        .map(|(row, value)| member(value, field.name(), row))
                        .collect::<PyResult<Vec<_>>>()?;
                    build(modules, &column, field.data_type())
                        .map_err(|e| within(format!("field {:?}", field.name()), e))
                })
                .collect::<PyResult<Vec<_>>>()?;
            let structs =
                StructArray::try_new_with_len(fields.clone(), columns, nulls, values.len());
            Arc::new(structs.map_err(to_py)?)
        }
        DataType::Dictionary { value, .. } => build(modules, values, value)?,
        DataType::RunEndEncoded(run) => build(modules, values, run.values().data_type())?,
        DataType::Map(map) => maps(modules, values, map)?,
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            Arc::new(primitive::<IntervalMonthDayNanoType>(values, |v| {
                let (months, days, nanoseconds): (i32, i32, i64) = v.extract()?;
                Ok(IntervalMonthDayNano::new(months, days, nanoseconds))
            })?)
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            Arc::new(primitive::<IntervalDayTimeType>(values, |v| {
                let (days, milliseconds): (i32, i32) = v.extract()?;
                Ok(IntervalDayTime::new(days, milliseconds))
            })?)
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            Arc::new(primitive::<IntervalYearMonthType>(values, |v| {
                v.extract::<i32>()
            })?)
        }
        DataType::Union(union) => unions(modules, values, union)?,
    };
    if widest.data_type() == data_type {
        return Ok(widest);
    }
    cast(widest.as_ref(), data_type, CastOptions::STRICT).map_err(to_py)
}

/// `convert(value)`, or `None` for `None`; an error names `row`.
fn optional<'py, T>(
    row: usize,
    value: &Bound<'py, PyAny>,
    convert: impl Fn(&Bound<'py, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if value.is_none() {
        return Ok(None);
    }
    convert(value).map(Some).map_err(|e| failed(row, value, e))
}

/// `error` of converting `value`, at `row`.
fn failed(row: usize, value: &Bound<'_, PyAny>, error: PyErr) -> PyErr {
    let name = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    within(format!("row {row}: {value} ({name})"), error)
}

/// The array of `T` of `values`, each converted by `convert`: written straight into the
/// values and validity (no builder, no validity unless a `None` is met).
fn primitive<'py, T: alkaid_array::types::PrimitiveType>(
    values: &[Bound<'py, PyAny>],
    convert: impl Fn(&Bound<'py, PyAny>) -> PyResult<T::Native>,
) -> PyResult<PrimitiveArray<T>> {
    let mut natives = Vec::with_capacity(values.len());
    let mut nulls = NullBufferBuilder::new(values.len());
    for (row, value) in values.iter().enumerate() {
        if value.is_none() {
            natives.push(T::Native::default());
            nulls.append_null();
        } else {
            natives.push(convert(value).map_err(|e| failed(row, value, e))?);
            nulls.append_non_null();
        }
    }
    Ok(PrimitiveArray::new(natives.into(), nulls.finish()))
}

/// Counts of a time unit, as `Int64`.
fn counts<'py>(
    values: &[Bound<'py, PyAny>],
    convert: impl Fn(&Bound<'py, PyAny>) -> PyResult<i64>,
) -> PyResult<ArrayRef> {
    Ok(Arc::new(primitive::<Int64Type>(values, convert)?))
}

/// `LargeUtf8` of `values`.
fn texts<'py>(
    values: &[Bound<'py, PyAny>],
    convert: impl Fn(&Bound<'py, PyAny>) -> PyResult<String>,
) -> PyResult<LargeStringArray> {
    values
        .iter()
        .enumerate()
        .map(|(row, v)| optional(row, v, &convert))
        .collect()
}

/// The text array of `data_type` (`Utf8`, `LargeUtf8` or `Utf8View`) of `str` values,
/// built in the layout asked (text is most of a column's bytes, not copied twice), each
/// text borrowed from its Python object until it is copied into the array.
fn strings(values: &[Bound<'_, PyAny>], data_type: &DataType) -> PyResult<ArrayRef> {
    let texts = values.iter().enumerate().map(|(row, v)| text(row, v));
    Ok(match data_type {
        DataType::Utf8 => Arc::new(texts.collect::<PyResult<StringArray>>()?),
        DataType::LargeUtf8 => Arc::new(texts.collect::<PyResult<LargeStringArray>>()?),
        _ => Arc::new(texts.collect::<PyResult<StringViewArray>>()?),
    })
}

/// The text of the `str` `value` at `row`, borrowed from it; `None` for `None`.
fn text<'a>(row: usize, value: &'a Bound<'_, PyAny>) -> PyResult<Option<&'a str>> {
    if value.is_none() {
        return Ok(None);
    }
    let text = value
        .cast::<PyString>()
        .map_err(|e| failed(row, value, e.into()))?;
    text.to_str().map(Some).map_err(|e| failed(row, value, e))
}

/// `LargeBinary` of `bytes`, `bytearray` or `memoryview` values.
fn binaries(values: &[Bound<'_, PyAny>]) -> PyResult<LargeBinaryArray> {
    values
        .iter()
        .enumerate()
        .map(|(row, v)| {
            optional(row, v, |v| {
                if let Ok(bytes) = v.cast::<PyBytes>() {
                    Ok(bytes.as_bytes().to_vec())
                } else if let Ok(bytes) = v.cast::<PyByteArray>() {
                    Ok(bytes.to_vec())
                } else if v.is_instance_of::<PyMemoryView>() {
                    v.call_method0("tobytes")?.extract::<Vec<u8>>()
                } else {
                    Err(to_py("not bytes, bytearray or memoryview"))
                }
            })
        })
        .collect()
}

/// The validity of `values`: `None` when none is `None`.
fn validity(values: &[Bound<'_, PyAny>]) -> Option<NullBuffer> {
    values
        .iter()
        .any(|v| v.is_none())
        .then(|| NullBuffer::from(values.iter().map(|v| !v.is_none()).collect::<Vec<_>>()))
}

/// The lists of `values` (each a list, tuple or other iterable but text, bytes and dicts)
/// as `LargeList` of `field`.
fn lists(
    modules: &Modules<'_>,
    values: &[Bound<'_, PyAny>],
    field: &Arc<Field>,
) -> PyResult<ArrayRef> {
    let mut elements = Vec::new();
    let mut lengths = Vec::with_capacity(values.len());
    for (row, value) in values.iter().enumerate() {
        let before = elements.len();
        if !value.is_none() {
            if value.is_instance_of::<PyString>()
                || value.is_instance_of::<PyBytes>()
                || value.is_instance_of::<PyDict>()
            {
                return Err(to_py(format!("row {row}: {value} is not a list")));
            }
            let items = value
                .try_iter()
                .map_err(|_| to_py(format!("row {row}: {value} is not a list")))?;
            for item in items {
                elements.push(item?);
            }
        }
        lengths.push(elements.len() - before);
    }
    let children = build(modules, &elements, field.data_type())
        .map_err(|e| within("the lists' elements (counted across the lists)", e))?;
    let offsets = OffsetBuffer::<i64>::from_lengths(lengths);
    let lists = LargeListArray::try_new(field.clone(), offsets, children, validity(values));
    Ok(Arc::new(lists.map_err(to_py)?))
}

/// The maps of `values` (each a dict, or a list of `(key, value)` pairs) as `map`.
fn maps(modules: &Modules<'_>, values: &[Bound<'_, PyAny>], map: &MapType) -> PyResult<ArrayRef> {
    let (mut keys, mut items, mut lengths) = (Vec::new(), Vec::new(), Vec::new());
    for (row, value) in values.iter().enumerate() {
        let before = keys.len();
        if let Ok(dict) = value.cast::<PyDict>() {
            for (key, item) in dict.iter() {
                keys.push(key);
                items.push(item);
            }
        } else if !value.is_none() {
            let pairs = value.try_iter().map_err(|_| {
                to_py(format!(
                    "row {row}: {value} is not a dict or a list of pairs"
                ))
            })?;
            for pair in pairs {
                let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair?
                    .extract()
                    .map_err(|e| within(format!("row {row}: a map's entry"), e))?;
                keys.push(key);
                items.push(item);
            }
        }
        lengths.push(keys.len() - before);
    }
    let DataType::Struct(fields) = map.entries().data_type() else {
        return Err(to_py("a map's entries are not a struct"));
    };
    let built = [&keys, &items]
        .iter()
        .zip(fields.iter())
        .map(|(column, field)| {
            build(modules, column, field.data_type()).map_err(|e| {
                within(
                    format!("the maps' {}s (counted across the maps)", field.name()),
                    e,
                )
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let entries = StructArray::try_new(fields.clone(), built, None).map_err(to_py)?;
    let offsets = OffsetBuffer::<i32>::from_lengths(lengths);
    let maps = MapArray::try_new_with_type(map.clone(), offsets, entries, validity(values));
    Ok(Arc::new(maps.map_err(to_py)?))
}

/// The unions of `values`: each value in the member of its own inferred type when the
/// union has one (so `1.5` goes to a `Float64` member listed after an `Int64` one), else
/// in the first member that takes it; `None` a null of the first member.
fn unions(
    modules: &Modules<'_>,
    values: &[Bound<'_, PyAny>],
    union: &UnionType,
) -> PyResult<ArrayRef> {
    let fields = union.fields();
    let mut members = Vec::with_capacity(values.len());
    for (row, value) in values.iter().enumerate() {
        let one = std::slice::from_ref(value);
        let member = if value.is_none() {
            (!fields.is_empty()).then_some(0)
        } else {
            let own = infer(modules, one).ok();
            let takes = |f: &Arc<Field>| build(modules, one, f.data_type()).is_ok();
            fields
                .iter()
                .position(|f| Some(f.data_type()) == own.as_ref())
                .or_else(|| fields.iter().position(takes))
        };
        members.push(member.ok_or_else(|| {
            let union = DataType::Union(union.clone());
            to_py(format!(
                "row {row}: {value} fits none of the members of {union}"
            ))
        })?);
    }
    let dense = union.mode() == UnionMode::Dense;
    let mut offsets = Vec::with_capacity(if dense { values.len() } else { 0 });
    let mut columns = vec![Vec::new(); fields.len()];
    for (value, &member) in values.iter().zip(&members) {
        if dense {
            offsets.push(i32::try_from(columns[member].len()).map_err(to_py)?);
            columns[member].push(value.clone());
            continue;
        }
        let none = value.py().None().into_bound(value.py());
        for (i, column) in columns.iter_mut().enumerate() {
            column.push(if i == member {
                value.clone()
            } else {
                none.clone()
            });
        }
    }
    let children = fields
        .iter()
        .zip(&columns)
        .map(|(field, column)| {
            build(modules, column, field.data_type())
                .map_err(|e| within(format!("the union's member {:?}", field.name()), e))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let type_ids = members.iter().map(|&m| union.type_ids()[m]).collect();
    let offsets = dense.then(|| offsets.into());
    let unions = UnionArray::try_new(union.clone(), type_ids, offsets, children);
    Ok(Arc::new(unions.map_err(to_py)?))
}

/// The member `name` of a struct's value: a dict's item (`None` when missing), or
/// `None` for a null struct.
fn member<'py>(value: &Bound<'py, PyAny>, name: &str, row: usize) -> PyResult<Bound<'py, PyAny>> {
    if value.is_none() {
        return Ok(value.clone());
    }
    let dict = value
        .cast::<PyDict>()
        .map_err(|_| to_py(format!("row {row}: {value} is not a dict")))?;
    Ok(dict
        .get_item(name)?
        .unwrap_or_else(|| value.py().None().into_bound(value.py())))
}

/// Days since 1970-01-01 of a `date` (or the date of a `datetime`).
fn date_days(modules: &Modules<'_>, value: &Bound<'_, PyAny>) -> PyResult<i64> {
    if !value.is_instance(&modules.date)? {
        return Err(to_py("not a datetime.date"));
    }
    let (year, month, day) = (
        field(value, "year")?,
        field(value, "month")?,
        field(value, "day")?,
    );
    Ok(days_from_civil(year, month as u32, day as u32))
}

/// A `time`'s count of `unit` since midnight.
fn time_count(modules: &Modules<'_>, value: &Bound<'_, PyAny>, unit: TimeUnit) -> PyResult<i64> {
    if !value.is_instance(&modules.time)? {
        return Err(to_py("not a datetime.time"));
    }
    in_unit(clock_seconds(value)?, field(value, "microsecond")?, unit)
}

/// A `datetime`'s (or `date`'s midnight) count of `unit` since 1970-01-01 UTC: an aware
/// one by its offset, a naive one as UTC.
fn timestamp_count(
    modules: &Modules<'_>,
    value: &Bound<'_, PyAny>,
    unit: TimeUnit,
) -> PyResult<i64> {
    let days = date_days(modules, value)?;
    if !value.is_instance(&modules.datetime)? {
        return in_unit(days * 86_400, 0, unit);
    }
    let mut seconds = days * 86_400 + clock_seconds(value)?;
    let offset = value.call_method0("utcoffset")?;
    if !offset.is_none() {
        seconds -= field(&offset, "days")? * 86_400 + field(&offset, "seconds")?;
    }
    in_unit(seconds, field(value, "microsecond")?, unit)
}

/// A `timedelta`'s count of `unit`.
fn duration_count(
    modules: &Modules<'_>,
    value: &Bound<'_, PyAny>,
    unit: TimeUnit,
) -> PyResult<i64> {
    if !value.is_instance(&modules.timedelta)? {
        return Err(to_py("not a datetime.timedelta"));
    }
    let seconds = field(value, "days")? * 86_400 + field(value, "seconds")?;
    in_unit(seconds, field(value, "microseconds")?, unit)
}

/// `count(value)`, or the value itself when it is an `int` (a count of the unit already,
/// as pyarrow takes it for timestamps and durations).
fn count_or_int<'py>(
    value: &Bound<'py, PyAny>,
    count: impl Fn(&Bound<'py, PyAny>) -> PyResult<i64>,
) -> PyResult<i64> {
    match value.is_instance_of::<pyo3::types::PyInt>() {
        true => value.extract(),
        false => count(value),
    }
}

/// The integer attribute `name` of `value`.
fn field(value: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
    value.getattr(name)?.extract()
}

/// The seconds since midnight of a `time` or `datetime`'s hour, minute and second.
fn clock_seconds(value: &Bound<'_, PyAny>) -> PyResult<i64> {
    Ok(field(value, "hour")? * 3_600 + field(value, "minute")? * 60 + field(value, "second")?)
}

/// `seconds` and `micros` as a count of `unit`; an error when the unit is coarser than
/// the value or the count overflows.
fn in_unit(seconds: i64, micros: i64, unit: TimeUnit) -> PyResult<i64> {
    let per = per_second(unit);
    let below = match unit {
        TimeUnit::Nanosecond => Some(micros * 1_000),
        TimeUnit::Microsecond => Some(micros),
        TimeUnit::Millisecond => (micros % 1_000 == 0).then_some(micros / 1_000),
        TimeUnit::Second => (micros == 0).then_some(0),
    };
    let below = below.ok_or_else(|| to_py(format!("{micros} µs would be lost in {unit:?}")))?;
    seconds
        .checked_mul(per)
        .and_then(|count| count.checked_add(below))
        .ok_or_else(|| to_py(format!("does not fit 64-bit {unit:?}")))
}

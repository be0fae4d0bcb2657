//! `alkaid.DataType`: a data type, an `__arrow_c_schema__` producer, written as text
//! (`DataType.parse("List(item: Int32)")`), taken from any producer (`from_arrow`), or
//! made by a constructor for each type (`DataType.int32()`, `DataType.list_(...)`,
//! `DataType.timestamp("us", tz="UTC")`), as arro3's and pyarrow's are named.

use std::sync::Arc;

use alkaid_schema::{
    DataType, Field, Fields, IntegerType, IntervalUnit, MapType, RunEndEncodedType, RunEndType,
    TimeUnit, UnionMode, UnionType,
};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::capsule::{import_field_from, schema_capsule};
use crate::error::to_py;

/// A data type.
#[pyclass(name = "DataType", module = "alkaid", frozen, eq, str)]
#[derive(Debug, Clone, PartialEq)]
pub struct PyDataType(pub DataType);

impl std::fmt::Display for PyDataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[pymethods]
impl PyDataType {
    /// The type written as Alkaid displays types, e.g. `List(item: Int32)`.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        text.parse().map(Self).map_err(to_py)
    }

    /// The type of any `__arrow_c_schema__` producer (a pyarrow type or field).
    #[staticmethod]
    fn from_arrow(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self(import_field_from(object)?.data_type().clone()))
    }

    /// `Null`.
    #[staticmethod]
    fn null() -> Self {
        Self(DataType::Null)
    }

    /// `Boolean`.
    #[staticmethod]
    fn bool_() -> Self {
        Self(DataType::Boolean)
    }

    /// `Int8`.
    #[staticmethod]
    fn int8() -> Self {
        Self(DataType::Int8)
    }

    /// `Int16`.
    #[staticmethod]
    fn int16() -> Self {
        Self(DataType::Int16)
    }

    /// `Int32`.
    #[staticmethod]
    fn int32() -> Self {
        Self(DataType::Int32)
    }

    /// `Int64`.
    #[staticmethod]
    fn int64() -> Self {
        Self(DataType::Int64)
    }

    /// `UInt8`.
    #[staticmethod]
    fn uint8() -> Self {
        Self(DataType::UInt8)
    }

    /// `UInt16`.
    #[staticmethod]
    fn uint16() -> Self {
        Self(DataType::UInt16)
    }

    /// `UInt32`.
    #[staticmethod]
    fn uint32() -> Self {
        Self(DataType::UInt32)
    }

    /// `UInt64`.
    #[staticmethod]
    fn uint64() -> Self {
        Self(DataType::UInt64)
    }

    /// `Float16`.
    #[staticmethod]
    fn float16() -> Self {
        Self(DataType::Float16)
    }

    /// `Float32`.
    #[staticmethod]
    fn float32() -> Self {
        Self(DataType::Float32)
    }

    /// `Float64`.
    #[staticmethod]
    fn float64() -> Self {
        Self(DataType::Float64)
    }

    /// `Utf8`: text with 32-bit offsets.
    #[staticmethod]
    fn string() -> Self {
        Self(DataType::Utf8)
    }

    /// `LargeUtf8`: text with 64-bit offsets.
    #[staticmethod]
    fn large_string() -> Self {
        Self(DataType::LargeUtf8)
    }

    /// `Utf8View`: text as views.
    #[staticmethod]
    fn string_view() -> Self {
        Self(DataType::Utf8View)
    }

    /// `Binary`, or `FixedSizeBinary(length)` when a length is given.
    #[staticmethod]
    #[pyo3(signature = (length = None))]
    fn binary(length: Option<i32>) -> PyResult<Self> {
        match length {
            None => Ok(Self(DataType::Binary)),
            Some(n) if n >= 0 => Ok(Self(DataType::FixedSizeBinary(n))),
            Some(n) => Err(to_py(format!("a fixed binary length of {n}"))),
        }
    }

    /// `LargeBinary`.
    #[staticmethod]
    fn large_binary() -> Self {
        Self(DataType::LargeBinary)
    }

    /// `BinaryView`.
    #[staticmethod]
    fn binary_view() -> Self {
        Self(DataType::BinaryView)
    }

    /// `Date32`: days.
    #[staticmethod]
    fn date32() -> Self {
        Self(DataType::Date32)
    }

    /// `Date64`: milliseconds.
    #[staticmethod]
    fn date64() -> Self {
        Self(DataType::Date64)
    }

    /// `Time32(unit)`: `"s"` or `"ms"`.
    #[staticmethod]
    fn time32(unit: &str) -> PyResult<Self> {
        match time_unit(unit)? {
            unit @ (TimeUnit::Second | TimeUnit::Millisecond) => Ok(Self(DataType::Time(unit))),
            _ => Err(to_py(format!("time32 holds s or ms, not {unit:?}"))),
        }
    }

    /// `Time64(unit)`: `"us"` or `"ns"`.
    #[staticmethod]
    fn time64(unit: &str) -> PyResult<Self> {
        match time_unit(unit)? {
            unit @ (TimeUnit::Microsecond | TimeUnit::Nanosecond) => Ok(Self(DataType::Time(unit))),
            _ => Err(to_py(format!("time64 holds us or ns, not {unit:?}"))),
        }
    }

    /// `Timestamp(unit, tz)`: `unit` `"s"`, `"ms"`, `"us"` or `"ns"`; `tz` a zone name
    /// or offset, or none.
    #[staticmethod]
    #[pyo3(signature = (unit, tz = None))]
    fn timestamp(unit: &str, tz: Option<&str>) -> PyResult<Self> {
        Ok(Self(DataType::Timestamp(
            time_unit(unit)?,
            tz.map(Arc::from),
        )))
    }

    /// `Duration(unit)`.
    #[staticmethod]
    fn duration(unit: &str) -> PyResult<Self> {
        Ok(Self(DataType::Duration(time_unit(unit)?)))
    }

    /// `Interval(MonthDayNano)`.
    #[staticmethod]
    fn month_day_nano_interval() -> Self {
        Self(DataType::Interval(IntervalUnit::MonthDayNano))
    }

    /// `Interval(DayTime)`: days and milliseconds.
    #[staticmethod]
    fn day_time_interval() -> Self {
        Self(DataType::Interval(IntervalUnit::DayTime))
    }

    /// `Interval(YearMonth)`: a count of months.
    #[staticmethod]
    fn month_interval() -> Self {
        Self(DataType::Interval(IntervalUnit::YearMonth))
    }

    /// A decimal of 128 bits.
    #[staticmethod]
    #[pyo3(signature = (precision, scale = 0))]
    fn decimal128(precision: u8, scale: i8) -> PyResult<Self> {
        DataType::decimal(128, precision, scale)
            .map(Self)
            .map_err(to_py)
    }

    /// A decimal of 256 bits.
    #[staticmethod]
    #[pyo3(signature = (precision, scale = 0))]
    fn decimal256(precision: u8, scale: i8) -> PyResult<Self> {
        DataType::decimal(256, precision, scale)
            .map(Self)
            .map_err(to_py)
    }

    /// `List` of `value_type` (a type, or a field naming the elements), or
    /// `FixedSizeList` when `list_size` is given.
    #[staticmethod]
    #[pyo3(signature = (value_type, list_size = None))]
    fn list_(value_type: &Bound<'_, PyAny>, list_size: Option<i32>) -> PyResult<Self> {
        let field = Arc::new(element(value_type)?);
        Ok(Self(match list_size {
            None => DataType::List(field),
            Some(n) if n >= 0 => DataType::FixedSizeList(field, n),
            Some(n) => return Err(to_py(format!("a list size of {n}"))),
        }))
    }

    /// `LargeList` of `value_type`.
    #[staticmethod]
    fn large_list(value_type: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self(DataType::LargeList(Arc::new(element(value_type)?))))
    }

    /// `ListView` of `value_type`.
    #[staticmethod]
    fn list_view(value_type: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self(DataType::ListView(Arc::new(element(value_type)?))))
    }

    /// `Struct` of `fields`: fields (Alkaid's or any producer's) or `(name, type)` pairs.
    #[staticmethod]
    fn r#struct(fields: Vec<Bound<'_, PyAny>>) -> PyResult<Self> {
        let fields = fields.iter().map(field_of).collect::<PyResult<Vec<_>>>()?;
        Ok(Self(DataType::Struct(Fields::from(fields))))
    }

    /// A sparse `Union` of `child_fields` (fields or `(name, type)` pairs), with
    /// `type_codes` (one per field) or the fields' positions as its type ids.
    #[staticmethod]
    #[pyo3(signature = (child_fields, type_codes = None))]
    fn sparse_union(
        child_fields: Vec<Bound<'_, PyAny>>,
        type_codes: Option<Vec<i32>>,
    ) -> PyResult<Self> {
        union_of(&child_fields, type_codes, UnionMode::Sparse)
    }

    /// A dense `Union`, as [`sparse_union`](Self::sparse_union) makes a sparse one.
    #[staticmethod]
    #[pyo3(signature = (child_fields, type_codes = None))]
    fn dense_union(
        child_fields: Vec<Bound<'_, PyAny>>,
        type_codes: Option<Vec<i32>>,
    ) -> PyResult<Self> {
        union_of(&child_fields, type_codes, UnionMode::Dense)
    }

    /// `Map` from `key_type` to `item_type`.
    #[staticmethod]
    #[pyo3(signature = (key_type, item_type, keys_sorted = false))]
    fn map_(
        key_type: &Bound<'_, PyAny>,
        item_type: &Bound<'_, PyAny>,
        keys_sorted: bool,
    ) -> PyResult<Self> {
        let key = Field::new("key", data_type_of(key_type)?, false);
        let value = Field::new("value", data_type_of(item_type)?, true);
        let entries = Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![key, value])),
            false,
        );
        MapType::try_new(entries, keys_sorted)
            .map(|map| Self(DataType::Map(map)))
            .map_err(to_py)
    }

    /// `Dictionary` of `value_type` with keys of `index_type` (an integer type).
    #[staticmethod]
    #[pyo3(signature = (index_type, value_type, ordered = false))]
    fn dictionary(
        index_type: &Bound<'_, PyAny>,
        value_type: &Bound<'_, PyAny>,
        ordered: bool,
    ) -> PyResult<Self> {
        let key = match data_type_of(index_type)? {
            DataType::Int8 => IntegerType::Int8,
            DataType::Int16 => IntegerType::Int16,
            DataType::Int32 => IntegerType::Int32,
            DataType::Int64 => IntegerType::Int64,
            DataType::UInt8 => IntegerType::UInt8,
            DataType::UInt16 => IntegerType::UInt16,
            DataType::UInt32 => IntegerType::UInt32,
            DataType::UInt64 => IntegerType::UInt64,
            other => return Err(to_py(format!("dictionary keys are integers, not {other}"))),
        };
        let value = Box::new(data_type_of(value_type)?);
        Ok(Self(DataType::Dictionary {
            key,
            value,
            ordered,
        }))
    }

    /// `RunEndEncoded` of `value_type` with run ends of `run_end_type` (Int16, Int32 or
    /// Int64).
    #[staticmethod]
    fn run_end_encoded(
        run_end_type: &Bound<'_, PyAny>,
        value_type: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let ends = match data_type_of(run_end_type)? {
            DataType::Int16 => RunEndType::Int16,
            DataType::Int32 => RunEndType::Int32,
            DataType::Int64 => RunEndType::Int64,
            other => {
                return Err(to_py(format!(
                    "run ends are Int16, Int32 or Int64, not {other}"
                )));
            }
        };
        let values = Field::new("values", data_type_of(value_type)?, true);
        Ok(Self(DataType::RunEndEncoded(RunEndEncodedType::new(
            ends, values,
        ))))
    }

    fn __repr__(&self) -> String {
        format!("alkaid.DataType({})", self.0)
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &Field::new("", self.0.clone(), true))
    }
}

/// The data type `object` stands for: an `alkaid.DataType`, its text (`"Int64"`,
/// `"List(Utf8)"`), or any `__arrow_c_schema__` producer (a pyarrow type).
pub(crate) fn data_type_of(object: &Bound<'_, PyAny>) -> PyResult<DataType> {
    if let Ok(ours) = object.cast::<PyDataType>() {
        return Ok(ours.get().0.clone());
    }
    if let Ok(text) = object.extract::<String>() {
        return text.parse().map_err(to_py);
    }
    Ok(import_field_from(object)?.data_type().clone())
}

/// A time unit's name: `"s"`, `"ms"`, `"us"` or `"ns"`.
fn time_unit(name: &str) -> PyResult<TimeUnit> {
    match name {
        "s" => Ok(TimeUnit::Second),
        "ms" => Ok(TimeUnit::Millisecond),
        "us" => Ok(TimeUnit::Microsecond),
        "ns" => Ok(TimeUnit::Nanosecond),
        other => Err(to_py(format!("time unit {other:?}: s, ms, us or ns"))),
    }
}

/// The field of a list's elements: a field given, or `item` of a type given.
fn element(value_type: &Bound<'_, PyAny>) -> PyResult<Field> {
    if value_type.get_type().name()? == "Field" || value_type.hasattr("nullable")? {
        return import_field_from(value_type);
    }
    Ok(Field::new("item", data_type_of(value_type)?, true))
}

/// The union of `fields` (fields or pairs) in `mode`, with `type_codes` or the fields'
/// positions as its type ids.
fn union_of(
    fields: &[Bound<'_, PyAny>],
    type_codes: Option<Vec<i32>>,
    mode: UnionMode,
) -> PyResult<PyDataType> {
    let fields = fields.iter().map(field_of).collect::<PyResult<Vec<_>>>()?;
    let union = match type_codes {
        Some(codes) => UnionType::try_new(fields, codes, mode),
        None => UnionType::with_default_ids(fields, mode),
    };
    Ok(PyDataType(DataType::Union(union.map_err(to_py)?)))
}

/// A struct's field: a field (Alkaid's or any producer's) or a `(name, type)` pair.
fn field_of(object: &Bound<'_, PyAny>) -> PyResult<Field> {
    if let Ok((name, data_type)) = object.extract::<(String, Bound<'_, PyAny>)>() {
        return Ok(Field::new(name, data_type_of(&data_type)?, true));
    }
    import_field_from(object)
}

//! `arrow.parquet.variant` columns to Python values: each row's Variant (shredded or not)
//! as the Python value it holds: `None` for a null row and for Variant null, `bool`,
//! `int`, `float`, `str`, `bytes`, `decimal.Decimal`, `datetime` values (aware in UTC
//! for the Variant's UTC timestamps), `uuid.UUID`, a `dict` for an object and a `list`
//! for an array. Decimals and temporal values go through the readers of their Arrow
//! types, so they read exactly as a column of that type does.

use std::sync::Arc;

use alkaid_array::types::{
    Date32Type, Decimal128Type, Time64MicrosecondType, TimestampMicrosecondType,
    TimestampNanosecondType,
};
use alkaid_array::variant::{Variant, VariantArray, VariantPath};
use alkaid_array::{Array, ArrayRef, PrimitiveArray, StructArray};
use alkaid_schema::extension::CanonicalExtension;
use alkaid_schema::{DataType, DecimalType, DecimalWidth, Field, TimeUnit};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use super::python::Modules;
use crate::error::to_py;

/// Whether `field` is annotated `arrow.parquet.variant`.
pub(crate) fn is_variant(field: &Field) -> bool {
    matches!(
        CanonicalExtension::of(field),
        Ok(Some(CanonicalExtension::ParquetVariant))
    )
}

/// Every row of the Variant column `array` as a Python value.
pub(crate) fn pylist<'py>(
    modules: &Modules<'py>,
    array: &dyn Array,
) -> PyResult<Bound<'py, PyList>> {
    let storage = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| {
            to_py(format!(
                "a Variant column is a struct, found {}",
                array.data_type()
            ))
        })?;
    let variants = VariantArray::try_new(storage).map_err(to_py)?;
    let mut out = Vec::with_capacity(variants.len());
    let root = VariantPath::default();
    // The columns resolved once, not per row.
    for (i, row) in variants.iter_at(&root).map_err(to_py)?.enumerate() {
        let row = match row.map_err(|e| to_py(format!("row {i}: {e}")))? {
            None => modules.py.None().into_bound(modules.py),
            Some((metadata, value)) => {
                let variant = Variant::try_new(metadata, &value)
                    .map_err(|e| to_py(format!("row {i}: {e}")))?;
                python_value(modules, variant)
                    .map_err(|e| to_py(format!("row {i}: {}", e.value(modules.py))))?
            }
        };
        out.push(row);
    }
    PyList::new(modules.py, out)
}

/// One Variant as a Python value.
fn python_value<'py>(
    modules: &Modules<'py>,
    value: Variant<'_, '_>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = modules.py;
    // A value read through its type's reader, as a column of one row: its errors name
    // that row, which the caller replaces with the real one.
    let one = |array: ArrayRef| -> PyResult<Bound<'py, PyAny>> {
        let read = super::to_python::plain(modules, array.as_ref()).map_err(|e| {
            let message = e.value(py).to_string();
            to_py(message.strip_prefix("row 0: ").unwrap_or(&message))
        })?;
        read.get_item(0)
    };
    let decimal = |unscaled: i128, scale: u8| -> PyResult<Bound<'py, PyAny>> {
        let decimal = DecimalType::try_new(DecimalWidth::W128, 38, scale as i8).map_err(to_py)?;
        let array = PrimitiveArray::<Decimal128Type>::from(vec![Some(unscaled)])
            .with_data_type(DataType::Decimal(decimal))
            .map_err(to_py)?;
        one(Arc::new(array))
    };
    let timestamp = |unit: TimeUnit, utc: bool, v: i64| -> PyResult<Bound<'py, PyAny>> {
        let zone = utc.then(|| Arc::from("UTC"));
        let array: ArrayRef = match unit {
            TimeUnit::Nanosecond => Arc::new(
                PrimitiveArray::<TimestampNanosecondType>::from(vec![Some(v)])
                    .with_data_type(DataType::Timestamp(unit, zone))
                    .map_err(to_py)?,
            ),
            _ => Arc::new(
                PrimitiveArray::<TimestampMicrosecondType>::from(vec![Some(v)])
                    .with_data_type(DataType::Timestamp(unit, zone))
                    .map_err(to_py)?,
            ),
        };
        one(array)
    };
    Ok(match value {
        Variant::Null => py.None().into_bound(py),
        Variant::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Variant::Int8(v) => v.into_pyobject(py)?.into_any(),
        Variant::Int16(v) => v.into_pyobject(py)?.into_any(),
        Variant::Int32(v) => v.into_pyobject(py)?.into_any(),
        Variant::Int64(v) => v.into_pyobject(py)?.into_any(),
        Variant::Float(v) => f64::from(v).into_pyobject(py)?.into_any(),
        Variant::Double(v) => v.into_pyobject(py)?.into_any(),
        Variant::Decimal4(v, s) => decimal(v.into(), s)?,
        Variant::Decimal8(v, s) => decimal(v.into(), s)?,
        Variant::Decimal16(v, s) => decimal(v, s)?,
        Variant::Date(days) => one(Arc::new(PrimitiveArray::<Date32Type>::from(vec![Some(
            days,
        )])))?,
        Variant::Time(micros) => one(Arc::new(PrimitiveArray::<Time64MicrosecondType>::from(
            vec![Some(micros)],
        )))?,
        Variant::TimestampMicros(v) => timestamp(TimeUnit::Microsecond, true, v)?,
        Variant::TimestampNtzMicros(v) => timestamp(TimeUnit::Microsecond, false, v)?,
        Variant::TimestampNanos(v) => timestamp(TimeUnit::Nanosecond, true, v)?,
        Variant::TimestampNtzNanos(v) => timestamp(TimeUnit::Nanosecond, false, v)?,
        Variant::Binary(bytes) => PyBytes::new(py, bytes).into_any(),
        Variant::String(text) => PyString::new(py, text).into_any(),
        Variant::Uuid(bytes) => {
            let uuid = py.import("uuid")?.getattr("UUID")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("bytes", PyBytes::new(py, &bytes))?;
            uuid.call((), Some(&kwargs))?
        }
        Variant::Object(object) => {
            let dict = PyDict::new(py);
            for field in object.iter() {
                let (name, value) = field.map_err(to_py)?;
                dict.set_item(name, python_value(modules, value)?)?;
            }
            dict.into_any()
        }
        Variant::List(list) => {
            let items = list
                .iter()
                .map(|v| python_value(modules, v.map_err(to_py)?))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        other => {
            return Err(to_py(format!(
                "a Variant {} has no Python value here",
                other.type_name()
            )));
        }
    })
}

//! Arrays to Python values by their fields: a column whose field names an extension type
//! Python values are made for (`arrow.parquet.variant`, `arrow.timestamp_with_offset`)
//! read by that type's reader, any other by its data type (`to_python.rs`), at every
//! depth (a struct's fields and a list's items are read by their own fields).

use alkaid_array::Array;
use alkaid_schema::Field;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::python::Modules;
use super::{to_python, variant, with_offset};

/// Every slot of `array` as a Python value: `None` for a null, `int`, `float`, `bool`,
/// `str`, `bytes`, `decimal.Decimal`, `datetime` values, lists, dicts for structs; nested
/// extension columns by their fields.
///
/// # Errors
/// For a value Python's types cannot hold (a timestamp with nanoseconds, a date past
/// year 9999), naming its row; for a type no reader here takes.
pub(crate) fn to_pylist<'py>(py: Python<'py>, array: &dyn Array) -> PyResult<Bound<'py, PyList>> {
    let modules = Modules::import(py)?;
    to_python::values(&modules, array, &field_values)
}

/// Every slot of `array`, the values of `field`, as Python values: a Variant column's
/// rows as the values they hold, timestamps with offsets as `datetime`s in their
/// offsets, any other as [`to_pylist`] gives them.
///
/// # Errors
/// As [`to_pylist`].
pub(crate) fn field_pylist<'py>(
    py: Python<'py>,
    field: &Field,
    array: &dyn Array,
) -> PyResult<Bound<'py, PyList>> {
    let modules = Modules::import(py)?;
    field_values(&modules, field, array)
}

fn field_values<'py>(
    modules: &Modules<'py>,
    field: &Field,
    array: &dyn Array,
) -> PyResult<Bound<'py, PyList>> {
    if variant::is_variant(field) {
        return variant::pylist(modules, array);
    }
    if with_offset::is_with_offset(field) {
        return with_offset::pylist(modules, array);
    }
    to_python::values(modules, array, &field_values)
}

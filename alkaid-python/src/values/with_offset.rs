//! `arrow.timestamp_with_offset` columns to Python values: each an aware `datetime` in
//! its own fixed offset (`datetime.timezone(timedelta(minutes=…))`), the instant exact.

use alkaid_array::types::Int16Type;
use alkaid_array::{Array, AsArray, StructArray};
use alkaid_compute::temporal::zoned_timestamps;
use alkaid_compute::{CastOptions, cast};
use alkaid_schema::extension::CanonicalExtension;
use alkaid_schema::{DataType, Field};
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::python::Modules;
use crate::error::to_py;

/// Whether `field` is annotated `arrow.timestamp_with_offset`.
pub(crate) fn is_with_offset(field: &Field) -> bool {
    matches!(
        CanonicalExtension::of(field),
        Ok(Some(CanonicalExtension::TimestampWithOffset))
    )
}

/// Every row of the column `array` as an aware `datetime` in its offset.
pub(crate) fn pylist<'py>(
    modules: &Modules<'py>,
    array: &dyn Array,
) -> PyResult<Bound<'py, PyList>> {
    let py = modules.py;
    let utc = zoned_timestamps(array, None).map_err(to_py)?;
    let instants = super::to_python::plain(modules, utc.as_ref())?;
    let storage = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| to_py("a timestamp_with_offset column is a struct"))?;
    let offsets = cast(
        storage.column(1).as_ref(),
        &DataType::Int16,
        CastOptions::STRICT,
    )
    .map_err(to_py)?;
    let offsets = offsets.as_primitive::<Int16Type>();
    let mut out = Vec::with_capacity(array.len());
    for (i, instant) in instants.iter().enumerate() {
        if instant.is_none() {
            out.push(instant);
            continue;
        }
        let offset = modules
            .timedelta
            .call1((0, i64::from(offsets.value(i)) * 60))?;
        let zone = modules.timezone.call1((offset,))?;
        out.push(instant.call_method1("astimezone", (zone,))?);
    }
    PyList::new(py, out)
}

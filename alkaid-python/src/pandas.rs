//! pandas, when installed: an array as a `Series` and a table as a `DataFrame`, built
//! from the numpy arrays `to_numpy` gives (so a column of numbers without nulls is not
//! copied), zoned timestamps made zoned again. The other way is `Table.from_pandas`.

use alkaid_array::ArrayRef;
use alkaid_schema::DataType;
use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::numpy::to_numpy;

/// pandas, or an `ImportError` saying what needs it.
pub(crate) fn pandas<'py>(py: Python<'py>, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import("pandas")
        .map_err(|_| PyImportError::new_err(format!("{what} needs pandas, which is not installed")))
}

/// `array` as a pandas `Series` named `name`.
pub(crate) fn series<'py>(
    py: Python<'py>,
    array: &ArrayRef,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let pandas = pandas(py, "to_pandas")?;
    let values = to_numpy(py, array, false)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("name", name)?;
    let series = pandas.getattr("Series")?.call((values,), Some(&kwargs))?;
    match array.data_type() {
        // numpy's datetime64 has no zone: the instants are UTC, shown in the zone.
        DataType::Timestamp(_, Some(zone)) => series
            .getattr("dt")?
            .call_method1("tz_localize", ("UTC",))?
            .getattr("dt")?
            .call_method1("tz_convert", (zone.as_ref(),)),
        _ => Ok(series),
    }
}

/// Columns named `names` as a pandas `DataFrame`.
pub(crate) fn frame<'py>(
    py: Python<'py>,
    names: &[String],
    columns: &[ArrayRef],
) -> PyResult<Bound<'py, PyAny>> {
    let pandas = pandas(py, "to_pandas")?;
    let data = PyDict::new(py);
    for (name, column) in names.iter().zip(columns) {
        data.set_item(name, series(py, column, name)?)?;
    }
    pandas.getattr("DataFrame")?.call1((data,))
}

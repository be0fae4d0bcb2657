//! The select kernels from Python, on Alkaid arrays or any array producer: `filter`,
//! `take`, `concat`; and `validate`.

use alkaid_array::{Array, AsArray};
use pyo3::prelude::*;

use crate::array::{PyArray, level};
use crate::batch::PyRecordBatch;
use crate::error::to_py;

/// An Alkaid array, or any producer's array imported with full validation.
fn array_of(object: &Bound<'_, PyAny>) -> PyResult<PyArray> {
    match object.cast::<PyArray>() {
        Ok(ours) => Ok(ours.get().clone()),
        Err(_) => PyArray::import(object),
    }
}

/// The values of `array` where `mask` (a boolean array of the same length) is true; a
/// null in the mask drops its row.
#[pyfunction]
pub fn filter(array: &Bound<'_, PyAny>, mask: &Bound<'_, PyAny>) -> PyResult<PyArray> {
    let array = array_of(array)?;
    let mask = array_of(mask)?;
    let Some(mask_values) = mask.array.as_boolean_opt() else {
        return Err(to_py(format!(
            "the mask must be Boolean, found {}",
            mask.array.data_type()
        )));
    };
    let filtered = alkaid_select::filter(array.array.as_ref(), mask_values).map_err(to_py)?;
    Ok(PyArray {
        field: array.field,
        array: filtered,
    })
}

/// The values of `array` at `indices` (an array of integers; a null index gives a null).
#[pyfunction]
pub fn take(array: &Bound<'_, PyAny>, indices: &Bound<'_, PyAny>) -> PyResult<PyArray> {
    let array = array_of(array)?;
    let indices = array_of(indices)?;
    let taken = alkaid_select::take(array.array.as_ref(), indices.array.as_ref()).map_err(to_py)?;
    Ok(PyArray {
        field: array.field,
        array: taken,
    })
}

/// The arrays, one after another (all of one type).
#[pyfunction]
pub fn concat(arrays: Vec<Bound<'_, PyAny>>) -> PyResult<PyArray> {
    let arrays = arrays.iter().map(array_of).collect::<PyResult<Vec<_>>>()?;
    let Some(first) = arrays.first() else {
        return Err(to_py("concat needs at least one array"));
    };
    let refs: Vec<&dyn Array> = arrays.iter().map(|a| a.array.as_ref()).collect();
    let joined = alkaid_select::concat(&refs).map_err(to_py)?;
    Ok(PyArray {
        field: first.field.clone(),
        array: joined,
    })
}

/// Checks `data` (an array or batch, Alkaid's or any producer's): every value when
/// `full`, the structure otherwise. Raises `AlkaidError` naming what is wrong and where.
#[pyfunction]
#[pyo3(signature = (data, full = true))]
pub fn validate(data: &Bound<'_, PyAny>, full: bool) -> PyResult<()> {
    if let Ok(batch) = data.cast::<PyRecordBatch>() {
        return crate::batch::batch_data(&batch.get().0)?
            .validate(level(full))
            .map_err(to_py);
    }
    let array = match data.cast::<PyArray>() {
        Ok(ours) => ours.get().clone(),
        // Imports check in full already; what fails there is the answer.
        Err(_) => PyArray::import(data)?,
    };
    array.array.to_data().validate(level(full)).map_err(to_py)
}

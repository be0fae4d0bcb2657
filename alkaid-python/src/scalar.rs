//! `alkaid.Scalar`: one value of an array, typed, with `as_py()` for the Python value
//! (what `Array.__getitem__` and iteration give, as pyarrow's scalars).

use alkaid_array::display::format_value;
use alkaid_array::{ArrayRef, Scalar};
use alkaid_schema::Field;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::capsule::exported_array;
use crate::datatype::PyDataType;
use crate::values::to_pylist;

/// One value of a type, possibly null.
#[pyclass(name = "Scalar", module = "alkaid", frozen)]
#[derive(Debug, Clone)]
pub struct PyScalar(pub Scalar);

impl PyScalar {
    /// Slot `i` of `array`, sharing its memory.
    pub(crate) fn of(array: &ArrayRef, i: usize) -> Self {
        Self(Scalar::from_array(array.as_ref(), i))
    }
}

#[pymethods]
impl PyScalar {
    /// The value as a Python object (`None` for a null), as `Array.to_pylist` gives it.
    fn as_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_pylist(py, self.0.array().as_ref())?.get_item(0)
    }

    /// The value's type.
    #[getter]
    fn r#type(&self) -> PyDataType {
        PyDataType(self.0.data_type().clone())
    }

    /// Whether the value is not null.
    #[getter]
    fn is_valid(&self) -> bool {
        !self.0.is_null()
    }

    /// Whether `other` is a scalar of the same type and value.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyScalar>().is_ok_and(|other| {
            alkaid_data::equal(&self.0.array().to_data(), &other.get().0.array().to_data())
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<alkaid.Scalar {}: {}>",
            self.0.data_type(),
            format_value(self.0.array().as_ref(), 0)
        )
    }

    fn __str__(&self) -> String {
        format_value(self.0.array().as_ref(), 0)
    }

    /// The PyCapsule interface: the value as an array of one slot.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let field = Field::new("", self.0.data_type().clone(), true);
        exported_array(py, &field, self.0.array().as_ref(), requested_schema)
    }
}

//! `alkaid.Array`: one column of any type, shared with Python libraries through
//! `__arrow_c_array__` and `__arrow_c_device_array__` without a copy.

use std::sync::Arc;

use alkaid_array::display::pretty_format_batches;
use alkaid_array::{ArrayRef, RecordBatch, make_array};
use alkaid_data::{ArrayData, ValidationLevel};
use alkaid_schema::{Field, Schema};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList, PySlice};

use crate::capsule::{device_array_capsules, exported_array, honour_requested, import_array_from};
use crate::datatype::PyDataType;
use crate::error::to_py;
use crate::scalar::PyScalar;
use crate::schema::PyField;

/// A column: its field (name, type, nullability) and its values.
#[pyclass(name = "Array", module = "alkaid", frozen)]
#[derive(Debug, Clone)]
pub struct PyArray {
    /// The field the array is exported with.
    pub field: Field,
    /// The values.
    pub array: ArrayRef,
}

impl From<ArrayRef> for PyArray {
    /// An array exported as a nullable field named `""`.
    fn from(array: ArrayRef) -> Self {
        let field = Field::new("", array.data_type().clone(), true);
        Self { field, array }
    }
}

impl PyArray {
    /// The array of any producer, checked in full: Python code must not be able to make
    /// an array whose offsets or text Rust would trust.
    pub fn import(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (field, data) = import_array_from(object)?;
        Ok(Self {
            field,
            array: make_array(data),
        })
    }
}

/// An array of `values`: any `__arrow_c_array__` (or device) producer, sharing its
/// memory, checked in full; a numpy array (without a copy where its dtype allows); a
/// buffer-protocol object as its items' type; or a sequence of Python values, of
/// `data_type` or of the type pyarrow would infer. An array taken of another type than
/// `data_type` is cast to it.
///
/// # Errors
/// As the import, the inference or the building does (naming the row), or the cast.
pub(crate) fn array_from(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    data_type: Option<alkaid_schema::DataType>,
) -> PyResult<PyArray> {
    let producer = ["__arrow_c_array__", "__arrow_c_device_array__"]
        .iter()
        .any(|method| values.hasattr(*method).unwrap_or(false));
    let taken = if producer {
        Some(PyArray::import(values)?)
    } else if crate::numpy::is_ndarray(values)? {
        Some(PyArray::from(crate::numpy::from_numpy(values)?))
    } else if let Some(view) = crate::buffer_protocol::view_of(values)? {
        Some(PyArray::from(crate::buffer_protocol::from_view(&view)?))
    } else {
        None
    };
    if let Some(taken) = taken {
        return match data_type {
            Some(to) if &to != taken.array.data_type() => {
                let options = alkaid_compute::CastOptions::STRICT;
                let cast = alkaid_compute::cast(taken.array.as_ref(), &to, options);
                Ok(PyArray::from(cast.map_err(to_py)?))
            }
            _ => Ok(taken),
        };
    }
    if values.is_instance_of::<pyo3::types::PyString>()
        || values.is_instance_of::<pyo3::types::PyDict>()
    {
        let name = values.get_type().name()?;
        return Err(to_py(format!(
            "alkaid.array takes a sequence of values or an array, not a {name}"
        )));
    }
    // A list is read by index, without an iterator object.
    let items = match values.cast::<PyList>() {
        Ok(list) => list.iter().collect(),
        Err(_) => values.try_iter()?.collect::<PyResult<Vec<_>>>()?,
    };
    let modules = crate::values::Modules::import(py)?;
    let data_type = match data_type {
        Some(data_type) => data_type,
        None => crate::values::infer(&modules, &items)?,
    };
    crate::values::build(&modules, &items, &data_type).map(PyArray::from)
}

/// The position an index `key` (negative from the end) names among `len` values of a
/// `what`.
///
/// # Errors
/// `IndexError` outside them.
pub(crate) fn index_within(key: &Bound<'_, PyAny>, len: usize, what: &str) -> PyResult<usize> {
    let index: isize = key.extract()?;
    let at = if index < 0 {
        index + len as isize
    } else {
        index
    };
    match usize::try_from(at) {
        Ok(at) if at < len => Ok(at),
        _ => Err(PyIndexError::new_err(format!(
            "index {index} is outside the {what}'s {len} values"
        ))),
    }
}

/// The rows `repr` and `str` show of an array before saying how many more there are.
pub(crate) const SHOWN_ROWS: usize = 10;

impl PyArray {
    /// The first `rows` values as the CLI prints a table: one column, headed by the
    /// field's name (`value` when it has none).
    pub(crate) fn table(&self, rows: usize) -> String {
        let name = match self.field.name() {
            "" => "value",
            name => name,
        };
        let field = Field::new(name, self.array.data_type().clone(), true);
        match RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![self.array.clone()]) {
            Ok(batch) if !self.array.is_empty() => pretty_format_batches(&[batch], Some(rows)),
            _ => "[]".to_string(),
        }
    }
}

/// The addresses of `data`'s own buffers (validity bitmap first, when there is one).
pub(crate) fn buffer_addresses(data: &ArrayData) -> Vec<usize> {
    let validity = data.nulls().map(|n| n.validity().inner().as_ptr() as usize);
    validity
        .into_iter()
        .chain(data.buffers().iter().map(|b| b.as_ptr() as usize))
        .collect()
}

/// The validation level a `full` flag asks for.
pub(crate) fn level(full: bool) -> ValidationLevel {
    if full {
        ValidationLevel::Full
    } else {
        ValidationLevel::Structural
    }
}

#[pymethods]
impl PyArray {
    /// The array of any `__arrow_c_array__` or `__arrow_c_device_array__` producer,
    /// sharing its memory, checked in full.
    #[staticmethod]
    fn from_arrow(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::import(object)
    }

    /// The number of values.
    fn __len__(&self) -> usize {
        self.array.len()
    }

    /// The values' type.
    #[getter]
    fn r#type(&self) -> PyDataType {
        PyDataType(self.array.data_type().clone())
    }

    /// The field the array is exported with.
    #[getter]
    fn field(&self) -> PyField {
        PyField(self.field.clone())
    }

    /// The number of nulls.
    #[getter]
    fn null_count(&self) -> usize {
        self.array.null_count()
    }

    /// The `length` values from `offset`, sharing memory.
    #[pyo3(signature = (offset, length = None))]
    fn slice(&self, offset: usize, length: Option<usize>) -> PyResult<Self> {
        let len = self.array.len();
        if offset > len {
            return Err(to_py(format!(
                "offset {offset} is past the array's {len} values"
            )));
        }
        let length = length.unwrap_or(len - offset).min(len - offset);
        Ok(Self {
            field: self.field.clone(),
            array: self.array.slice(offset, length),
        })
    }

    /// Checks the array: every value when `full`, the structure otherwise.
    #[pyo3(signature = (full = true))]
    fn validate(&self, full: bool) -> PyResult<()> {
        self.array.to_data().validate(level(full)).map_err(to_py)
    }

    /// Whether `other` (any array producer) holds the same type and values.
    fn equals(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = Self::import(other)?;
        Ok(alkaid_data::equal(
            &self.array.to_data(),
            &other.array.to_data(),
        ))
    }

    /// The memory addresses of the array's own buffers (validity bitmap first, if any):
    /// to check that data crossed without a copy.
    fn buffer_addresses(&self) -> Vec<usize> {
        buffer_addresses(&self.array.to_data())
    }

    /// The values as Python objects (`None` for nulls): `int`, `float`, `str`, `bytes`,
    /// `decimal.Decimal`, `datetime` values (aware in the array's zone), lists, dicts
    /// for structs, `(key, value)` lists for maps; for a Variant column
    /// (`arrow.parquet.variant`), the value each row holds (dicts, lists, numbers, …).
    fn to_pylist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        crate::values::field_pylist(py, &self.field, self.array.as_ref())
    }

    /// The values as a numpy array: a read-only view of the array's memory (no copy) for
    /// numbers, timestamps and durations without nulls; otherwise, with
    /// `zero_copy_only=False`, a copy (numbers with nulls as floats with NaN, timestamps
    /// with NaT, anything else as objects).
    #[pyo3(signature = (zero_copy_only = true))]
    fn to_numpy<'py>(&self, py: Python<'py>, zero_copy_only: bool) -> PyResult<Bound<'py, PyAny>> {
        crate::numpy::to_numpy(py, &self.array, zero_copy_only)
    }

    /// The values as a pandas `Series` (pandas must be installed): built on
    /// `to_numpy(zero_copy_only=False)`, zoned timestamps in their zone.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::pandas::series(py, &self.array, self.field.name())
    }

    /// numpy's conversion protocol: `numpy.asarray(array)` (a view where `to_numpy`
    /// gives one, else a copy), cast to `dtype` when given.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // numpy's `copy`: False never copies, True always does, None copies if needed.
        let values = crate::numpy::to_numpy(py, &self.array, copy == Some(false))?;
        let values = match dtype {
            Some(dtype) => values.call_method1("astype", (dtype,))?,
            None => values,
        };
        match copy {
            Some(true) => values.call_method0("copy"),
            _ => Ok(values),
        }
    }

    /// The value at an index (negative from the end) as a `Scalar`, or the values of a
    /// slice as an array (sharing memory when the step is 1).
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let len = self.array.len();
        if let Ok(slice) = key.cast::<PySlice>() {
            let range = slice.indices(len as isize)?;
            if range.step == 1 {
                let (start, stop) = (range.start as usize, range.stop.max(range.start) as usize);
                return Ok(self
                    .slice(start, Some(stop - start))?
                    .into_pyobject(py)?
                    .into_any()
                    .unbind());
            }
            let indices: Vec<u64> = (0..range.slicelength)
                .map(|k| (range.start + k as isize * range.step) as u64)
                .collect();
            let indices = alkaid_array::UInt64Array::from(indices);
            let taken = alkaid_select::take(self.array.as_ref(), &indices).map_err(to_py)?;
            let taken = Self {
                field: self.field.clone(),
                array: taken,
            };
            return Ok(taken.into_pyobject(py)?.into_any().unbind());
        }
        let at = index_within(key, len, "array")?;
        Ok(PyScalar::of(&self.array, at)
            .into_pyobject(py)?
            .into_any()
            .unbind())
    }

    /// The values as `Scalar`s.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
        let scalars = (0..self.array.len()).map(|i| PyScalar::of(&self.array, i));
        PyList::new(py, scalars)?.try_iter()
    }

    /// Whether `other` (any array producer) holds the same type and values (as
    /// [`equals`](Self::equals); not an array producer: not equal).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        Self::import(other)
            .is_ok_and(|other| alkaid_data::equal(&self.array.to_data(), &other.array.to_data()))
    }

    fn __repr__(&self) -> String {
        let nulls = self.array.null_count();
        format!(
            "alkaid.Array {}, {} values, {nulls} null\n{}",
            self.array.data_type(),
            self.array.len(),
            self.table(SHOWN_ROWS)
        )
    }

    fn __str__(&self) -> String {
        self.table(SHOWN_ROWS)
    }

    /// The PyCapsule interface: the array's schema and array capsules.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        exported_array(py, &self.field, self.array.as_ref(), requested_schema)
    }

    /// The PyCapsule interface for devices: the array on the CPU.
    #[pyo3(signature = (requested_schema = None, **kwargs))]
    fn __arrow_c_device_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        crate::capsule::check_device_kwargs(kwargs)?;
        let nulls = Some(self.array.null_count());
        let field = honour_requested(&self.field, nulls, requested_schema)?;
        device_array_capsules(py, &field, self.array.to_data())
    }

    /// The field's schema capsule, so that the array's type can be read alone.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        crate::capsule::schema_capsule(py, &self.field)
    }
}

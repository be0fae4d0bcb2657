//! `alkaid.RecordBatch`: columns of equal length under a schema, shared with Python
//! libraries as a struct array (`__arrow_c_array__`) without a copy.

use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_data::ArrayData;
use pyo3::exceptions::{PyIndexError, PyKeyError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::array::{PyArray, level};
use crate::capsule::{
    array_capsules, check_device_kwargs, device_array_capsules, honour_requested_schema,
    import_array_from, schema_capsule,
};
use crate::capsule::{schema_field, schema_of};
use crate::error::to_py;
use crate::schema::PySchema;

/// A record batch.
#[pyclass(name = "RecordBatch", module = "alkaid", frozen)]
#[derive(Debug, Clone)]
pub struct PyRecordBatch(pub RecordBatch);

impl From<RecordBatch> for PyRecordBatch {
    fn from(batch: RecordBatch) -> Self {
        Self(batch)
    }
}

/// `batch` as the struct array the C interface carries a batch as.
pub(crate) fn batch_data(batch: &RecordBatch) -> PyResult<ArrayData> {
    batch.to_struct_data().map_err(to_py)
}

/// The batch a struct array (the C interface's form of a batch) of `field` stands for.
pub(crate) fn batch_of(field: &alkaid_schema::Field, data: ArrayData) -> PyResult<RecordBatch> {
    RecordBatch::try_from_struct(schema_of(field)?, &data).map_err(to_py)
}

/// The batches of `objects`: Alkaid's as they are, any other producer's imported (checked
/// in full).
pub(crate) fn batches_of(objects: &[Bound<'_, PyAny>]) -> PyResult<Vec<RecordBatch>> {
    objects
        .iter()
        .map(|b| match b.cast::<PyRecordBatch>() {
            Ok(ours) => Ok(ours.get().0.clone()),
            Err(_) => PyRecordBatch::import(b).map(|b| b.0),
        })
        .collect()
}

impl PyRecordBatch {
    /// The batch of any producer of a struct array, checked in full.
    pub fn import(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (field, data) = import_array_from(object)?;
        batch_of(&field, data).map(Self)
    }
}

#[pymethods]
impl PyRecordBatch {
    /// A batch of `columns` (any array producers) named `names`.
    #[new]
    fn new(columns: Vec<Bound<'_, PyAny>>, names: Vec<String>) -> PyResult<Self> {
        if columns.len() != names.len() {
            return Err(to_py(format!(
                "{} columns but {} names",
                columns.len(),
                names.len()
            )));
        }
        let mut fields = Vec::with_capacity(columns.len());
        let mut arrays = Vec::with_capacity(columns.len());
        for (column, name) in columns.iter().zip(&names) {
            let array = match column.cast::<PyArray>() {
                Ok(ours) => ours.get().array.clone(),
                Err(_) => PyArray::import(column)?.array,
            };
            fields.push(alkaid_schema::Field::new(
                name.as_str(),
                array.data_type().clone(),
                true,
            ));
            arrays.push(array);
        }
        let schema = Arc::new(alkaid_schema::Schema::new(fields));
        RecordBatch::try_new(schema, arrays)
            .map(Self)
            .map_err(to_py)
    }

    /// The batch of any `__arrow_c_array__` or `__arrow_c_device_array__` producer of a
    /// struct array (a pyarrow or Polars batch), sharing its memory, checked in full.
    #[staticmethod]
    fn from_arrow(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::import(object)
    }

    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.0.num_rows()
    }

    /// The number of columns.
    #[getter]
    fn num_columns(&self) -> usize {
        self.0.num_columns()
    }

    fn __len__(&self) -> usize {
        self.0.num_rows()
    }

    /// The schema.
    #[getter]
    fn schema(&self) -> PySchema {
        PySchema(self.0.schema().clone())
    }

    /// The columns, in order.
    #[getter]
    fn columns(&self) -> Vec<PyArray> {
        (0..self.0.num_columns())
            .map(|i| self.column_at(i))
            .collect()
    }

    /// The column at position `key` (an int) or named `key` (a str).
    fn column(&self, key: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        if let Ok(i) = key.extract::<usize>() {
            if i >= self.0.num_columns() {
                return Err(PyIndexError::new_err(format!(
                    "no column {i} of {}",
                    self.0.num_columns()
                )));
            }
            return Ok(self.column_at(i));
        }
        let name: String = key.extract()?;
        let i = self
            .0
            .schema()
            .fields()
            .iter()
            .position(|f| f.name() == name.as_str())
            .ok_or_else(|| PyKeyError::new_err(format!("no column named {name:?}")))?;
        Ok(self.column_at(i))
    }

    /// The `length` rows from `offset`, sharing memory.
    #[pyo3(signature = (offset, length = None))]
    fn slice(&self, offset: usize, length: Option<usize>) -> PyResult<Self> {
        let rows = self.0.num_rows();
        if offset > rows {
            return Err(to_py(format!(
                "offset {offset} is past the batch's {rows} rows"
            )));
        }
        let length = length.unwrap_or(rows - offset).min(rows - offset);
        Ok(Self(self.0.slice(offset, length)))
    }

    /// Checks every column: every value when `full`, the structure otherwise.
    #[pyo3(signature = (full = true))]
    fn validate(&self, full: bool) -> PyResult<()> {
        batch_data(&self.0)?.validate(level(full)).map_err(to_py)
    }

    /// Whether `other` (any batch producer) has the same schema and values.
    fn equals(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = Self::import(other)?;
        Ok(self.0.schema() == other.0.schema()
            && alkaid_data::equal(&batch_data(&self.0)?, &batch_data(&other.0)?))
    }

    fn __repr__(&self) -> String {
        format!(
            "alkaid.RecordBatch({} rows, {} columns)",
            self.0.num_rows(),
            self.0.num_columns()
        )
    }

    /// The PyCapsule interface: the batch as a struct array.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let schema = self.honoured(requested_schema)?;
        array_capsules(py, &schema_field(&schema), batch_data(&self.0)?)
    }

    /// The PyCapsule interface for devices: the batch on the CPU.
    #[pyo3(signature = (requested_schema = None, **kwargs))]
    fn __arrow_c_device_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        check_device_kwargs(kwargs)?;
        let schema = self.honoured(requested_schema)?;
        device_array_capsules(py, &schema_field(&schema), batch_data(&self.0)?)
    }

    /// The batch's schema, as a capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &schema_field(self.0.schema()))
    }
}

impl PyRecordBatch {
    /// The schema to export the batch as, for a consumer's `requested_schema`.
    fn honoured(&self, requested: Option<&Bound<'_, PyAny>>) -> PyResult<alkaid_schema::SchemaRef> {
        let nulls: Vec<usize> = self.0.columns().iter().map(|c| c.null_count()).collect();
        honour_requested_schema(self.0.schema(), Some(&nulls), requested)
    }

    fn column_at(&self, i: usize) -> PyArray {
        let field = self.0.schema().fields()[i].as_ref().clone();
        PyArray {
            field,
            array: self.0.column(i).clone(),
        }
    }
}

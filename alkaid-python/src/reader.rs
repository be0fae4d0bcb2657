//! `alkaid.RecordBatchReader`: batches one at a time, from an IPC stream or file, from
//! any `__arrow_c_stream__` producer, or from a list; itself a producer, consumed once.

use std::sync::Mutex;

use alkaid_array::RecordBatch;
use alkaid_schema::SchemaRef;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::batch::{PyRecordBatch, batches_of};
use crate::capsule::schema_field;
use crate::capsule::{
    check_device_kwargs, device_stream_capsule, honour_requested_schema, import_stream_from,
    schema_capsule, stream_capsule,
};
use crate::error::to_py;
use crate::schema::PySchema;

/// What a reader yields: batches, or the error that ends them (its message).
pub type Batches = Box<dyn Iterator<Item = Result<RecordBatch, String>> + Send>;

/// A stream of record batches of one schema. Reading it (iterating, `read_all`, or
/// handing it to another library through `__arrow_c_stream__`) consumes it.
#[pyclass(name = "RecordBatchReader", module = "alkaid", frozen)]
pub struct PyRecordBatchReader {
    schema: SchemaRef,
    batches: Mutex<Option<Batches>>,
}

impl PyRecordBatchReader {
    /// A reader of `batches`, each of `schema`.
    pub fn new(schema: SchemaRef, batches: Batches) -> Self {
        Self {
            schema,
            batches: Mutex::new(Some(batches)),
        }
    }

    /// The batches, taken out: the reader is consumed.
    fn take(&self) -> PyResult<Batches> {
        self.batches
            .lock()
            .map_err(|_| to_py("the reader was poisoned by a panic"))?
            .take()
            .ok_or_else(|| to_py("the reader was already consumed"))
    }

    /// The schema and the batches, taken out: the reader is consumed.
    pub(crate) fn take_batches(&self) -> PyResult<(SchemaRef, Batches)> {
        Ok((self.schema.clone(), self.take()?))
    }

    /// The reader of any stream producer.
    pub fn import(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        let reader = import_stream_from(object)?;
        let schema = reader.schema().clone();
        // Every batch is checked in full as it is imported.
        let batches = reader.map(|batch| batch.map_err(|e| e.to_string()));
        Ok(Self::new(schema, Box::new(batches)))
    }
}

#[pymethods]
impl PyRecordBatchReader {
    /// The reader of any `__arrow_c_stream__` or `__arrow_c_device_stream__` producer (a
    /// pyarrow table or reader, a Polars DataFrame, a DuckDB result).
    #[staticmethod]
    fn from_arrow(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::import(object)
    }

    /// A reader of `batches` (Alkaid batches or any batch producers) of `schema`.
    #[staticmethod]
    fn from_batches(schema: &PySchema, batches: Vec<Bound<'_, PyAny>>) -> PyResult<Self> {
        let batches = batches_of(&batches)?;
        for batch in &batches {
            if batch.schema() != &schema.0 {
                return Err(to_py("a batch's schema differs from the reader's"));
            }
        }
        let batches: Batches = Box::new(batches.into_iter().map(Ok));
        Ok(Self::new(schema.0.clone(), batches))
    }

    /// The schema of every batch.
    #[getter]
    fn schema(&self) -> PySchema {
        PySchema(self.schema.clone())
    }

    /// The next batch; `StopIteration` at the end.
    fn read_next_batch(&self, py: Python<'_>) -> PyResult<PyRecordBatch> {
        let mut guard = self
            .batches
            .lock()
            .map_err(|_| to_py("the reader was poisoned by a panic"))?;
        let Some(batches) = guard.as_mut() else {
            return Err(to_py("the reader was already consumed"));
        };
        // Decoding runs without the interpreter: other Python threads go on.
        match py.detach(|| batches.next()) {
            Some(Ok(batch)) => Ok(PyRecordBatch(batch)),
            Some(Err(message)) => {
                *guard = None;
                Err(to_py(message))
            }
            None => {
                *guard = None;
                Err(PyStopIteration::new_err(()))
            }
        }
    }

    /// Every remaining batch, as an `alkaid.Table`.
    fn read_all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let batches = self.take()?;
        let batches = py
            .detach(|| batches.collect::<Result<Vec<_>, _>>())
            .map_err(to_py)?;
        // Made through the module: `table.rs` imports this file (for `to_reader`), so
        // this one does not import it back. The batches cross as objects, not copied.
        let batches: Vec<PyRecordBatch> = batches.into_iter().map(PyRecordBatch).collect();
        let table = py.import("alkaid._alkaid")?.getattr("Table")?;
        table.call_method1("from_batches", (batches, PySchema(self.schema.clone())))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<PyRecordBatch> {
        self.read_next_batch(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "alkaid.RecordBatchReader({} columns)",
            self.schema.fields().len()
        )
    }

    /// The PyCapsule interface: the rest of the stream, handed over (the reader is
    /// consumed).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = honour_requested_schema(&self.schema, None, requested_schema)?;
        stream_capsule(py, schema, self.take()?)
    }

    /// The PyCapsule interface for devices: the rest of the stream, on the CPU.
    #[pyo3(signature = (requested_schema = None, **kwargs))]
    fn __arrow_c_device_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        check_device_kwargs(kwargs)?;
        let schema = honour_requested_schema(&self.schema, None, requested_schema)?;
        device_stream_capsule(py, schema, self.take()?)
    }

    /// The schema, as a capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &schema_field(&self.schema))
    }
}

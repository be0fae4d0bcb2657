//! Alkaid for Python, and for the authors of pyo3 extensions.
//!
//! The Python module `alkaid` (built by maturin from this crate: `pip install
//! ./alkaid-python`) holds Alkaid's schema types, arrays, record batches and readers,
//! each a producer of the Arrow PyCapsule interface (`__arrow_c_schema__`,
//! `__arrow_c_array__`, `__arrow_c_stream__` and the device variants), so that pyarrow,
//! Polars, DuckDB and any other consumer take them without a copy; `alkaid.array`,
//! `alkaid.record_batch`, `alkaid.reader` and `alkaid.schema` take any producer's data
//! the same way, checked before use. IPC, Parquet, CSV and JSON reading and writing,
//! validation and the select kernels come with it.
//!
//! For a pyo3 extension of your own, depend on this crate as a library: its classes
//! convert from Alkaid values, so a function returns Alkaid data to Python in one line,
//! and [`capsule`] has the capsule functions for anything else.
//!
//! ```
//! use std::sync::Arc;
//! use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
//! use alkaid_python::PyRecordBatch;
//! use alkaid_schema::{DataType, Field, Schema};
//!
//! // What a `#[pyo3::pyfunction]` of your module returns: Python gets an
//! // `alkaid.RecordBatch`, which `pyarrow.record_batch(squares(4))` takes without a copy.
//! // (`examples/extension.rs` is such a module whole, loaded by a pytest.)
//! fn squares(n: i64) -> PyRecordBatch {
//!     let schema = Arc::new(Schema::new(vec![Field::new("square", DataType::Int64, false)]));
//!     let column: ArrayRef = Arc::new(Int64Array::from((0..n).map(|i| i * i).collect::<Vec<_>>()));
//!     RecordBatch::try_new(schema, vec![column]).expect("one column of its type").into()
//! }
//! assert_eq!(squares(4).0.num_rows(), 4);
//! ```

pub mod capsule;

mod array;
mod batch;
mod buffer_protocol;
mod chunked;
mod compute;
mod datatype;
mod error;
mod formats;
mod ipc;
mod memory;
mod numpy;
mod pandas;
mod promote;
mod reader;
mod scalar;
mod schema;
mod select;
mod table;
mod values;

pub use array::PyArray;
pub use batch::PyRecordBatch;
pub use chunked::PyChunkedArray;
pub use datatype::PyDataType;
pub use error::AlkaidError;
pub use reader::{Batches, PyRecordBatchReader};
pub use scalar::PyScalar;
pub use schema::{PyField, PySchema};
pub use table::PyTable;

use pyo3::prelude::*;

/// An array of `values`: any `__arrow_c_array__` (or device) producer, sharing its
/// memory, checked in full; a numpy array (without a copy where its dtype allows); any
/// buffer-protocol object (`bytes`, `array.array`, `memoryview`, ...) as its items' type
/// (pyarrow iterates such objects as ints instead); or a sequence of Python values, of
/// `type` (an `alkaid.DataType`, its text, or any `__arrow_c_schema__` producer) or of
/// the type pyarrow would infer. An array taken with another `type` is cast to it.
#[pyfunction]
#[pyo3(name = "array", signature = (values, r#type = None))]
fn array_of(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    r#type: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyArray> {
    let data_type = r#type.map(datatype::data_type_of).transpose()?;
    array::array_from(py, values, data_type)
}

/// The record batch of any producer of a struct array (a pyarrow or Polars batch).
#[pyfunction]
#[pyo3(name = "record_batch")]
fn record_batch_of(object: &Bound<'_, PyAny>) -> PyResult<PyRecordBatch> {
    PyRecordBatch::import(object)
}

/// A table of `data`: a dict of columns (arrays, chunked arrays, numpy arrays or Python
/// values), any `__arrow_c_stream__` producer (read whole: a pyarrow table, a Polars
/// DataFrame, a reader), or a record batch producer.
#[pyfunction]
#[pyo3(name = "table")]
fn table_of(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyTable> {
    match data.cast::<pyo3::types::PyDict>() {
        Ok(mapping) => PyTable::from_pydict(py, mapping, None),
        Err(_) => PyTable::from_arrow(py, data),
    }
}

/// A reader of any `__arrow_c_stream__` (or device) producer.
#[pyfunction]
#[pyo3(name = "reader")]
fn reader_of(object: &Bound<'_, PyAny>) -> PyResult<PyRecordBatchReader> {
    PyRecordBatchReader::import(object)
}

/// The schema of any `__arrow_c_schema__` producer of a struct (a pyarrow schema).
#[pyfunction]
#[pyo3(name = "schema")]
fn schema_of(object: &Bound<'_, PyAny>) -> PyResult<PySchema> {
    let field = capsule::import_field_from(object)?;
    capsule::schema_of(&field).map(PySchema)
}

/// The Python module.
#[pymodule]
#[pyo3(name = "_alkaid")]
fn alkaid_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDataType>()?;
    m.add_class::<PyField>()?;
    m.add_class::<PySchema>()?;
    m.add_class::<PyArray>()?;
    m.add_class::<PyScalar>()?;
    m.add_class::<PyChunkedArray>()?;
    m.add_class::<PyTable>()?;
    m.add_class::<PyRecordBatch>()?;
    m.add_class::<PyRecordBatchReader>()?;
    m.add("AlkaidError", m.py().get_type::<AlkaidError>())?;
    m.add_submodule(&compute::module(m.py())?)?;
    m.add_function(wrap_pyfunction!(array_of, m)?)?;
    m.add_function(wrap_pyfunction!(record_batch_of, m)?)?;
    m.add_function(wrap_pyfunction!(table_of, m)?)?;
    m.add_function(wrap_pyfunction!(reader_of, m)?)?;
    m.add_function(wrap_pyfunction!(schema_of, m)?)?;
    m.add_function(wrap_pyfunction!(ipc::read_ipc_stream, m)?)?;
    m.add_function(wrap_pyfunction!(ipc::read_ipc_file, m)?)?;
    m.add_function(wrap_pyfunction!(ipc::write_ipc_stream, m)?)?;
    m.add_function(wrap_pyfunction!(ipc::write_ipc_file, m)?)?;
    m.add_function(wrap_pyfunction!(formats::read_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(formats::write_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(formats::read_csv, m)?)?;
    m.add_function(wrap_pyfunction!(formats::write_csv, m)?)?;
    m.add_function(wrap_pyfunction!(formats::read_json, m)?)?;
    m.add_function(wrap_pyfunction!(formats::write_json, m)?)?;
    m.add_function(wrap_pyfunction!(select::filter, m)?)?;
    m.add_function(wrap_pyfunction!(select::take, m)?)?;
    m.add_function(wrap_pyfunction!(select::concat, m)?)?;
    m.add_function(wrap_pyfunction!(select::validate, m)?)?;
    Ok(())
}

//! A pyo3 extension module of your own that returns Alkaid data to Python: the crate
//! documentation's example, whole. It builds as a Python extension (`cdylib`), which
//! finds CPython in the interpreter that loads it, so CI compiles it without Python.
//!
//! In Python, once built: `pyarrow.record_batch(extension.squares(4))` or
//! `polars.DataFrame(extension.squares(4))` take the batch without a copy.

use std::sync::Arc;

use alkaid_array::{Int64Array, RecordBatch};
use alkaid_python::PyRecordBatch;
use alkaid_schema::{DataType, Field, Schema};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A batch of one column, `0, 1, 4, 9, …` (`n` rows), made in Rust.
#[pyfunction]
fn squares(n: i64) -> PyResult<PyRecordBatch> {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "square",
        DataType::Int64,
        false,
    )]));
    let column = Int64Array::from((0..n.max(0)).map(|i| i * i).collect::<Vec<_>>());
    let batch = RecordBatch::try_new(schema, vec![Arc::new(column)])
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(batch.into())
}

/// The module Python imports as `extension`.
#[pymodule]
fn extension(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(squares, module)?)
}

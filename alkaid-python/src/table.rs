//! `alkaid.Table`: a schema and a list of record batches, as pyarrow's table; what the
//! readers' `read_all` returns. Its columns are chunked arrays (one chunk per batch);
//! selecting, slicing and renaming share memory, filtering, taking and sorting build new
//! batches with alkaid-select and alkaid-compute.

use std::sync::Arc;

use alkaid_array::display::pretty_format_batches;
use alkaid_array::{ArrayRef, AsArray, RecordBatch};
use alkaid_compute::{SortColumn, SortOptions, lexsort_to_indices};
use alkaid_schema::{Field, Schema, SchemaRef};
use pyo3::exceptions::{PyIndexError, PyKeyError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};

use crate::array::SHOWN_ROWS;
use crate::batch::{PyRecordBatch, batches_of};
use crate::capsule::{
    honour_requested_schema, import_stream_from, schema_capsule, schema_field, stream_capsule,
};
use crate::chunked::{PyChunkedArray, slice_parts};
use crate::error::to_py;
use crate::reader::PyRecordBatchReader;
use crate::schema::PySchema;
use crate::values::field_pylist;

/// Columns of equal length under a schema, held as record batches.
#[pyclass(name = "Table", module = "alkaid", frozen)]
#[derive(Debug, Clone)]
pub struct PyTable {
    /// The schema of every batch.
    pub schema: SchemaRef,
    /// The rows, in order.
    pub batches: Vec<RecordBatch>,
}

impl PyTable {
    /// A table of `batches`, each of `schema`'s columns.
    ///
    /// # Errors
    /// If a batch's column types differ from the schema's.
    pub fn try_new(schema: SchemaRef, batches: Vec<RecordBatch>) -> PyResult<Self> {
        let types = |s: &Schema| {
            s.fields()
                .iter()
                .map(|f| f.data_type().clone())
                .collect::<Vec<_>>()
        };
        if let Some(i) = batches
            .iter()
            .position(|b| types(b.schema()) != types(&schema))
        {
            return Err(to_py(format!(
                "batch {i} has other columns than the table's schema"
            )));
        }
        // Each batch carries the table's schema (names, metadata).
        let batches = batches
            .into_iter()
            .map(|b| RecordBatch::try_new(schema.clone(), b.columns().to_vec()).map_err(to_py))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Self { schema, batches })
    }

    /// A table of `columns` (each of one type, any chunking) with `metadata`: batches by
    /// the columns' shared chunking, or one batch when their chunks differ.
    fn from_columns(
        columns: Vec<PyChunkedArray>,
        metadata: alkaid_schema::Metadata,
    ) -> PyResult<Self> {
        let fields: Vec<Field> = columns.iter().map(|c| c.field.clone()).collect();
        let schema = Arc::new(Schema::new(fields).with_metadata(metadata));
        let lengths = |c: &PyChunkedArray| c.chunks.iter().map(|a| a.len()).collect::<Vec<_>>();
        let rows = |c: &PyChunkedArray| c.chunks.iter().map(|a| a.len()).sum::<usize>();
        if let Some(first) = columns.first()
            && let Some(other) = columns.iter().find(|c| rows(c) != rows(first))
        {
            return Err(to_py(format!(
                "column {:?} has {} rows, column {:?} {}",
                other.field.name(),
                rows(other),
                first.field.name(),
                rows(first)
            )));
        }
        let shared = columns.first().map(lengths);
        let columns: Vec<Vec<ArrayRef>> = match shared {
            Some(chunking) if columns.iter().all(|c| lengths(c) == chunking) => {
                columns.into_iter().map(|c| c.chunks).collect()
            }
            _ => columns
                .iter()
                .map(|c| c.combined().map(|a| vec![a]))
                .collect::<PyResult<_>>()?,
        };
        let count = columns.first().map_or(0, Vec::len);
        let batches = (0..count)
            .map(|b| {
                let arrays = columns.iter().map(|c| c[b].clone()).collect();
                RecordBatch::try_new(schema.clone(), arrays).map_err(to_py)
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Self { schema, batches })
    }

    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The index of the column `key` names (a position or a name).
    fn index(&self, key: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Ok(i) = key.extract::<usize>() {
            return match i < self.schema.fields().len() {
                true => Ok(i),
                false => Err(PyIndexError::new_err(format!(
                    "column {i} of {}",
                    self.schema.fields().len()
                ))),
            };
        }
        self.position(&key.extract::<String>()?)
    }

    /// The index of the column named `name`.
    fn position(&self, name: &str) -> PyResult<usize> {
        self.schema
            .fields()
            .iter()
            .position(|f| f.name() == name)
            .ok_or_else(|| PyKeyError::new_err(format!("no column {name:?}")))
    }

    /// Column `i` as a chunked array.
    fn column_at(&self, i: usize) -> PyChunkedArray {
        PyChunkedArray {
            field: self.schema.fields()[i].as_ref().clone(),
            chunks: self.batches.iter().map(|b| b.column(i).clone()).collect(),
        }
    }

    fn all_columns(&self) -> Vec<PyChunkedArray> {
        (0..self.schema.fields().len())
            .map(|i| self.column_at(i))
            .collect()
    }

    /// The rows as one batch.
    fn combined(&self) -> PyResult<RecordBatch> {
        match self.batches.as_slice() {
            [one] => Ok(one.clone()),
            batches => alkaid_select::concat_batches(&self.schema, batches).map_err(to_py),
        }
    }

    /// The table of the same schema with `batches`.
    fn with_batches(&self, batches: Vec<RecordBatch>) -> Self {
        Self {
            schema: self.schema.clone(),
            batches,
        }
    }
}

#[pymethods]
impl PyTable {
    /// A table of `mapping`'s columns (name to an array, chunked array, numpy array or
    /// Python values), with `metadata` when given.
    #[staticmethod]
    #[pyo3(signature = (mapping, metadata = None))]
    pub(crate) fn from_pydict(
        py: Python<'_>,
        mapping: &Bound<'_, PyDict>,
        metadata: Option<std::collections::HashMap<String, String>>,
    ) -> PyResult<Self> {
        let columns = mapping
            .iter()
            .map(|(name, column)| {
                let name: String = name.extract()?;
                PyChunkedArray::of(py, &column, &name)
            })
            .collect::<PyResult<Vec<_>>>()?;
        Self::from_columns(columns, metadata.unwrap_or_default().into_iter().collect())
    }

    /// A table of record batches (Alkaid's or any producer's), of `schema` when given
    /// (needed for none).
    #[staticmethod]
    #[pyo3(signature = (batches, schema = None))]
    fn from_batches(batches: Vec<Bound<'_, PyAny>>, schema: Option<&PySchema>) -> PyResult<Self> {
        let batches = batches_of(&batches)?;
        let schema = match (schema, batches.first()) {
            (Some(schema), _) => schema.0.clone(),
            (None, Some(first)) => first.schema().clone(),
            (None, None) => return Err(to_py("a table of no batches needs a schema")),
        };
        Self::try_new(schema, batches)
    }

    /// The table of any `__arrow_c_stream__` producer (read to its end), or of a record
    /// batch producer (`__arrow_c_array__` of a struct).
    #[staticmethod]
    pub(crate) fn from_arrow(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Self> {
        if object.hasattr("__arrow_c_stream__")? || object.hasattr("__arrow_c_device_stream__")? {
            let reader = import_stream_from(object)?;
            let schema = reader.schema().clone();
            let batches = py
                .detach(|| reader.collect::<Result<Vec<_>, _>>())
                .map_err(to_py)?;
            return Self::try_new(schema, batches);
        }
        let batch = PyRecordBatch::import(object)?.0;
        Self::try_new(batch.schema().clone(), vec![batch])
    }

    /// The schema.
    #[getter]
    fn schema(&self) -> PySchema {
        PySchema(self.schema.clone())
    }

    /// The number of rows.
    #[getter(num_rows)]
    fn rows(&self) -> usize {
        self.num_rows()
    }

    /// The number of columns.
    #[getter]
    fn num_columns(&self) -> usize {
        self.schema.fields().len()
    }

    /// The columns' names.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().to_string())
            .collect()
    }

    /// The columns, as chunked arrays.
    #[getter]
    fn columns(&self) -> Vec<PyChunkedArray> {
        self.all_columns()
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }

    /// A column by position or name.
    fn column(&self, key: &Bound<'_, PyAny>) -> PyResult<PyChunkedArray> {
        Ok(self.column_at(self.index(key)?))
    }

    /// The columns `keys` (positions or names), in that order.
    fn select(&self, keys: Vec<Bound<'_, PyAny>>) -> PyResult<Self> {
        let indices = keys
            .iter()
            .map(|k| self.index(k))
            .collect::<PyResult<Vec<_>>>()?;
        let batches = self
            .batches
            .iter()
            .map(|b| b.project(&indices).map_err(to_py))
            .collect::<PyResult<Vec<_>>>()?;
        let schema = Arc::new(self.schema.project(&indices).map_err(to_py)?);
        Ok(Self { schema, batches })
    }

    /// The `length` rows from `offset` (to the end when not given), sharing memory.
    #[pyo3(signature = (offset = 0, length = None))]
    fn slice(&self, offset: usize, length: Option<usize>) -> Self {
        let length = length.unwrap_or(usize::MAX);
        let batches = slice_parts(
            &self.batches,
            RecordBatch::num_rows,
            RecordBatch::slice,
            offset,
            length,
        );
        self.with_batches(batches)
    }

    /// The rows where `mask` (a boolean column of the table's length, in any form
    /// `alkaid.array` takes) is true; a null drops its row.
    fn filter(&self, py: Python<'_>, mask: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mask = PyChunkedArray::of(py, mask, "mask")?.combined()?;
        if mask.len() != self.num_rows() {
            return Err(to_py(format!(
                "a mask of {} rows for a table of {}",
                mask.len(),
                self.num_rows()
            )));
        }
        let Some(_) = mask.as_boolean_opt() else {
            return Err(to_py(format!(
                "the mask must be Boolean, found {}",
                mask.data_type()
            )));
        };
        let mut start = 0;
        let mut batches = Vec::with_capacity(self.batches.len());
        for batch in &self.batches {
            let part = mask.slice(start, batch.num_rows());
            start += batch.num_rows();
            batches
                .push(alkaid_select::filter_record_batch(batch, part.as_boolean()).map_err(to_py)?);
        }
        Ok(self.with_batches(batches))
    }

    /// The rows at `indices` (integers in any form `alkaid.array` takes), as one batch.
    fn take(&self, py: Python<'_>, indices: &Bound<'_, PyAny>) -> PyResult<Self> {
        let indices = PyChunkedArray::of(py, indices, "indices")?.combined()?;
        let taken =
            alkaid_select::take_record_batch(&self.combined()?, indices.as_ref()).map_err(to_py)?;
        Ok(self.with_batches(vec![taken]))
    }

    /// The rows sorted by `sorting`: a column name (ascending), or a list of
    /// `(name, "ascending" | "descending")`; nulls last, ties in their order.
    fn sort_by(&self, sorting: &Bound<'_, PyAny>) -> PyResult<Self> {
        let keys: Vec<(String, String)> = match sorting.extract::<String>() {
            Ok(name) => vec![(name, "ascending".to_string())],
            Err(_) => sorting.extract()?,
        };
        let combined = self.combined()?;
        let columns = keys
            .iter()
            .map(|(name, order)| {
                let descending = match order.as_str() {
                    "ascending" => false,
                    "descending" => true,
                    other => {
                        return Err(to_py(format!(
                            "sort order {other:?}: ascending or descending"
                        )));
                    }
                };
                let i = self.position(name)?;
                Ok((i, descending))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let sort_columns: Vec<SortColumn<'_>> = columns
            .iter()
            .map(|&(i, descending)| SortColumn {
                values: combined.column(i).as_ref(),
                options: SortOptions {
                    descending,
                    nulls_first: false,
                },
            })
            .collect();
        let order = lexsort_to_indices(&sort_columns, None).map_err(to_py)?;
        let sorted = alkaid_select::take_record_batch(&combined, &order).map_err(to_py)?;
        Ok(self.with_batches(vec![sorted]))
    }

    /// The table with `column` (any column-like) inserted at position `i` as `name`.
    fn add_column(
        &self,
        py: Python<'_>,
        i: usize,
        name: &str,
        column: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut columns = self.all_columns();
        if i > columns.len() {
            return Err(PyIndexError::new_err(format!(
                "position {i} of {}",
                columns.len()
            )));
        }
        columns.insert(i, PyChunkedArray::of(py, column, name)?);
        Self::from_columns(columns, self.schema.metadata().clone())
    }

    /// The table with `column` added last as `name`.
    fn append_column(
        &self,
        py: Python<'_>,
        name: &str,
        column: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        self.add_column(py, self.schema.fields().len(), name, column)
    }

    /// The table without the columns `names`.
    fn drop_columns(&self, names: Vec<String>) -> PyResult<Self> {
        for name in &names {
            self.position(name)?;
        }
        let kept: Vec<usize> = (0..self.schema.fields().len())
            .filter(|&i| !names.iter().any(|n| n == self.schema.fields()[i].name()))
            .collect();
        let batches = self
            .batches
            .iter()
            .map(|b| b.project(&kept).map_err(to_py))
            .collect::<PyResult<Vec<_>>>()?;
        let schema = Arc::new(self.schema.project(&kept).map_err(to_py)?);
        Ok(Self { schema, batches })
    }

    /// The table with its columns named `names`, in order.
    fn rename_columns(&self, names: Vec<String>) -> PyResult<Self> {
        if names.len() != self.schema.fields().len() {
            return Err(to_py(format!(
                "{} names for {} columns",
                names.len(),
                self.schema.fields().len()
            )));
        }
        let fields: Vec<Field> = self
            .schema
            .fields()
            .iter()
            .zip(&names)
            .map(|(f, name)| f.as_ref().clone().with_name(name.as_str()))
            .collect();
        let schema = Arc::new(Schema::new(fields).with_metadata(self.schema.metadata().clone()));
        Self::try_new(schema, self.batches.clone())
    }

    /// The table as one batch.
    fn combine_chunks(&self) -> PyResult<Self> {
        Ok(self.with_batches(vec![self.combined()?]))
    }

    /// The batches.
    fn to_batches(&self) -> Vec<PyRecordBatch> {
        self.batches.iter().cloned().map(PyRecordBatch).collect()
    }

    /// A reader of the batches.
    fn to_reader(&self) -> PyRecordBatchReader {
        let batches = self.batches.clone().into_iter().map(Ok);
        PyRecordBatchReader::new(self.schema.clone(), Box::new(batches))
    }

    /// The table as a pandas `DataFrame` (pandas must be installed), its columns built on
    /// `to_numpy(zero_copy_only=False)`.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let columns = self
            .all_columns()
            .iter()
            .map(PyChunkedArray::combined)
            .collect::<PyResult<Vec<_>>>()?;
        crate::pandas::frame(py, &self.column_names(), &columns)
    }

    /// The table of a pandas `DataFrame`: through its Arrow stream when pandas offers one
    /// (with pyarrow installed), else column by column through numpy, pandas' missing
    /// values (`None`, `NaN`, `NaT`) as nulls.
    #[staticmethod]
    fn from_pandas(py: Python<'_>, frame: &Bound<'_, PyAny>) -> PyResult<Self> {
        if frame.hasattr("__arrow_c_stream__")? && py.import("pyarrow").is_ok() {
            return Self::from_arrow(py, frame);
        }
        let pandas = crate::pandas::pandas(py, "from_pandas")?;
        let numpy = py.import("numpy")?;
        let mut columns = Vec::new();
        for name in frame.getattr("columns")?.try_iter()? {
            let name = name?;
            let column = frame.get_item(&name)?;
            let missing = pandas
                .call_method1("isna", (&column,))?
                .call_method0("to_numpy")?;
            let values = column.call_method0("to_numpy")?;
            let values = match missing.call_method0("any")?.is_truthy()? {
                true => numpy
                    .getattr("ma")?
                    .call_method1("masked_array", (values, missing))?,
                false => values,
            };
            columns.push(PyChunkedArray::of(py, &values, &name.str()?.to_cow()?)?);
        }
        Self::from_columns(columns, Default::default())
    }

    /// The rows as dicts of Python values.
    fn to_pylist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names = self.column_names();
        let mut rows = Vec::with_capacity(self.num_rows());
        for batch in &self.batches {
            let columns = batch
                .columns()
                .iter()
                .zip(self.schema.fields().iter())
                .map(|(c, field)| field_pylist(py, field, c.as_ref()))
                .collect::<PyResult<Vec<_>>>()?;
            for r in 0..batch.num_rows() {
                let row = PyDict::new(py);
                for (name, column) in names.iter().zip(&columns) {
                    row.set_item(name, column.get_item(r)?)?;
                }
                rows.push(row);
            }
        }
        PyList::new(py, rows)
    }

    /// The columns as a dict of lists of Python values.
    fn to_pydict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for column in self.all_columns() {
            dict.set_item(column.field.name(), column.values(py)?)?;
        }
        Ok(dict)
    }

    /// Whether `other` (a table, or any stream producer read whole) holds the same
    /// columns and values, however they are split into batches.
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = match other.cast::<PyTable>() {
            Ok(ours) => ours.get().clone(),
            Err(_) => match Self::from_arrow(py, other) {
                Ok(table) => table,
                Err(_) => return Ok(false),
            },
        };
        if self.schema.fields() != other.schema.fields() {
            return Ok(false);
        }
        let (ours, theirs) = (self.combined()?, other.combined()?);
        Ok(ours.num_rows() == theirs.num_rows()
            && ours
                .columns()
                .iter()
                .zip(theirs.columns())
                .all(|(a, b)| alkaid_data::equal(&a.to_data(), &b.to_data())))
    }

    fn __repr__(&self) -> String {
        let table = match self.batches.is_empty() {
            true => String::new(),
            false => pretty_format_batches(&self.batches, Some(SHOWN_ROWS)),
        };
        let count = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        format!(
            "alkaid.Table: {}, {} in {}\n{table}",
            count(self.num_rows(), "row", "rows"),
            count(self.schema.fields().len(), "column", "columns"),
            count(self.batches.len(), "batch", "batches")
        )
    }

    /// The PyCapsule interface: the batches as a stream (the table stays whole).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = honour_requested_schema(&self.schema, None, requested_schema)?;
        stream_capsule(py, schema, self.batches.clone().into_iter().map(Ok))
    }

    /// The schema, as a capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &schema_field(&self.schema))
    }
}

//! `alkaid.ChunkedArray`: one column as a list of arrays of one type, as a table holds it
//! (one chunk per batch). Reading it never joins the chunks unless asked
//! (`combine_chunks`, `to_numpy` of several).

use alkaid_array::{Array, ArrayRef, UInt64Array};
use alkaid_schema::Field;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList, PySlice};

use crate::array::{PyArray, SHOWN_ROWS, array_from, index_within};
use crate::capsule::{array_stream_capsule, array_stream_from_capsule, honour_requested};
use crate::capsule::{import_array_from, schema_capsule};
use crate::datatype::{PyDataType, data_type_of};
use crate::error::to_py;
use crate::scalar::PyScalar;
use crate::values::field_pylist;

/// A column of chunks of one type.
#[pyclass(name = "ChunkedArray", module = "alkaid", frozen)]
#[derive(Debug, Clone)]
pub struct PyChunkedArray {
    /// The column's field (its name when a table's, its type).
    pub field: Field,
    /// The chunks, each of the field's type.
    pub chunks: Vec<ArrayRef>,
}

impl PyChunkedArray {
    /// Chunks of `field`'s type.
    ///
    /// # Errors
    /// If a chunk is of another type.
    pub fn try_new(field: Field, chunks: Vec<ArrayRef>) -> PyResult<Self> {
        if let Some(other) = chunks.iter().find(|c| c.data_type() != field.data_type()) {
            return Err(to_py(format!(
                "a chunk of {} in a column of {}",
                other.data_type(),
                field.data_type()
            )));
        }
        Ok(Self { field, chunks })
    }

    /// The column of any column-like object: a chunked array (ours, or any stream of
    /// arrays such as pyarrow's), an array, a numpy array or Python values (as
    /// `alkaid.array` takes them), named `name`.
    pub(crate) fn of(py: Python<'_>, column: &Bound<'_, PyAny>, name: &str) -> PyResult<Self> {
        if let Ok(ours) = column.cast::<PyChunkedArray>() {
            let ours = ours.get();
            return Ok(Self {
                field: ours.field.clone().with_name(name),
                chunks: ours.chunks.clone(),
            });
        }
        if column.hasattr("__arrow_c_stream__")? && !column.hasattr("__arrow_c_array__")? {
            let streamed = Self::from_arrow(py, column)?;
            return Ok(Self {
                field: streamed.field.with_name(name),
                chunks: streamed.chunks,
            });
        }
        let array = array_from(py, column, None)?.array;
        let field = Field::new(name, array.data_type().clone(), true);
        Ok(Self {
            field,
            chunks: vec![array],
        })
    }

    /// The values of every chunk as a list of Python objects.
    pub(crate) fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if let [one] = self.chunks.as_slice() {
            return field_pylist(py, &self.field, one.as_ref());
        }
        let mut values = Vec::with_capacity(self.len());
        for chunk in &self.chunks {
            values.extend(field_pylist(py, &self.field, chunk.as_ref())?.iter());
        }
        PyList::new(py, values)
    }

    /// The values as one array (the chunk itself when there is one).
    pub(crate) fn combined(&self) -> PyResult<ArrayRef> {
        match self.chunks.as_slice() {
            [one] => Ok(one.clone()),
            [] => Ok(alkaid_array::make_array(alkaid_data::ArrayData::new_empty(
                self.field.data_type(),
            ))),
            chunks => {
                let refs: Vec<&dyn Array> = chunks.iter().map(|c| c.as_ref()).collect();
                alkaid_select::concat(&refs).map_err(to_py)
            }
        }
    }

    fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.len()).sum()
    }

    /// The `length` values from `offset` (clamped to the end), sharing memory.
    pub(crate) fn sliced(&self, offset: usize, length: usize) -> Self {
        let slice = |chunk: &ArrayRef, offset, length| chunk.slice(offset, length);
        Self {
            field: self.field.clone(),
            chunks: slice_parts(&self.chunks, |c| c.len(), slice, offset, length),
        }
    }
}

/// The `length` rows from `offset` (clamped to the end) of rows held in `parts` (chunks,
/// batches): the parts they fall in, sliced, sharing memory.
pub(crate) fn slice_parts<T>(
    parts: &[T],
    rows: impl Fn(&T) -> usize,
    slice: impl Fn(&T, usize, usize) -> T,
    offset: usize,
    length: usize,
) -> Vec<T> {
    let mut sliced = Vec::new();
    let (mut skip, mut left) = (offset, length);
    for part in parts {
        if left == 0 {
            break;
        }
        let count = rows(part);
        if skip >= count {
            skip -= count;
            continue;
        }
        let take = (count - skip).min(left);
        sliced.push(slice(part, skip, take));
        left -= take;
        skip = 0;
    }
    sliced
}

#[pymethods]
impl PyChunkedArray {
    /// A chunked array of `chunks` (arrays, numpy arrays or sequences of values), each
    /// made as `alkaid.array` makes it, of `type` when given (needed for no chunks).
    #[new]
    #[pyo3(signature = (chunks, r#type = None))]
    fn new(
        py: Python<'_>,
        chunks: Vec<Bound<'_, PyAny>>,
        r#type: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let data_type = r#type.map(data_type_of).transpose()?;
        let arrays = chunks
            .iter()
            .map(|chunk| array_from(py, chunk, data_type.clone()).map(|a| a.array))
            .collect::<PyResult<Vec<_>>>()?;
        let data_type = match (data_type, arrays.first()) {
            (Some(data_type), _) => data_type,
            (None, Some(first)) => first.data_type().clone(),
            (None, None) => return Err(to_py("a chunked array of no chunks needs a type")),
        };
        Self::try_new(Field::new("", data_type, true), arrays)
    }

    /// The chunked array of any producer: a stream of arrays (`__arrow_c_stream__`, as
    /// pyarrow's `ChunkedArray` and Alkaid's export it), read to its end, each chunk checked
    /// in full; or one array (`__arrow_c_array__`), as one chunk.
    #[staticmethod]
    fn from_arrow(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Self> {
        if object.hasattr("__arrow_c_stream__")? {
            let reader = array_stream_from_capsule(&object.call_method0("__arrow_c_stream__")?)?;
            let field = reader.field().clone();
            let chunks = py
                .detach(|| reader.collect::<Result<Vec<_>, _>>())
                .map_err(to_py)?;
            return Self::try_new(field, chunks);
        }
        let (field, data) = import_array_from(object)?;
        Self::try_new(field, vec![alkaid_array::make_array(data)])
    }

    /// The PyCapsule stream interface: the chunks as a stream of arrays (what
    /// `pyarrow.chunked_array(x)` reads), without copying; `requested_schema` may rename
    /// the column or ask for it non-nullable when it holds no nulls.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let nulls = self.chunks.iter().map(|c| c.null_count()).sum();
        let field = honour_requested(&self.field, Some(nulls), requested_schema)?;
        let chunks: Vec<_> = self.chunks.iter().map(|c| Ok(c.to_data())).collect();
        array_stream_capsule(py, field, chunks.into_iter())
    }

    /// The column's type, as a schema capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.field)
    }

    /// The values' type.
    #[getter]
    fn r#type(&self) -> PyDataType {
        PyDataType(self.field.data_type().clone())
    }

    /// The number of values in all chunks.
    fn __len__(&self) -> usize {
        self.len()
    }

    /// The number of nulls in all chunks.
    #[getter]
    fn null_count(&self) -> usize {
        self.chunks.iter().map(|c| c.null_count()).sum()
    }

    /// The number of chunks.
    #[getter]
    fn num_chunks(&self) -> usize {
        self.chunks.len()
    }

    /// The chunks, as arrays.
    #[getter]
    fn chunks(&self) -> Vec<PyArray> {
        self.chunks
            .iter()
            .map(|c| PyArray::from(c.clone()))
            .collect()
    }

    /// Chunk `i`.
    fn chunk(&self, i: usize) -> PyResult<PyArray> {
        self.chunks
            .get(i)
            .map(|c| PyArray::from(c.clone()))
            .ok_or_else(|| PyIndexError::new_err(format!("chunk {i} of {}", self.chunks.len())))
    }

    /// The values of every chunk as Python objects, as `Array.to_pylist` gives them.
    fn to_pylist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.values(py)
    }

    /// The values as one numpy array (a copy unless there is one chunk that
    /// `Array.to_numpy` hands over without one).
    #[pyo3(signature = (zero_copy_only = false))]
    fn to_numpy<'py>(&self, py: Python<'py>, zero_copy_only: bool) -> PyResult<Bound<'py, PyAny>> {
        if zero_copy_only && self.chunks.len() != 1 {
            return Err(to_py(format!(
                "{} chunks cannot be handed to numpy without a copy",
                self.chunks.len()
            )));
        }
        crate::numpy::to_numpy(py, &self.combined()?, zero_copy_only)
    }

    /// The values as a pandas `Series` (pandas must be installed).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::pandas::series(py, &self.combined()?, self.field.name())
    }

    /// The values as one array.
    fn combine_chunks(&self) -> PyResult<PyArray> {
        Ok(PyArray {
            field: self.field.clone(),
            array: self.combined()?,
        })
    }

    /// The `length` values from `offset`, sharing memory.
    #[pyo3(signature = (offset = 0, length = None))]
    fn slice(&self, offset: usize, length: Option<usize>) -> Self {
        self.sliced(offset, length.unwrap_or(usize::MAX))
    }

    /// The value at an index as a `Scalar`, or a slice's values as a chunked array.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let len = self.len();
        if let Ok(slice) = key.cast::<PySlice>() {
            let range = slice.indices(len as isize)?;
            let sliced = match range.step {
                1 => self.sliced(range.start as usize, range.slicelength),
                step => {
                    let indices: Vec<u64> = (0..range.slicelength)
                        .map(|k| (range.start + k as isize * step) as u64)
                        .collect();
                    let taken =
                        alkaid_select::take(self.combined()?.as_ref(), &UInt64Array::from(indices))
                            .map_err(to_py)?;
                    Self {
                        field: self.field.clone(),
                        chunks: vec![taken],
                    }
                }
            };
            return Ok(sliced.into_pyobject(py)?.into_any().unbind());
        }
        let mut at = index_within(key, len, "column")?;
        for chunk in &self.chunks {
            if at < chunk.len() {
                return Ok(PyScalar::of(chunk, at)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind());
            }
            at -= chunk.len();
        }
        unreachable!("an index within the length lies in a chunk")
    }

    /// Whether `other` holds the same type and values, however chunked (an array or a
    /// chunked array).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let theirs = match other.cast::<PyChunkedArray>() {
            Ok(chunked) => chunked.get().combined()?,
            Err(_) => match PyArray::import(other) {
                Ok(array) => array.array,
                Err(_) => return Ok(false),
            },
        };
        let ours = self.combined()?;
        Ok(alkaid_data::equal(&ours.to_data(), &theirs.to_data()))
    }

    fn __repr__(&self) -> PyResult<String> {
        let first = self.sliced(0, SHOWN_ROWS);
        let shown = PyArray {
            field: self.field.clone(),
            array: first.combined()?,
        };
        let more = match self.len().saturating_sub(SHOWN_ROWS) {
            0 => String::new(),
            1 => "\n... 1 more row".to_string(),
            n => format!("\n... {n} more rows"),
        };
        Ok(format!(
            "alkaid.ChunkedArray {}, {} values in {} chunks, {} null\n{}{more}",
            self.field.data_type(),
            self.len(),
            self.chunks.len(),
            self.null_count(),
            shown.table(SHOWN_ROWS),
        ))
    }
}

//! The Arrow PyCapsule interface, both ways: Alkaid schemas, arrays and streams as the
//! capsules Python libraries exchange (`arrow_schema`, `arrow_array`,
//! `arrow_array_stream`, and the device variants), and any producer's capsules as Alkaid
//! data.
//!
//! These are the helpers for other pyo3 crates: an extension module built on Alkaid can
//! return [`crate::PyRecordBatch`] (or any of this crate's classes) from a function, or
//! build capsules itself with the functions here. A capsule that is never consumed
//! releases what it holds when Python frees it; a consumed one (its struct moved out, its
//! `release` set to null) frees only the struct.

use std::ffi::CStr;
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_array::ffi_device_stream::ArrowDeviceArrayStream;
use alkaid_array::ffi_stream::{ArrayStreamReader, ArrowArrayStream, StreamReader};
use alkaid_data::ffi::{ArrowArray, ArrowDeviceArray, import_array_with, import_device_array};
use alkaid_data::{ArrayData, ValidationLevel};
use alkaid_schema::ffi::{ArrowSchema, import_field};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::error::to_py;

/// The name of a capsule holding an `ArrowSchema`.
pub const SCHEMA: &CStr = c"arrow_schema";
/// The name of a capsule holding an `ArrowArray`.
pub const ARRAY: &CStr = c"arrow_array";
/// The name of a capsule holding an `ArrowArrayStream`.
pub const STREAM: &CStr = c"arrow_array_stream";
/// The name of a capsule holding an `ArrowDeviceArray`.
pub const DEVICE_ARRAY: &CStr = c"arrow_device_array";
/// The name of a capsule holding an `ArrowDeviceArrayStream`.
pub const DEVICE_STREAM: &CStr = c"arrow_device_array_stream";

/// `field` (its type, name, nullability and metadata) as an `arrow_schema` capsule.
///
/// # Errors
/// If the type has no C format string.
pub fn schema_capsule<'py>(py: Python<'py>, field: &Field) -> PyResult<Bound<'py, PyCapsule>> {
    let schema = ArrowSchema::try_export(field).map_err(to_py)?;
    PyCapsule::new_with_value(py, schema, SCHEMA)
}

/// `data` as the capsule pair of `__arrow_c_array__`: its field, then the array, sharing
/// its buffers (`data` is taken, so that its buffer lists move into the export).
///
/// # Errors
/// If the type has no C format string.
pub fn array_capsules<'py>(
    py: Python<'py>,
    field: &Field,
    data: ArrayData,
) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
    let schema = schema_capsule(py, field)?;
    let array = PyCapsule::new_with_value(py, ArrowArray::export_owned(data), ARRAY)?;
    Ok((schema, array))
}

/// `data` as the capsule pair of `__arrow_c_device_array__`: its field, then the array
/// on the CPU device.
///
/// # Errors
/// If the type has no C format string.
pub fn device_array_capsules<'py>(
    py: Python<'py>,
    field: &Field,
    data: ArrayData,
) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
    let schema = schema_capsule(py, field)?;
    let array = ArrowDeviceArray::on_cpu(ArrowArray::export_owned(data));
    let array = PyCapsule::new_with_value(py, array, DEVICE_ARRAY)?;
    Ok((schema, array))
}

/// The batches `batches` yields, each of `schema`, as an `arrow_array_stream` capsule; an
/// error ends the consumer's read with its message.
pub fn stream_capsule<'py, I>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: I,
) -> PyResult<Bound<'py, PyCapsule>>
where
    I: Iterator<Item = Result<RecordBatch, String>> + Send + 'static,
{
    PyCapsule::new_with_value(py, ArrowArrayStream::export(schema, batches), STREAM)
}

/// The arrays `arrays` yields, each of `field`'s type, as an `arrow_array_stream` capsule
/// of plain arrays (a chunked column, as pyarrow's `ChunkedArray` exports one).
///
/// # Errors
/// If the capsule cannot be made.
pub fn array_stream_capsule<'py, I>(
    py: Python<'py>,
    field: Field,
    arrays: I,
) -> PyResult<Bound<'py, PyCapsule>>
where
    I: Iterator<Item = Result<ArrayData, String>> + Send + 'static,
{
    PyCapsule::new_with_value(py, ArrowArrayStream::export_arrays(field, arrays), STREAM)
}

/// As [`stream_capsule`], an `arrow_device_array_stream` capsule on the CPU device.
pub fn device_stream_capsule<'py, I>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: I,
) -> PyResult<Bound<'py, PyCapsule>>
where
    I: Iterator<Item = Result<RecordBatch, String>> + Send + 'static,
{
    let stream = ArrowDeviceArrayStream::export(schema, batches);
    PyCapsule::new_with_value(py, stream, DEVICE_STREAM)
}

/// A schema as the struct field the C interface carries it as.
#[must_use]
pub fn schema_field(schema: &Schema) -> Field {
    Field::new("", DataType::Struct(schema.fields().clone()), false)
        .with_metadata(schema.metadata().clone())
}

/// The schema a struct field (the C interface's form of a schema) stands for.
pub fn schema_of(field: &Field) -> PyResult<SchemaRef> {
    let DataType::Struct(fields) = field.data_type() else {
        return Err(PyTypeError::new_err(format!(
            "a schema is carried as a struct, found {}",
            field.data_type()
        )));
    };
    Ok(Arc::new(
        Schema::new(fields.clone()).with_metadata(field.metadata().clone()),
    ))
}

/// The struct a capsule named `name` points to.
fn pointer<T>(capsule: &Bound<'_, PyAny>, name: &CStr) -> PyResult<*mut T> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a PyCapsule named {name:?}, found {}",
            capsule
                .get_type()
                .name()
                .map_or_else(|_| "an object".to_string(), |n| n.to_string())
        ))
    })?;
    // Checks the name: a capsule of another kind is an error, not a misread.
    Ok(capsule.pointer_checked(Some(name))?.cast::<T>().as_ptr())
}

/// The field an `arrow_schema` capsule holds (the capsule is left released).
///
/// # Errors
/// If `capsule` is not an `arrow_schema` capsule or its schema is malformed.
pub fn field_from_capsule(capsule: &Bound<'_, PyAny>) -> PyResult<Field> {
    let schema = pointer::<ArrowSchema>(capsule, SCHEMA)?;
    // SAFETY: a capsule named `arrow_schema` holds an `ArrowSchema`, per the PyCapsule
    // interface; the import moves it out and checks what it reads.
    unsafe { import_field(schema) }.map_err(to_py)
}

/// The field and array of an `__arrow_c_array__` capsule pair, checked in full (a
/// capsule can come from any code, and Rust trusts a checked array's offsets and text).
///
/// # Errors
/// If the capsules are not of those kinds or the array fails the checks.
pub fn array_from_capsules(
    schema: &Bound<'_, PyAny>,
    array: &Bound<'_, PyAny>,
) -> PyResult<(Field, ArrayData)> {
    let field = field_from_capsule(schema)?;
    let array = pointer::<ArrowArray>(array, ARRAY)?;
    // SAFETY: a capsule named `arrow_array` holds an `ArrowArray` of the schema's type,
    // per the interface; the import moves it out and checks its structure and values
    // against the buffer sizes the layout implies.
    let data = unsafe { import_array_with(array, field.data_type(), ValidationLevel::Full) }
        .map_err(to_py)?;
    Ok((field, data))
}

/// As [`array_from_capsules`], for an `__arrow_c_device_array__` pair: a CPU array is
/// imported, another device's is refused with the device named.
///
/// # Errors
/// As [`array_from_capsules`], and for an array that is not in CPU memory.
pub fn device_array_from_capsules(
    schema: &Bound<'_, PyAny>,
    array: &Bound<'_, PyAny>,
) -> PyResult<(Field, ArrayData)> {
    let field = field_from_capsule(schema)?;
    let array = pointer::<ArrowDeviceArray>(array, DEVICE_ARRAY)?;
    // SAFETY: a capsule named `arrow_device_array` holds an `ArrowDeviceArray`, per the
    // interface; the import checks the device first.
    let data = unsafe { import_device_array(array, field.data_type(), ValidationLevel::Full) }
        .map_err(to_py)?;
    Ok((field, data))
}

/// A reader of the stream an `arrow_array_stream` capsule holds (moved out of it), each
/// batch checked in full.
///
/// # Errors
/// If `capsule` is not of that kind, or the stream's schema cannot be read.
pub fn stream_from_capsule(capsule: &Bound<'_, PyAny>) -> PyResult<StreamReader> {
    let stream = pointer::<ArrowArrayStream>(capsule, STREAM)?;
    // SAFETY: a capsule named `arrow_array_stream` holds an `ArrowArrayStream`, per the
    // interface; the reader moves it out and checks every batch in full.
    unsafe { StreamReader::try_new_with(stream, ValidationLevel::Full) }.map_err(to_py)
}

/// A reader of the stream of plain arrays (of any one type: a chunked column) an
/// `arrow_array_stream` capsule holds, each array checked in full.
///
/// # Errors
/// If `capsule` is not of that kind, or the stream's schema cannot be read.
pub fn array_stream_from_capsule(capsule: &Bound<'_, PyAny>) -> PyResult<ArrayStreamReader> {
    let stream = pointer::<ArrowArrayStream>(capsule, STREAM)?;
    // SAFETY: a capsule named `arrow_array_stream` holds an `ArrowArrayStream`, per the
    // interface; the reader moves it out and checks every array in full.
    unsafe { ArrayStreamReader::try_new_with(stream, ValidationLevel::Full) }.map_err(to_py)
}

/// A reader of the CPU stream an `arrow_device_array_stream` capsule holds.
///
/// # Errors
/// As [`stream_from_capsule`], and for a stream of another device.
pub fn device_stream_from_capsule(capsule: &Bound<'_, PyAny>) -> PyResult<StreamReader> {
    let stream = pointer::<ArrowDeviceArrayStream>(capsule, DEVICE_STREAM)?;
    // SAFETY: a capsule named `arrow_device_array_stream` holds an
    // `ArrowDeviceArrayStream`, per the interface; the reader checks its device and every
    // batch in full.
    unsafe { StreamReader::try_new_device_with(stream, ValidationLevel::Full) }.map_err(to_py)
}

/// The field of any object with `__arrow_c_schema__`.
///
/// # Errors
/// If the object has no such method or its schema is malformed.
pub fn import_field_from(object: &Bound<'_, PyAny>) -> PyResult<Field> {
    if !object.hasattr("__arrow_c_schema__")? {
        return Err(PyTypeError::new_err(
            "expected an object with __arrow_c_schema__ (a pyarrow, Polars or Alkaid schema, \
             field or type)",
        ));
    }
    field_from_capsule(&object.call_method0("__arrow_c_schema__")?)
}

/// The field and array of any object with `__arrow_c_array__` or
/// `__arrow_c_device_array__` (the plain one is asked first), checked in full.
///
/// # Errors
/// If the object has neither method, or what it gives fails the checks.
pub fn import_array_from(object: &Bound<'_, PyAny>) -> PyResult<(Field, ArrayData)> {
    if object.hasattr("__arrow_c_array__")? {
        let pair = object.call_method0("__arrow_c_array__")?;
        let (schema, array) = pair.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        return array_from_capsules(&schema, &array);
    }
    if object.hasattr("__arrow_c_device_array__")? {
        let pair = object.call_method0("__arrow_c_device_array__")?;
        let (schema, array) = pair.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        return device_array_from_capsules(&schema, &array);
    }
    Err(PyTypeError::new_err(
        "expected an object with __arrow_c_array__ or __arrow_c_device_array__ (a pyarrow or \
         Polars array or batch, an Alkaid one)",
    ))
}

/// A reader of any object with `__arrow_c_stream__` or `__arrow_c_device_stream__`.
///
/// # Errors
/// If the object has neither method, or its stream cannot be read.
pub fn import_stream_from(object: &Bound<'_, PyAny>) -> PyResult<StreamReader> {
    if object.hasattr("__arrow_c_stream__")? {
        return stream_from_capsule(&object.call_method0("__arrow_c_stream__")?);
    }
    if object.hasattr("__arrow_c_device_stream__")? {
        return device_stream_from_capsule(&object.call_method0("__arrow_c_device_stream__")?);
    }
    Err(PyTypeError::new_err(
        "expected an object with __arrow_c_stream__ or __arrow_c_device_stream__ (a pyarrow \
         table or reader, a Polars DataFrame, a DuckDB result, an Alkaid reader)",
    ))
}

/// The schema to export batches of `schema` as, given `requested` (a consumer's
/// `requested_schema` capsule of a struct, or None): as [`honour_requested`], column by
/// column, with `nulls` the columns' null counts when known (a batch) or None (a
/// stream, whose later batches are unknown).
///
/// # Errors
/// If the requested schema has other columns, or one that [`honour_requested`] refuses.
pub fn honour_requested_schema(
    schema: &SchemaRef,
    nulls: Option<&[usize]>,
    requested: Option<&Bound<'_, PyAny>>,
) -> PyResult<SchemaRef> {
    let Some(requested) = requested.filter(|r| !r.is_none()) else {
        return Ok(schema.clone());
    };
    let wanted = field_from_capsule(requested)?;
    let wanted = schema_of(&wanted)?;
    if wanted.fields().len() != schema.fields().len() {
        return Err(PyValueError::new_err(format!(
            "the consumer asked for {} columns but the data has {}",
            wanted.fields().len(),
            schema.fields().len()
        )));
    }
    for (i, (want, ours)) in wanted
        .fields()
        .iter()
        .zip(schema.fields().iter())
        .enumerate()
    {
        let column_nulls = nulls.map(|n| n[i]);
        check_fit(want, ours, column_nulls).map_err(|reason| {
            PyValueError::new_err(format!("column {i} ({:?}): {reason}", ours.name()))
        })?;
    }
    Ok(wanted)
}

/// Why `ours` (with `nulls` nulls, when known) cannot be handed over as `want`.
fn check_fit(want: &Field, ours: &Field, nulls: Option<usize>) -> Result<(), String> {
    if !want.data_type().eq_ignoring_names(ours.data_type()) {
        return Err(format!(
            "the consumer asked for {} but the data is {}: that needs a conversion, and \
             Alkaid exports without copying",
            want.data_type(),
            ours.data_type()
        ));
    }
    if !want.is_nullable() && ours.is_nullable() && nulls != Some(0) {
        return Err(format!(
            "the consumer asked for {} not null, and the data may hold nulls",
            want.data_type()
        ));
    }
    Ok(())
}

/// The schema and array capsules of `array` exported as `field`, as `requested` asks
/// ([`honour_requested`]): what `__arrow_c_array__` of an array or a scalar answers.
///
/// # Errors
/// As [`honour_requested`].
pub(crate) fn exported_array<'py>(
    py: Python<'py>,
    field: &Field,
    array: &dyn alkaid_array::Array,
    requested: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
    let field = honour_requested(field, Some(array.null_count()), requested)?;
    array_capsules(py, &field, array.to_data())
}

/// The field to export `field`'s data as, given `requested` (a consumer's
/// `requested_schema` capsule, or None). Alkaid casts only where nothing changes in
/// memory: the requested field may rename the field and its children at any depth and
/// carry its own metadata (the export then says what was asked for), and may call the
/// field non-nullable when its data has no nulls (`nulls`, when known). Anything else
/// would need a copy or a conversion, and is refused.
///
/// # Errors
/// If the requested type is laid out differently, or claims no nulls where there may be.
pub fn honour_requested(
    field: &Field,
    nulls: Option<usize>,
    requested: Option<&Bound<'_, PyAny>>,
) -> PyResult<Field> {
    let Some(requested) = requested.filter(|r| !r.is_none()) else {
        return Ok(field.clone());
    };
    let wanted = field_from_capsule(requested)?;
    check_fit(&wanted, field, nulls).map_err(PyValueError::new_err)?;
    Ok(wanted)
}

/// Checks the keyword arguments of a `__arrow_c_device_*__` call: the interface reserves
/// them for future use; a keyword whose value is None asks for nothing and is accepted,
/// any other is refused.
///
/// # Errors
/// For a keyword with a value other than None.
pub fn check_device_kwargs(kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> PyResult<()> {
    let Some(kwargs) = kwargs else { return Ok(()) };
    for (key, value) in kwargs.iter() {
        if !value.is_none() {
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
                "the device export keyword {key} is not supported (only None is accepted)"
            )));
        }
    }
    Ok(())
}

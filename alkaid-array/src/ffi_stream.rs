//! The C stream interface's `ArrowArrayStream`: a sequence of record batches handed to
//! another library in the same process, or taken from one, one batch at a time.
//!
//! A stream's schema travels as a struct field (the batch's columns as its children, the
//! schema's metadata as its own) and each batch as a struct array of its columns, as the
//! Arrow project's "C Stream Interface" specification describes. [`ArrowArrayStream::export`]
//! wraps any iterator of batches; [`StreamReader`] reads a foreign stream as an iterator
//! and releases it when dropped.
//!
//! The interface also carries streams of plain arrays of any one type (a chunked column,
//! as pyarrow's `ChunkedArray` exports it): [`ArrowArrayStream::export_arrays`] and
//! [`ArrayStreamReader`]. A batch stream is such a stream of struct arrays, so both
//! directions are written once, for arrays.
#![allow(unsafe_code)]

use std::ffi::{CString, c_char, c_int, c_void};
use std::fmt::Display;
use std::ptr;
use std::sync::Arc;

use alkaid_data::ffi::{ArrowArray, import_array_with};
use alkaid_data::{ArrayData, ValidationLevel};
use alkaid_schema::ffi::{ArrowSchema, import_field};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};

use crate::{ArrayError, ArrayRef, RecordBatch, make_array};

/// `EINVAL`, for a schema or batch that cannot be exported.
const EINVAL: c_int = 22;
/// `EIO`, for an error of the batch iterator.
const EIO: c_int = 5;

/// The C `struct ArrowArrayStream`, field for field.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArrayStream {
    /// Fills `out` with the stream's schema; 0 on success, an `errno` code otherwise.
    pub get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    /// Fills `out` with the next batch, or a released array at the end; 0 on success.
    pub get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    /// The message of the last error, or null; valid until the next call.
    pub get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    /// Frees the stream; null once released.
    pub release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    /// The producer's bookkeeping.
    pub private_data: *mut c_void,
}

// SAFETY: an exported stream's state is `Send` (the iterator is required to be), and the
// interface lets the consumer move a stream to another thread.
unsafe impl Send for ArrowArrayStream {}

type Arrays = Box<dyn Iterator<Item = Result<ArrayData, String>> + Send>;

/// An exported stream's state.
struct Exported {
    field: Field,
    arrays: Arrays,
    last_error: Option<CString>,
}

impl ArrowArrayStream {
    /// An empty, released stream, for a consumer to hand to a producer to fill.
    pub fn empty() -> Self {
        Self {
            get_schema: None,
            get_next: None,
            get_last_error: None,
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Exports `batches` (each of `schema`) as a stream; an error of the iterator ends the
    /// consumer's read with its message.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use alkaid_array::ffi_stream::{ArrowArrayStream, StreamReader};
    /// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
    /// use alkaid_schema::{DataType, Field, Schema};
    /// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
    /// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    /// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
    /// let batches = vec![Ok::<_, String>(batch.clone()), Ok(batch)];
    /// let mut stream = ArrowArrayStream::export(schema, batches);
    /// // SAFETY: a stream this crate exported, read once.
    /// let reader = unsafe { StreamReader::try_new(&mut stream) }?;
    /// let rows: usize = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
    /// assert_eq!(rows, 6);
    /// # Ok::<(), alkaid_array::ArrayError>(())
    /// ```
    pub fn export<I, E>(schema: SchemaRef, batches: I) -> Self
    where
        I: IntoIterator<Item = Result<RecordBatch, E>>,
        I::IntoIter: Send + 'static,
        E: Display,
    {
        let arrays = batches.into_iter().map(|batch| {
            batch
                .map_err(|e| e.to_string())
                .and_then(|batch| batch.to_struct_data().map_err(|e| e.to_string()))
        });
        Self::export_arrays(schema_field(&schema), arrays)
    }

    /// Exports `arrays` (each of `field`'s type) as a stream of plain arrays, as a chunked
    /// column travels; an error of the iterator ends the consumer's read with its message.
    ///
    /// ```
    /// use alkaid_array::ffi_stream::{ArrayStreamReader, ArrowArrayStream};
    /// use alkaid_array::{Array, Int32Array};
    /// use alkaid_schema::{DataType, Field};
    /// let chunks = [Int32Array::from(vec![1, 2]), Int32Array::from(vec![3])];
    /// let arrays = chunks.iter().map(|c| Ok::<_, String>(c.to_data()));
    /// let field = Field::new("n", DataType::Int32, false);
    /// let mut stream = ArrowArrayStream::export_arrays(field, arrays.collect::<Vec<_>>());
    /// // SAFETY: a stream this crate exported, read once.
    /// let reader = unsafe { ArrayStreamReader::try_new(&mut stream) }?;
    /// assert_eq!(reader.field().name(), "n");
    /// let lengths = reader.map(|a| a.map(|a| a.len())).collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(lengths, [2, 1]);
    /// # Ok::<(), alkaid_array::ArrayError>(())
    /// ```
    pub fn export_arrays<I, E>(field: Field, arrays: I) -> Self
    where
        I: IntoIterator<Item = Result<ArrayData, E>>,
        I::IntoIter: Send + 'static,
        E: Display,
    {
        let arrays: Arrays = Box::new(
            arrays
                .into_iter()
                .map(|array| array.map_err(|e| e.to_string())),
        );
        let exported = Box::new(Exported {
            field,
            arrays,
            last_error: None,
        });
        Self {
            get_schema: Some(get_schema),
            get_next: Some(get_next),
            get_last_error: Some(get_last_error),
            release: Some(release_exported),
            private_data: Box::into_raw(exported).cast(),
        }
    }
}

impl Drop for ArrowArrayStream {
    /// A stream still holding its release callback is released when dropped.
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: an unreleased stream and its producer's callback.
            unsafe { release(self) };
        }
    }
}

/// The state of an exported stream, if it is one and is not released.
///
/// # Safety
/// `stream` is null or a stream this module exported.
unsafe fn state<'a>(stream: *mut ArrowArrayStream) -> Option<&'a mut Exported> {
    // SAFETY: per the caller; `private_data` of an unreleased export is its `Exported`.
    unsafe {
        let stream = stream.as_mut()?;
        stream.release?;
        stream.private_data.cast::<Exported>().as_mut()
    }
}

/// The schema as the struct field the interface carries it in.
fn schema_field(schema: &Schema) -> Field {
    Field::new("", DataType::Struct(schema.fields().clone()), false)
        .with_metadata(schema.metadata().clone())
}

unsafe extern "C" fn get_schema(stream: *mut ArrowArrayStream, out: *mut ArrowSchema) -> c_int {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(state) = (unsafe { state(stream) }) else {
        return EINVAL;
    };
    if out.is_null() {
        return EINVAL;
    }
    match ArrowSchema::try_export(&state.field) {
        Ok(schema) => {
            // SAFETY: `out` points to a struct the consumer owns and gives us to fill; it is
            // released or empty, so overwriting it without a drop leaks nothing.
            unsafe { ptr::write(out, schema) };
            0
        }
        Err(e) => {
            state.last_error = CString::new(e.to_string()).ok();
            EINVAL
        }
    }
}

unsafe extern "C" fn get_next(stream: *mut ArrowArrayStream, out: *mut ArrowArray) -> c_int {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(state) = (unsafe { state(stream) }) else {
        return EINVAL;
    };
    if out.is_null() {
        return EINVAL;
    }
    let array = match state.arrays.next() {
        // The end: a released array.
        None => ArrowArray::empty(),
        Some(Ok(data)) => ArrowArray::export_owned(data),
        Some(Err(message)) => {
            state.last_error = CString::new(message.replace('\0', " ")).ok();
            return EIO;
        }
    };
    // SAFETY: `out` is the consumer's struct to fill (released or empty).
    unsafe { ptr::write(out, array) };
    0
}

unsafe extern "C" fn get_last_error(stream: *mut ArrowArrayStream) -> *const c_char {
    // SAFETY: the interface passes the stream this callback belongs to.
    match unsafe { state(stream) } {
        Some(state) => state
            .last_error
            .as_ref()
            .map_or(ptr::null(), |e| e.as_ptr()),
        None => ptr::null(),
    }
}

unsafe extern "C" fn release_exported(stream: *mut ArrowArrayStream) {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(stream) = (unsafe { stream.as_mut() }) else {
        return;
    };
    if stream.release.is_some() && !stream.private_data.is_null() {
        // SAFETY: made by `Box::into_raw` in `export`, cleared below: freed once.
        drop(unsafe { Box::from_raw(stream.private_data.cast::<Exported>()) });
    }
    stream.private_data = ptr::null_mut();
    stream.release = None;
}

/// A foreign stream of plain arrays (a chunked column) read as an iterator; releases the
/// stream when dropped.
#[derive(Debug)]
pub struct ArrayStreamReader {
    stream: ArrowArrayStream,
    field: Field,
    level: ValidationLevel,
    done: bool,
}

impl ArrayStreamReader {
    /// Takes over the stream `stream` points to (its `release` is set to null) and reads
    /// its field; every array is checked at `level` before it is made (`Full` for
    /// producers that are not trusted with their values).
    ///
    /// # Errors
    /// If the stream is released or its schema cannot be read.
    ///
    /// # Safety
    /// `stream` must point to a valid `ArrowArrayStream` as the C stream interface defines
    /// it, whose arrays are valid arrays of its schema (their values need not be at `Full`
    /// or above, only their pointers and the buffer sizes their layout implies).
    pub unsafe fn try_new_with(
        stream: *mut ArrowArrayStream,
        level: ValidationLevel,
    ) -> Result<Self, ArrayError> {
        // SAFETY: a valid pointer or null, per the caller.
        let Some(source) = (unsafe { stream.as_mut() }) else {
            return Err(stream_error("the stream pointer is null"));
        };
        if source.release.is_none() {
            return Err(stream_error("the stream was already released"));
        }
        // SAFETY: a valid struct, moved out once; the original is marked released.
        let stream = unsafe { ptr::read(source) };
        source.release = None;
        let mut reader = Self {
            stream,
            field: Field::new("", DataType::Null, true),
            level,
            done: false,
        };
        let mut out = ArrowSchema::empty();
        let get_schema = reader
            .stream
            .get_schema
            .ok_or_else(|| stream_error("no get_schema"))?;
        // SAFETY: the producer's callback on its own stream, with a struct to fill.
        let code = unsafe { get_schema(&mut reader.stream, &mut out) };
        if code != 0 {
            return Err(reader.last_error("get_schema", code));
        }
        // SAFETY: a schema the producer filled; the import releases it.
        reader.field = unsafe { import_field(&mut out) }?;
        Ok(reader)
    }

    /// [`try_new_with`](Self::try_new_with), each array checked structurally.
    ///
    /// # Errors
    /// As [`try_new_with`](Self::try_new_with).
    ///
    /// # Safety
    /// As [`try_new_with`](Self::try_new_with), the arrays' values valid too.
    pub unsafe fn try_new(stream: *mut ArrowArrayStream) -> Result<Self, ArrayError> {
        // SAFETY: passed on from the caller.
        unsafe { Self::try_new_with(stream, ValidationLevel::Structural) }
    }

    /// The field every array is of (its name, type, nullability and metadata).
    pub fn field(&self) -> &Field {
        &self.field
    }

    fn last_error(&mut self, call: &str, code: c_int) -> ArrayError {
        let message = match self.stream.get_last_error {
            None => None,
            // SAFETY: the producer's callback on its own stream; the message (if any) is a
            // NUL-terminated string valid until the next call, copied at once.
            Some(get) => unsafe {
                let text = get(&mut self.stream);
                (!text.is_null()).then(|| {
                    std::ffi::CStr::from_ptr(text)
                        .to_string_lossy()
                        .into_owned()
                })
            },
        };
        stream_error(format!(
            "{call} failed with code {code}: {}",
            message.as_deref().unwrap_or("no message")
        ))
    }

    fn next_data(&mut self) -> Result<Option<ArrayData>, ArrayError> {
        let get_next = self
            .stream
            .get_next
            .ok_or_else(|| stream_error("no get_next"))?;
        let mut out = ArrowArray::empty();
        // SAFETY: the producer's callback on its own stream, with a struct to fill.
        let code = unsafe { get_next(&mut self.stream, &mut out) };
        if code != 0 {
            return Err(self.last_error("get_next", code));
        }
        if out.is_released() {
            return Ok(None);
        }
        // SAFETY: an array the producer filled, valid for its schema per the caller (its
        // values too, below `Full`).
        let data = unsafe { import_array_with(&mut out, self.field.data_type(), self.level) }?;
        Ok(Some(data))
    }

    /// The next array's data, `None` at the end (and after an error: nothing more is asked
    /// of the producer).
    fn next_checked(&mut self) -> Option<Result<ArrayData, ArrayError>> {
        if self.done {
            return None;
        }
        let data = self.next_data();
        self.done = !matches!(data, Ok(Some(_)));
        data.transpose()
    }
}

impl Iterator for ArrayStreamReader {
    type Item = Result<ArrayRef, ArrayError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_checked().map(|data| data.map(make_array))
    }
}

/// A foreign stream read as an iterator of batches; releases the stream when dropped.
#[derive(Debug)]
pub struct StreamReader {
    arrays: ArrayStreamReader,
    schema: SchemaRef,
}

impl StreamReader {
    /// Takes over the stream `stream` points to (its `release` is set to null) and reads
    /// its schema.
    ///
    /// # Errors
    /// If the stream is released, its schema cannot be read or is not a struct.
    ///
    /// # Safety
    /// `stream` must point to a valid `ArrowArrayStream` as the C stream interface defines
    /// it, whose batches are valid arrays of its schema (they are checked structurally).
    pub unsafe fn try_new(stream: *mut ArrowArrayStream) -> Result<Self, ArrayError> {
        // SAFETY: passed on from the caller.
        unsafe { Self::try_new_with(stream, ValidationLevel::Structural) }
    }

    /// Like [`try_new`](Self::try_new), with every batch checked at `level` before it is
    /// made: `Full` for producers that are not trusted with their values.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new); each batch fails as `level` finds.
    ///
    /// # Safety
    /// As [`try_new`](Self::try_new); at `Full` or above the batches' values need not be
    /// valid, only their pointers and the buffer sizes their layout implies.
    pub unsafe fn try_new_with(
        stream: *mut ArrowArrayStream,
        level: ValidationLevel,
    ) -> Result<Self, ArrayError> {
        // SAFETY: passed on from the caller.
        let arrays = unsafe { ArrayStreamReader::try_new_with(stream, level) }?;
        let field = arrays.field();
        let DataType::Struct(fields) = field.data_type() else {
            return Err(stream_error(format!(
                "expected a struct schema, found {}",
                field.data_type()
            )));
        };
        let schema = Schema::new(fields.clone()).with_metadata(field.metadata().clone());
        Ok(Self {
            schema: Arc::new(schema),
            arrays,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

impl Iterator for StreamReader {
    type Item = Result<RecordBatch, ArrayError>;

    fn next(&mut self) -> Option<Self::Item> {
        let data = self.arrays.next_checked()?;
        Some(data.and_then(|data| RecordBatch::try_from_struct(self.schema.clone(), &data)))
    }
}

fn stream_error(reason: impl Into<String>) -> ArrayError {
    ArrayError::Data(alkaid_data::DataError::new(
        alkaid_data::DataErrorKind::InvalidType,
        format!("C stream: {}", reason.into()),
    ))
}

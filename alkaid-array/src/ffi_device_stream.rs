//! The C device data interface's `ArrowDeviceArrayStream`: the C stream interface with a
//! device type on the stream and on every array it yields.
//!
//! Both directions are adapters over [`ffi_stream`](crate::ffi_stream), so that the
//! stream's rules (one schema call, a released array at the end, errors with a message)
//! are written once: [`ArrowDeviceArrayStream::from_stream`] presents any CPU
//! `ArrowArrayStream` as a device stream, and [`StreamReader::try_new_device`] reads a
//! CPU device stream through an `ArrowArrayStream` that checks each array's device.
#![allow(unsafe_code)]

use std::ffi::{CString, c_char, c_int, c_void};
use std::fmt::Display;
use std::ptr;

use alkaid_data::ValidationLevel;
use alkaid_data::ffi::{ARROW_DEVICE_CPU, ArrowArray, ArrowDeviceArray, ArrowDeviceType};
use alkaid_data::ffi::{check_readable, device_type_name};
use alkaid_schema::SchemaRef;
use alkaid_schema::ffi::ArrowSchema;

use crate::ffi_stream::{ArrowArrayStream, StreamReader};
use crate::{ArrayError, RecordBatch};

/// `EINVAL`, for a call on a released stream or an array Alkaid cannot read.
const EINVAL: c_int = 22;

/// The C `struct ArrowDeviceArrayStream`, field for field.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowDeviceArrayStream {
    /// The device every array of the stream is on.
    pub device_type: ArrowDeviceType,
    /// Fills `out` with the stream's schema; 0 on success, an `errno` code otherwise.
    pub get_schema:
        Option<unsafe extern "C" fn(*mut ArrowDeviceArrayStream, *mut ArrowSchema) -> c_int>,
    /// Fills `out` with the next batch, or an array whose `array` is released at the end.
    pub get_next:
        Option<unsafe extern "C" fn(*mut ArrowDeviceArrayStream, *mut ArrowDeviceArray) -> c_int>,
    /// The message of the last error, or null; valid until the next call.
    pub get_last_error: Option<unsafe extern "C" fn(*mut ArrowDeviceArrayStream) -> *const c_char>,
    /// Frees the stream; null once released.
    pub release: Option<unsafe extern "C" fn(*mut ArrowDeviceArrayStream)>,
    /// The producer's bookkeeping.
    pub private_data: *mut c_void,
}

// SAFETY: as `ArrowArrayStream`: an exported stream's state is `Send`, and the interface
// lets the consumer move a stream to another thread.
unsafe impl Send for ArrowDeviceArrayStream {}

impl ArrowDeviceArrayStream {
    /// An empty, released stream, for a consumer to hand to a producer to fill.
    pub fn empty() -> Self {
        Self {
            device_type: ARROW_DEVICE_CPU,
            get_schema: None,
            get_next: None,
            get_last_error: None,
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Exports `batches` (each of `schema`) as a CPU device stream, as
    /// [`ArrowArrayStream::export`] exports a plain one.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use alkaid_array::ffi_device_stream::ArrowDeviceArrayStream;
    /// use alkaid_array::ffi_stream::StreamReader;
    /// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
    /// use alkaid_schema::{DataType, Field, Schema};
    /// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
    /// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    /// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
    /// let mut stream = ArrowDeviceArrayStream::export(schema, [Ok::<_, String>(batch)]);
    /// // SAFETY: a stream this crate exported, read once.
    /// let reader = unsafe { StreamReader::try_new_device(&mut stream) }?;
    /// let rows: usize = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
    /// assert_eq!(rows, 3);
    /// # Ok::<(), alkaid_array::ArrayError>(())
    /// ```
    pub fn export<I, E>(schema: SchemaRef, batches: I) -> Self
    where
        I: IntoIterator<Item = Result<RecordBatch, E>>,
        I::IntoIter: Send + 'static,
        E: Display,
    {
        Self::from_stream(ArrowArrayStream::export(schema, batches))
    }

    /// `stream`, any C stream (its arrays are in CPU memory, as the plain interface
    /// requires), as a CPU device stream; releasing this releases it.
    pub fn from_stream(stream: ArrowArrayStream) -> Self {
        Self {
            device_type: ARROW_DEVICE_CPU,
            get_schema: Some(device_get_schema),
            get_next: Some(device_get_next),
            get_last_error: Some(device_get_last_error),
            release: Some(device_release),
            private_data: Box::into_raw(Box::new(stream)).cast(),
        }
    }
}

impl Drop for ArrowDeviceArrayStream {
    /// A stream still holding its release callback is released when dropped.
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: an unreleased stream and its producer's callback.
            unsafe { release(self) };
        }
    }
}

/// The plain stream inside a device stream made by `from_stream`, unless released.
///
/// # Safety
/// `stream` is null or a stream `from_stream` made.
unsafe fn inner<'a>(stream: *mut ArrowDeviceArrayStream) -> Option<&'a mut ArrowArrayStream> {
    // SAFETY: per the caller; `private_data` of an unreleased one is its boxed stream.
    unsafe {
        let stream = stream.as_mut()?;
        stream.release?;
        stream.private_data.cast::<ArrowArrayStream>().as_mut()
    }
}

unsafe extern "C" fn device_get_schema(
    stream: *mut ArrowDeviceArrayStream,
    out: *mut ArrowSchema,
) -> c_int {
    // SAFETY: the interface passes the stream this callback belongs to.
    match unsafe { inner(stream) } {
        Some(inner) => match inner.get_schema {
            // SAFETY: the plain stream's own callback, with the consumer's struct.
            Some(get_schema) => unsafe { get_schema(inner, out) },
            None => EINVAL,
        },
        None => EINVAL,
    }
}

unsafe extern "C" fn device_get_next(
    stream: *mut ArrowDeviceArrayStream,
    out: *mut ArrowDeviceArray,
) -> c_int {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(inner) = (unsafe { inner(stream) }) else {
        return EINVAL;
    };
    let Some(get_next) = inner.get_next else {
        return EINVAL;
    };
    if out.is_null() {
        return EINVAL;
    }
    let mut array = ArrowArray::empty();
    // SAFETY: the plain stream's own callback, with a struct to fill.
    let code = unsafe { get_next(inner, &mut array) };
    if code == 0 {
        // SAFETY: `out` is the consumer's struct to fill (released or empty), so
        // overwriting it without a drop leaks nothing.
        unsafe { ptr::write(out, ArrowDeviceArray::on_cpu(array)) };
    }
    code
}

unsafe extern "C" fn device_get_last_error(stream: *mut ArrowDeviceArrayStream) -> *const c_char {
    // SAFETY: the interface passes the stream this callback belongs to.
    match unsafe { inner(stream) } {
        Some(inner) => match inner.get_last_error {
            // SAFETY: the plain stream's own callback.
            Some(get_last_error) => unsafe { get_last_error(inner) },
            None => ptr::null(),
        },
        None => ptr::null(),
    }
}

unsafe extern "C" fn device_release(stream: *mut ArrowDeviceArrayStream) {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(stream) = (unsafe { stream.as_mut() }) else {
        return;
    };
    if stream.release.is_some() && !stream.private_data.is_null() {
        // SAFETY: made by `Box::into_raw` in `from_stream`, cleared below: freed once;
        // dropping the plain stream releases it.
        drop(unsafe { Box::from_raw(stream.private_data.cast::<ArrowArrayStream>()) });
    }
    stream.private_data = ptr::null_mut();
    stream.release = None;
}

/// A foreign device stream presented as a plain stream: each array's device is checked
/// as it arrives.
struct Adapted {
    device: ArrowDeviceArrayStream,
    last_error: Option<CString>,
}

impl StreamReader {
    /// Takes over the device stream `stream` points to and reads it as
    /// [`try_new`](Self::try_new) reads a plain one. A stream of another device than the
    /// CPU is refused before anything is taken (the caller keeps it); an array of another
    /// device, or with an event to wait on, ends the reading with an error naming it (and
    /// is released).
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), and for a stream of another device.
    ///
    /// # Safety
    /// `stream` must point to a valid `ArrowDeviceArrayStream` as the C device data
    /// interface defines it, whose CPU batches are valid arrays of its schema.
    pub unsafe fn try_new_device(stream: *mut ArrowDeviceArrayStream) -> Result<Self, ArrayError> {
        // SAFETY: passed on from the caller.
        unsafe { Self::try_new_device_with(stream, ValidationLevel::Structural) }
    }

    /// Like [`try_new_device`](Self::try_new_device), with every batch checked at
    /// `level` (see [`try_new_with`](Self::try_new_with)).
    ///
    /// # Errors
    /// As [`try_new_device`](Self::try_new_device); each batch fails as `level` finds.
    ///
    /// # Safety
    /// As [`try_new_with`](Self::try_new_with), for a device stream.
    pub unsafe fn try_new_device_with(
        stream: *mut ArrowDeviceArrayStream,
        level: ValidationLevel,
    ) -> Result<Self, ArrayError> {
        // SAFETY: a valid pointer or null, per the caller.
        let Some(source) = (unsafe { stream.as_mut() }) else {
            return Err(device_error("the device stream pointer is null".into()));
        };
        if source.release.is_none() {
            return Err(device_error(
                "the device stream was already released".into(),
            ));
        }
        if source.device_type != ARROW_DEVICE_CPU {
            return Err(device_error(format!(
                "the stream is of {} memory (device type {}), not the CPU's",
                device_type_name(source.device_type),
                source.device_type
            )));
        }
        // SAFETY: a valid struct, moved out once; the original is marked released.
        let device = unsafe { ptr::read(source) };
        source.release = None;
        let adapted = Box::new(Adapted {
            device,
            last_error: None,
        });
        let mut plain = ArrowArrayStream {
            get_schema: Some(adapted_get_schema),
            get_next: Some(adapted_get_next),
            get_last_error: Some(adapted_get_last_error),
            release: Some(adapted_release),
            private_data: Box::into_raw(adapted).cast(),
        };
        // SAFETY: a stream made just above, over a valid device stream per the caller.
        unsafe { Self::try_new_with(&mut plain, level) }
    }
}

fn device_error(reason: String) -> ArrayError {
    ArrayError::Data(alkaid_data::DataError::new(
        alkaid_data::DataErrorKind::InvalidType,
        format!("C device stream: {reason}"),
    ))
}

/// The adapted device stream of a plain stream `try_new_device` made, unless released.
///
/// # Safety
/// `stream` is null or a stream `try_new_device` made.
unsafe fn adapted<'a>(stream: *mut ArrowArrayStream) -> Option<&'a mut Adapted> {
    // SAFETY: per the caller; `private_data` of an unreleased one is its `Adapted`.
    unsafe {
        let stream = stream.as_mut()?;
        stream.release?;
        stream.private_data.cast::<Adapted>().as_mut()
    }
}

unsafe extern "C" fn adapted_get_schema(
    stream: *mut ArrowArrayStream,
    out: *mut ArrowSchema,
) -> c_int {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(adapted) = (unsafe { adapted(stream) }) else {
        return EINVAL;
    };
    adapted.last_error = None;
    match adapted.device.get_schema {
        // SAFETY: the producer's callback on its own stream, with the consumer's struct.
        Some(get_schema) => unsafe { get_schema(&mut adapted.device, out) },
        None => EINVAL,
    }
}

unsafe extern "C" fn adapted_get_next(
    stream: *mut ArrowArrayStream,
    out: *mut ArrowArray,
) -> c_int {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(adapted) = (unsafe { adapted(stream) }) else {
        return EINVAL;
    };
    adapted.last_error = None;
    let Some(get_next) = adapted.device.get_next else {
        return EINVAL;
    };
    let mut array = ArrowDeviceArray::empty();
    // SAFETY: the producer's callback on its own stream, with a struct to fill.
    let code = unsafe { get_next(&mut adapted.device, &mut array) };
    if code != 0 {
        return code;
    }
    if !array.array.is_released()
        && let Err(e) = check_readable(&array)
    {
        // Dropping `array` releases it.
        adapted.last_error = CString::new(e.to_string()).ok();
        return EINVAL;
    }
    let ArrowDeviceArray { array, .. } = array;
    // SAFETY: `out` is the consumer's struct to fill (released or empty).
    unsafe { ptr::write(out, array) };
    0
}

unsafe extern "C" fn adapted_get_last_error(stream: *mut ArrowArrayStream) -> *const c_char {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(adapted) = (unsafe { adapted(stream) }) else {
        return ptr::null();
    };
    if let Some(own) = &adapted.last_error {
        return own.as_ptr();
    }
    match adapted.device.get_last_error {
        // SAFETY: the producer's callback on its own stream.
        Some(get_last_error) => unsafe { get_last_error(&mut adapted.device) },
        None => ptr::null(),
    }
}

unsafe extern "C" fn adapted_release(stream: *mut ArrowArrayStream) {
    // SAFETY: the interface passes the stream this callback belongs to.
    let Some(stream) = (unsafe { stream.as_mut() }) else {
        return;
    };
    if stream.release.is_some() && !stream.private_data.is_null() {
        // SAFETY: made by `Box::into_raw` in `try_new_device`, cleared below: freed once;
        // dropping the device stream releases it.
        drop(unsafe { Box::from_raw(stream.private_data.cast::<Adapted>()) });
    }
    stream.private_data = ptr::null_mut();
    stream.release = None;
}

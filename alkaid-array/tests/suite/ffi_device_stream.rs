//! The C device data interface's streams between two Alkaid ends, and against producers
//! written here: CPU batches shared without a copy, the producer's error, streams and
//! arrays of other devices refused with their device named, each released once.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid_array::ffi_device_stream::ArrowDeviceArrayStream;
use alkaid_array::ffi_stream::{ArrowArrayStream, StreamReader};
use alkaid_array::{ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use alkaid_data::ffi::{ARROW_DEVICE_CPU, ARROW_DEVICE_CUDA, ArrowDeviceArray, CPU_DEVICE_ID};
use alkaid_schema::ffi::ArrowSchema;
use alkaid_schema::{DataType, Field, Schema, SchemaRef};

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, true),
        Field::new("w", DataType::Utf8, false),
    ]))
}

fn batch(start: i64) -> RecordBatch {
    let numbers: ArrayRef = Arc::new(Int64Array::from(vec![Some(start), None, Some(start + 2)]));
    let words: ArrayRef = Arc::new(StringArray::from(vec!["a", "bb", "ccc"]));
    RecordBatch::try_new(schema(), vec![numbers, words]).unwrap()
}

/// Equal schemas, row counts and columns.
fn assert_same(a: &RecordBatch, b: &RecordBatch) {
    assert_eq!(a.schema(), b.schema());
    assert_eq!(a.num_rows(), b.num_rows());
    for (x, y) in a.columns().iter().zip(b.columns()) {
        assert!(alkaid_data::equal(&x.to_data(), &y.to_data()));
    }
}

#[test]
fn cpu_batches_cross_without_a_copy_then_the_producers_error() {
    let _serial = serial();
    let sliced = batch(10).slice(1, 2);
    let pointer = sliced.column(0).to_data().buffers()[0].as_ptr();
    let batches = vec![Ok(batch(0)), Ok(sliced), Err("disk on fire")];
    let mut stream = ArrowDeviceArrayStream::export(schema(), batches);
    assert_eq!(stream.device_type, ARROW_DEVICE_CPU);
    // SAFETY: a stream this crate exported.
    let mut reader = unsafe { StreamReader::try_new_device(&mut stream) }.unwrap();
    assert!(stream.release.is_none(), "moved into the reader");
    assert_eq!(reader.schema(), &schema());
    assert_same(&reader.next().unwrap().unwrap(), &batch(0));
    let second = reader.next().unwrap().unwrap();
    assert_same(&second, &batch(10).slice(1, 2));
    assert_eq!(second.column(0).to_data().buffers()[0].as_ptr(), pointer);
    assert_eq!(second.column(1).as_string::<i32>().value(1), "ccc");
    let error = reader.next().unwrap().unwrap_err().to_string();
    assert!(error.contains("disk on fire"), "{error}");
    assert!(reader.next().is_none());
}

#[test]
fn each_array_says_it_is_on_the_cpu_and_the_end_is_a_released_array() {
    let _serial = serial();
    let mut stream = ArrowDeviceArrayStream::export(schema(), vec![Ok::<_, String>(batch(0))]);
    let get_next = stream.get_next.unwrap();
    let mut out = ArrowDeviceArray::empty();
    out.device_type = 99;
    // SAFETY: the stream's own callback, with a struct to fill.
    assert_eq!(unsafe { get_next(&mut stream, &mut out) }, 0);
    assert_eq!(
        (out.device_type, out.device_id),
        (ARROW_DEVICE_CPU, CPU_DEVICE_ID)
    );
    assert!(out.sync_event.is_null() && !out.array.is_released());
    assert_eq!(out.array.length, 3);
    drop(out);
    let mut end = ArrowDeviceArray::empty();
    // SAFETY: as above.
    assert_eq!(unsafe { get_next(&mut stream, &mut end) }, 0);
    assert!(end.array.is_released());
    let mut schema_out = ArrowSchema::empty();
    let get_schema = stream.get_schema.unwrap();
    // SAFETY: the stream's own callback, with a struct to fill.
    let code = unsafe { get_schema(&mut stream, &mut schema_out) };
    assert_eq!(code, 0);
    assert_eq!(schema_out.n_children, 2);
}

/// A producer written here: a plain exported stream inside, shown as a device stream of
/// `device_type` whose arrays after the first claim `later_device` (and `later_event`).
struct Foreign {
    inner: ArrowArrayStream,
    served: usize,
    later_device: i32,
    later_event: bool,
}

static RELEASED: AtomicUsize = AtomicUsize::new(0);

/// Tests that count releases through [`RELEASED`] run one at a time: the test harness
/// runs tests on several threads, and another test's release would count in this one's.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The producer behind `stream`.
///
/// # Safety
/// `stream` is one `foreign` made and has not been released.
unsafe fn producer<'a>(stream: *mut ArrowDeviceArrayStream) -> &'a mut Foreign {
    // SAFETY: per the caller.
    unsafe { &mut *(*stream).private_data.cast::<Foreign>() }
}

unsafe extern "C" fn foreign_schema(
    s: *mut ArrowDeviceArrayStream,
    out: *mut ArrowSchema,
) -> c_int {
    // SAFETY: called on a live stream `foreign` made.
    let inner = unsafe { &mut producer(s).inner };
    // SAFETY: the plain stream's own callback.
    unsafe { inner.get_schema.unwrap()(inner, out) }
}

unsafe extern "C" fn foreign_next(
    s: *mut ArrowDeviceArrayStream,
    out: *mut ArrowDeviceArray,
) -> c_int {
    // SAFETY: called on a live stream `foreign` made.
    let state = unsafe { producer(s) };
    let mut array = ArrowDeviceArray::empty();
    // SAFETY: the plain stream's own callback, with a struct to fill.
    let code = unsafe { state.inner.get_next.unwrap()(&mut state.inner, &mut array.array) };
    if state.served > 0 {
        array.device_type = state.later_device;
        if state.later_event {
            array.sync_event = ptr::NonNull::<u8>::dangling().as_ptr().cast::<c_void>();
        }
    }
    state.served += 1;
    // SAFETY: the consumer's struct to fill.
    unsafe { ptr::write(out, array) };
    code
}

unsafe extern "C" fn foreign_error(_: *mut ArrowDeviceArrayStream) -> *const c_char {
    ptr::null()
}

unsafe extern "C" fn foreign_release(s: *mut ArrowDeviceArrayStream) {
    RELEASED.fetch_add(1, Ordering::SeqCst);
    // SAFETY: made by `Box::into_raw` in `foreign`; the callback is cleared: freed once.
    unsafe {
        drop(Box::from_raw((*s).private_data.cast::<Foreign>()));
        (*s).release = None;
    }
}

fn foreign(device_type: i32, later_device: i32, later_event: bool) -> ArrowDeviceArrayStream {
    let batches = vec![Ok::<_, String>(batch(0)), Ok(batch(5)), Ok(batch(9))];
    let state = Foreign {
        inner: ArrowArrayStream::export(schema(), batches),
        served: 0,
        later_device,
        later_event,
    };
    ArrowDeviceArrayStream {
        device_type,
        get_schema: Some(foreign_schema),
        get_next: Some(foreign_next),
        get_last_error: Some(foreign_error),
        release: Some(foreign_release),
        private_data: Box::into_raw(Box::new(state)).cast(),
    }
}

#[test]
fn a_stream_of_another_device_is_refused_untouched() {
    let _serial = serial();
    let mut stream = foreign(ARROW_DEVICE_CUDA, ARROW_DEVICE_CUDA, false);
    let before = RELEASED.load(Ordering::SeqCst);
    // SAFETY: a valid device stream (refused before it is read).
    let error = unsafe { StreamReader::try_new_device(&mut stream) }
        .unwrap_err()
        .to_string();
    assert!(error.contains("CUDA memory (device type 2)"), "{error}");
    assert!(stream.release.is_some(), "still the caller's");
    assert_eq!(RELEASED.load(Ordering::SeqCst), before);
    drop(stream);
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
}

#[test]
fn an_array_of_another_device_or_with_an_event_ends_the_reading() {
    let _serial = serial();
    for (device, event, expected) in [
        (
            ARROW_DEVICE_CUDA,
            false,
            "CUDA memory (device type 2, device id -1)",
        ),
        (ARROW_DEVICE_CPU, true, "synchronization event"),
    ] {
        let before = RELEASED.load(Ordering::SeqCst);
        let mut stream = foreign(ARROW_DEVICE_CPU, device, event);
        // SAFETY: a valid CPU device stream.
        let mut reader = unsafe { StreamReader::try_new_device(&mut stream) }.unwrap();
        assert_same(&reader.next().unwrap().unwrap(), &batch(0));
        let error = reader.next().unwrap().unwrap_err().to_string();
        assert!(error.contains(expected), "{error}");
        assert!(reader.next().is_none());
        drop(reader);
        assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1, "released once");
    }
}

#[test]
fn released_and_null_streams_are_refused() {
    let _serial = serial();
    let mut never = ArrowDeviceArrayStream::empty();
    // SAFETY: a released (empty) stream.
    assert!(unsafe { StreamReader::try_new_device(&mut never) }.is_err());
    // SAFETY: null is checked first.
    assert!(unsafe { StreamReader::try_new_device(ptr::null_mut()) }.is_err());
    // A plain stream shown as a device stream, never read, frees itself.
    let plain = ArrowArrayStream::export(schema(), vec![Ok::<_, String>(batch(1))]);
    drop(ArrowDeviceArrayStream::from_stream(plain));
}

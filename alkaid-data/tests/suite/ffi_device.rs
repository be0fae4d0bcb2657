//! The C device data interface's arrays: CPU arrays of every type export and import back,
//! sharing memory; arrays of other devices, or with an event to wait on, are refused
//! without being taken, and can be taken raw, released exactly once.

use crate::common;

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid_buffer::Buffer;
use alkaid_data::ffi::{
    ARROW_DEVICE_CPU, ARROW_DEVICE_CUDA, ArrowArray, ArrowDeviceArray, CPU_DEVICE_ID,
    import_device_array,
};
use alkaid_data::{ArrayData, ValidationLevel, equal};
use alkaid_schema::{DataType, arbitrary};
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn cpu_arrays_round_trip_sharing_their_buffers(
        data_type in arbitrary::data_type_with_depth(3),
        seed in any::<u64>(),
        len in 0usize..12,
        start in 0usize..4,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len + start).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let data = encode(&data_type, &values, &mut rng).slice(start, len);
        let mut exported = ArrowDeviceArray::export(&data);
        prop_assert_eq!(exported.device_type, ARROW_DEVICE_CPU);
        prop_assert_eq!(exported.device_id, CPU_DEVICE_ID);
        prop_assert!(exported.sync_event.is_null());
        prop_assert_eq!(exported.reserved, [0; 3]);
        // SAFETY: an export of this crate, of `data_type`, imported once.
        let back = unsafe { import_device_array(&mut exported, &data_type, ValidationLevel::Full) }
            .unwrap();
        prop_assert!(exported.array.is_released());
        prop_assert_eq!(decode(&back), values[start..].to_vec());
        prop_assert!(equal(&back, &data));
        if let (Some(a), Some(b)) = (data.buffers().first(), back.buffers().first())
            && !a.is_empty()
            && a.len() == b.len()
        {
            prop_assert_eq!(a.as_ptr(), b.as_ptr());
        }
    }
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

unsafe extern "C" fn count_release(array: *mut ArrowArray) {
    RELEASED.fetch_add(1, Ordering::SeqCst);
    // SAFETY: called on the array it belongs to.
    unsafe { (*array).release = None };
}

/// A foreign Int32 array of three values on `device_type`, released through the counter.
fn foreign(device_type: i32, device_id: i64) -> ArrowDeviceArray {
    let values: &'static [i32] = Box::leak(Box::new([1, 2, 3]));
    let pointers: Vec<*const c_void> = vec![ptr::null(), values.as_ptr().cast()];
    let mut array = ArrowArray::empty();
    array.length = 3;
    array.n_buffers = 2;
    array.buffers = Box::leak(pointers.into_boxed_slice()).as_mut_ptr();
    array.release = Some(count_release);
    let mut device = ArrowDeviceArray::on_cpu(array);
    device.device_type = device_type;
    device.device_id = device_id;
    device
}

#[test]
fn other_devices_are_refused_untouched_and_can_be_taken_raw() {
    let _serial = serial();
    let mut cuda = foreign(ARROW_DEVICE_CUDA, 1);
    let before = RELEASED.load(Ordering::SeqCst);
    // SAFETY: a valid device array (its memory is not read: it is refused first).
    let error = unsafe { import_device_array(&mut cuda, &DataType::Int32, ValidationLevel::Full) }
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("CUDA memory (device type 2, device id 1)"),
        "{error}"
    );
    assert!(!cuda.array.is_released(), "still the caller's");
    assert_eq!(RELEASED.load(Ordering::SeqCst), before);
    // SAFETY: a valid device array, taken once.
    let raw = unsafe { ArrowDeviceArray::take(&mut cuda) }.unwrap();
    assert_eq!((raw.device_type, raw.device_id), (ARROW_DEVICE_CUDA, 1));
    assert_eq!(raw.array.length, 3);
    assert!(cuda.array.is_released());
    // SAFETY: the same struct, now released.
    assert!(unsafe { ArrowDeviceArray::take(&mut cuda) }.is_err());
    drop(cuda);
    assert_eq!(
        RELEASED.load(Ordering::SeqCst),
        before,
        "the source was released"
    );
    drop(raw);
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1, "released once");
}

#[test]
fn an_event_to_wait_on_is_refused_and_cpu_arrays_import() {
    let _serial = serial();
    let mut waiting = foreign(ARROW_DEVICE_CPU, CPU_DEVICE_ID);
    let mut event = 0u64;
    waiting.sync_event = (&raw mut event).cast();
    // SAFETY: a valid device array.
    let error =
        unsafe { import_device_array(&mut waiting, &DataType::Int32, ValidationLevel::Full) }
            .unwrap_err()
            .to_string();
    assert!(error.contains("synchronization event"), "{error}");
    assert!(!waiting.array.is_released());
    waiting.sync_event = ptr::null_mut();
    let before = RELEASED.load(Ordering::SeqCst);
    // SAFETY: a valid CPU array now.
    let data =
        unsafe { import_device_array(&mut waiting, &DataType::Int32, ValidationLevel::Full) }
            .unwrap();
    assert_eq!(data.buffers()[0].typed::<i32>().unwrap(), &[1, 2, 3]);
    drop(data);
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
    // Bad producers: the import's own checks, behind the device's.
    let mut negative = foreign(ARROW_DEVICE_CPU, CPU_DEVICE_ID);
    negative.array.length = -3;
    // SAFETY: a valid struct whose length is wrong.
    let error =
        unsafe { import_device_array(&mut negative, &DataType::Int32, ValidationLevel::Full) }
            .unwrap_err()
            .to_string();
    assert!(error.contains("the length is -3"), "{error}");
    assert_eq!(
        RELEASED.load(Ordering::SeqCst),
        before + 2,
        "released on failure"
    );
    // SAFETY: null is checked first.
    let null =
        unsafe { import_device_array(ptr::null_mut(), &DataType::Int32, ValidationLevel::Full) };
    assert!(null.is_err());
    // SAFETY: null is checked first.
    assert!(unsafe { ArrowDeviceArray::take(ptr::null_mut()) }.is_err());
}

static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// Bytes that count their drop.
struct Counted(Vec<u8>);

impl AsRef<[u8]> for Counted {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn an_unread_export_frees_itself() {
    let _serial = serial();
    let bytes = [7i64, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
    let data = ArrayData::builder(DataType::Int64)
        .len(2)
        .buffers(vec![Buffer::from_owner(Counted(bytes))])
        .build()
        .unwrap();
    let exported = ArrowDeviceArray::export(&data);
    drop(data);
    assert_eq!(DROPPED.load(Ordering::SeqCst), 0, "shared with the export");
    drop(exported);
    assert_eq!(DROPPED.load(Ordering::SeqCst), 1, "the export let go");
}

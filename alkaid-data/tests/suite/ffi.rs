//! The C data interface's arrays: random arrays of every type (nested three deep, sliced,
//! with nulls) export and import back to equal arrays, sharing memory; malformed foreign
//! arrays are errors, released exactly once.

use crate::common;

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid_buffer::Buffer;
use alkaid_data::ffi::{ArrowArray, MAX_IMPORT_DEPTH, import_array, import_array_with};
use alkaid_data::{ArrayData, ValidationLevel, equal};
use alkaid_schema::{DataType, arbitrary};
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, generatable, value};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arrays_round_trip_sharing_their_buffers(
        data_type in arbitrary::data_type_with_depth(3),
        seed in any::<u64>(),
        len in 0usize..12,
    ) {
        prop_assume!(generatable(&data_type));
        let mut rng = Rng::new(seed);
        let values: Vec<Value> = (0..len).map(|_| value(&data_type, &mut rng, 0.3)).collect();
        let data = encode(&data_type, &values, &mut rng);
        let mut exported = ArrowArray::export(&data);
        // SAFETY: an export of this crate, of `data_type`, imported once.
        let back = unsafe { import_array_with(&mut exported, &data_type, ValidationLevel::Full) }.unwrap();
        prop_assert!(exported.is_released());
        prop_assert_eq!(decode(&back), values);
        prop_assert!(equal(&back, &data));
        // Shared, not copied (an Int32 buffer's first byte is where it was).
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

/// A foreign Int32 array over leaked `values`, with `n_buffers` buffer pointers.
fn foreign_ints(values: &'static [i32], pointers: Vec<*const c_void>) -> ArrowArray {
    let mut array = ArrowArray::empty();
    array.length = values.len() as i64;
    array.n_buffers = pointers.len() as i64;
    array.buffers = Box::leak(pointers.into_boxed_slice()).as_mut_ptr();
    array.release = Some(count_release);
    array
}

fn import_error(mut array: ArrowArray, data_type: &DataType) -> String {
    let before = RELEASED.load(Ordering::SeqCst);
    // SAFETY: a test array whose pointers are valid, whatever its counts claim.
    let result = unsafe { import_array(&mut array, data_type) };
    assert_eq!(
        RELEASED.load(Ordering::SeqCst),
        before + 1,
        "released exactly once"
    );
    result.expect_err("a malformed array").to_string()
}

#[test]
fn foreign_arrays_are_released_once_when_the_last_buffer_goes() {
    let _serial = serial();
    let values: &'static [i32] = Box::leak(Box::new([1, 2, 3]));
    let mut array = foreign_ints(values, vec![ptr::null(), values.as_ptr().cast()]);
    let before = RELEASED.load(Ordering::SeqCst);
    // SAFETY: a valid Int32 array.
    let data = unsafe { import_array(&mut array, &DataType::Int32) }.unwrap();
    let kept = data.buffers()[0].clone();
    drop(data);
    assert_eq!(RELEASED.load(Ordering::SeqCst), before, "still shared");
    assert_eq!(kept.typed::<i32>().unwrap(), &[1, 2, 3]);
    drop(kept);
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
    drop(array); // already released by the import: nothing more
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
}

#[test]
fn misaligned_buffers_are_copied_into_aligned_memory() {
    let _serial = serial();
    // Int64 values one byte past an 8-byte boundary.
    let raw: &'static mut [u8] = Box::leak(vec![0u8; 8 * 3 + 1].into_boxed_slice());
    for (i, chunk) in raw[1..].chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(i as i64 * 10).to_le_bytes());
    }
    let mut array = ArrowArray::empty();
    array.length = 3;
    array.n_buffers = 2;
    array.buffers =
        Box::leak(vec![ptr::null(), raw[1..].as_ptr().cast::<c_void>()].into_boxed_slice())
            .as_mut_ptr();
    array.release = Some(count_release);
    // SAFETY: a valid (if misaligned) Int64 array.
    let data = unsafe { import_array(&mut array, &DataType::Int64) }.unwrap();
    assert_eq!(data.buffers()[0].typed::<i64>().unwrap(), &[0, 10, 20]);
}

#[test]
fn malformed_arrays_are_errors() {
    let _serial = serial();
    let values: &'static [i32] = Box::leak(Box::new([1, 2, 3]));
    let three = || vec![ptr::null(), values.as_ptr().cast(), ptr::null()];
    let message = import_error(foreign_ints(values, three()), &DataType::Int32);
    assert!(
        message.contains("takes 2 buffers here, found 3"),
        "{message}"
    );
    let mut negative = foreign_ints(values, vec![ptr::null(), values.as_ptr().cast()]);
    negative.length = -1;
    assert!(import_error(negative, &DataType::Int32).contains("the length is -1"));
    let mut null_values = foreign_ints(values, vec![ptr::null(), ptr::null()]);
    null_values.length = 3;
    assert!(import_error(null_values, &DataType::Int32).contains("buffer 1 is null"));
    let list: DataType = "List(item: Int32)".parse().unwrap();
    let offsets: &'static [i32] = Box::leak(Box::new([0, 1]));
    let mut childless = foreign_ints(&[0], vec![ptr::null(), offsets.as_ptr().cast()]);
    childless.length = 1;
    assert!(import_error(childless, &list).contains("has 1 children, found 0"));
    // SAFETY: null is checked first.
    assert!(unsafe { import_array(ptr::null_mut(), &DataType::Int32) }.is_err());
}

#[test]
fn full_validation_on_request_catches_bad_values() {
    let _serial = serial();
    // Offsets that run backwards, which structural checks do not read.
    let offsets: &'static [i32] = Box::leak(Box::new([0, 3, 1]));
    let bytes: &'static [u8] = b"abc";
    let mut array = foreign_ints(
        &[0, 0],
        vec![ptr::null(), offsets.as_ptr().cast(), bytes.as_ptr().cast()],
    );
    array.length = 2;
    array.n_buffers = 3;
    // SAFETY: pointers valid for the sizes the layout implies; the values are checked.
    let result = unsafe { import_array_with(&mut array, &DataType::Utf8, ValidationLevel::Full) };
    assert!(result.is_err());
}

#[test]
fn nesting_past_the_limit_is_refused() {
    let _serial = serial();
    let mut list_type = DataType::Int32;
    let mut array = foreign_ints(&[], vec![ptr::null(), ptr::null()]);
    array.release = None;
    let offsets: &'static [i32] = Box::leak(Box::new([0]));
    for _ in 0..MAX_IMPORT_DEPTH + 3 {
        list_type = DataType::list(list_type);
        let mut parent = foreign_ints(&[], vec![ptr::null(), offsets.as_ptr().cast()]);
        parent.release = None;
        parent.n_children = 1;
        parent.children =
            Box::leak(vec![Box::into_raw(Box::new(array))].into_boxed_slice()).as_mut_ptr();
        array = parent;
    }
    array.release = Some(count_release);
    assert!(import_error(array, &list_type).contains("nested deeper than"));
}

#[test]
fn sliced_validity_moves_to_the_array_offset() {
    let _serial = serial();
    // Validity at bit offset 0, values at slot offset 2: the export rebuilds the bitmap.
    let data = ArrayData::builder(DataType::Int32)
        .len(5)
        .buffers(vec![Buffer::from_slice_ref(&[1i32, 2, 3, 4, 5])])
        .nulls(Some(vec![true, false, true, true, false].into()))
        .build()
        .unwrap()
        .slice(2, 3);
    let mut exported = ArrowArray::export(&data);
    assert_eq!((exported.offset, exported.null_count), (2, 1));
    // SAFETY: an export of this crate.
    let back = unsafe { import_array(&mut exported, &DataType::Int32) }.unwrap();
    assert!(equal(&back, &data));
    assert!(back.is_null(2) && back.is_valid(0));
}

#[test]
fn a_null_array_may_come_with_one_null_buffer() {
    let _serial = serial();
    // As Polars exports it: one buffer pointer, null.
    let mut polars_style = foreign_ints(&[0, 0, 0], vec![ptr::null()]);
    let before = RELEASED.load(Ordering::SeqCst);
    // SAFETY: a valid Null array with a placeholder buffer.
    let data = unsafe { import_array(&mut polars_style, &DataType::Null) }.unwrap();
    assert_eq!((data.len(), data.buffers().len()), (3, 0));
    drop(data);
    assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
    // A buffer that holds something is not a placeholder.
    let values: &'static [i32] = Box::leak(Box::new([1, 2, 3]));
    let real = foreign_ints(values, vec![values.as_ptr().cast()]);
    let message = import_error(real, &DataType::Null);
    assert!(
        message.contains("takes 0 buffers here, found 1"),
        "{message}"
    );
}

#[test]
fn a_child_moved_out_outlives_its_released_parent() {
    let _serial = serial();
    let ints = ArrayData::builder(DataType::Int32)
        .len(3)
        .buffers(vec![Buffer::from_slice_ref(&[1i32, 2, 3])])
        .build()
        .unwrap();
    let struct_type: DataType = "Struct(a: Int32, b: Int32)".parse().unwrap();
    let parent = ArrayData::builder(struct_type)
        .len(3)
        .children(vec![ints.clone(), ints.clone()])
        .build()
        .unwrap();
    let exported = ArrowArray::export(&parent);
    // A consumer moves child 1 out, as the interface allows, and releases the parent.
    // SAFETY: an export of this crate with two children; the original is marked released.
    let mut moved = unsafe {
        let slot = *exported.children.add(1);
        let taken = ptr::read(slot);
        (*slot).release = None;
        taken
    };
    drop(exported);
    // SAFETY: the moved child, a valid Int32 array whose buffers it keeps alive itself.
    let child = unsafe { import_array(&mut moved, &DataType::Int32) }.unwrap();
    assert!(equal(&child, &ints));
    assert_eq!(child.buffers()[0].as_ptr(), ints.buffers()[0].as_ptr());
}

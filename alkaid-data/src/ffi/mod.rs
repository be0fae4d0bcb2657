//! The C data interface's `ArrowArray`: an [`ArrayData`] handed to another library in the
//! same process without a copy, or one of theirs taken the same way.
//!
//! [`ArrowArray::export`] shares the array's buffers; they stay alive until the consumer
//! calls `release`. [`import_array`] wraps a foreign array's buffers as [`Buffer`]s that
//! keep the foreign array alive, and calls its `release` exactly once, when the last of
//! them is dropped (or at once, when the import fails). Buffers that are misaligned for
//! their type (other implementations often give 8-byte alignment for 16-byte values) are
//! copied into aligned memory; nothing else is copied. The schema travels separately (see
//! `alkaid_schema::ffi`).
//!
//! The C device data interface's [`ArrowDeviceArray`] wraps an `ArrowArray` with the device
//! its memory is on; Alkaid exports and imports CPU ones through the same code.
//!
//! [`Buffer`]: alkaid_buffer::Buffer
//! [`ArrayData`]: crate::ArrayData

mod device;
mod export;
mod import;

use std::ffi::c_void;
use std::ptr;

pub use device::{
    ARROW_DEVICE_CPU, ARROW_DEVICE_CUDA, ARROW_DEVICE_CUDA_HOST, ARROW_DEVICE_CUDA_MANAGED,
    ARROW_DEVICE_EXT_DEV, ARROW_DEVICE_HEXAGON, ARROW_DEVICE_METAL, ARROW_DEVICE_ONEAPI,
    ARROW_DEVICE_OPENCL, ARROW_DEVICE_ROCM, ARROW_DEVICE_ROCM_HOST, ARROW_DEVICE_VPI,
    ARROW_DEVICE_VULKAN, ARROW_DEVICE_WEBGPU, ArrowDeviceArray, ArrowDeviceType, CPU_DEVICE_ID,
    check_readable, device_type_name, import_device_array,
};
pub use import::{MAX_IMPORT_DEPTH, import_array, import_array_with};

/// The C `struct ArrowArray`, field for field.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArray {
    /// Number of slots.
    pub length: i64,
    /// Number of null slots, or -1 if not computed.
    pub null_count: i64,
    /// Slot offset into every buffer (and, for structs, into the children).
    pub offset: i64,
    /// Number of buffers.
    pub n_buffers: i64,
    /// Number of children.
    pub n_children: i64,
    /// The buffers, in the layout's order (the validity bitmap first; null if absent).
    pub buffers: *mut *const c_void,
    /// The children.
    pub children: *mut *mut ArrowArray,
    /// The dictionary, for a dictionary-encoded array; else null.
    pub dictionary: *mut ArrowArray,
    /// Frees everything the producer holds for this array; null once released.
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    /// The producer's bookkeeping.
    pub private_data: *mut c_void,
}

// SAFETY: an array's memory is immutable while shared and the interface lets any thread
// release it; the raw pointers are only read through the rules above.
unsafe impl Send for ArrowArray {}
// SAFETY: as above; nothing is mutated through a shared reference.
unsafe impl Sync for ArrowArray {}

impl ArrowArray {
    /// An empty, released array, for a consumer to hand to a producer to fill.
    pub fn empty() -> Self {
        Self {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: ptr::null_mut(),
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Whether the array was released (or never filled).
    pub fn is_released(&self) -> bool {
        self.release.is_none()
    }
}

impl Drop for ArrowArray {
    /// An array still holding its release callback is released when dropped: whoever
    /// holds the struct owns it.
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: an unreleased array and its producer's callback.
            unsafe { release(self) };
        }
    }
}

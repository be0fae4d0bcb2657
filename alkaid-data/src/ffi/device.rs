//! The C device data interface's `ArrowDeviceArray`: an `ArrowArray` with the device its
//! buffers live on (a device type, as DLPack numbers them, and an id) and the event a
//! consumer waits on before reading them.
//!
//! Alkaid's memory is the CPU's: [`ArrowDeviceArray::export`] makes CPU arrays (device id
//! -1, no event), and [`import_device_array`] imports CPU arrays through the C data
//! interface's import, with its checks and its release rule. An array of another device
//! (or a CPU array that asks the consumer to wait on an event, which Alkaid cannot do) is
//! refused before anything is taken from it, so that the caller can still take the raw
//! structure with [`ArrowDeviceArray::take`] and hand it to code that knows the device.

use std::ffi::c_void;
use std::ptr;

use alkaid_schema::DataType;

use super::{ArrowArray, import_array_with};
use crate::{ArrayData, DataError, DataErrorKind, ValidationLevel};

/// The C `ArrowDeviceType`: DLPack's device type numbers.
pub type ArrowDeviceType = i32;

/// Memory of the CPU (what the plain C data interface assumes).
pub const ARROW_DEVICE_CPU: ArrowDeviceType = 1;
/// Memory of a CUDA GPU.
pub const ARROW_DEVICE_CUDA: ArrowDeviceType = 2;
/// Page-locked CPU memory allocated by CUDA (`cudaMallocHost`).
pub const ARROW_DEVICE_CUDA_HOST: ArrowDeviceType = 3;
/// Memory of an OpenCL device.
pub const ARROW_DEVICE_OPENCL: ArrowDeviceType = 4;
/// A Vulkan buffer.
pub const ARROW_DEVICE_VULKAN: ArrowDeviceType = 7;
/// Memory of an Apple GPU (Metal).
pub const ARROW_DEVICE_METAL: ArrowDeviceType = 8;
/// A Verilog simulator's buffer.
pub const ARROW_DEVICE_VPI: ArrowDeviceType = 9;
/// Memory of an AMD GPU (ROCm).
pub const ARROW_DEVICE_ROCM: ArrowDeviceType = 10;
/// Page-locked CPU memory allocated by ROCm.
pub const ARROW_DEVICE_ROCM_HOST: ArrowDeviceType = 11;
/// Reserved for devices under development.
pub const ARROW_DEVICE_EXT_DEV: ArrowDeviceType = 12;
/// CUDA managed (unified) memory.
pub const ARROW_DEVICE_CUDA_MANAGED: ArrowDeviceType = 13;
/// Memory of a oneAPI device.
pub const ARROW_DEVICE_ONEAPI: ArrowDeviceType = 14;
/// A WebGPU buffer.
pub const ARROW_DEVICE_WEBGPU: ArrowDeviceType = 15;
/// Memory of a Qualcomm Hexagon DSP.
pub const ARROW_DEVICE_HEXAGON: ArrowDeviceType = 16;

/// The device id producers give CPU memory.
pub const CPU_DEVICE_ID: i64 = -1;

/// The name of a device type, for messages.
pub fn device_type_name(device_type: ArrowDeviceType) -> &'static str {
    match device_type {
        ARROW_DEVICE_CPU => "CPU",
        ARROW_DEVICE_CUDA => "CUDA",
        ARROW_DEVICE_CUDA_HOST => "CUDA host",
        ARROW_DEVICE_OPENCL => "OpenCL",
        ARROW_DEVICE_VULKAN => "Vulkan",
        ARROW_DEVICE_METAL => "Metal",
        ARROW_DEVICE_VPI => "VPI",
        ARROW_DEVICE_ROCM => "ROCm",
        ARROW_DEVICE_ROCM_HOST => "ROCm host",
        ARROW_DEVICE_EXT_DEV => "ext_dev",
        ARROW_DEVICE_CUDA_MANAGED => "CUDA managed",
        ARROW_DEVICE_ONEAPI => "oneAPI",
        ARROW_DEVICE_WEBGPU => "WebGPU",
        ARROW_DEVICE_HEXAGON => "Hexagon",
        _ => "unknown",
    }
}

/// The C `struct ArrowDeviceArray`, field for field.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowDeviceArray {
    /// The array; its buffers are on the device below.
    pub array: ArrowArray,
    /// Which device of the type (CPU memory: -1).
    pub device_id: i64,
    /// The device type.
    pub device_type: ArrowDeviceType,
    /// An event (of the device's own kind) to wait on before reading the buffers, or null.
    pub sync_event: *mut c_void,
    /// Reserved by the specification; zero.
    pub reserved: [i64; 3],
}

// SAFETY: as `ArrowArray`: the memory is immutable while shared and may be released from
// any thread; the event pointer is only carried, never used here.
unsafe impl Send for ArrowDeviceArray {}
// SAFETY: as above; nothing is mutated through a shared reference.
unsafe impl Sync for ArrowDeviceArray {}

impl ArrowDeviceArray {
    /// An empty, released array on the CPU, for a consumer to hand to a producer to fill.
    pub fn empty() -> Self {
        Self::on_cpu(ArrowArray::empty())
    }

    /// `array`, said to be in CPU memory (every `ArrowArray` of the plain interface is).
    pub fn on_cpu(array: ArrowArray) -> Self {
        Self {
            array,
            device_id: CPU_DEVICE_ID,
            device_type: ARROW_DEVICE_CPU,
            sync_event: ptr::null_mut(),
            reserved: [0; 3],
        }
    }

    /// Exports `data` as [`ArrowArray::export`] does, on the CPU.
    ///
    /// ```
    /// use alkaid_buffer::Buffer;
    /// use alkaid_data::ArrayData;
    /// use alkaid_data::ffi::{ArrowDeviceArray, import_device_array};
    /// use alkaid_data::ValidationLevel;
    /// use alkaid_schema::DataType;
    /// let data = ArrayData::builder(DataType::Int32)
    ///     .len(3)
    ///     .buffers(vec![Buffer::from_slice_ref(&[1i32, 2, 3])])
    ///     .build()?;
    /// let mut exported = ArrowDeviceArray::export(&data);
    /// // SAFETY: an export of this crate, of an Int32 array, imported once.
    /// let back = unsafe {
    ///     import_device_array(&mut exported, &DataType::Int32, ValidationLevel::Structural)
    /// }?;
    /// assert_eq!(back.buffers()[0].as_ptr(), data.buffers()[0].as_ptr());
    /// # Ok::<(), alkaid_data::DataError>(())
    /// ```
    pub fn export(data: &ArrayData) -> Self {
        Self::on_cpu(ArrowArray::export(data))
    }

    /// Whether the array is in CPU memory with nothing to wait on: what Alkaid imports.
    pub fn is_readable_on_cpu(&self) -> bool {
        self.device_type == ARROW_DEVICE_CPU && self.sync_event.is_null()
    }

    /// Moves the array `source` points to out, device, id and event as they are, leaving
    /// `source` released: the raw structure, for an array of a device Alkaid cannot read.
    /// Dropping the result releases it.
    ///
    /// # Errors
    /// If `source` is null or already released.
    ///
    /// # Safety
    /// `source` must be null or point to a valid `ArrowDeviceArray`.
    pub unsafe fn take(source: *mut ArrowDeviceArray) -> Result<ArrowDeviceArray, DataError> {
        // SAFETY: a valid pointer or null, per the caller.
        let Some(source) = (unsafe { source.as_mut() }) else {
            return Err(refused("the device array pointer is null"));
        };
        if source.array.is_released() {
            return Err(refused("the device array was already released"));
        }
        // SAFETY: a valid struct, read once; the original is marked released right after.
        let taken = unsafe { ptr::read(source) };
        source.array.release = None;
        Ok(taken)
    }
}

fn refused(reason: impl Into<String>) -> DataError {
    DataError::new(DataErrorKind::InvalidType, reason.into())
}

/// Imports the device array `array` points to, of type `data_type`, with the validation
/// `level`, as [`import_array_with`] imports a plain array (`Structural` is what
/// [`super::import_array`] runs).
///
/// # Errors
/// If the array is not in CPU memory, or is but carries an event to wait on: nothing is
/// taken then, and `array` stays the caller's (for [`ArrowDeviceArray::take`]). Otherwise
/// as [`import_array_with`], which releases the array on failure.
///
/// # Safety
/// As [`import_array_with`], for the `ArrowArray` inside.
pub unsafe fn import_device_array(
    array: *mut ArrowDeviceArray,
    data_type: &DataType,
    level: ValidationLevel,
) -> Result<ArrayData, DataError> {
    // SAFETY: a valid pointer or null, per the caller.
    let Some(device_array) = (unsafe { array.as_mut() }) else {
        return Err(refused("the device array pointer is null"));
    };
    check_readable(device_array)?;
    // SAFETY: a CPU array, valid per the caller.
    unsafe { import_array_with(&mut device_array.array, data_type, level) }
}

/// Whether Alkaid can read `array`'s buffers: an error naming the device otherwise.
///
/// # Errors
/// For an array of any device but the CPU, or of the CPU with an event to wait on.
pub fn check_readable(array: &ArrowDeviceArray) -> Result<(), DataError> {
    if array.device_type != ARROW_DEVICE_CPU {
        return Err(refused(format!(
            "the array is in {} memory (device type {}, device id {}), not the CPU's; \
             take it raw with ArrowDeviceArray::take to hand it to code for that device",
            device_type_name(array.device_type),
            array.device_type,
            array.device_id
        )));
    }
    if !array.sync_event.is_null() {
        return Err(refused(
            "the CPU array carries a synchronization event, which only its device's \
             runtime can wait on",
        ));
    }
    Ok(())
}

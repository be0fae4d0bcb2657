//! Buffers and validity bitmaps, shared between the two libraries without copying.
//!
//! Each side wraps the other's buffer as the owner of its memory: an arrow-rs buffer made
//! from an Alkaid buffer keeps a clone of it alive (one reference count), and the other
//! way round. Neither side ever writes to memory it did not allocate (arrow-rs refuses to
//! turn a custom allocation into a mutable buffer; Alkaid's buffers are immutable), so the
//! sharing is safe.

use std::panic::AssertUnwindSafe;
use std::ptr::NonNull;
use std::sync::Arc;

use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer};

use super::arrow_buffer as rs;
use crate::BridgeError;

/// An arrow-rs buffer over the same memory as `buffer`, keeping it alive.
pub fn buffer_to_arrow(buffer: &Buffer) -> rs::Buffer {
    let ptr = NonNull::new(buffer.as_ptr().cast_mut()).unwrap_or(NonNull::dangling());
    // arrow-rs wants an owner that is safe to observe across a caught panic; a `Buffer`
    // only hands out shared reads of immutable bytes, so nothing can be seen half-changed.
    let owner = Arc::new(AssertUnwindSafe(buffer.clone()));
    // SAFETY: `ptr` is valid for reads of `buffer.len()` bytes for as long as `owner`, a
    // clone of the buffer, is alive, and nothing writes to those bytes: Alkaid buffers are
    // immutable, and arrow-rs never mutates a custom allocation.
    unsafe { rs::Buffer::from_custom_allocation(ptr, buffer.len(), owner) }
}

/// An Alkaid buffer over the same memory as `buffer`, keeping it alive.
pub fn buffer_from_arrow(buffer: &rs::Buffer) -> Buffer {
    Buffer::from_owner(ArrowBytes(buffer.clone()))
}

/// An arrow-rs buffer as the owner of an Alkaid buffer's bytes (arrow-rs's `Buffer` derefs
/// to its bytes but does not implement `AsRef`).
struct ArrowBytes(rs::Buffer);

impl AsRef<[u8]> for ArrowBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.as_slice()
    }
}

/// The arrow-rs validity of `nulls`: the same bits, the same count (not counted again).
pub fn nulls_to_arrow(nulls: &NullBuffer) -> rs::NullBuffer {
    let validity = nulls.validity();
    let bits = rs::BooleanBuffer::new(
        buffer_to_arrow(validity.inner()),
        validity.offset(),
        validity.len(),
    );
    // SAFETY: Alkaid's `NullBuffer` holds the number of unset bits of these very bits.
    unsafe { rs::NullBuffer::new_unchecked(bits, nulls.null_count()) }
}

/// The Alkaid validity of an arrow-rs `NullBuffer`: the same bits, the same count.
///
/// # Errors
/// If the bit range is outside the buffer (arrow-rs's constructors rule this out).
pub fn nulls_from_arrow(nulls: &rs::NullBuffer) -> Result<NullBuffer, BridgeError> {
    let bits = BooleanBuffer::try_new(
        buffer_from_arrow(nulls.buffer()),
        nulls.offset(),
        nulls.len(),
    )
    .map_err(|e| BridgeError::Data(e.into()))?;
    // SAFETY: arrow-rs's `NullBuffer` holds the number of unset bits of these very bits
    // (its own constructors count them or require the caller to vouch for them).
    Ok(unsafe { NullBuffer::new_unchecked(bits, nulls.null_count()) })
}

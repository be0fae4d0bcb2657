//! The aligned allocator behind every buffer Alkaid allocates itself.
//!
//! All memory comes from the global allocator with [`ALIGNMENT`]-byte alignment and a
//! capacity rounded up to a multiple of [`ALIGNMENT`], so that SIMD loops can always read
//! whole 64-byte blocks. Every allocation, reallocation and free updates one process-wide
//! counter that [`crate::memory::allocated_bytes`] reports.

use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Alignment, in bytes, of every buffer Alkaid allocates; also the padding granule.
///
/// 64 bytes is the spec's recommendation: one cache line, one AVX-512 register.
pub const ALIGNMENT: usize = 64;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

/// Bytes currently held by allocations made through this module.
pub(crate) fn allocated() -> usize {
    ALLOCATED.load(Ordering::Relaxed)
}

/// Rounds `n` up to a multiple of [`ALIGNMENT`].
///
/// # Panics
/// If the result overflows `usize`.
pub(crate) fn round_up(n: usize) -> usize {
    n.checked_add(ALIGNMENT - 1)
        .expect("buffer capacity overflows usize")
        & !(ALIGNMENT - 1)
}

/// A well-aligned dangling pointer, used for zero-capacity buffers.
pub(crate) fn dangling() -> NonNull<u8> {
    NonNull::new(std::ptr::without_provenance_mut(ALIGNMENT)).expect("ALIGNMENT is non-zero")
}

fn layout(capacity: usize) -> Layout {
    Layout::from_size_align(capacity, ALIGNMENT).expect("buffer capacity overflows isize")
}

/// Allocates `capacity` bytes (a non-zero multiple of [`ALIGNMENT`]); zeroed if `zeroed`.
///
/// Zeroed memory comes from the allocator's zeroed path (`calloc`), which for large sizes
/// maps fresh pages that are zero already instead of writing zeros over them.
pub(crate) fn allocate(capacity: usize, zeroed: bool) -> NonNull<u8> {
    debug_assert!(capacity > 0 && capacity.is_multiple_of(ALIGNMENT));
    let layout = layout(capacity);
    // SAFETY: the layout has a non-zero size (capacity > 0, asserted by every caller).
    let raw = unsafe {
        if zeroed {
            alloc::alloc_zeroed(layout)
        } else {
            alloc::alloc(layout)
        }
    };
    let Some(ptr) = NonNull::new(raw) else {
        alloc::handle_alloc_error(layout)
    };
    ALLOCATED.fetch_add(capacity, Ordering::Relaxed);
    ptr
}

/// Grows or shrinks an allocation made by [`allocate`] to `new_capacity` bytes.
///
/// # Safety
/// `ptr` must come from [`allocate`] (or this function) with exactly `old_capacity` bytes,
/// and must not be used after this call. `new_capacity` must be a non-zero multiple of
/// [`ALIGNMENT`].
pub(crate) unsafe fn reallocate(
    ptr: NonNull<u8>,
    old_capacity: usize,
    new_capacity: usize,
) -> NonNull<u8> {
    debug_assert!(new_capacity > 0 && new_capacity.is_multiple_of(ALIGNMENT));
    let new_layout = layout(new_capacity);
    // SAFETY: the caller promises ptr was allocated with layout(old_capacity) by the global
    // allocator; new_capacity is non-zero and fits isize once rounded (checked by layout()).
    let raw = unsafe { alloc::realloc(ptr.as_ptr(), layout(old_capacity), new_capacity) };
    let Some(ptr) = NonNull::new(raw) else {
        alloc::handle_alloc_error(new_layout)
    };
    if new_capacity >= old_capacity {
        ALLOCATED.fetch_add(new_capacity - old_capacity, Ordering::Relaxed);
    } else {
        ALLOCATED.fetch_sub(old_capacity - new_capacity, Ordering::Relaxed);
    }
    ptr
}

/// Frees an allocation made by [`allocate`] or [`reallocate`].
///
/// # Safety
/// `ptr` must come from [`allocate`] or [`reallocate`] with exactly `capacity` bytes, and
/// must not be used after this call.
pub(crate) unsafe fn deallocate(ptr: NonNull<u8>, capacity: usize) {
    // SAFETY: the caller promises ptr was allocated with this layout and is not used again.
    unsafe { alloc::dealloc(ptr.as_ptr(), layout(capacity)) };
    ALLOCATED.fetch_sub(capacity, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_up_pads_to_the_alignment() {
        assert_eq!(round_up(0), 0);
        assert_eq!(round_up(1), 64);
        assert_eq!(round_up(64), 64);
        assert_eq!(round_up(65), 128);
    }

    #[test]
    fn dangling_pointer_is_aligned() {
        assert_eq!(dangling().as_ptr() as usize % ALIGNMENT, 0);
    }

    #[test]
    fn allocations_are_aligned_and_zeroed_on_request() {
        let ptr = allocate(256, true);
        assert_eq!(ptr.as_ptr() as usize % ALIGNMENT, 0);
        // SAFETY: ptr points to 256 zeroed bytes that we own.
        let bytes = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), 256) };
        assert!(bytes.iter().all(|&b| b == 0));
        // SAFETY: allocated above with 256 bytes; grown once, then freed with the new size.
        unsafe {
            let grown = reallocate(ptr, 256, 4096);
            assert_eq!(grown.as_ptr() as usize % ALIGNMENT, 0);
            deallocate(grown, 4096);
        }
    }
}

//! The aligned allocator behind every buffer Alkaid allocates itself.
//!
//! Every [`Allocation`] is [`ALIGNMENT`]-byte aligned with a capacity that is a multiple of
//! [`ALIGNMENT`], so that SIMD loops can always read whole 64-byte blocks.
//!
//! Growing is where the design matters. The global allocator cannot `realloc` a block with
//! an alignment above its natural 16 bytes: Rust's system allocator then allocates anew,
//! copies, and frees, and every doubling of a buffer touches fresh pages (on this project's
//! machines a page fault costs far more than copying the page). So blocks are requested with
//! the natural alignment and 48 bytes of slack, and the first 64-aligned address inside is
//! handed out. Growth then goes through plain `realloc`, which extends in place or, for large
//! blocks, remaps pages without touching them; if the block moves to an address with another
//! 64-byte phase, the data is moved within the block.
//!
//! Every allocation, resize and free updates one process-wide counter that
//! [`crate::memory::allocated_bytes`] reports (usable capacity, without the slack).

use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Alignment, in bytes, of every buffer Alkaid allocates; also the padding granule.
///
/// 64 bytes is the spec's recommendation: one cache line, one AVX-512 register.
pub const ALIGNMENT: usize = 64;

/// Alignment requested from the global allocator: what `malloc` gives anyway, so that
/// `realloc` can keep it.
const BLOCK_ALIGN: usize = 16;
/// Extra bytes per block, enough to reach a multiple of [`ALIGNMENT`] from any multiple of
/// [`BLOCK_ALIGN`].
const SLACK: usize = ALIGNMENT - BLOCK_ALIGN;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

/// Bytes of usable capacity currently held by [`Allocation`]s.
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

fn block_layout(capacity: usize) -> Layout {
    capacity
        .checked_add(SLACK)
        .and_then(|size| Layout::from_size_align(size, BLOCK_ALIGN).ok())
        .expect("buffer capacity overflows isize")
}

/// `capacity` bytes at an [`ALIGNMENT`]-aligned address, owned; freed on drop.
///
/// Nothing here tracks which bytes are initialised: that is the owner's business.
#[derive(Debug)]
pub(crate) struct Allocation {
    /// The aligned address handed out (dangling and aligned when `capacity` is 0).
    ptr: NonNull<u8>,
    /// Usable bytes from `ptr`; a multiple of [`ALIGNMENT`].
    capacity: usize,
    /// How far `ptr` lies past the start of the block, in `0..=SLACK`.
    shift: usize,
}

// SAFETY: an Allocation uniquely owns its block, like a Box<[u8]>.
unsafe impl Send for Allocation {}
// SAFETY: shared references give no access to the bytes at all.
unsafe impl Sync for Allocation {}

impl Allocation {
    /// No memory: a dangling, aligned pointer with capacity 0.
    pub(crate) fn empty() -> Self {
        let ptr = NonNull::new(std::ptr::without_provenance_mut(ALIGNMENT));
        Self {
            ptr: ptr.expect("ALIGNMENT is non-zero"),
            capacity: 0,
            shift: 0,
        }
    }

    /// `capacity` bytes (a multiple of [`ALIGNMENT`]), zeroed if `zeroed`.
    ///
    /// Zeroed memory comes from the allocator's zeroed path (`calloc`), which for large sizes
    /// maps fresh pages that are zero already instead of writing zeros over them.
    pub(crate) fn new(capacity: usize, zeroed: bool) -> Self {
        debug_assert!(capacity.is_multiple_of(ALIGNMENT));
        if capacity == 0 {
            return Self::empty();
        }
        let layout = block_layout(capacity);
        // SAFETY: the layout has a non-zero size (capacity > 0).
        let raw = unsafe {
            if zeroed {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        let Some(block) = NonNull::new(raw) else {
            alloc::handle_alloc_error(layout)
        };
        let shift = block.as_ptr().align_offset(ALIGNMENT);
        debug_assert!(shift <= SLACK);
        ALLOCATED.fetch_add(capacity, Ordering::Relaxed);
        // SAFETY: shift <= SLACK, so ptr + capacity stays within the block.
        let ptr = unsafe { block.add(shift) };
        Self {
            ptr,
            capacity,
            shift,
        }
    }

    /// The aligned start of the usable bytes.
    #[inline]
    pub(crate) fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Usable bytes.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Changes the capacity to `new_capacity` (a multiple of [`ALIGNMENT`]), preserving the
    /// first `keep` bytes (`keep <= new_capacity`, and they must be initialised).
    pub(crate) fn resize(&mut self, new_capacity: usize, keep: usize) {
        debug_assert!(new_capacity.is_multiple_of(ALIGNMENT) && keep <= new_capacity);
        debug_assert!(keep <= self.capacity);
        if new_capacity == self.capacity {
            return;
        }
        if self.capacity == 0 || new_capacity == 0 {
            let mut fresh = Self::new(new_capacity, false);
            if keep > 0 {
                // SAFETY: both regions hold at least `keep` bytes and are distinct blocks.
                unsafe {
                    std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), fresh.ptr.as_ptr(), keep)
                };
            }
            std::mem::swap(self, &mut fresh);
            return;
        }
        let old_layout = block_layout(self.capacity);
        let new_layout = block_layout(new_capacity);
        // SAFETY: ptr - shift is the start of the block allocated with old_layout.
        let block = unsafe { self.ptr.sub(self.shift) };
        // SAFETY: the block was allocated by the global allocator with old_layout, and the
        // new size is non-zero and fits isize (block_layout checked).
        let raw = unsafe { alloc::realloc(block.as_ptr(), old_layout, new_layout.size()) };
        let Some(block) = NonNull::new(raw) else {
            alloc::handle_alloc_error(new_layout)
        };
        let shift = block.as_ptr().align_offset(ALIGNMENT);
        if shift != self.shift && keep > 0 {
            // The block moved to an address with another 64-byte phase: move the data to the
            // new aligned start. Both ranges lie inside the block (shift + keep <= SLACK +
            // new_capacity) and may overlap, hence `copy`.
            // SAFETY: as just argued; realloc preserved the first min(old, new) block bytes,
            // which include [old shift, old shift + keep).
            unsafe {
                std::ptr::copy(
                    block.add(self.shift).as_ptr(),
                    block.add(shift).as_ptr(),
                    keep,
                )
            };
        }
        if new_capacity > self.capacity {
            ALLOCATED.fetch_add(new_capacity - self.capacity, Ordering::Relaxed);
        } else {
            ALLOCATED.fetch_sub(self.capacity - new_capacity, Ordering::Relaxed);
        }
        // SAFETY: shift <= SLACK, inside the new block.
        self.ptr = unsafe { block.add(shift) };
        self.capacity = new_capacity;
        self.shift = shift;
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        if self.capacity > 0 {
            // SAFETY: ptr - shift is the start of a block allocated with this layout, owned
            // by self and freed only here.
            unsafe {
                alloc::dealloc(
                    self.ptr.sub(self.shift).as_ptr(),
                    block_layout(self.capacity),
                )
            };
            ALLOCATED.fetch_sub(self.capacity, Ordering::Relaxed);
        }
    }
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
    fn empty_allocation_is_aligned() {
        let empty = Allocation::empty();
        assert_eq!(empty.ptr().as_ptr() as usize % ALIGNMENT, 0);
        assert_eq!(empty.capacity(), 0);
    }

    #[test]
    fn allocations_are_aligned_and_zeroed_on_request() {
        let allocation = Allocation::new(256, true);
        assert_eq!(allocation.ptr().as_ptr() as usize % ALIGNMENT, 0);
        // SAFETY: the allocation holds 256 zeroed bytes.
        let bytes = unsafe { std::slice::from_raw_parts(allocation.ptr().as_ptr(), 256) };
        assert!(bytes.iter().all(|&b| b == 0));
    }

    #[test]
    fn resizing_keeps_data_and_alignment_through_many_moves() {
        let mut allocation = Allocation::new(64, false);
        let mut filled = 0usize;
        // Interleave with other allocations so that realloc moves the block around and the
        // 64-byte phase changes at some point.
        let mut others = Vec::new();
        let mut shifts = std::collections::BTreeSet::new();
        for step in 1..200usize {
            let new_capacity = round_up(step * 97);
            allocation.resize(new_capacity, filled.min(new_capacity));
            filled = filled.min(new_capacity);
            assert_eq!(allocation.ptr().as_ptr() as usize % ALIGNMENT, 0);
            // SAFETY: the first `filled` bytes were written below in earlier steps.
            let bytes = unsafe { std::slice::from_raw_parts(allocation.ptr().as_ptr(), filled) };
            assert!(
                bytes.iter().enumerate().all(|(i, &b)| b == i as u8),
                "step {step}"
            );
            // SAFETY: capacity bytes are usable; write the pattern into all of them.
            unsafe {
                for i in filled..new_capacity {
                    allocation.ptr().as_ptr().add(i).write(i as u8);
                }
            }
            filled = new_capacity;
            shifts.insert(allocation.shift);
            others.push(vec![0u8; step % 7 * 16 + 1]);
        }
        // glibc's malloc (and valgrind's) move the block between all four 16-byte phases
        // here, so the move-within-the-block path above has run and been checked.
        assert!(
            shifts.len() > 1,
            "the block never changed its 64-byte phase: {shifts:?}"
        );
        // Shrinking keeps the kept prefix.
        allocation.resize(256, 256);
        // SAFETY: the first 256 bytes were written above.
        let bytes = unsafe { std::slice::from_raw_parts(allocation.ptr().as_ptr(), 256) };
        assert!(bytes.iter().enumerate().all(|(i, &b)| b == i as u8));
        allocation.resize(0, 0);
        assert_eq!(allocation.capacity(), 0);
    }
}

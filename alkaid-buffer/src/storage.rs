//! The shared owner behind every [`Buffer`](crate::Buffer): one allocation, and how to free it.
//!
//! Many buffers may point into one `Storage` (clones and slices share it through an `Arc`).
//! It is the unit of memory accounting: its size is counted once, whatever number of
//! buffers refer to it.

use std::any::Any;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use crate::alloc::Allocation;
use crate::memory::MemoryPool;

/// How the bytes of a [`Storage`] were obtained, and so how they are released.
enum Origin {
    /// Allocated by Alkaid's aligned allocator; freed when dropped.
    Aligned(Allocation),
    /// Memory owned by a value of another type; dropping the value releases it.
    Foreign(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

/// One region of memory and its owner.
pub(crate) struct Storage {
    ptr: NonNull<u8>,
    /// Readable, initialised bytes from `ptr` on.
    len: usize,
    origin: Origin,
    /// The pool this storage is accounted to, if any (see [`crate::Buffer::claim`]).
    claim: Mutex<Option<Arc<dyn MemoryPool>>>,
}

// SAFETY: Storage owns its memory (or a Send + Sync owner of it) and only hands out shared,
// read-only access to the bytes; the claim is behind a Mutex.
unsafe impl Send for Storage {}
// SAFETY: as above; no interior mutability reaches the bytes.
unsafe impl Sync for Storage {}

// The foreign owner is never reached again after construction (only dropped), so a panic
// cannot leave it half-updated where a buffer could observe it.
impl std::panic::RefUnwindSafe for Storage {}
impl std::panic::UnwindSafe for Storage {}

impl Storage {
    /// Takes over an Alkaid allocation whose first `len` bytes are initialised.
    ///
    /// # Safety
    /// `len <= allocation.capacity()` and the first `len` bytes must be initialised.
    pub(crate) unsafe fn from_allocation(allocation: Allocation, len: usize) -> Self {
        debug_assert!(len <= allocation.capacity());
        let ptr = allocation.ptr();
        Self {
            ptr,
            len,
            origin: Origin::Aligned(allocation),
            claim: Mutex::new(None),
        }
    }

    /// Keeps `owner` alive and exposes its bytes, without copying.
    pub(crate) fn from_owner<T: AsRef<[u8]> + Send + Sync + 'static>(owner: T) -> Self {
        // The owner is boxed first so that the slice is taken where it will stay: a type whose
        // bytes live inline (an array, a small-string type) would otherwise move them.
        let owner: Box<T> = Box::new(owner);
        let bytes: &[u8] = (*owner).as_ref();
        let (ptr, len) = (NonNull::from(bytes).cast::<u8>(), bytes.len());
        // The slice borrows the boxed owner, which is never moved, mutated or dropped before
        // `self`: safe code cannot invalidate a shared borrow it handed out, so the bytes stay
        // valid and unchanged for as long as the box lives (the argument `bytes::Bytes::
        // from_owner` also rests on).
        Self {
            ptr,
            len,
            origin: Origin::Foreign(owner),
            claim: Mutex::new(None),
        }
    }

    pub(crate) fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes this storage holds: the whole capacity of an Alkaid allocation, or the length of
    /// foreign memory.
    pub(crate) fn size(&self) -> usize {
        match &self.origin {
            Origin::Aligned(allocation) => allocation.capacity(),
            Origin::Foreign(_) => self.len,
        }
    }

    /// Whether the memory is an Alkaid allocation (rather than foreign memory).
    pub(crate) fn is_allocation(&self) -> bool {
        matches!(self.origin, Origin::Aligned(_))
    }

    /// Gives back an Alkaid allocation and the number of initialised bytes at its start;
    /// foreign memory is returned unchanged.
    pub(crate) fn into_allocation(mut self) -> Result<(Allocation, usize), Self> {
        if !self.is_allocation() {
            return Err(self);
        }
        self.release_claim();
        match std::mem::replace(&mut self.origin, Origin::Aligned(Allocation::empty())) {
            Origin::Aligned(allocation) => Ok((allocation, self.len)),
            Origin::Foreign(_) => unreachable!("checked to be an allocation above"),
        }
    }

    /// Accounts this storage's size to `pool`, moving it from any pool it was accounted to.
    pub(crate) fn claim(&self, pool: &Arc<dyn MemoryPool>) {
        // Nothing to account; and the owner of every empty buffer (`Buffer::empty`) lives as
        // long as the process, so it must not keep a pool alive.
        if self.size() == 0 {
            return;
        }
        let mut claim = self
            .claim
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(old) = claim.as_ref() {
            if Arc::ptr_eq(old, pool) {
                return;
            }
            old.release(self.size());
        }
        pool.reserve(self.size());
        *claim = Some(Arc::clone(pool));
    }

    fn release_claim(&mut self) {
        let claim = self
            .claim
            .get_mut()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(pool) = claim.take() {
            pool.release(self.size());
        }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        // The allocation or foreign owner in `origin` releases the memory when dropped.
        self.release_claim();
    }
}

//! The shared owner behind every [`Buffer`](crate::Buffer): one allocation, and how to free it.
//!
//! Many buffers may point into one `Storage` (clones and slices share it through an `Arc`).
//! It is the unit of memory accounting: its size is counted once, whatever number of
//! buffers refer to it.

use std::any::Any;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use crate::alloc;
use crate::memory::MemoryPool;

/// How the bytes of a [`Storage`] were obtained, and so how they are released.
enum Origin {
    /// Allocated by [`alloc::allocate`] with this many bytes of capacity.
    Aligned { capacity: usize },
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
    /// Takes over an allocation made by [`alloc::allocate`].
    ///
    /// # Safety
    /// `ptr` must come from [`alloc::allocate`]/[`alloc::reallocate`] with exactly `capacity`
    /// bytes (or be [`alloc::dangling`] with `capacity == 0`), the first `len <= capacity`
    /// bytes must be initialised, and nothing else may free or write to it.
    pub(crate) unsafe fn from_aligned(ptr: NonNull<u8>, len: usize, capacity: usize) -> Self {
        debug_assert!(len <= capacity);
        Self {
            ptr,
            len,
            origin: Origin::Aligned { capacity },
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
        match self.origin {
            Origin::Aligned { capacity } => capacity,
            Origin::Foreign(_) => self.len,
        }
    }

    /// Capacity of an Alkaid allocation, or `None` for foreign memory.
    pub(crate) fn aligned_capacity(&self) -> Option<usize> {
        match self.origin {
            Origin::Aligned { capacity } => Some(capacity),
            Origin::Foreign(_) => None,
        }
    }

    /// Gives up ownership of an Alkaid allocation without freeing it, returning
    /// `(ptr, len, capacity)`; a foreign storage is returned unchanged.
    pub(crate) fn into_aligned_parts(mut self) -> Result<(NonNull<u8>, usize, usize), Self> {
        let Origin::Aligned { capacity } = self.origin else {
            return Err(self);
        };
        self.release_claim();
        let parts = (self.ptr, self.len, capacity);
        std::mem::forget(self);
        Ok(parts)
    }

    /// Accounts this storage's size to `pool`, moving it from any pool it was accounted to.
    pub(crate) fn claim(&self, pool: &Arc<dyn MemoryPool>) {
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
        self.release_claim();
        if let Origin::Aligned { capacity } = self.origin
            && capacity > 0
        {
            // SAFETY: from_aligned's contract: ptr came from alloc::allocate with `capacity`
            // bytes and is freed only here, once.
            unsafe { alloc::deallocate(self.ptr, capacity) };
        }
        // A foreign owner is dropped with `origin`, releasing its memory.
    }
}

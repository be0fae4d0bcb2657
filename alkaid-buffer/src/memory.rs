//! Memory accounting for embedders.
//!
//! Three questions, three answers:
//! - *How much has Alkaid allocated in this process?* [`allocated_bytes`]: every byte
//!   currently held by buffers that Alkaid allocated itself (memory wrapped from elsewhere is
//!   the wrapper's owner's business and is not included).
//! - *How much do these buffers hold?* A [`MemoryTally`] adds buffers up, counting each
//!   underlying allocation once: the forty columns of a batch decoded from one IPC message
//!   body share one allocation and count it once.
//! - *How much does this query hold?* [`Buffer::claim`](crate::Buffer::claim) accounts a
//!   buffer's allocation to a user-supplied [`MemoryPool`] until the allocation is freed.
//!   An allocation is claimed by at most one pool at a time and is reserved once however many
//!   buffers share it and however often it is claimed.

use std::collections::HashSet;
use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::Buffer;

/// Bytes currently allocated by Alkaid's aligned allocator, across the whole process.
///
/// # Examples
/// ```
/// use alkaid_buffer::{memory::allocated_bytes, MutableBuffer};
/// let before = allocated_bytes();
/// let buffer = MutableBuffer::with_capacity(1 << 20);
/// // Other threads may allocate too, so only a lower bound is certain.
/// assert!(allocated_bytes() >= before.saturating_sub(1 << 30));
/// assert_eq!(buffer.capacity(), 1 << 20);
/// ```
pub fn allocated_bytes() -> usize {
    crate::alloc::allocated()
}

/// Something that memory can be accounted to: a query, a session, a cache.
///
/// Alkaid calls [`reserve`](Self::reserve) when a buffer's allocation is claimed by the pool
/// and [`release`](Self::release) with the same number when the allocation is freed or moves
/// to another pool. The pool itself never allocates; it only counts, and may for instance
/// log or refuse further work once a budget is passed.
pub trait MemoryPool: Send + Sync + Debug {
    /// Records that `bytes` more are now accounted to this pool.
    fn reserve(&self, bytes: usize);
    /// Records that `bytes` accounted earlier are no longer held.
    fn release(&self, bytes: usize);
    /// Bytes currently accounted to this pool.
    fn used(&self) -> usize;
}

/// A [`MemoryPool`] that tracks current and peak usage with atomics.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_buffer::{memory::{MemoryPool, TrackingPool}, Buffer};
///
/// let pool: Arc<dyn MemoryPool> = Arc::new(TrackingPool::default());
/// let buffer = Buffer::from_slice_ref(&[1u64, 2, 3]);
/// let slice = buffer.slice(8, 8);
/// buffer.claim(&pool);
/// slice.claim(&pool); // same allocation: not counted again
/// assert_eq!(pool.used(), 64);
/// drop((buffer, slice));
/// assert_eq!(pool.used(), 0);
/// ```
#[derive(Debug, Default)]
pub struct TrackingPool {
    used: AtomicUsize,
    peak: AtomicUsize,
}

impl TrackingPool {
    /// The largest number of bytes accounted at any one time.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

impl MemoryPool for TrackingPool {
    fn reserve(&self, bytes: usize) {
        let now = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }

    fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

/// Adds up the memory held by a set of buffers, counting each shared allocation once.
///
/// # Examples
/// ```
/// use alkaid_buffer::{memory::MemoryTally, Buffer};
/// let body = Buffer::from_slice_ref(&[0u8; 1000]);
/// let mut tally = MemoryTally::new();
/// tally.add(&body.slice(0, 10));
/// tally.add(&body.slice(500, 10));
/// assert_eq!(tally.bytes(), body.allocation_size());
/// ```
#[derive(Debug, Default, Clone)]
pub struct MemoryTally {
    seen: HashSet<usize>,
    bytes: usize,
}

impl MemoryTally {
    /// An empty tally.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the allocation behind `buffer`, unless it was added before; returns whether it
    /// was new.
    pub fn add(&mut self, buffer: &Buffer) -> bool {
        let new = self.seen.insert(buffer.allocation_id());
        if new {
            self.bytes += buffer.allocation_size();
        }
        new
    }

    /// Total bytes of the distinct allocations added so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Number of distinct allocations added so far.
    pub fn allocations(&self) -> usize {
        self.seen.len()
    }
}

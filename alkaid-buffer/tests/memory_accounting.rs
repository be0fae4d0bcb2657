//! Memory accounting. Kept in its own test binary with a single test, so that no other
//! test allocates concurrently while the process-wide counter is read.

use std::sync::Arc;

use alkaid_buffer::memory::{MemoryPool, MemoryTally, TrackingPool, allocated_bytes};
use alkaid_buffer::{Buffer, MutableBuffer};

#[test]
fn allocations_are_counted_once_whatever_shares_them() {
    // The process-wide counter follows allocation, growth and release.
    let before = allocated_bytes();
    let mut mutable = MutableBuffer::with_capacity(1000);
    assert_eq!(allocated_bytes() - before, 1024);
    mutable.resize(5000, 1);
    let grown = mutable.capacity();
    assert_eq!(allocated_bytes() - before, grown);
    let body: Buffer = mutable.into();
    assert_eq!(allocated_bytes() - before, grown);

    // Forty column buffers sliced from one message body are one allocation.
    let columns: Vec<Buffer> = (0..40).map(|i| body.slice(i * 100, 100)).collect();
    let mut tally = MemoryTally::new();
    for column in &columns {
        tally.add(column);
    }
    assert_eq!((tally.allocations(), tally.bytes()), (1, grown));
    let other = Buffer::from_slice_ref(&[0u64; 10]);
    assert!(tally.add(&other));
    assert!(!tally.add(&other.slice(8, 8)));
    assert_eq!(tally.bytes(), grown + 128);

    // A pool is charged once per allocation, moved between pools whole, and released when
    // the last buffer goes.
    let query: Arc<dyn MemoryPool> = Arc::new(TrackingPool::default());
    let cache: Arc<dyn MemoryPool> = Arc::new(TrackingPool::default());
    for column in &columns {
        column.claim(&query);
    }
    assert_eq!(query.used(), grown);
    columns[0].claim(&cache);
    assert_eq!((query.used(), cache.used()), (0, grown));
    drop(columns);
    assert_eq!(cache.used(), grown, "body is still alive");
    drop(body);
    assert_eq!(cache.used(), 0);

    // Foreign memory can be claimed (it is held) but is not Alkaid's own allocation.
    let before_foreign = allocated_bytes();
    let foreign = Buffer::from(vec![0u8; 4096]);
    assert_eq!(allocated_bytes(), before_foreign);
    foreign.claim(&query);
    assert_eq!(query.used(), 4096);
    drop((foreign, other));
    assert_eq!(query.used(), 0);
    assert_eq!(allocated_bytes(), before);
}

//! A tour of the buffer layer: build, freeze, slice, wrap foreign memory, run bit kernels,
//! and account for memory. `cargo run --release -p alkaid-buffer --example buffer_tour`

use std::sync::Arc;
use std::time::Instant;

use alkaid_buffer::bitmap;
use alkaid_buffer::memory::{MemoryPool, MemoryTally, TrackingPool, allocated_bytes};
use alkaid_buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, ScalarBuffer};

fn main() {
    const ROWS: usize = 10_000_000;
    let started = Instant::now();

    // 1. Fill an aligned mutable buffer and freeze it without copying.
    let mut values = MutableBuffer::with_capacity(ROWS * 8);
    values.extend_with(ROWS, |i| (i as i64 * 7919) % 1_000_003);
    let values: ScalarBuffer<i64> = Buffer::from(values).try_into().expect("aligned i64s");
    println!(
        "built {ROWS} i64 values ({} MiB) in {:?}",
        (values.len() * 8) >> 20,
        started.elapsed()
    );

    // 2. A validity bitmap with every seventh slot null, and a selection mask.
    let step = Instant::now();
    let validity = NullBuffer::new((0..ROWS).map(|i| i % 7 != 0).collect());
    let mask: BooleanBuffer = values.iter().map(|v| v % 2 == 0).collect();
    println!(
        "validity: {} nulls; mask: {} of {} rows selected ({:?})",
        validity.null_count(),
        mask.count_set_bits(),
        ROWS,
        step.elapsed()
    );

    // 3. Slices are O(1), start anywhere (even mid-byte), and kernels handle the offset.
    let step = Instant::now();
    let (offset, len) = (1_234_567, 5_000_000);
    let selected = &mask.slice(offset, len) & validity.slice(offset, len).validity();
    let sum: i64 = selected.set_indices().map(|i| values[offset + i]).sum();
    println!(
        "rows {offset}..{}: {} selected and valid, summing to {sum} ({:?})",
        offset + len,
        selected.count_set_bits(),
        step.elapsed()
    );
    let runs = selected.set_runs().count();
    println!(
        "  those rows form {runs} runs; the first: {:?}",
        selected.set_runs().next()
    );

    // 4. Foreign memory is wrapped where it lies.
    let foreign = Buffer::from((0u8..=255).cycle().take(1 << 20).collect::<Vec<u8>>());
    println!(
        "wrapped a 1 MiB Vec<u8> without copying; {} bits set in it",
        bitmap::count_set_bits(&foreign, 0, foreign.len() * 8)
    );

    // 5. Memory: shared allocations count once.
    let pool: Arc<dyn MemoryPool> = Arc::new(TrackingPool::default());
    let mut tally = MemoryTally::new();
    for buffer in [
        values.inner(),
        validity.validity().inner(),
        mask.inner(),
        selected.inner(),
    ] {
        tally.add(buffer);
        tally.add(&buffer.slice(0, 0)); // a second view of the same allocation: not counted
        buffer.claim(&pool);
    }
    println!(
        "{} allocations hold {} MiB (pool: {} MiB); Alkaid has {} MiB allocated in all",
        tally.allocations(),
        tally.bytes() >> 20,
        pool.used() >> 20,
        allocated_bytes() >> 20
    );
    println!("done in {:?}", started.elapsed());
}

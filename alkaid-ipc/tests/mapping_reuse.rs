//! Memory of dropped large buffers is kept and reused by the next reads (see
//! `src/mapping.rs`). The shelf is process-wide, so this runs as one test in a binary of its
//! own: no other test takes from it or adds to it meanwhile.

mod support;

use alkaid_array::{Int32Array, RecordBatch};
use alkaid_ipc::{
    Compression, IpcErrorKind, StreamReader, WriteOptions, cached_mapping_bytes,
    release_mapping_cache, set_mapping_cache_limit,
};
use support::{first_batch_error, int_batch, stream};

const MIB: usize = 1 << 20;

fn read_one(bytes: &[u8]) -> RecordBatch {
    let mut reader = StreamReader::try_new(bytes).unwrap();
    let batch = reader.next().unwrap().unwrap();
    assert!(reader.next().is_none());
    batch
}

/// Where the batch's one column's values lie.
fn values_at(batch: &RecordBatch) -> usize {
    let column = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    column.values().as_ptr() as usize
}

fn values(batch: &RecordBatch) -> Vec<i32> {
    let column = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    column.values().to_vec()
}

fn negated(rows: i32) -> RecordBatch {
    let batch = int_batch(rows);
    let column = Int32Array::from((0..rows).map(|v| -v).collect::<Vec<_>>());
    RecordBatch::try_new(batch.schema().clone(), vec![std::sync::Arc::new(column)]).unwrap()
}

#[test]
fn dropped_bodies_and_buffers_are_reused_within_the_limit() {
    let rows = 3 << 20; // a 12 MiB body
    let plain = int_batch(rows);
    let plain_bytes = stream(plain.schema().clone(), &[plain], WriteOptions::default());
    assert_eq!(cached_mapping_bytes(), 0);

    // The body's memory is kept when the batch is dropped, and the next read takes it.
    let first = read_one(&plain_bytes);
    let first_at = values_at(&first);
    drop(first);
    let kept = cached_mapping_bytes();
    assert!(kept >= 12 * MIB, "{kept} bytes kept");
    let other = negated(rows);
    let other_bytes = stream(other.schema().clone(), &[other], WriteOptions::default());
    let second = read_one(&other_bytes);
    assert_eq!(values_at(&second), first_at, "the kept memory was reused");
    assert_eq!(cached_mapping_bytes(), 0);
    // Its old bytes are all overwritten.
    assert_eq!(values(&second), (0..rows).map(|v| -v).collect::<Vec<_>>());
    drop(second);

    // A truncated body that takes the kept memory is reported as truncated, and the old
    // bytes past what arrived are not read as values.
    let cut = &plain_bytes[..plain_bytes.len() - 4 * MIB];
    assert_eq!(first_batch_error(cut).kind(), IpcErrorKind::Truncated);
    assert!(cached_mapping_bytes() >= 12 * MIB);

    // Decompressed buffers are kept and reused too, and come back with the right values.
    let lz4 = WriteOptions::default().with_compression(Compression::Lz4Frame);
    let plain = int_batch(rows);
    let compressed = stream(
        plain.schema().clone(),
        std::slice::from_ref(&plain),
        lz4.clone(),
    );
    let other = negated(rows);
    let other_compressed = stream(other.schema().clone(), &[other], lz4);
    for _ in 0..2 {
        let batch = read_one(&compressed);
        assert_eq!(values(&batch), values(&plain));
        let kept_before = cached_mapping_bytes();
        let batch_at = values_at(&batch);
        drop(batch);
        assert!(cached_mapping_bytes() >= kept_before + 12 * MIB);
        let batch = read_one(&other_compressed);
        assert_eq!(
            values_at(&batch),
            batch_at,
            "the decompressed buffer's memory reused"
        );
        assert_eq!(values(&batch), (0..rows).map(|v| -v).collect::<Vec<_>>());
    }

    // Released on request, and with a limit of 0 nothing is kept.
    assert!(cached_mapping_bytes() > 0);
    let held = cached_mapping_bytes();
    assert_eq!(release_mapping_cache(), held);
    assert_eq!(cached_mapping_bytes(), 0);
    set_mapping_cache_limit(0);
    drop(read_one(&plain_bytes));
    assert_eq!(cached_mapping_bytes(), 0);

    // A limit below a mapping's size keeps none of it; one above keeps it.
    set_mapping_cache_limit(8 * MIB);
    drop(read_one(&plain_bytes));
    assert_eq!(cached_mapping_bytes(), 0);
    set_mapping_cache_limit(64 * MIB);
    drop(read_one(&plain_bytes));
    assert!(cached_mapping_bytes() >= 12 * MIB);
    set_mapping_cache_limit(0);
    assert_eq!(cached_mapping_bytes(), 0);
}

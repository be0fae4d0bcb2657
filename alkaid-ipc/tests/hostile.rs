//! Hostile input: every corruption is an error, never a panic, a hang or an allocation the
//! input cannot justify. A counting allocator in this test binary records the largest single
//! allocation, and each test asserts it stayed small.

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    BufferStreamReader, Compression, Decoded, Decoder, FileReader, FileWriter, IpcErrorKind,
    ReadOptions, StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::{DataType, Field, Schema};
use support::{first_batch_error, stream};

mod support;

struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's layout unchanged; the wrapper
// only records sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// No input in these tests justifies more than this in one allocation (the inputs are a
/// few kilobytes; the readers' metadata limit is 64 MiB).
const MAX_ALLOCATION: usize = 65 << 20;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/pyarrow/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(path).unwrap()
}

/// Reads `bytes` every way there is, touching every batch; panics are the failure.
fn read_everything(bytes: &[u8]) {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if let Ok(reader) = StreamReader::try_new(bytes) {
            for batch in reader {
                if batch.is_err() {
                    break;
                }
            }
        }
        // Decompressing ahead on two threads: the same errors, at the same buffers.
        let threads = ReadOptions::default().with_decompression_threads(2);
        if let Ok(reader) = BufferStreamReader::with_options(Buffer::from_slice_ref(bytes), threads)
        {
            for batch in reader {
                if batch.is_err() {
                    break;
                }
            }
        }
        let mut decoder = Decoder::new();
        decoder.push(bytes);
        while let Ok(Some(message)) = decoder.next_message() {
            if let Decoded::Batch(batch, _) = message {
                let _ = batch.num_rows();
            }
        }
        let _ = decoder.finish();
        if let Ok(mut reader) = FileReader::from_buffer(Buffer::from_slice_ref(bytes)) {
            for i in 0..reader.num_batches() {
                let _ = reader.batch(i);
            }
            let _ = reader.read_rows(1..3).map(|rows| rows.count());
        }
        // The second column alone: the walk steps over the first, and a file is read in
        // the parts that column needs, from a `Read + Seek`.
        let second = ReadOptions::default().with_columns([1]);
        if let Ok(reader) = StreamReader::with_options(bytes, second.clone()) {
            for batch in reader {
                if batch.is_err() {
                    break;
                }
            }
        }
        let seekable = alkaid_ipc::Seekable(std::io::Cursor::new(bytes));
        if let Ok(mut reader) = FileReader::open(seekable, second.with_fetch_gap(0)) {
            for i in 0..reader.num_batches() {
                let _ = reader.batch(i);
            }
        }
    }));
    assert!(outcome.is_ok(), "a reader panicked");
}

/// SplitMix64, so every failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn corrupted_streams_and_files_are_errors_not_panics() {
    let inputs = [
        fixture("all_types.stream"),
        fixture("all_types.arrow"),
        fixture("all_types_zstd.arrow"),
        fixture("all_types_lz4.stream"),
        fixture("dictionary_deltas.stream"),
    ];
    let extremes: [i64; 8] = [
        0,
        -1,
        1,
        i32::MAX as i64,
        i32::MIN as i64,
        i64::MAX,
        1 << 62,
        7,
    ];
    let mut rng = Rng(0x5eed);
    for round in 0..std::env::var("HOSTILE_ROUNDS").map_or(3000, |v| v.parse().unwrap()) {
        let mut bytes = inputs[round % inputs.len()].clone();
        match rng.below(4) {
            0 => {
                for _ in 0..1 + rng.below(8) {
                    let at = rng.below(bytes.len());
                    bytes[at] ^= 1 << rng.below(8);
                }
            }
            1 => {
                let at = rng.below(bytes.len() / 4) * 4;
                let value = extremes[rng.below(extremes.len())] as i32;
                bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
            2 => {
                let at = rng.below(bytes.len() / 8) * 8;
                let value = extremes[rng.below(extremes.len())];
                if at + 8 <= bytes.len() {
                    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
                }
            }
            _ => bytes.truncate(rng.below(bytes.len())),
        }
        read_everything(&bytes);
    }
    assert!(
        LARGEST.load(Ordering::Relaxed) < MAX_ALLOCATION,
        "{}",
        LARGEST.load(Ordering::Relaxed)
    );
}

fn int_stream(compression: Compression) -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
    let column: ArrayRef = Arc::new(Int64Array::from(vec![3i64; 10_000]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let options = WriteOptions::default().with_compression(compression);
    let mut writer = StreamWriter::try_new(Vec::new(), schema, options).unwrap();
    writer.write(&batch).unwrap();
    writer.into_inner().unwrap()
}

fn replace_all(bytes: &mut [u8], from: &[u8], to: &[u8]) -> usize {
    let mut count = 0;
    let mut at = 0;
    while let Some(p) = bytes[at..].windows(from.len()).position(|w| w == from) {
        bytes[at + p..at + p + to.len()].copy_from_slice(to);
        at += p + from.len();
        count += 1;
    }
    count
}

#[test]
fn a_buffer_claiming_two_to_the_62_bytes_is_an_error() {
    for compression in [Compression::Lz4Frame, Compression::ZSTD] {
        let mut bytes = int_stream(compression);
        // The uncompressed length prefix of the 80 000-byte values buffer.
        let found = replace_all(
            &mut bytes,
            &80_000i64.to_le_bytes(),
            &(1i64 << 62).to_le_bytes(),
        );
        assert_eq!(found, 1);
        let err = first_batch_error(&bytes);
        assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
        assert!(err.to_string().contains("buffer"), "{err}");
        // Decompressed ahead on threads, the error is the same, with the same place.
        let threads = ReadOptions::default().with_decompression_threads(3);
        let ahead = BufferStreamReader::with_options(Buffer::from(bytes.clone()), threads)
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(ahead.to_string(), err.to_string());
    }
    assert!(LARGEST.load(Ordering::Relaxed) < MAX_ALLOCATION);
}

#[test]
fn lying_lengths_and_offsets_are_named_errors() {
    let bytes = int_stream(Compression::None);
    // The batch message's body length (80 000 bytes) made larger than the input.
    let mut longer = bytes.clone();
    assert_eq!(
        replace_all(
            &mut longer,
            &80_000i64.to_le_bytes(),
            &(1i64 << 40).to_le_bytes()
        ),
        2
    );
    let err = first_batch_error(&longer);
    assert!(
        matches!(
            err.kind(),
            IpcErrorKind::Truncated | IpcErrorKind::Malformed
        ),
        "{err}"
    );

    // A negative metadata length.
    let mut negative = bytes.clone();
    negative[4..8].copy_from_slice(&(-5i32).to_le_bytes());
    let err = StreamReader::try_new(&negative[..]).err().unwrap();
    assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");

    // Metadata past the limit.
    let mut huge = bytes.clone();
    huge[4..8].copy_from_slice(&i32::MAX.to_le_bytes());
    let err = StreamReader::try_new(&huge[..]).err().unwrap();
    assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");

    // Garbage where the schema flatbuffer should be.
    let mut garbage = bytes.clone();
    for b in &mut garbage[8..40] {
        *b = 0xEE;
    }
    let err = StreamReader::try_new(&garbage[..]).err().unwrap();
    assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
    assert!(LARGEST.load(Ordering::Relaxed) < MAX_ALLOCATION);
}

/// A stream of one `Int64` column "x" of ten slots; `with_nulls` makes every third one
/// null (four of them).
fn nullable_x_stream(nullable: bool, with_nulls: bool) -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "x",
        DataType::Int64,
        nullable,
    )]));
    let values: Vec<Option<i64>> = (0..10)
        .map(|i| (!with_nulls || i % 3 != 0).then_some(i))
        .collect();
    let column: ArrayRef = Arc::new(Int64Array::from(values));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    stream(schema, &[batch], WriteOptions::default())
}

/// The first batch error of [`nullable_x_stream`] with its field node (10 slots, 4 of them
/// null) rewritten to `length` slots, `null_count` of them null.
fn error_with_field_node(length: i64, null_count: i64) -> alkaid_ipc::IpcError {
    let mut bytes = nullable_x_stream(true, true);
    // The field node is two little-endian i64s.
    let node = [10i64.to_le_bytes(), 4i64.to_le_bytes()].concat();
    let lie = [length.to_le_bytes(), null_count.to_le_bytes()].concat();
    assert_eq!(replace_all(&mut bytes, &node, &lie), 1);
    first_batch_error(&bytes)
}

#[test]
fn a_null_count_the_bitmap_does_not_match_is_named() {
    let err = error_with_field_node(10, 5);
    assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
    let message = err.to_string();
    assert!(
        message.contains("x: the field node declares 5 nulls") && message.contains("has 4"),
        "{message}"
    );
}

#[test]
fn a_column_of_another_length_than_its_batch_is_named() {
    // 9 slots (3 of them null, as the bitmap says) in a batch of 10 rows.
    let err = error_with_field_node(9, 3);
    assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
    assert!(
        err.to_string()
            .contains("column x: 9 rows in a batch of 10"),
        "{err}"
    );
}

#[test]
fn nulls_in_a_field_that_is_not_nullable_are_read_unless_the_check_is_asked_for() {
    // The schema message of a stream whose field is not nullable, followed by the batch of
    // one whose field is (and has nulls): the batch message does not depend on the flag.
    let strict = nullable_x_stream(false, false);
    let loose = nullable_x_stream(true, true);
    let schema_message = |bytes: &[u8]| {
        let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap());
        8 + usize::try_from(len).unwrap()
    };
    let mut spliced = strict[..schema_message(&strict)].to_vec();
    spliced.extend_from_slice(&loose[schema_message(&loose)..]);
    // Nullability is metadata: read as pyarrow reads it, nulls and all.
    let batch = StreamReader::try_new(&spliced[..])
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert!(!batch.schema().fields()[0].is_nullable());
    assert_eq!(batch.column(0).null_count(), 4);
    let checked = ReadOptions::default().with_nullability_check(true);
    let err = StreamReader::with_options(&spliced[..], checked)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
    assert!(
        err.to_string()
            .contains("column x: field \"x\": not nullable, found 4 nulls"),
        "{err}"
    );
    // The splice itself is sound: the loose stream's own schema reads the same batch.
    let reader = StreamReader::try_new(&loose[..]).unwrap();
    assert_eq!(reader.map(|b| b.unwrap().num_rows()).sum::<usize>(), 10);
}

#[test]
fn files_check_their_magic_and_footer() {
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
    let column: ArrayRef = Arc::new(Int64Array::from(vec![1i64, 2]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let mut writer = FileWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    let bytes = writer.into_inner().unwrap();
    let open = |b: &[u8]| {
        FileReader::from_buffer(Buffer::from_slice_ref(b))
            .err()
            .unwrap()
    };

    let mut wrong_end = bytes.clone();
    let n = wrong_end.len();
    wrong_end[n - 7..].copy_from_slice(b"ARROW1X");
    let err = open(&wrong_end).to_string();
    assert!(err.contains("does not end with ALKAID1 or ARROW1"), "{err}");
    // The other magic at the end than at the start.
    let mut mixed = bytes[..n - 7].to_vec();
    mixed.extend_from_slice(b"ARROW1");
    let err = open(&mixed).to_string();
    assert!(
        err.contains("ends with ARROW1 but starts with ALKAID1"),
        "{err}"
    );
    let mut wrong_start = bytes.clone();
    wrong_start[..8].copy_from_slice(b"PARQUET1");
    assert!(open(&wrong_start).to_string().contains("does not start"));
    let mut footer = bytes.clone();
    footer[n - 11..n - 7].copy_from_slice(&(n as i32).to_le_bytes());
    assert_eq!(open(&footer).kind(), IpcErrorKind::Malformed);
    assert_eq!(open(&bytes[..10]).kind(), IpcErrorKind::Truncated);
}

#[test]
fn schemas_nested_thousands_deep_are_refused() {
    // Writing and dropping a type this deep recurses; do it on a thread with room.
    let bytes = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let mut data_type = DataType::Int32;
            for _ in 0..5000 {
                data_type = DataType::list(data_type);
            }
            let schema = Arc::new(Schema::new(vec![Field::new("deep", data_type, true)]));
            let mut writer =
                StreamWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
            writer.finish().unwrap();
            writer.into_inner().unwrap()
        })
        .unwrap()
        .join()
        .unwrap();
    let err = StreamReader::try_new(&bytes[..]).err().unwrap();
    assert!(
        matches!(
            err.kind(),
            IpcErrorKind::Malformed | IpcErrorKind::LimitExceeded
        ),
        "{err}"
    );
}

//! One test for each resource limit the readers document (the table in the crate docs):
//! input just inside a limit is read, input just past it is refused with the documented
//! error kind, and the memory a hostile input costs is measured. This binary's allocator
//! counts the live bytes of the thread being measured, so tests running in parallel do not
//! disturb each other's figures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use alkaid_array::{ArrayRef, Int32Array, NullArray, RecordBatch, StructArray};
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    BufferStreamReader, Compression, Decoder, FileReader, FileWriter, IpcErrorKind,
    MAX_FIELD_DEPTH, Magic, ReadOptions, StreamReader, WriteOptions,
};
use alkaid_schema::{DataType, Field, Fields, Schema, SchemaRef};

mod support;

use support::{
    first_batch_error, int_batch, lying_body_stream, replace_i64, schema_message_len, stream,
};

struct Counting;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static TOTAL: Cell<usize> = const { Cell::new(0) };
}

/// Adds `delta` to the measured thread's live bytes.
fn record(delta: isize) {
    // `try_with`: allocations while the thread's locals are torn down are not counted.
    let _ = MEASURING.try_with(|measuring| {
        if measuring.get() {
            let live = LIVE.with(|l| {
                l.set(l.get() + delta);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(live)));
            if delta > 0 {
                TOTAL.with(|t| t.set(t.get() + delta as usize));
            }
        }
    });
}

// SAFETY: every call forwards to `System` with the caller's layout unchanged; the wrapper
// only adds up sizes in thread-locals that never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as isize);
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as isize);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        record(-(layout.size() as isize));
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size as isize - layout.size() as isize);
        // SAFETY: the caller's contract for `realloc` is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the most bytes it held alive at once.
fn peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    MEASURING.with(|m| m.set(true));
    let out = f();
    MEASURING.with(|m| m.set(false));
    (out, PEAK.with(Cell::get).max(0) as usize)
}

/// Runs `f` and returns its result with the bytes it allocated in all (freed or not).
fn allocated<T>(f: impl FnOnce() -> T) -> (T, usize) {
    TOTAL.with(|t| t.set(0));
    let (out, _) = peak(f);
    (out, TOTAL.with(Cell::get))
}

const MIB: usize = 1 << 20;

fn file(schema: SchemaRef, batches: &[RecordBatch]) -> Vec<u8> {
    let options = WriteOptions::default().with_magic(Magic::Arrow);
    let mut writer = FileWriter::try_new(Vec::new(), schema, options).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.into_inner().unwrap()
}

/// A schema-only stream of one field `levels` levels deep (the field and its items).
fn nested_stream(levels: usize) -> Vec<u8> {
    let mut data_type = DataType::Int32;
    for _ in 1..levels {
        data_type = DataType::list(data_type);
    }
    let schema = Arc::new(Schema::new(vec![Field::new("deep", data_type, true)]));
    stream(schema, &[], WriteOptions::default())
}

#[test]
fn fields_nest_at_most_max_field_depth_levels() {
    let inside = nested_stream(MAX_FIELD_DEPTH);
    let schema = StreamReader::try_new(&inside[..]).unwrap().schema();
    assert_eq!(schema.fields().len(), 1);

    let past = nested_stream(MAX_FIELD_DEPTH + 1);
    let err = StreamReader::try_new(&past[..]).err().unwrap();
    assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");
    assert!(err.to_string().contains("deeper than 64 levels"), "{err}");
    let mut decoder = Decoder::new();
    decoder.push(&past);
    assert_eq!(
        decoder.next_message().unwrap_err().kind(),
        IpcErrorKind::LimitExceeded
    );
}

#[test]
fn message_metadata_is_limited_and_costs_only_what_arrives() {
    // The default limit, 64 MiB: one byte more is refused before anything is read.
    let mut prefix = vec![0xFF; 4];
    prefix.extend_from_slice(&((64 << 20) + 1i32).to_le_bytes());
    let (err, held) = peak(|| StreamReader::try_new(&prefix[..]).err().unwrap());
    assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");
    assert!(held < MIB, "{held} bytes held");

    // Exactly 64 MiB declared, 100 bytes sent: memory follows the bytes, not the claim.
    let mut short = vec![0xFF; 4];
    short.extend_from_slice(&(64i32 << 20).to_le_bytes());
    short.extend_from_slice(&[0; 100]);
    let (err, held) = peak(|| StreamReader::try_new(&short[..]).err().unwrap());
    assert_eq!(err.kind(), IpcErrorKind::Truncated, "{err}");
    assert!(held < 2 * MIB, "{held} bytes held");

    // A lower limit refuses an ordinary stream's schema message in every reader.
    let batch = int_batch(10);
    let bytes = stream(
        batch.schema().clone(),
        std::slice::from_ref(&batch),
        WriteOptions::default(),
    );
    let strict = ReadOptions::default().with_max_metadata_bytes(32);
    let err = StreamReader::with_options(&bytes[..], strict.clone())
        .err()
        .unwrap();
    assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");
    let err = BufferStreamReader::with_options(Buffer::from_slice_ref(&bytes), strict.clone())
        .err()
        .unwrap();
    assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");
    let mut decoder = Decoder::with_options(strict.clone());
    decoder.push(&bytes);
    assert_eq!(
        decoder.next_message().unwrap_err().kind(),
        IpcErrorKind::LimitExceeded
    );
    let roomy = ReadOptions::default().with_max_metadata_bytes(4096);
    assert_eq!(
        StreamReader::with_options(&bytes[..], roomy.clone())
            .unwrap()
            .count(),
        1
    );

    // A file's footer counts as metadata too.
    let bytes = file(batch.schema().clone(), &[batch]);
    let err = FileReader::open(Buffer::from_slice_ref(&bytes), strict)
        .err()
        .unwrap();
    assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");
    assert!(err.to_string().contains("footer"), "{err}");
    let mut reader = FileReader::open(Buffer::from_slice_ref(&bytes), roomy).unwrap();
    assert_eq!(reader.batch(0).unwrap().num_rows(), 10);
}

#[test]
fn a_flatbuffer_holds_at_most_two_to_the_20_tables() {
    // Each field is two tables (the field and its type): 2^19 + 8 fields are past the limit.
    let fields = |n: usize| -> Fields {
        (0..n)
            .map(|i| Field::new(format!("f{i}"), DataType::Null, true))
            .collect()
    };
    let past = Arc::new(Schema::new(fields((1 << 19) + 8)));
    let bytes = stream(past, &[], WriteOptions::default());
    let err = StreamReader::try_new(&bytes[..]).err().unwrap();
    assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
    assert!(err.to_string().to_lowercase().contains("tables"), "{err}");

    // A wide schema well inside it reads.
    let inside = Arc::new(Schema::new(fields(100_000)));
    let bytes = stream(inside, &[], WriteOptions::default());
    let schema = StreamReader::try_new(&bytes[..]).unwrap().schema();
    assert_eq!(schema.fields().len(), 100_000);
}

#[test]
fn a_batch_lists_exactly_the_nodes_and_buffers_its_schema_uses() {
    // Two batches of one Int32 column: one node and two buffers each. Reading the bytes of
    // the first batch's message under a schema of two columns asks for more than it lists;
    // under a schema of no columns, for fewer.
    let batch = int_batch(5);
    let bytes = stream(
        batch.schema().clone(),
        std::slice::from_ref(&batch),
        WriteOptions::default(),
    );
    let schema_len = schema_message_len(&bytes);
    let batch_message = &bytes[schema_len..];
    for fields in [
        vec![
            Field::new("x", DataType::Int32, true),
            Field::new("y", DataType::Int32, true),
        ],
        vec![],
    ] {
        let other = Arc::new(Schema::new(fields));
        let mut spliced = stream(other, &[], WriteOptions::default());
        spliced.truncate(schema_message_len(&spliced));
        spliced.extend_from_slice(batch_message);
        let err = first_batch_error(&spliced);
        assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
        let text = err.to_string();
        assert!(
            text.contains("too few") || text.contains("field nodes and"),
            "{text}"
        );
    }
}

#[test]
fn a_body_costs_memory_only_as_its_bytes_arrive() {
    // A 1 MiB batch whose message claims a 1 GiB body, then the stream ends. The row count
    // makes the body (padded) longer than its one buffer, so its length is found alone.
    let bytes = lying_body_stream((1 << 18) + 3, 1 << 30);
    let (err, held) = peak(|| first_batch_error(&bytes));
    assert_eq!(err.kind(), IpcErrorKind::Truncated, "{err}");
    assert!(held < 4 * MIB, "{held} bytes held for a 1 MiB input");

    // From memory or a file, a body that lies past the input is refused without a copy.
    let (err, held) = peak(|| {
        BufferStreamReader::try_new(Buffer::from_slice_ref(&bytes))
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err()
    });
    assert!(
        matches!(
            err.kind(),
            IpcErrorKind::Truncated | IpcErrorKind::Malformed
        ),
        "{err}"
    );
    assert!(held < 2 * MIB + bytes.len(), "{held} bytes held");
}

#[test]
fn a_compressed_buffer_costs_what_its_codec_produces_not_what_it_declares() {
    for compression in [Compression::Lz4Frame, Compression::ZSTD] {
        // 4 MiB of one repeated value compresses to a few kilobytes.
        let batch = RecordBatch::try_new(
            int_batch(1).schema().clone(),
            vec![Arc::new(Int32Array::from(vec![7; 1 << 20])) as ArrayRef],
        )
        .unwrap();
        let mut bytes = stream(
            batch.schema().clone(),
            &[batch],
            WriteOptions::default().with_compression(compression),
        );
        // The uncompressed length prefix of the values buffer.
        replace_i64(&mut bytes, 4 << 20, 1 << 40);
        let (err, held) = peak(|| first_batch_error(&bytes));
        assert_eq!(err.kind(), IpcErrorKind::Malformed, "{err}");
        assert!(err.to_string().contains("buffer"), "{err}");
        // What the codec really produced (4 MiB, grown by doubling), never the 1 TiB claim.
        assert!(held < 16 * MIB, "{compression:?}: {held} bytes held");
    }
}

#[test]
fn a_message_decompresses_to_at_most_its_limit_checked_before_decompressing() {
    // Two columns of 4 MiB each of one repeated value: a few kilobytes compressed, which
    // honestly decompress to 8 MiB (a decompression bomb in miniature).
    let column = || Arc::new(Int32Array::from(vec![7; 1 << 20])) as ArrayRef;
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int32, false),
        Field::new("b", DataType::Int32, false),
    ]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column(), column()]).unwrap();
    for compression in [Compression::Lz4Frame, Compression::ZSTD] {
        let options = WriteOptions::default().with_compression(compression);
        let bytes = stream(schema.clone(), std::slice::from_ref(&batch), options);
        assert!(bytes.len() < MIB, "{} bytes", bytes.len());
        for threads in [1, 2] {
            let read = |limit: Option<usize>| {
                let options = ReadOptions::default()
                    .with_decompression_threads(threads)
                    .with_max_decompressed_bytes(limit);
                let mut reader = StreamReader::with_options(&bytes[..], options).unwrap();
                reader.next().unwrap()
            };
            // At the limit: read.
            assert_eq!(read(Some(8 * MIB)).unwrap().num_rows(), 1 << 20);
            assert_eq!(read(None).unwrap().num_rows(), 1 << 20);
            // One byte short: the second buffer is refused before it is decompressed, and
            // what the first cost is all that was held.
            let (err, held) = peak(|| read(Some(8 * MIB - 1)).unwrap_err());
            assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");
            let message = err.to_string();
            assert!(message.contains("b: buffer"), "names the column: {message}");
            assert!(
                message.contains("limit of 8388607 decompressed bytes"),
                "names the limit: {message}"
            );
            assert!(
                held < 12 * MIB,
                "{compression:?}, {threads} threads: {held} held"
            );
            // A small limit refuses the first buffer, having decompressed nothing.
            let (err, held) = peak(|| read(Some(MIB)).unwrap_err());
            assert_eq!(err.kind(), IpcErrorKind::LimitExceeded, "{err}");
            assert!(
                held < 2 * MIB,
                "{compression:?}, {threads} threads: {held} held"
            );
        }
    }
}

#[test]
fn unifying_dictionaries_costs_the_bytes_written_not_the_batches_squared() {
    use alkaid_array::types::Int32Type;
    use alkaid_array::{Array, DictionaryArray, StringArray};
    use alkaid_ipc::FileDictionaries;
    // Each batch brings a dictionary of its own (as a GROUP BY's output or a stream that
    // replaces its dictionaries does): the file appends each as a delta.
    let batches = |n: usize| -> Vec<RecordBatch> {
        (0..n)
            .map(|b| {
                let values: Vec<String> =
                    (0..256).map(|v| format!("batch {b} value {v}")).collect();
                let keys =
                    alkaid_array::PrimitiveArray::<Int32Type>::from((0..256).collect::<Vec<i32>>());
                let values: ArrayRef = Arc::new(StringArray::from(values));
                let column = DictionaryArray::<Int32Type>::try_new(keys, values).unwrap();
                let schema = Arc::new(Schema::new(vec![Field::new(
                    "d",
                    column.data_type().clone(),
                    false,
                )]));
                RecordBatch::try_new(schema, vec![Arc::new(column) as ArrayRef]).unwrap()
            })
            .collect()
    };
    let write = |batches: &[RecordBatch]| {
        let options = WriteOptions::default().with_file_dictionaries(FileDictionaries::Unify);
        let schema = batches[0].schema().clone();
        let mut writer = FileWriter::try_new(Vec::new(), schema, options).unwrap();
        for batch in batches {
            writer.write(batch).unwrap();
        }
        writer.into_inner().unwrap()
    };
    let (few, many) = (batches(100), batches(400));
    let (small, small_cost) = allocated(|| write(&few));
    let (large, large_cost) = allocated(|| write(&many));
    // Four times the batches cost about four times the memory traffic (the output vector
    // doubles as it grows, so allow for that), never sixteen times.
    assert!(
        large_cost < 6 * small_cost,
        "100 batches: {small_cost} bytes allocated; 400: {large_cost}"
    );
    assert!(
        large_cost < 16 * large.len(),
        "{large_cost} bytes for a {}-byte file",
        large.len()
    );
    // And the file holds every row as written.
    assert!(!small.is_empty());
    let mut reader = FileReader::from_buffer(Buffer::from(large)).unwrap();
    assert_eq!(reader.num_batches(), 400);
    let last = reader.batch(399).unwrap();
    let shown = |b: &RecordBatch| {
        alkaid_array::display::pretty_format_batches(std::slice::from_ref(b), None)
    };
    assert_eq!(shown(&last), shown(&many[399]));
}

#[test]
fn a_length_costs_nothing_by_itself() {
    // 2^40 rows of a null column and of a struct with no fields: nothing to allocate.
    let rows = 1usize << 40;
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Null, true),
        Field::new("s", DataType::Struct(Fields::empty()), false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(NullArray::new(rows)),
        Arc::new(StructArray::try_new_with_len(Fields::empty(), vec![], None, rows).unwrap()),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let bytes = stream(schema, &[batch], WriteOptions::default());
    let (read, held) = peak(|| {
        StreamReader::try_new(&bytes[..])
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
    });
    assert_eq!(read.num_rows(), rows);
    assert!(held < MIB, "{held} bytes held");
}

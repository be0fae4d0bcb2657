//! Fuzz targets for Alkaid's readers of untrusted bytes, and for `cast` of untrusted text.
//!
//! Each target's body is a function here; the binaries in `fuzz_targets/` only hand it
//! libFuzzer's input, and `tests/regressions.rs` hands it every input committed under
//! `regressions/<target>/`, so that `cargo test` replays whatever fuzzing found. Every
//! target uses all it reads ([`consume`]): a bug deferred to the first read of a value
//! still shows.
//!
//! ```
//! // Junk is an error inside, never a panic.
//! alkaid_fuzz::ipc_stream(b"\xff\xff\xff\xff\x10\x00\x00\x00not a flatbuffer!");
//! ```

use std::io::Cursor;

mod c_data;
mod cast;
#[cfg(feature = "flight_sql")]
mod flight_sql;
mod formats;
mod tabular;
pub use c_data::c_data;
pub use cast::cast_text;
#[cfg(feature = "flight_sql")]
pub use flight_sql::flight_sql;
pub use formats::{integration_json, tensor};
pub use tabular::{csv, json, parquet};

use alkaid_array::display::format_value;
use alkaid_array::{RecordBatch, make_array};
use alkaid_buffer::Buffer;
use alkaid_data::{ArrayData, ValidationLevel, equal, layout};
use alkaid_ipc::{BufferStreamReader, Decoded, Decoder, FileReader, StreamReader};
use alkaid_schema::DataType;

/// Makes a panic that a reader catches (arrow-rs's, which alkaid-formats turns into an
/// error) a line on standard error, once per place, instead of the abort libFuzzer's hook
/// makes of every panic: fuzzing then goes on past a known panic of arrow-rs and reports
/// each new place it finds one. A panic no reader catches still reaches libFuzzer's
/// wrapper, which aborts: that is a crash of Alkaid's own.
pub fn report_caught_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let seen = std::sync::Mutex::new(std::collections::HashSet::new());
        std::panic::set_hook(Box::new(move |info| {
            let place = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            if seen.lock().is_ok_and(|mut seen| seen.insert(place)) {
                eprintln!("caught panic: {info}");
            }
        }));
    });
}

/// Touches every value of every column of `batch`: formats each one, and re-runs full
/// validation, which must agree with the reader (it validated already).
pub fn consume(batch: &RecordBatch) {
    for column in batch.columns() {
        assert!(
            column.to_data().validate(ValidationLevel::Full).is_ok(),
            "a reader handed out a batch that full validation refuses"
        );
        for i in 0..column.len() {
            let _ = format_value(column.as_ref(), i);
        }
    }
}

/// The stream readers: `StreamReader` over `Read`, and the push decoder fed in pieces
/// whose size the first byte chooses.
pub fn ipc_stream(data: &[u8]) {
    if let Ok(reader) = StreamReader::try_new(data) {
        for batch in reader {
            match batch {
                Ok(batch) => consume(&batch),
                Err(_) => break,
            }
        }
    }
    let piece = usize::from(data.first().copied().unwrap_or(1)).max(1);
    let mut decoder = Decoder::new();
    for chunk in data.chunks(piece) {
        decoder.push(chunk);
        loop {
            match decoder.next_message() {
                Ok(Some(Decoded::Batch(batch, _))) => consume(&batch),
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(_) => return,
            }
        }
    }
    let _ = decoder.finish();
}

/// The file reader through `Read + Seek`: every batch by index, in reverse, so that random
/// access is exercised.
pub fn ipc_file(data: &[u8]) {
    if let Ok(mut reader) = FileReader::try_new(Cursor::new(data)) {
        for i in (0..reader.num_batches()).rev() {
            if let Ok(batch) = reader.batch(i) {
                consume(&batch);
            }
        }
    }
}

/// The zero-copy readers over the bytes in a `Buffer`: a file's batches and a stream's.
pub fn ipc_zero_copy(data: &[u8]) {
    let bytes = Buffer::from_slice_ref(data);
    if let Ok(mut reader) = FileReader::from_buffer(bytes.clone()) {
        for i in 0..reader.num_batches() {
            if let Ok(batch) = reader.batch(i) {
                consume(&batch);
            }
        }
    }
    if let Ok(reader) = BufferStreamReader::try_new(bytes) {
        for batch in reader {
            match batch {
                Ok(batch) => consume(&batch),
                Err(_) => break,
            }
        }
    }
}

/// The types [`array_data`] builds arrays of: one of every layout.
const TYPES: [&str; 16] = [
    "Int32",
    "Boolean",
    "Utf8",
    "LargeBinary",
    "Utf8View",
    "Decimal128(10, 2)",
    "List(item: Int8)",
    "LargeList(item: Utf8)",
    "ListView(item: Int16)",
    "FixedSizeList(3, item: Int8)",
    "Struct(a: Int8, b: Utf8)",
    "Union(Dense, 0 => a: Int8, 1 => b: Utf8)",
    "Union(Sparse, 0 => a: Int8, 1 => b: Int16)",
    "Dictionary(Int8, Utf8)",
    "RunEndEncoded(r: Int16 not null, v: Utf8)",
    "Map(entries: Struct(key: Utf8 not null, value: Int32))",
];

/// Takes `n` bytes from the front of `data` (fewer if it runs out).
fn take<'a>(data: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (head, tail) = data.split_at(n.min(data.len()));
    *data = tail;
    head
}

/// An array of `data_type` from the input's bytes: length, offset, buffers, children and
/// dictionary; `None` when the input runs out or full validation refuses it.
fn build(data_type: &DataType, data: &mut &[u8], depth: usize) -> Option<ArrayData> {
    let header = take(data, 2);
    let (len, offset) = (
        usize::from(*header.first()?),
        usize::from(*header.get(1)? % 4),
    );
    let spec = layout(data_type);
    let mut builder = ArrayData::builder(data_type.clone())
        .len(len)
        .offset(offset);
    let count = spec.buffers.len() + usize::from(spec.variadic);
    for _ in 0..count {
        let size = usize::from(*take(data, 1).first()?) * 4;
        builder = builder.add_buffer(Buffer::from_slice_ref(take(data, size)));
    }
    if depth < 3 {
        for field in data_type.children() {
            builder = builder.add_child(build(field.data_type(), data, depth + 1)?);
        }
        if let DataType::Dictionary { value, .. } = data_type {
            builder = builder.dictionary(build(value, data, depth + 1)?);
        }
    }
    builder.build().ok()
}

/// `ArrayData` full validation over parts the input chooses (a type from a fixed list,
/// then lengths and buffers): whatever validation accepts must be readable, so every value
/// is formatted and the array compared with itself.
pub fn array_data(data: &[u8]) {
    let Some((&choice, mut rest)) = data.split_first() else {
        return;
    };
    let Ok(data_type) = TYPES[usize::from(choice) % TYPES.len()].parse::<DataType>() else {
        return;
    };
    if let Some(array) = build(&data_type, &mut rest, 0) {
        assert!(equal(&array, &array));
        let array = make_array(array);
        for i in 0..array.len() {
            let _ = format_value(array.as_ref(), i);
        }
    }
}

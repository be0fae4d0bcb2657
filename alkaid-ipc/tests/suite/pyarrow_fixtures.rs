//! Files and streams written by pyarrow (tests/fixtures/make_fixtures.py) read back with the
//! values the script wrote. Each column's value at row `i` is the formula the script uses;
//! rows with `i % 3 == 1` are null where the type allows it. The table was sliced to rows
//! 1..7 before writing.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use alkaid_array::{Array, RecordBatch};
use alkaid_buffer::Buffer;
use alkaid_ipc::{FileReader, IpcErrorKind, StreamReader};
use alkaid_schema::Metadata;
use common::Value;
use common::decode::decode;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pyarrow")
        .join(name)
}

/// The batches of a stream fixture, read by the `Read`-based reader; the push decoder (fed
/// 7 bytes at a time) and the zero-copy reader must give the same batches.
fn read_stream(name: &str) -> Vec<RecordBatch> {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let batches: Vec<RecordBatch> = StreamReader::try_new(&bytes[..])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut decoder = alkaid_ipc::Decoder::new();
    let mut pushed = Vec::new();
    for chunk in bytes.chunks(7) {
        decoder.push(chunk);
        while let Some(message) = decoder
            .next_message()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
        {
            if let alkaid_ipc::Decoded::Batch(batch, _) = message {
                pushed.push(batch);
            }
        }
    }
    decoder.finish().unwrap();
    let zero_copy: Vec<RecordBatch> = alkaid_ipc::BufferStreamReader::try_new(Buffer::from(bytes))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for other in [&pushed, &zero_copy] {
        assert_eq!(other.len(), batches.len(), "{name}");
        for (a, b) in other.iter().zip(&batches) {
            for (x, y) in a.columns().iter().zip(b.columns()) {
                assert!(alkaid_data::equal(&x.to_data(), &y.to_data()), "{name}");
            }
        }
    }
    batches
}

fn read_file(name: &str) -> Vec<RecordBatch> {
    let bytes = Buffer::from(std::fs::read(fixture(name)).unwrap());
    let zero_copy: Vec<RecordBatch> = FileReader::from_buffer(bytes.clone())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let file = std::fs::File::open(fixture(name)).unwrap();
    let seeking: Vec<RecordBatch> = FileReader::try_new(file)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(zero_copy.len(), seeking.len());
    zero_copy
}

fn int(v: i128, width: usize) -> Value {
    Value::Bytes(v.to_le_bytes()[..width].to_vec())
}

fn text(s: impl AsRef<str>) -> Value {
    Value::Bytes(s.as_ref().as_bytes().to_vec())
}

fn nulled(i: i128, v: Value) -> Value {
    if i % 3 == 1 { Value::Null } else { v }
}

/// The value the script wrote in `column` at row `i`.
fn expected(column: &str, i: i128) -> Value {
    let n = |v: Value| nulled(i, v);
    let list = |items: Vec<Value>| n(Value::List(items));
    match column {
        "null" => Value::Null,
        "bool" => n(Value::Bool(i % 2 == 0)),
        "int8" => n(int(i * 7 - 20, 1)),
        "int16" => n(int(i * 1000 - 3000, 2)),
        "int32" => n(int(i * 100_000 - 7, 4)),
        "int64" => n(int(i * 1_000_000_000_000 - 5, 8)),
        "uint8" => n(int(i * 30, 1)),
        "uint16" => n(int(i * 8000, 2)),
        "uint32" => n(int(i * 500_000_000, 4)),
        "uint64" => n(int(i << 61, 8)),
        "float16" => n(Value::Bytes(
            half::f16::from_f64(i as f64 * 0.5).to_le_bytes().to_vec(),
        )),
        "float32" => n(Value::Bytes((i as f32 * 1.25 - 2.0).to_le_bytes().to_vec())),
        "float64" => n(Value::Bytes((i as f64 / 4.0 - 1.0).to_le_bytes().to_vec())),
        "decimal32" => n(int(i * 123 - 50, 4)),
        "decimal64" => n(int(i * 1_000_000_000 - 1, 8)),
        "decimal128" => n(int(i * 10i128.pow(15) - 1, 16)),
        "decimal256" => {
            // i * 10^40 - 1 does not fit i128 for i > 0: build the 256-bit value by hand.
            let value = alkaid_buffer::native::i256::from_i128(i)
                .wrapping_mul(alkaid_buffer::native::i256::from_i128(10i128.pow(20)))
                .wrapping_mul(alkaid_buffer::native::i256::from_i128(10i128.pow(20)))
                .wrapping_sub(alkaid_buffer::native::i256::from_i128(1));
            n(Value::Bytes(value.to_le_bytes().to_vec()))
        }
        "date32" => n(int(19000 + i, 4)),
        "date64" => n(int((19000 + i) * 86_400_000, 8)),
        "time32s" => n(int(i * 3600, 4)),
        "time32ms" => n(int(i * 3_600_000 + 1, 4)),
        "time64us" => n(int(i * 1_000_000_000 + 7, 8)),
        "time64ns" => n(int(i * 1_000_000_000_000 + 9, 8)),
        "ts_s" => n(int(1_700_000_000 + i, 8)),
        "ts_ms" => n(int(1_700_000_000_000 + i, 8)),
        "ts_us" => n(int(1_700_000_000_000_000 + i, 8)),
        "ts_ns" => n(int(1_700_000_000_000_000_000 + i, 8)),
        "dur_s" => n(int(i - 3, 8)),
        "dur_ms" => n(int(i * 10 - 3, 8)),
        "dur_us" => n(int(i * 100 - 3, 8)),
        "dur_ns" => n(int(i * 1000 - 3, 8)),
        "interval" => {
            let mut bytes = (i as i32).to_le_bytes().to_vec();
            bytes.extend((-i as i32).to_le_bytes());
            bytes.extend((i as i64 * 1_000_000_000).to_le_bytes());
            n(Value::Bytes(bytes))
        }
        "binary" | "large_binary" => n(Value::Bytes(vec![i as u8; i as usize])),
        "utf8" | "large_utf8" => n(text(format!("{}{i}", "é".repeat(i as usize)))),
        "binary_view" => n(Value::Bytes(vec![b'v'; i as usize * 3])),
        "utf8_view" => n(text(if i % 2 == 1 {
            format!("a long string, number {i}")
        } else {
            format!("s{i}")
        })),
        "fixed_binary" => n(Value::Bytes(vec![i as u8, i as u8 + 1, i as u8 + 2])),
        "list" => list(
            (0..i % 4)
                .map(|j| {
                    if j == 2 {
                        Value::Null
                    } else {
                        int(i * 10 + j, 4)
                    }
                })
                .collect(),
        ),
        "large_list" => list((0..i % 3).map(|j| text(format!("x{j}"))).collect()),
        "list_view" => list((0..i % 3).map(|j| int(j, 2)).collect()),
        "large_list_view" => list((0..i % 3).map(|j| int(j, 1)).collect()),
        "fixed_list" => list(vec![
            Value::Bytes((i as f64).to_le_bytes().to_vec()),
            Value::Bytes((-i as f64).to_le_bytes().to_vec()),
        ]),
        "nested" => n(Value::Struct(vec![
            int(i, 4),
            Value::List(
                (0..i % 3)
                    .map(|j| Value::Struct(vec![text(format!("c{i}{j}")), Value::Bool(j % 2 == 0)]))
                    .collect(),
            ),
        ])),
        "map" => list(
            (0..i % 3)
                .map(|j| Value::Struct(vec![text(format!("k{j}")), int(i * j, 8)]))
                .collect(),
        ),
        "sparse_union" | "dense_union" => {
            if i % 2 == 0 {
                Value::Union(5, Box::new(int(i, 4)))
            } else {
                Value::Union(7, Box::new(text(format!("u{i}"))))
            }
        }
        "dictionary" => n(text(["red", "green", "blue"][(i % 3) as usize])),
        "list_of_dictionary" => Value::List(
            (0..i % 3)
                .map(|j| text(["a", "b"][(j % 2) as usize]))
                .collect(),
        ),
        "struct_of_dictionary" => Value::Struct(vec![text(format!("w{}", i % 2))]),
        "run_end_encoded" => text(format!("run{}", i / 3)),
        other => panic!("no formula for column {other}"),
    }
}

/// Every column of `batches`, concatenated across batches, against the formulas.
fn check_all_types(name: &str, batches: &[RecordBatch]) {
    let schema = batches[0].schema().clone();
    assert_eq!(schema.fields().len(), 52, "{name}: {schema}");
    for (c, field) in schema.fields().iter().enumerate() {
        let got: Vec<Value> = batches
            .iter()
            .flat_map(|b| decode(&b.column(c).to_data()))
            .collect();
        let want: Vec<Value> = (1..7).map(|i| expected(field.name(), i)).collect();
        assert_eq!(got, want, "{name}: column {}", field.name());
    }
}

#[test]
fn every_type_reads_from_pyarrow_streams_and_files() {
    check_all_types("all_types.stream", &read_stream("all_types.stream"));
    check_all_types("all_types.arrow", &read_file("all_types.arrow"));
    check_all_types("all_types_lz4.stream", &read_stream("all_types_lz4.stream"));
    check_all_types("all_types_zstd.arrow", &read_file("all_types_zstd.arrow"));
    check_all_types(
        "all_types_legacy.stream",
        &read_stream("all_types_legacy.stream"),
    );
}

#[test]
fn the_schema_reads_as_written() {
    let batches = read_stream("all_types.stream");
    let schema = batches[0].schema();
    let types: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| f.data_type().to_string())
        .collect();
    for wanted in [
        "Timestamp(us, \"Europe/Paris\")",
        "Decimal256(50, 5)",
        "Map(entries: Struct(key: Utf8 not null, value: Int64) not null)",
        "Union(Dense, 5 => i: Int32, 7 => s: Utf8)",
        "Struct(a: Int32, b: List(item: Struct(c: Utf8, d: Boolean)))",
        "RunEndEncoded(run_ends: Int32 not null, values: Utf8)",
        "List(item: Dictionary(Int16, Utf8))",
    ] {
        assert!(
            types.iter().any(|t| t == wanted),
            "{wanted} not in {types:?}"
        );
    }
}

#[test]
fn empty_inputs_read_as_empty() {
    assert!(read_stream("no_batches.stream").is_empty());
    assert!(read_file("no_batches.arrow").is_empty());
    let bytes = std::fs::read(fixture("no_batches.stream")).unwrap();
    let reader = StreamReader::try_new(&bytes[..]).unwrap();
    assert_eq!(reader.schema().metadata().get("origin"), Some("pyarrow"));
    let empty = read_stream("empty_batch.stream");
    assert_eq!(empty.len(), 1);
    assert_eq!(empty[0].num_rows(), 0);
    assert_eq!(empty[0].num_columns(), 52);
}

fn words(batches: &[RecordBatch]) -> Vec<Vec<Value>> {
    batches
        .iter()
        .map(|b| decode(&b.column(0).to_data()))
        .collect()
}

#[test]
fn dictionary_deltas_and_replacements_from_pyarrow() {
    // Each batch holds its dictionary's words in reverse order.
    let rev = |w: &[&str]| w.iter().rev().map(text).collect::<Vec<_>>();
    let deltas = read_stream("dictionary_deltas.stream");
    assert_eq!(
        words(&deltas),
        vec![rev(&["a"]), rev(&["a", "b"]), rev(&["a", "b", "c", "d"])]
    );
    let replaced = read_stream("dictionary_replacement.stream");
    assert_eq!(
        words(&replaced),
        vec![rev(&["x", "y"]), rev(&["p", "q", "r"])]
    );
}

#[test]
fn metadata_at_every_level() {
    let bytes = std::fs::read(fixture("metadata.stream")).unwrap();
    let mut reader = StreamReader::try_new(&bytes[..]).unwrap();
    let schema = reader.schema();
    assert_eq!(schema.metadata().get("table"), Some("fixture"));
    assert_eq!(schema.fields()[0].metadata().get("unit"), Some("metres"));
    let mut seen = Vec::new();
    while let Some(next) = reader.next_with_metadata() {
        let (_, metadata): (RecordBatch, Metadata) = next.unwrap();
        seen.push(metadata.get("batch").unwrap().to_string());
    }
    assert_eq!(seen, ["first", "second"]);
}

#[test]
fn cut_fixtures_are_truncation_errors() {
    let bytes = std::fs::read(fixture("all_types.stream")).unwrap();
    for cut in [3, 9, 100, bytes.len() / 2, bytes.len() - 9] {
        let result: Result<Vec<RecordBatch>, _> =
            StreamReader::try_new(&bytes[..cut]).and_then(|r| r.collect());
        let err = result.expect_err("a cut stream");
        assert!(
            matches!(
                err.kind(),
                IpcErrorKind::Truncated | IpcErrorKind::Malformed
            ),
            "cut at {cut}: {err}"
        );
    }
}

/// Writes the same table as the fixtures (values from the formulas, laid out at random by
/// the test encoder, sliced with junk around them) as streams and `ARROW1` files under
/// every compression, for `check_alkaid_files.py` to read with pyarrow in CI.
#[test]
fn writes_files_for_pyarrow() {
    use alkaid_array::{ArrayRef, make_array};
    use alkaid_ipc::{Compression, FileWriter, Magic, StreamWriter, WriteOptions};
    use common::Rng;
    use common::encode::encode;

    let schema = read_stream("all_types.stream")[0].schema().clone();
    let mut rng = Rng::new(7);
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .map(|f| {
            let values: Vec<Value> = (0..8).map(|i| expected(f.name(), i)).collect();
            make_array(encode(f.data_type(), &values, &mut rng))
        })
        .collect();
    let table = RecordBatch::try_new(schema.clone(), columns)
        .unwrap()
        .slice(1, 6);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("interop");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, compression) in [
        ("none", Compression::None),
        ("lz4", Compression::Lz4Frame),
        ("zstd", Compression::ZSTD),
    ] {
        let options = WriteOptions::default()
            .with_compression(compression)
            .with_magic(Magic::Arrow);
        let mut stream =
            StreamWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        let mut file = FileWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
        // Two batches, the second a slice: rows 1..4 and 4..7 of the formulas.
        for batch in [table.slice(0, 3), table.slice(3, 3)] {
            stream.write(&batch).unwrap();
            file.write(&batch).unwrap();
        }
        std::fs::write(
            dir.join(format!("all_types_{name}.stream")),
            stream.into_inner().unwrap(),
        )
        .unwrap();
        let bytes = file.into_inner().unwrap();
        // And it reads back here too.
        check_all_types(
            name,
            &FileReader::from_buffer(Buffer::from(bytes.clone()))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap(),
        );
        std::fs::write(dir.join(format!("all_types_{name}.arrow")), bytes).unwrap();
    }
}

/// An LZ4 column large enough for multi-block frames: 12 MiB of `Int64` whose first 4 MiB
/// block is noise (stored in the frame as it is) and whose other blocks compress. Written
/// compressed and uncompressed; `check_alkaid_files.py` checks that pyarrow reads the two
/// as equal.
#[test]
fn writes_large_lz4_frames_for_pyarrow() {
    use alkaid_array::{ArrayRef, Int64Array};
    use alkaid_ipc::{Compression, StreamWriter, WriteOptions};
    use alkaid_schema::{DataType, Field, Schema};

    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let values: Vec<i64> = (0..3 << 19)
        .map(|i| {
            if i < 1 << 19 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as i64
            } else {
                i % 1000
            }
        })
        .collect();
    let schema = Arc::new(Schema::new(vec![Field::new(
        "mixed",
        DataType::Int64,
        false,
    )]));
    let column: ArrayRef = Arc::new(Int64Array::from(values));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("interop");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, compression) in [("none", Compression::None), ("lz4", Compression::Lz4Frame)] {
        let options = WriteOptions::default().with_compression(compression);
        let mut stream = StreamWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
        stream.write(&batch).unwrap();
        let bytes = stream.into_inner().unwrap();
        if name == "lz4" {
            // Compressed for real (not stored with -1), and read back equal here first.
            assert!(bytes.len() < 8 << 20, "{} bytes", bytes.len());
            let read: Vec<RecordBatch> = StreamReader::try_new(&bytes[..])
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(read.len(), 1);
            assert!(alkaid_data::equal(
                &read[0].column(0).to_data(),
                &batch.column(0).to_data()
            ));
        }
        std::fs::write(dir.join(format!("large_lz4_{name}.stream")), bytes).unwrap();
    }
}

/// pyarrow's LZ4 frames link their 64 KiB blocks: a match may reach back into the block
/// before, which the frame reader finds in the output it has already written.
#[test]
fn reads_pyarrow_lz4_frames_of_linked_blocks() {
    let bytes = std::fs::read(fixture("large_lz4_linked.stream")).unwrap();
    let magic = bytes
        .windows(4)
        .position(|w| w == [0x04, 0x22, 0x4D, 0x18])
        .expect("an LZ4 frame");
    assert_eq!(
        bytes[magic + 4] & 0x20,
        0,
        "the fixture's blocks are linked, not independent"
    );
    let batches = read_stream("large_lz4_linked.stream");
    let column = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<alkaid_array::Int64Array>()
        .unwrap();
    assert_eq!(column.len(), 300_000);
    for (i, value) in column.values().iter().enumerate() {
        assert_eq!(*value, (i as i64 * 7919) % 1009, "row {i}");
    }
}

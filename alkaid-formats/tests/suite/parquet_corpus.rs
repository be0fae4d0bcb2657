//! The Parquet project's own test corpus (apache/parquet-testing, a pinned copy in
//! `tests/parquet-testing/`), every file read by Alkaid and compared with pyarrow's reading of
//! it (`tests/parquet-testing/expected/`, written once by `tests/parquet_corpus.py`): the
//! same fields, types, metadata and values, or pyarrow's refusal matched by Alkaid's. Every
//! file is accounted for: a file where the two differ on purpose is listed below with the
//! reason, and a file the lists do not name must read as pyarrow reads it.

use std::path::{Path, PathBuf};

use alkaid_array::RecordBatch;
use alkaid_formats::parquet::{self, ParquetReadOptions};
use alkaid_ipc::StreamReader;
use alkaid_schema::{Schema, SchemaRef};
use futures_util::TryStreamExt;

use crate::common::Value;
use crate::common::decode::decode;

/// Files pyarrow reads that Alkaid refuses by default, each with the reason.
const REFUSED_ON_PURPOSE: [(&str, &str); 3] = [
    (
        "data/int96_from_spark.parquet",
        "INT96 timestamps past the nanosecond range (years 1677 to 2262), which pyarrow wraps \
         into other dates; read as microseconds they equal Spark's values, which the corpus \
         gives in int96_from_spark.md (int96_from_spark_reads_in_microseconds)",
    ),
    (
        "shredded_variant/case-127.parquet",
        "a Variant shredded as an unsigned integer, a type the Variant lacks: the corpus \
         marks the case an error (\"Unsupported shredded value type\"); pyarrow reads the \
         plain struct (variant_corpus.rs)",
    ),
    (
        "shredded_variant/case-137.parquet",
        "a Variant shredded as FIXED_LEN_BYTE_ARRAY(4), which the Variant lacks: as above",
    ),
];

/// Files pyarrow refuses that Alkaid reads, each with the reason.
const READ_WHERE_PYARROW_REFUSES: [(&str, &str); 2] = [
    (
        "data/incorrect_map_schema.parquet",
        "map keys not annotated as required: the Parquet format asks writers for it, and \
         Alkaid reads such a map (its keys hold no null) as arrow-rs and parquet-mr do",
    ),
    (
        "data/large_string_map.brotli.parquet",
        "pyarrow cannot return more than 2 GiB of strings in one map column (\"Nested data \
         conversions not implemented for chunked array outputs\"); Alkaid reads it with \
         large offsets (large_string_map_reads_with_large_offsets, a test of its own, as it \
         decompresses 2 GiB)",
    ),
];

/// Files both read with the same fields and values but different schema metadata: Alkaid
/// keeps the footer's key-value metadata, where pyarrow replaces it with the metadata of
/// the Arrow schema an Arrow writer stored in the footer (`ARROW:schema`), when one did.
const OTHER_SCHEMA_METADATA: [(&str, &str); 2] = [
    (
        "data/data_index_bloom_encoding_with_length.parquet",
        "footer key-value pairs beside a stored Arrow schema without them",
    ),
    (
        "data/geospatial/crs-projjson.parquet",
        "footer key-value pairs beside a stored Arrow schema without them",
    ),
];

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/parquet-testing")
}

/// Every `.parquet` file under `dir`, as paths relative to the corpus, sorted.
fn parquet_files(dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.ends_with("expected") {
            parquet_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "parquet") {
            let relative = path.strip_prefix(corpus()).unwrap();
            found.push(relative.to_str().unwrap().replace('\\', "/"));
        }
    }
}

/// pyarrow's reading of `file` (its `suffix` variant), or its error.
fn expected(file: &str, suffix: &str) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let base = corpus().join("expected").join(file);
    let error = PathBuf::from(format!("{}.error", base.display()));
    if error.exists() {
        return Err(std::fs::read_to_string(error).unwrap());
    }
    let bytes = std::fs::read(format!("{}.{suffix}", base.display())).unwrap();
    let reader = StreamReader::try_new(&bytes[..]).unwrap();
    let schema = reader.schema();
    Ok((schema, reader.collect::<Result<_, _>>().unwrap()))
}

fn alkaid(
    file: &str,
    options: ParquetReadOptions,
) -> alkaid_formats::Result<(SchemaRef, Vec<RecordBatch>)> {
    let batches = parquet::read_with(corpus().join(file), options)?;
    let schema = batches.schema();
    Ok((schema, batches.collect_all()?))
}

/// The values of column `c` of every batch, in order.
pub(crate) fn column_values(batches: &[RecordBatch], c: usize) -> Vec<Value> {
    batches
        .iter()
        .flat_map(|b| decode(&b.column(c).to_data()))
        .collect()
}

/// What differs between two readings, or `None`: fields (names, types, nullability, field
/// metadata), schema metadata unless `metadata_may_differ`, and each column's values
/// (floats by their bits; batch boundaries may differ).
pub(crate) fn difference(
    (schema, batches): &(SchemaRef, Vec<RecordBatch>),
    (want_schema, want): &(SchemaRef, Vec<RecordBatch>),
    metadata_may_differ: bool,
) -> Option<String> {
    let (fields, want_fields) = (fields(schema), fields(want_schema));
    if fields != want_fields {
        return Some(format!("fields {fields} where pyarrow has {want_fields}"));
    }
    if !metadata_may_differ && schema.metadata() != want_schema.metadata() {
        return Some(format!(
            "schema metadata {:?} where pyarrow has {:?}",
            schema.metadata(),
            want_schema.metadata()
        ));
    }
    for (c, field) in schema.fields().iter().enumerate() {
        if column_values(batches, c) != column_values(want, c) {
            return Some(format!("the values of column {:?}", field.name()));
        }
    }
    None
}

/// The schema's fields as text, with the two differences of naming that say nothing of the
/// data left out. A map's entries: pyarrow names them after the map field (or `element`,
/// `value` where the map is a list's element or a map's value), Alkaid after the Parquet
/// group that holds them (`key_value`, `map`), as arrow-rs does. An extension type without
/// metadata: pyarrow writes `ARROW:extension:metadata` empty, Alkaid leaves the key out (the
/// format makes it optional). And a group marked `VARIANT`: pyarrow 26 reads its plain
/// storage struct, Alkaid annotates it `arrow.parquet.variant` (`variant_corpus.rs`
/// compares its values with the corpus's own).
pub(crate) fn fields(schema: &Schema) -> String {
    let text = Schema::new(schema.fields().clone()).to_string();
    let text = text
        .replace("\"ARROW:extension:metadata\": \"\", ", "")
        .replace("\"ARROW:extension:name\": \"arrow.parquet.variant\", ", "")
        .replace(" {\"ARROW:extension:name\": \"arrow.parquet.variant\"}", "");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("Map(") {
        out.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        if let Some(name_end) = rest.find(": Struct(") {
            out.push('_');
            rest = &rest[name_end..];
        }
    }
    out + rest
}

fn listed<'a>(list: &[(&'a str, &'a str)], file: &str) -> bool {
    list.iter().any(|(name, _)| *name == file)
}

#[test]
fn parquet_testing_reads_as_pyarrow_reads_it() {
    let mut files = Vec::new();
    parquet_files(&corpus(), &mut files);
    files.sort();
    assert_eq!(files.len(), 220, "the pinned corpus's Parquet files");
    let mut wrong = Vec::new();
    for file in &files {
        if file == "data/large_string_map.brotli.parquet" {
            continue; // its own test, below
        }
        let verdict = match (
            alkaid(file, ParquetReadOptions::default()),
            expected(file, "arrows"),
        ) {
            (Ok(got), Ok(want)) => difference(&got, &want, listed(&OTHER_SCHEMA_METADATA, file))
                .map(|d| format!("reads differently from pyarrow: {d}")),
            (Err(e), Err(_)) if file.starts_with("bad_data/") => {
                let e = e.to_string();
                (e.contains("panic") || !e.contains(file.as_str()))
                    .then(|| format!("refused without an error that names the file: {e}"))
            }
            (Err(e), Ok(_)) if !listed(&REFUSED_ON_PURPOSE, file) => {
                Some(format!("refused, where pyarrow reads it: {e}"))
            }
            (Ok(_), Err(e)) if !listed(&READ_WHERE_PYARROW_REFUSES, file) => {
                Some(format!("read, where pyarrow refuses it: {e}"))
            }
            (Err(_), Err(e)) => Some(format!("refused by both outside bad_data/: {e}")),
            _ => None,
        };
        if let Some(verdict) = verdict {
            wrong.push(format!("{file}: {verdict}"));
        }
    }
    for (file, _) in REFUSED_ON_PURPOSE
        .iter()
        .chain(&READ_WHERE_PYARROW_REFUSES)
        .chain(&OTHER_SCHEMA_METADATA)
    {
        assert!(
            files.iter().any(|f| f == file),
            "{file} is not in the corpus"
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn int96_from_spark_reads_in_microseconds() {
    let file = "data/int96_from_spark.parquet";
    // The schema reads; the first batch is the error, from a file and from a range source.
    let mut batches =
        parquet::read_with(corpus().join(file), ParquetReadOptions::default()).unwrap();
    assert_eq!(
        batches.schema().fields()[0].data_type().to_string(),
        "Timestamp(ns)"
    );
    let error = batches.next().unwrap().unwrap_err().to_string();
    let expected_error = "column \"a\", row group 0, value 2: the INT96 timestamp of year 9999";
    assert!(error.contains(expected_error), "{error}");
    assert!(error.contains("read INT96 as microseconds"), "{error}");
    assert!(batches.next().is_none());
    let bytes = alkaid_buffer::Buffer::from_vec(std::fs::read(corpus().join(file)).unwrap());
    let remote = |options| {
        let read = parquet::read_source(bytes.clone(), file, options);
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async { read.await?.try_collect::<Vec<_>>().await })
    };
    let error = remote(ParquetReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains(expected_error), "{error}");
    let micros = remote(ParquetReadOptions::default().with_int96_as_microseconds()).unwrap();
    assert_eq!(micros.iter().map(RecordBatch::num_rows).sum::<usize>(), 6);
    let (schema, batches) = alkaid(
        file,
        ParquetReadOptions::default().with_int96_as_microseconds(),
    )
    .unwrap();
    // pyarrow's microsecond reading: the same fields and metadata.
    let (want_schema, _) = expected(file, "us.arrows").unwrap();
    assert_eq!(fields(&schema), fields(&want_schema));
    assert_eq!(schema.metadata(), want_schema.metadata());
    // The values the corpus gives (int96_from_spark.md), Spark's own reading. pyarrow's
    // microsecond reading of the last differs (-7188624036226874385): it wraps in
    // nanoseconds first.
    let values: Vec<Option<i64>> = batches
        .iter()
        .flat_map(|b| decode(&b.column(0).to_data()))
        .map(|v| match v {
            Value::Bytes(bytes) => Some(i64::from_le_bytes(bytes.try_into().unwrap())),
            _ => None,
        })
        .collect();
    let spark = [
        Some(1704141296123456),
        Some(1704070800000000),
        Some(253402225200000000),
        Some(1735599600000000),
        None,
        Some(9089380393200000000),
    ];
    assert_eq!(values, spark);
}

/// 2 GiB of map keys in one column chunk (two rows, each key 2^30 times `a`): more than a
/// batch with 32-bit offsets holds, so the keys read with large offsets. pyarrow refuses the
/// file.
#[test]
fn large_string_map_reads_with_large_offsets() {
    let file = "data/large_string_map.brotli.parquet";
    let (schema, batches) = alkaid(file, ParquetReadOptions::default()).unwrap();
    assert_eq!(
        fields(&schema),
        "arr: Map(_: Struct(key: LargeUtf8 not null, value: Int32) not null)"
    );
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 2);
    for batch in &batches {
        let map = batch.column(0).to_data();
        let entries = &map.children()[0];
        let keys = &entries.children()[0];
        let offsets = keys.buffers()[0].typed::<i64>().unwrap();
        for (start, end) in offsets.iter().zip(&offsets[1..]) {
            assert_eq!(end - start, 1 << 30);
        }
        // Compared a mebibyte at a time (memcmp): a loop over 2 GiB is slow unoptimised.
        let a = vec![b'a'; 1 << 20];
        let text = keys.buffers()[1].as_slice();
        assert!(text.chunks(a.len()).all(|chunk| chunk == &a[..chunk.len()]));
        assert_eq!(
            decode(&entries.children()[1]),
            vec![Value::Bytes(1i32.to_le_bytes().to_vec()); entries.len()]
        );
    }
}

/// What the corpus's files hold goes back into the Parquet Alkaid writes: the footer's
/// key-value metadata through an IPC stream and back (Spark's, here), and `arrow.uuid` as
/// Parquet's `UUID` logical type. The footer is read with arrow-rs's Parquet reader.
#[test]
fn metadata_and_uuid_written_back() {
    use ::parquet::basic::LogicalType;
    use ::parquet::file::reader::{FileReader, SerializedFileReader};

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("parquet_corpus");
    std::fs::create_dir_all(&dir).unwrap();
    for (file, column) in [
        ("data/int96_from_spark.parquet", None),
        ("shredded_variant/case-037.parquet", Some("var.typed_value")),
    ] {
        let options = ParquetReadOptions::default().with_int96_as_microseconds();
        let (schema, batches) = alkaid(file, options.clone()).unwrap();
        assert!(!schema.metadata().is_empty() || column.is_some(), "{file}");
        // Parquet → IPC → Parquet.
        let mut stream = Vec::new();
        let mut writer =
            alkaid_ipc::StreamWriter::try_new(&mut stream, schema.clone(), Default::default())
                .unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        writer.finish().unwrap();
        let reader = StreamReader::try_new(&stream[..]).unwrap();
        let from_ipc = reader.schema();
        let from_ipc_batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
        let out = dir.join(file.replace('/', "_"));
        parquet::write(&out, from_ipc, from_ipc_batches, &Default::default()).unwrap();

        let footer = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
        let footer = footer.metadata().file_metadata();
        let pairs = footer.key_value_metadata().cloned().unwrap_or_default();
        for (key, value) in schema.metadata().iter() {
            assert!(
                pairs
                    .iter()
                    .any(|kv| kv.key == key && kv.value.as_deref() == Some(value)),
                "{file}: {key} missing from the footer {pairs:?}"
            );
        }
        if let Some(column) = column {
            let leaf = (0..footer.schema_descr().num_columns())
                .map(|i| footer.schema_descr().column(i))
                .find(|c| c.path().string() == column)
                .unwrap();
            assert_eq!(leaf.logical_type_ref(), Some(&LogicalType::Uuid), "{file}");
        }
        let again = alkaid(out.to_str().unwrap(), options).unwrap();
        assert_eq!(
            difference(&again, &(schema, batches), false),
            None,
            "{file}"
        );
    }
}

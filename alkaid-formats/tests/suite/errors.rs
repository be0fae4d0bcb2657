//! Bad input is an error that names the file and what was wrong, never a panic: truncated
//! and corrupted Parquet, ragged CSV rows, JSON that is not JSON, names and row groups a
//! file does not have. And what Alkaid writes reads back, in every format.

use std::path::PathBuf;
use std::sync::Arc;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use alkaid_formats::{csv, json, parquet};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("formats")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn table() -> (SchemaRef, RecordBatch) {
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])),
        Arc::new(StringArray::from(vec![Some("a,b"), Some("ü"), None])),
    ];
    (
        schema.clone(),
        RecordBatch::try_new(schema, columns).unwrap(),
    )
}

#[test]
fn every_format_reads_back_what_it_wrote() {
    let dir = scratch("round_trip");
    let (schema, batch) = table();
    let parts = vec![batch.slice(0, 1), batch.slice(1, 2)];
    let path = dir.join("t.parquet");
    parquet::write(&path, schema.clone(), parts.clone(), &Default::default()).unwrap();
    let read = parquet::read(&path).unwrap().collect_all().unwrap();
    assert_eq!(read.iter().map(RecordBatch::num_rows).sum::<usize>(), 3);
    assert_eq!(read[0].schema().fields(), schema.fields());
    // A projection, a row group, a limit.
    let two_groups = dir.join("groups.parquet");
    let options = parquet::WriteOptions::default().with_row_group_rows(2);
    parquet::write(&two_groups, schema.clone(), parts.clone(), &options).unwrap();
    let picked = parquet::read_with(
        &two_groups,
        parquet::ParquetReadOptions::default()
            .with_columns(["s"])
            .with_row_groups([1]),
    )
    .unwrap()
    .collect_all()
    .unwrap();
    assert_eq!((picked[0].num_columns(), picked[0].num_rows()), (1, 1));
    let limited = parquet::read_with(
        &two_groups,
        parquet::ParquetReadOptions::default().with_limit(2),
    )
    .unwrap()
    .collect_all()
    .unwrap();
    assert_eq!(limited.iter().map(RecordBatch::num_rows).sum::<usize>(), 2);

    let path = dir.join("t.csv");
    csv::write(&path, parts.clone(), &Default::default()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, "n,s\n1,\"a,b\"\n,ü\n-3,\n");
    let read = csv::read(&path).unwrap();
    assert_eq!(read.schema().fields(), schema.fields());
    assert_eq!(read.collect_all().unwrap()[0].num_rows(), 3);

    let path = dir.join("t.ndjson");
    json::write(&path, parts).unwrap();
    let read = json::read(&path).unwrap();
    assert_eq!(read.schema().fields(), schema.fields());
    assert_eq!(read.collect_all().unwrap()[0].num_rows(), 3);
}

#[test]
fn bad_input_is_an_error_naming_the_file() {
    let dir = scratch("bad");
    let (schema, batch) = table();
    let good = dir.join("good.parquet");
    parquet::write(&good, schema, [batch], &Default::default()).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    // Cut anywhere, or a byte flipped: an error or a reading, never a panic.
    for cut in (0..bytes.len()).step_by(7) {
        let cut_path = dir.join("cut.parquet");
        std::fs::write(&cut_path, &bytes[..cut]).unwrap();
        if let Ok(batches) = parquet::read(&cut_path) {
            let _ = batches.collect_all();
        }
    }
    for at in (0..bytes.len()).step_by(3) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x5A;
        if let Ok(batches) = parquet::read_bytes(flipped, Default::default()) {
            let _ = batches.collect_all();
        }
    }
    let cut_path = dir.join("half.parquet");
    std::fs::write(&cut_path, &bytes[..bytes.len() / 2]).unwrap();
    let err = parquet::read(&cut_path).unwrap_err().to_string();
    assert!(err.contains("half.parquet"), "{err}");

    let err = parquet::read_with(
        &good,
        parquet::ParquetReadOptions::default().with_columns(["nope"]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("no column \"nope\" (the file has n, s)"),
        "{err}"
    );
    let err = parquet::read_with(
        &good,
        parquet::ParquetReadOptions::default().with_row_groups([5]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("row group 5 selected, but the file has 1"),
        "{err}"
    );

    // A footer with a column chunk at a negative offset (arrow-rs panics on it; the fuzz
    // target found it).
    let hostile = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions/parquet/negative_chunk_offset");
    let err = parquet::read(&hostile)
        .and_then(|b| b.collect_all())
        .unwrap_err()
        .to_string();
    assert!(err.contains("lie outside the"), "{err}");
    // A page that needs a dictionary its chunk lacks: arrow-rs panics deep in decoding;
    // the panic is an error here, and the process goes on.
    let hostile = hostile.with_file_name("page_without_its_dictionary");
    let err = parquet::read(&hostile)
        .and_then(|b| b.collect_all())
        .unwrap_err()
        .to_string();
    assert!(err.contains("the reader failed on invalid input"), "{err}");

    let ragged = dir.join("ragged.csv");
    std::fs::write(&ragged, "a,b\n1,2\n3\n").unwrap();
    let err = csv::read(&ragged)
        .and_then(|b| b.collect_all())
        .unwrap_err()
        .to_string();
    assert!(err.contains("ragged.csv"), "{err}");
    assert!(err.contains("line"), "{err}");

    let broken = dir.join("broken.ndjson");
    std::fs::write(&broken, "{\"a\": 1}\n{\"a\": \n").unwrap();
    let err = json::read(&broken)
        .and_then(|b| b.collect_all())
        .unwrap_err()
        .to_string();
    assert!(err.contains("broken.ndjson"), "{err}");
}

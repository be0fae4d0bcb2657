//! pyarrow as the reference, both ways: every type pyarrow writes to Parquet, with every
//! codec and several row groups, read by Alkaid equal to pyarrow's own reading of the file;
//! the Parquet Alkaid writes read by pyarrow equal to the source; CSV and JSON edge cases
//! (quotes, embedded newlines, empty fields, null spellings, multi-byte text, a long line)
//! read as pyarrow.csv and pyarrow.json read them. Needs Python with pyarrow (as the other
//! crates' pyarrow tests).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_formats::{csv, json, parquet};
use alkaid_ipc::{StreamReader, StreamWriter, WriteOptions};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};

use crate::common::decode::decode;
use crate::python::python_with;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pyarrow_formats.py")
}

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../alkaid-ipc/tests/fixtures/pyarrow/all_types.stream")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("formats")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(python: &Path, args: &[&str]) -> String {
    let out = Command::new(python)
        .arg(script())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn read_stream(path: &Path) -> (SchemaRef, Vec<RecordBatch>) {
    let bytes = std::fs::read(path).unwrap();
    let reader = StreamReader::try_new(&bytes[..]).unwrap();
    let schema = reader.schema();
    (schema, reader.collect::<Result<_, _>>().unwrap())
}

/// The schema's fields as text, with the names of list elements and map entries left out:
/// Parquet writers give them the names the Parquet specification asks for (`element`,
/// `key_value`), which say nothing of the data.
fn shape(schema: &Schema) -> String {
    let mut text = schema.to_string();
    for name in ["element", "item", "key_value", "entries", "map"] {
        for before in ["(", ", "] {
            text = text.replace(&format!("{before}{name}: "), &format!("{before}_: "));
        }
    }
    text
}

/// Panics unless the two readings hold the same fields and, column by column, the same
/// values (batch boundaries may differ).
fn assert_same(
    what: &str,
    (schema, batches): (SchemaRef, Vec<RecordBatch>),
    expected: &(SchemaRef, Vec<RecordBatch>),
) {
    let (want_schema, want) = expected;
    assert_eq!(shape(&schema), shape(want_schema), "{what}: fields");
    for (c, field) in schema.fields().iter().enumerate() {
        let values = |batches: &[RecordBatch]| {
            batches
                .iter()
                .flat_map(|b| decode(&b.column(c).to_data()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            values(&batches),
            values(want),
            "{what}: column {:?}",
            field.name()
        );
    }
}

/// The columns of the fixture pyarrow cannot write to Parquet, and why.
const NOT_IN_PARQUET: [(&str, &str); 4] = [
    ("interval", "month_day_nano_interval"),
    ("sparse_union", "sparse_union"),
    ("dense_union", "dense_union"),
    ("run_end_encoded", "run_end_encoded"),
];

#[test]
fn parquet_pyarrow_writes_reads_as_it_was_written() {
    let Some(python) = python_with("pyarrow") else {
        return;
    };
    let dir = scratch("from_pyarrow");
    run(
        &python,
        &[
            "parquet-write",
            fixture().to_str().unwrap(),
            dir.to_str().unwrap(),
        ],
    );
    let refused = std::fs::read_to_string(dir.join("unsupported.tsv")).unwrap();
    let refused: Vec<&str> = refused.lines().collect();
    assert_eq!(refused.len(), NOT_IN_PARQUET.len(), "{refused:?}");
    for (line, (column, why)) in refused.iter().zip(NOT_IN_PARQUET) {
        assert!(
            line.starts_with(&format!("{column}\t")) && line.contains(why),
            "{line}"
        );
    }
    // The source: the fixture's columns that Parquet holds.
    let (schema, batches) = read_stream(&fixture());
    let kept = parquet_columns(&schema);
    let source: (SchemaRef, Vec<RecordBatch>) = (
        Arc::new(schema.project(&kept).unwrap()),
        batches.iter().map(|b| b.project(&kept).unwrap()).collect(),
    );
    // pyarrow's own reading of its file is the reference, but for two columns it does not
    // read back as it wrote them: `date64` (read as `date32`) and a dictionary of
    // `large_utf8` (read as one of `utf8`). Alkaid, through arrow-rs, restores both from
    // the stored Arrow schema; there the source is the reference.
    let restored = ["date64", "struct_of_dictionary"];
    for codec in ["none", "snappy", "gzip", "brotli", "lz4", "zstd"] {
        let path = dir.join(format!("all_{codec}.parquet"));
        let batches = parquet::read(&path).unwrap();
        let schema = batches.schema();
        let read = batches.collect_all().unwrap();
        let theirs = read_stream(&PathBuf::from(format!("{}.pyarrow.arrows", path.display())));
        assert_eq!(schema.fields().len(), 48);
        for (c, field) in schema.fields().iter().enumerate() {
            let column = |(schema, batches): &(SchemaRef, Vec<RecordBatch>)| {
                let c = schema.index_of(field.name()).unwrap();
                let batches: Vec<RecordBatch> =
                    batches.iter().map(|b| b.project(&[c]).unwrap()).collect();
                (Arc::new(schema.project(&[c]).unwrap()), batches)
            };
            let ours = column(&(schema.clone(), read.clone()));
            let what = format!("{codec}: {}", field.name());
            match restored.contains(&field.name()) {
                true => {
                    assert_same(&what, ours, &column(&source));
                    assert_ne!(
                        shape_of(theirs.0.field(c).unwrap()),
                        shape_of(field),
                        "{what}"
                    );
                }
                false => assert_same(&what, ours, &column(&theirs)),
            }
        }
    }
}

/// A field's type as text, list and map entry names left out (see [`shape`]).
fn shape_of(field: &Field) -> String {
    shape(&Schema::new(vec![field.clone()]))
}

/// The positions of the fixture's columns that Parquet holds.
fn parquet_columns(schema: &Schema) -> Vec<usize> {
    schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| !NOT_IN_PARQUET.iter().any(|(n, _)| *n == f.name()))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn pyarrow_reads_the_parquet_alkaid_writes() {
    let Some(python) = python_with("pyarrow") else {
        return;
    };
    let dir = scratch("to_pyarrow");
    let (schema, batches) = read_stream(&fixture());
    let kept = parquet_columns(&schema);
    let schema: SchemaRef = Arc::new(schema.project(&kept).unwrap());
    let table = batches[0].project(&kept).unwrap();
    // Two batches, the second a slice.
    let parts = vec![table.slice(0, 2), table.slice(2, table.num_rows() - 2)];
    let codecs = [
        ("none", parquet::Codec::Uncompressed),
        ("snappy", parquet::Codec::Snappy),
        ("gzip", parquet::Codec::Gzip(6)),
        ("brotli", parquet::Codec::Brotli(5)),
        ("lz4", parquet::Codec::Lz4),
        ("zstd", parquet::Codec::Zstd(3)),
    ];
    for (name, codec) in codecs {
        let options = parquet::WriteOptions::default()
            .with_codec(codec)
            .with_row_group_rows(3)
            .with_metadata("written_by", "alkaid");
        let path = dir.join(format!("all_{name}.parquet"));
        parquet::write(&path, schema.clone(), parts.clone(), &options).unwrap();
        let mut expected =
            StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
        for part in &parts {
            expected.write(part).unwrap();
        }
        std::fs::write(
            dir.join(format!("all_{name}.expected.arrows")),
            expected.into_inner().unwrap(),
        )
        .unwrap();
        // Without coercion, Alkaid reads its own file back exactly as it was written.
        let exact = dir.join(format!("exact_{name}.alkaid-parquet"));
        let options = options.with_coerce_types(false);
        parquet::write(&exact, schema.clone(), parts.clone(), &options).unwrap();
        let back = parquet::read(&exact).unwrap();
        let back_schema = back.schema();
        assert_same(
            name,
            (back_schema, back.collect_all().unwrap()),
            &(schema.clone(), parts.clone()),
        );
    }
    let report = run(&python, &["parquet-read", dir.to_str().unwrap()]);
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), codecs.len(), "{report}");
    for line in lines {
        assert!(line.ends_with("\tok"), "{line}");
    }
}

/// A CSV file of the edge cases, and the schema both readers take.
fn edge_cases(dir: &Path) -> SchemaRef {
    let long = "x".repeat(100_000);
    let text = format!(
        "id,name,note\n\
         1,plain,\n\
         2,\"quoted, with a comma\",\"a \"\"quote\"\" inside\"\n\
         3,\"two\nlines\",NA\n\
         4,日本語,ünï ✓\n\
         5,,\"\"\n\
         6,long,{long}\n"
    );
    std::fs::write(dir.join("edges.csv"), text).unwrap();
    let json = "{\"id\": 1, \"name\": \"plain\", \"note\": null}\n\
                {\"id\": 2, \"name\": \"line\\nbreak\", \"note\": \"ünï ✓\"}\n\
                {\"id\": 3, \"note\": \"\\u65e5\\u672c\"}\n\
                {\"id\": 4, \"name\": \"\", \"extra\": [1, 2]}\n";
    std::fs::write(dir.join("lines.ndjson"), json).unwrap();
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("note", DataType::Utf8, true),
    ]));
    for name in ["edges", "lines"] {
        let writer =
            StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
        std::fs::write(
            dir.join(format!("{name}.schema.arrows")),
            writer.into_inner().unwrap(),
        )
        .unwrap();
    }
    schema
}

#[test]
fn csv_and_json_edge_cases_read_as_pyarrow_reads_them() {
    let Some(python) = python_with("pyarrow") else {
        return;
    };
    let dir = scratch("text");
    let schema = edge_cases(&dir);
    run(&python, &["text", dir.to_str().unwrap()]);
    let expected = read_stream(&dir.join("edges.pyarrow.arrows"));
    let options = csv::ReadOptions::default()
        .with_schema(schema.clone())
        .with_nulls(["", "NA"]);
    let read = csv::read_with(dir.join("edges.csv"), options).unwrap();
    assert_same(
        "csv",
        (read.schema(), read.collect_all().unwrap()),
        &expected,
    );
    assert_eq!(
        expected.1.iter().map(RecordBatch::num_rows).sum::<usize>(),
        6
    );
    let expected = read_stream(&dir.join("lines.pyarrow.arrows"));
    let options = json::ReadOptions::default().with_schema(schema);
    let read = json::read_with(dir.join("lines.ndjson"), options).unwrap();
    assert_same(
        "json",
        (read.schema(), read.collect_all().unwrap()),
        &expected,
    );
    assert_eq!(
        expected.1.iter().map(RecordBatch::num_rows).sum::<usize>(),
        4
    );
}

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
use crate::parquet_corpus::{column_values, difference};
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
        assert_eq!(
            column_values(&batches, c),
            column_values(want, c),
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

/// Parquet as other writers write it, read by Alkaid as pyarrow reads it: pyarrow's data
/// pages v1 and v2 with every codec, dictionary pages that fall back to plain,
/// byte-stream-split and the three delta encodings; Polars' and DuckDB's files of every type
/// they write (decimals, zoned timestamps, durations, UUIDs, lists, structs, maps,
/// categoricals). The script checks each file holds the encoding it is named for.
#[test]
fn parquet_other_writers_read_as_pyarrow_reads_them() {
    let Some(python) = python_with("pyarrow, polars, duckdb") else {
        return;
    };
    let dir = scratch("from_peers");
    run(&python, &["parquet-peers", dir.to_str().unwrap()]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 20, "{files:?}");
    // Polars' categorical column is stored as a dictionary of large_utf8 in its Arrow
    // schema: Alkaid, through arrow-rs, keeps that type, where pyarrow reads a dictionary of
    // utf8. The values are compared, not the types.
    let restored = "cat";
    let mut wrong = Vec::new();
    for path in &files {
        let batches = parquet::read(path).unwrap();
        let ours = (batches.schema(), batches.collect_all().unwrap());
        let theirs = read_stream(&PathBuf::from(format!("{}.pyarrow.arrows", path.display())));
        let without = |(schema, batches): &(SchemaRef, Vec<RecordBatch>)| {
            let kept: Vec<usize> = (0..schema.fields().len())
                .filter(|&c| schema.fields()[c].name() != restored)
                .collect();
            let values = match schema.index_of(restored) {
                Ok(c) => batches
                    .iter()
                    .flat_map(|b| decode(&b.column(c).to_data()))
                    .collect(),
                Err(_) => Vec::new(),
            };
            let projected: Vec<RecordBatch> =
                batches.iter().map(|b| b.project(&kept).unwrap()).collect();
            (
                (Arc::new(schema.project(&kept).unwrap()), projected),
                values,
            )
        };
        let ((ours, our_values), (theirs, their_values)) = (without(&ours), without(&theirs));
        if let Some(difference) = difference(&ours, &theirs, false) {
            wrong.push(format!("{}: {difference}", path.display()));
        }
        if our_values != their_values {
            wrong.push(format!("{}: the values of {restored}", path.display()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
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

/// The columns of the fixture a peer cannot read from Alkaid's Parquet, each with the
/// peer's reason: (peer, column, reason).
const PEERS_CANNOT_READ: [(&str, &str, &str); 5] = [
    // Polars' decimals stop at precision 38.
    ("polars", "decimal256", "precision must be between 1 and 38"),
    // DuckDB reads a decimal past precision 38 as a double, and loses its last digits.
    ("duckdb", "decimal256", "other values as double"),
    // Polars panics on a list view in the file's stored Arrow schema.
    ("polars", "list_view", "PanicException: not yet implemented"),
    (
        "polars",
        "large_list_view",
        "PanicException: not yet implemented",
    ),
    // Polars takes zone names, not fixed offsets such as +07:30.
    ("polars", "ts_ns", "unable to parse time zone: '+07:30'"),
];

/// Polars and DuckDB read the Parquet Alkaid writes, a file per column of the fixture (a
/// type one of them cannot read makes it refuse a whole file), and their values equal
/// pyarrow's reading of the same file, in the peer's own type for them where it has
/// another (cast to it, else as Python sees them); the columns a peer cannot read are
/// listed with the reason.
#[test]
fn polars_and_duckdb_read_the_parquet_alkaid_writes() {
    let Some(python) = python_with("pyarrow, polars, duckdb") else {
        return;
    };
    let dir = scratch("to_peers");
    let (schema, batches) = read_stream(&fixture());
    for c in parquet_columns(&schema) {
        let name = schema.fields()[c].name();
        let column = Arc::new(schema.project(&[c]).unwrap());
        let parts: Vec<RecordBatch> = batches.iter().map(|b| b.project(&[c]).unwrap()).collect();
        let path = dir.join(format!("{name}.parquet"));
        parquet::write(&path, column, parts, &parquet::WriteOptions::default()).unwrap();
    }
    let report = run(&python, &["parquet-peers-read", dir.to_str().unwrap()]);
    let mut wrong = Vec::new();
    let mut lines = 0;
    for line in report.lines() {
        lines += 1;
        let mut parts = line.splitn(3, '\t');
        let (column, peer, outcome) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let known = PEERS_CANNOT_READ
            .iter()
            .find(|(p, c, _)| *p == peer && *c == column);
        // The peer's own type for the values (a duration as DuckDB's integers, utf8 as
        // Polars' large_utf8) is its mapping, not a loss.
        let read = outcome == "ok" || outcome.starts_with("the same values as ");
        match (read, known) {
            (true, None) => {}
            (true, Some(_)) => wrong.push(format!("{peer} now reads {column}: {line}")),
            (false, Some((_, _, why))) if outcome.contains(why) => {}
            _ => wrong.push(line.to_string()),
        }
    }
    assert_eq!(lines, 2 * parquet_columns(&schema).len(), "{report}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
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
    let options = csv::CsvReadOptions::default()
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
    let options = json::JsonReadOptions::default().with_schema(schema);
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

/// How a tricky text file reads: as a peer reads it, or an error (Alkaid's names the
/// line, and the column where there is one), or differently on purpose.
enum Tricky {
    /// Read as the peer reads it.
    Same,
    /// Refused by both; Alkaid's error says this.
    Refused(&'static str),
    /// Read by Alkaid differently from the peer, or read by only one of them, for this
    /// reason.
    Differs(&'static str),
}

/// (file, its bytes, as pyarrow reads it, as DuckDB reads it).
const TRICKY: [(&str, &[u8], Tricky, Tricky); 10] = [
    (
        "bom_crlf.csv",
        b"\xEF\xBB\xBFa,b\r\n1,x\r\n2,\"y\r\nz\"\r\n",
        Tricky::Same,
        Tricky::Same,
    ),
    (
        "quoted_newline.csv",
        b"a,b\n1,\"two\nlines\"\n2,x\n",
        Tricky::Same,
        Tricky::Same,
    ),
    (
        "escaped_quotes.csv",
        b"a,b\n1,\"say \"\"hi\"\"\"\n2,\"\"\"\"\n",
        Tricky::Same,
        Tricky::Same,
    ),
    (
        "overflow.csv",
        b"n\n1\n2\n9223372036854775808\n",
        Tricky::Same,
        Tricky::Differs("DuckDB infers a 128-bit decimal; Alkaid, as pyarrow, a double"),
    ),
    (
        "ragged_short.csv",
        b"a,b,c\n1,2,3\n4,5\n6,7,8\n",
        Tricky::Refused("line 3"),
        Tricky::Differs("DuckDB's sniffer reads the lines as one text column"),
    ),
    (
        "ragged_long.csv",
        b"a,b\n1,2\n3,4,5\n",
        Tricky::Refused("line 3"),
        Tricky::Differs("DuckDB's sniffer skips the lines before the longest"),
    ),
    (
        "bom_crlf.ndjson",
        b"\xEF\xBB\xBF{\"a\": 1}\r\n{\"a\": 2}\r\n",
        Tricky::Same,
        Tricky::Same,
    ),
    (
        "overflow.ndjson",
        b"{\"n\": 1}\n{\"n\": 9223372036854775808}\n",
        Tricky::Same,
        Tricky::Differs("DuckDB infers a 128-bit decimal; Alkaid, as pyarrow, a double"),
    ),
    (
        "mixed.ndjson",
        b"{\"a\": 1}\n{\"a\": \"x\"}\n",
        Tricky::Differs("a field of numbers and text infers as text and reads so; pyarrow refuses"),
        Tricky::Differs("DuckDB keeps the text's JSON quotes"),
    ),
    (
        "truncated.ndjson",
        b"{\"a\": 1}\n{\"a\": \n",
        Tricky::Refused("line 2, column 5: not JSON"),
        Tricky::Refused("line 2, column 5: not JSON"),
    ),
];

/// CSV and newline-delimited JSON that trip readers up (a byte-order mark, CRLF, quoted
/// newlines, escaped quotes, ragged rows, numbers past the inferred type, a truncated
/// line), each with its schema inferred, read by Alkaid as pyarrow and DuckDB read it, or
/// refused with an error naming the line (and column), or read differently on purpose,
/// which the table says.
#[test]
fn tricky_csv_and_json_read_as_pyarrow_and_duckdb_read_them() {
    let Some(python) = python_with("pyarrow, duckdb") else {
        return;
    };
    let dir = scratch("tricky_text");
    for (name, bytes, _, _) in &TRICKY {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    run(&python, &["text-peers", dir.to_str().unwrap()]);
    let mut wrong = Vec::new();
    for (name, _, pyarrow, duckdb) in &TRICKY {
        let path = dir.join(name);
        let read = match name.ends_with(".csv") {
            true => csv::read(&path).and_then(|b| Ok((b.schema(), b.collect_all()?))),
            false => json::read(&path).and_then(|b| Ok((b.schema(), b.collect_all()?))),
        };
        for (peer, expected) in [("pyarrow", pyarrow), ("duckdb", duckdb)] {
            let theirs = path.with_extension(format!(
                "{}.{peer}.arrows",
                path.extension().unwrap().to_str().unwrap()
            ));
            let theirs = theirs.exists().then(|| read_stream(&theirs));
            let verdict = match (expected, &read, theirs) {
                (Tricky::Same, Ok(ours), Some(theirs)) => difference(ours, &theirs, false),
                (Tricky::Refused(words), Err(e), _) => {
                    (!e.to_string().contains(words)).then(|| format!("error {e}"))
                }
                (Tricky::Differs(why), Ok(ours), Some(theirs)) => difference(ours, &theirs, false)
                    .is_none()
                    .then(|| format!("reads the same, though listed as: {why}")),
                (Tricky::Differs(_), Ok(_), None) | (Tricky::Differs(_), Err(_), Some(_)) => None,
                (_, ours, theirs) => Some(format!(
                    "Alkaid {:?}, {peer} read it: {}",
                    ours.as_ref().map(|_| ()),
                    theirs.is_some()
                )),
            };
            if let Some(verdict) = verdict {
                wrong.push(format!("{name} against {peer}: {verdict}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

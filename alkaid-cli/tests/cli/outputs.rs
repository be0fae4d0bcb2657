//! Where outputs go and what inputs are: the magic and form chosen from an output's
//! extension (`convert`, `get`, `sql --output`), inputs that are not IPC named for what
//! they are, and files as other Arrow writers lay them out.

use super::{alkaid, fixture, scratch, text};

const PEERS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../alkaid-ipc/tests/fixtures/peers"
);

#[test]
fn the_extension_chooses_magic_and_form_and_the_options_override() {
    let dir = scratch("outputs");
    let source = fixture("metadata.stream");
    let convert = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec!["convert", &source, out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let run = alkaid(&args);
        assert!(run.status.success(), "{name}: {}", text(&run.stderr));
        std::fs::read(out).unwrap()
    };
    assert!(convert("a.arrow", &[]).starts_with(b"ARROW1\0\0"));
    assert!(convert("a.feather", &[]).starts_with(b"ARROW1\0\0"));
    assert!(convert("a.alkaid", &[]).starts_with(b"ALKAID1\0"));
    assert!(convert("a.bin", &[]).starts_with(b"ALKAID1\0"));
    // `.arrows` is a stream: the continuation marker first, no magic.
    assert!(convert("a.arrows", &[]).starts_with(&[0xFF; 4]));
    assert!(convert("b.arrow", &["--magic", "alkaid"]).starts_with(b"ALKAID1\0"));
    assert!(convert("b.alkaid", &["--magic", "arrow"]).starts_with(b"ARROW1\0\0"));
    assert!(convert("b.arrows", &["--to", "file"]).starts_with(b"ARROW1\0\0"));
    assert!(convert("c.arrow", &["--to", "stream"]).starts_with(&[0xFF; 4]));
    // A stream that replaces its dictionaries becomes a file that holds them all.
    let replacing = fixture("dictionary_replacement.stream");
    let out = dir.join("replaced.arrow");
    let run = alkaid(&["convert", &replacing, out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let cat = |path: &str| text(&alkaid(&["cat", path]).stdout);
    assert_eq!(cat(out.to_str().unwrap()), cat(&replacing));
    // Each reads back as the source.
    for name in ["a.arrow", "a.arrows", "b.alkaid", "c.arrow"] {
        assert_eq!(
            cat(dir.join(name).to_str().unwrap()),
            cat(&source),
            "{name}"
        );
    }
}

#[test]
fn inputs_that_are_not_ipc_are_named() {
    let dir = scratch("not_ipc");
    // Without an extension that names the format, text is not taken for a stream.
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "table",
            b"a,b\n1,2\n",
            "is delimited text (CSV), not an IPC file or stream (--from csv",
        ),
        (
            "lines",
            b"{\"a\": 1}\n",
            "is JSON text, not an IPC file or stream (--from json",
        ),
        ("t.gz", b"\x1f\x8b\x08\x00\x00", "is a gzip-compressed file"),
        ("notes", b"hello\n", "is text, not an IPC file"),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        for command in ["cat", "schema", "validate"] {
            let out = alkaid(&[command, path.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(1), "{command} {name}");
            assert!(
                text(&out.stderr).contains(expected),
                "{}",
                text(&out.stderr)
            );
        }
    }
    // With --from, they read.
    let out = alkaid(&["cat", dir.join("table").to_str().unwrap(), "--from", "csv"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A broken Parquet file is an error naming it.
    let broken = dir.join("broken.parquet");
    std::fs::write(&broken, b"PAR1\x15\x04\x15\x00PAR1").unwrap();
    let out = alkaid(&["cat", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("broken.parquet"),
        "{}",
        text(&out.stderr)
    );
    let out = alkaid(&["cat", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("is a directory, not an IPC file or stream"),
        "{stderr}"
    );
    assert!(stderr.contains("--table"), "{stderr}");
}

#[test]
fn parquet_csv_and_json_convert_both_ways() {
    let dir = scratch("tabular");
    let source = fixture("all_types.arrow");
    let columns = "int64,utf8,float64,bool,date32,ts_us,dictionary,nested";
    let expected = text(&alkaid(&["cat", &source, "--columns", columns]).stdout);
    let parquet = dir.join("t.parquet");
    let run = alkaid(&[
        "convert",
        &source,
        parquet.to_str().unwrap(),
        "--columns",
        columns,
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(std::fs::read(&parquet).unwrap().starts_with(b"PAR1"));
    let cat = |path: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["cat", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = alkaid(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(cat(&parquet, &[]), expected);
    // Found by its first bytes, whatever its name.
    let unnamed = dir.join("t.data");
    std::fs::copy(&parquet, &unnamed).unwrap();
    assert_eq!(cat(&unnamed, &[]), expected);
    // Parquet selects columns as it reads.
    let two = cat(&parquet, &["--columns", "utf8,int64"]);
    assert!(two.contains("utf8") && !two.contains("float64"), "{two}");
    // Back to IPC, and on to CSV and JSON (the flat columns) and back.
    let arrow = dir.join("back.arrow");
    let run = alkaid(&[
        "convert",
        parquet.to_str().unwrap(),
        arrow.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(cat(&arrow, &[]), expected);
    let flat = "int64,utf8,float64,bool";
    let flat_expected = text(&alkaid(&["cat", &source, "--columns", flat]).stdout);
    for name in ["t.csv", "t.ndjson"] {
        let path = dir.join(name);
        let run = alkaid(&[
            "convert",
            &source,
            path.to_str().unwrap(),
            "--columns",
            flat,
        ]);
        assert!(run.status.success(), "{name}: {}", text(&run.stderr));
        // JSON inference orders the keys it finds by name: asked for in the source's order.
        assert_eq!(cat(&path, &["--columns", flat]), flat_expected, "{name}");
    }
    let schema = alkaid(&["schema", dir.join("t.csv").to_str().unwrap()]);
    assert!(
        text(&schema.stdout).contains("int64: Int64"),
        "{}",
        text(&schema.stdout)
    );
}

#[test]
fn files_of_other_writers_read_and_inspect() {
    for (name, expected) in [
        (
            "polars_small.arrow",
            "no framed schema message before byte 176",
        ),
        ("js_no_schema_message.arrow", "#0 at byte 8: dictionary 0"),
        ("js_no_columns.arrow", "0 messages"),
    ] {
        let path = format!("{PEERS}/{name}");
        let out = alkaid(&["validate", &path]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let out = alkaid(&["inspect", &path]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains(expected),
            "{}",
            text(&out.stdout)
        );
    }
}

#[cfg(feature = "sql")]
#[test]
fn sql_writes_its_result_to_a_file_by_extension() {
    let dir = scratch("sql_output");
    let table = format!("t={}", fixture("all_types.arrow"));
    let query = "SELECT int64, utf8 FROM t WHERE int64 IS NOT NULL ORDER BY int64";
    let printed = alkaid(&["sql", query, "--table", &table]);
    assert!(printed.status.success(), "{}", text(&printed.stderr));
    for name in ["r.arrow", "r.arrows", "r.alkaid"] {
        let out = dir.join(name);
        let run = alkaid(&[
            "sql",
            query,
            "--table",
            &table,
            "--output",
            out.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        assert!(
            text(&run.stdout).contains("4 rows written"),
            "{}",
            text(&run.stdout)
        );
        let cat = alkaid(&["cat", out.to_str().unwrap()]);
        assert_eq!(
            text(&cat.stdout).trim(),
            text(&printed.stdout).trim(),
            "{name}"
        );
    }
    assert!(
        std::fs::read(dir.join("r.arrow"))
            .unwrap()
            .starts_with(b"ARROW1")
    );
    // No rows: the file still has the result's columns.
    let empty = dir.join("empty.arrow");
    let run = alkaid(&[
        "sql",
        "SELECT int64 FROM t WHERE false",
        "--table",
        &table,
        "--output",
        empty.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let schema = alkaid(&["schema", empty.to_str().unwrap()]);
    assert!(
        text(&schema.stdout).contains("int64"),
        "{}",
        text(&schema.stdout)
    );
}

/// `convert IN -` with standard output redirected to a file, after bytes already there:
/// the file gets those bytes, then exactly what `convert IN PATH` writes.
#[test]
fn standard_output_redirected_to_a_file_gets_what_a_path_would() {
    use std::io::Write;
    let dir = scratch("stdout_to_file");
    let source = fixture("metadata.stream");
    let path = dir.join("a.alkaid");
    let run = alkaid(&["convert", &source, path.to_str().unwrap(), "--to", "file"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let expected = std::fs::read(&path).unwrap();
    let redirected = dir.join("redirected");
    let mut file = std::fs::File::create(&redirected).unwrap();
    file.write_all(b"already here").unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(["convert", &source, "-", "--to", "file"])
        .stdout(std::process::Stdio::from(file))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let written = std::fs::read(&redirected).unwrap();
    assert_eq!(&written[..12], b"already here");
    assert!(
        written[12..] == expected[..],
        "{} bytes against {}",
        written.len() - 12,
        expected.len()
    );
}

/// A compressed output large enough (1 MiB of buffers a batch) to be written while it is
/// compressed, with a seek back for each header: the bytes are the library's plain
/// writers', for a file and a stream, and standard output redirected to a file (written
/// without seeking) gets the same.
#[test]
fn large_compressed_outputs_are_the_writers_bytes() {
    use std::sync::Arc;

    use alkaid_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use alkaid_ipc::{
        Compression, FileDictionaries, FileWriter, Magic, StreamWriter, WriteOptions,
    };
    use alkaid_schema::{DataType, Field, Schema};

    let dir = scratch("large_compressed");
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, true),
        Field::new("s", DataType::Utf8, false),
    ]));
    let batch = |start: i64, rows: i64| {
        let n: ArrayRef = Arc::new(Int64Array::from(
            (start..start + rows)
                .map(|i| (i % 9 != 0).then_some(i * 2_654_435_761 % 1_000_003))
                .collect::<Vec<_>>(),
        ));
        let s: ArrayRef = Arc::new(StringArray::from(
            (start..start + rows)
                .map(|i| format!("row {i}"))
                .collect::<Vec<_>>(),
        ));
        RecordBatch::try_new(schema.clone(), vec![n, s]).unwrap()
    };
    // A large batch (buffers over 4 MiB: LZ4 frames of several blocks), a small one, a
    // large one.
    let batches = [batch(0, 600_000), batch(7, 10), batch(3, 150_000)];
    let source = dir.join("source.arrows");
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for b in &batches {
        writer.write(b).unwrap();
    }
    std::fs::write(&source, writer.into_inner().unwrap()).unwrap();
    let source = source.to_str().unwrap();

    for (codec, name, compression) in [
        ("lz4", "lz4.arrow", Compression::Lz4Frame),
        ("zstd", "zstd.arrows", Compression::ZSTD),
    ] {
        let out = dir.join(name);
        let run = alkaid(&[
            "convert",
            source,
            out.to_str().unwrap(),
            "--compression",
            codec,
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        let written = std::fs::read(&out).unwrap();
        let options = WriteOptions::default()
            .with_compression(compression)
            .with_magic(Magic::Arrow)
            .with_file_dictionaries(FileDictionaries::Unify);
        let expected = match name.ends_with(".arrow") {
            true => {
                let mut w = FileWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
                batches.iter().for_each(|b| w.write(b).unwrap());
                w.into_inner().unwrap()
            }
            false => {
                let mut w = StreamWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
                batches.iter().for_each(|b| w.write(b).unwrap());
                w.into_inner().unwrap()
            }
        };
        assert!(
            written == expected,
            "{name}: {} bytes against {}",
            written.len(),
            expected.len()
        );

        let redirected = dir.join(format!("redirected-{name}"));
        let file = std::fs::File::create(&redirected).unwrap();
        let form = if name.ends_with(".arrow") {
            "file"
        } else {
            "stream"
        };
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_alkaid"))
            .args(["convert", source, "-", "--to", form, "--magic", "arrow"])
            .args(["--compression", codec])
            .stdout(std::process::Stdio::from(file))
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", text(&run.stderr));
        assert!(
            std::fs::read(&redirected).unwrap() == expected,
            "{name} to standard output"
        );
    }
}

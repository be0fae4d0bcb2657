//! The built `alkaid` binary on pyarrow's fixtures and on corrupt input: output, exit
//! status (0 success, 1 failure with one line on standard error, 2 usage) and round trips
//! through `convert`.

#[path = "cli/outputs.rs"]
mod outputs;
#[cfg(unix)]
#[path = "cli/progress.rs"]
mod progress;
// The moto module loads this file too, privately and only with `object-store`.
#[cfg(all(unix, feature = "flight", feature = "sql"))]
#[allow(clippy::duplicate_mod)]
#[path = "../../alkaid-ipc/tests/support/python.rs"]
mod python;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../alkaid-ipc/tests/fixtures/pyarrow"
);

fn alkaid(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh directory under the target directory's temporary space.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn demo_runs_every_step_and_writes_its_file() {
    let dir = scratch("demo");
    let out = alkaid(&["demo", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for expected in [
        "schema:",
        "time: Timestamp(ms, \"Europe/Paris\")",
        "the 8 hottest",
        "in all",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    let written = dir.join("demo.alkaid");
    assert!(written.metadata().unwrap().len() > 1_000_000);
    let check = alkaid(&["validate", written.to_str().unwrap()]);
    assert!(
        text(&check.stdout).contains("1048576 rows"),
        "{}",
        text(&check.stdout)
    );
}

#[test]
fn schema_cat_and_validate_read_pyarrow_files_and_streams() {
    for name in [
        "all_types.arrow",
        "all_types.stream",
        "all_types_legacy.stream",
        "all_types_zstd.arrow",
    ] {
        let out = alkaid(&["schema", &fixture(name)]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert!(text(&out.stdout).lines().count() > 10, "{name}");
        let out = alkaid(&["validate", &fixture(name)]);
        assert!(
            text(&out.stdout).starts_with("ok: "),
            "{name}: {}",
            text(&out.stderr)
        );
    }
    let out = alkaid(&["cat", &fixture("all_types.arrow"), "--limit", "2"]);
    assert!(out.status.success());
    let table = text(&out.stdout);
    assert!(
        table.starts_with('+') && table.contains("more row"),
        "{table}"
    );
    let out = alkaid(&["cat", &fixture("no_batches.stream")]);
    assert!(out.status.success());
}

#[test]
fn inspect_lists_the_messages() {
    let out = alkaid(&["inspect", &fixture("all_types_zstd.arrow")]);
    let listing = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(listing.starts_with("file, magic ARROW1"), "{listing}");
    assert!(
        listing.contains("record batch, 6 rows") && listing.contains("ZSTD"),
        "{listing}"
    );
    let listing = text(&alkaid(&["inspect", &fixture("dictionary_deltas.stream")]).stdout);
    assert!(listing.contains("dictionary 0 (delta)"), "{listing}");
    assert!(listing.contains("end-of-stream marker"), "{listing}");
}

#[test]
fn standard_input_reads_like_a_file() {
    let bytes = std::fs::read(fixture("metadata.stream")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(["schema", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        text(&alkaid(&["schema", &fixture("metadata.stream")]).stdout)
    );
}

#[test]
fn convert_loses_nothing_in_any_direction() {
    let dir = scratch("convert");
    let source = fixture("metadata.stream");
    let file = dir.join("a.arrow");
    let stream = dir.join("b.stream");
    let out = alkaid(&[
        "convert",
        &source,
        file.to_str().unwrap(),
        "--magic",
        "arrow",
        "--compression",
        "zstd",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read(&file).unwrap().starts_with(b"ARROW1"));
    let out = alkaid(&[
        "convert",
        file.to_str().unwrap(),
        stream.to_str().unwrap(),
        "--to",
        "stream",
        "--compression",
        "lz4",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for command in ["schema", "cat"] {
        let before = text(&alkaid(&[command, &source]).stdout);
        let after = text(&alkaid(&[command, stream.to_str().unwrap()]).stdout);
        assert_eq!(before, after, "{command}");
    }
    // Batch boundaries and each batch's own metadata, as inspect lists them.
    let batches = |path: &str| -> Vec<String> {
        text(&alkaid(&["inspect", path]).stdout)
            .lines()
            .filter_map(|l| {
                l.split_once(": record batch, ")
                    .map(|(_, rest)| rest.split(';').next().unwrap().to_string())
            })
            .collect()
    };
    let before = batches(&source);
    assert_eq!(
        before,
        [
            "3 rows, metadata {\"batch\": \"first\"}",
            "3 rows, metadata {\"batch\": \"second\"}"
        ]
    );
    assert_eq!(batches(file.to_str().unwrap()), before);
    assert_eq!(batches(stream.to_str().unwrap()), before);
    // Dictionaries with deltas survive too, still as dictionaries.
    let deltas = dir.join("deltas.arrow");
    let out = alkaid(&[
        "convert",
        &fixture("dictionary_deltas.stream"),
        deltas.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let schema = text(&alkaid(&["schema", deltas.to_str().unwrap()]).stdout);
    assert!(schema.contains("Dictionary("), "{schema}");
    assert_eq!(
        text(&alkaid(&["cat", deltas.to_str().unwrap()]).stdout),
        text(&alkaid(&["cat", &fixture("dictionary_deltas.stream")]).stdout)
    );
}

/// A Spark file of the Parquet project's corpus: its key-value metadata shown by `schema`
/// and kept by `convert` to IPC and back to Parquet; its INT96 timestamps past the
/// nanosecond range an error by default, and read as Spark reads them with
/// `--int96-as-microseconds`.
#[test]
fn parquet_metadata_and_int96_through_schema_cat_and_convert() {
    let spark = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../alkaid-formats/tests/parquet-testing/data/int96_from_spark.parquet"
    );
    let dir = scratch("parquet_metadata");
    let schema = alkaid(&["schema", spark]);
    assert!(schema.status.success(), "{}", text(&schema.stderr));
    let shown = text(&schema.stdout);
    assert!(shown.contains("a: Timestamp(ns)"), "{shown}");
    assert!(
        shown.contains("metadata \"org.apache.spark.version\": \"3.4.3\""),
        "{shown}"
    );
    let refused = alkaid(&["cat", spark]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("read INT96 as microseconds"));
    #[cfg(feature = "sql")]
    {
        let table = format!("t={spark}");
        let late = "SELECT count(*) AS late FROM t WHERE CAST(a AS BIGINT) > 253000000000000000";
        let refused = alkaid(&["sql", late, "--table", &table]);
        assert_eq!(refused.status.code(), Some(1));
        assert!(text(&refused.stderr).contains("read INT96 as microseconds"));
        let out = alkaid(&["sql", late, "--table", &table, "--int96-as-microseconds"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        // 9999-12-31 and year 290000.
        assert!(text(&out.stdout).contains("| 2 "), "{}", text(&out.stdout));
    }
    let cat = alkaid(&["cat", "--int96-as-microseconds", spark]);
    assert!(cat.status.success(), "{}", text(&cat.stderr));
    assert!(
        text(&cat.stdout).contains("9999-12-31T03:00:00"),
        "{}",
        text(&cat.stdout)
    );
    let ipc = dir.join("spark.arrow");
    let back = dir.join("spark.parquet");
    for (from, to) in [
        (spark, ipc.to_str().unwrap()),
        (ipc.to_str().unwrap(), back.to_str().unwrap()),
    ] {
        let out = alkaid(&["convert", "--int96-as-microseconds", from, to]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    for path in [&ipc, &back] {
        let shown = text(&alkaid(&["schema", path.to_str().unwrap()]).stdout);
        assert!(shown.contains("a: Timestamp(us)"), "{shown}");
        assert!(
            shown.contains("metadata \"org.apache.spark.version\": \"3.4.3\""),
            "{shown}"
        );
    }
}

#[test]
fn corrupt_input_is_status_one_with_one_line() {
    let dir = scratch("corrupt");
    let bytes = std::fs::read(fixture("all_types.arrow")).unwrap();
    let mut cases: Vec<Vec<u8>> = vec![
        bytes[..bytes.len() / 2].to_vec(),
        b"ARROW1\0\0not a file at all".to_vec(),
        vec![0xff; 64],
    ];
    let mut flipped = bytes.clone();
    for i in (100..flipped.len()).step_by(97) {
        flipped[i] ^= 0x5a;
    }
    cases.push(flipped);
    for (k, case) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{k}"));
        std::fs::write(&path, case).unwrap();
        for command in ["schema", "cat", "validate", "inspect"] {
            let out = alkaid(&[command, path.to_str().unwrap()]);
            let stderr = text(&out.stderr);
            if out.status.success() {
                continue; // a flip that left the file readable
            }
            assert_eq!(out.status.code(), Some(1), "{command} case {k}: {stderr}");
            assert!(
                stderr.starts_with("alkaid: ") && stderr.lines().count() == 1,
                "{stderr}"
            );
        }
    }
    let out = alkaid(&["schema", "/no/such/file"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn usage_errors_are_status_two_and_help_is_there() {
    assert_eq!(alkaid(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(alkaid(&["cat"]).status.code(), Some(2));
    assert_eq!(
        alkaid(&["convert", "a", "b", "--to", "tape"]).status.code(),
        Some(2)
    );
    for command in ["demo", "schema", "cat", "validate", "inspect", "convert"] {
        let out = alkaid(&[command, "--help"]);
        assert!(out.status.success() && !out.stdout.is_empty(), "{command}");
    }
}

/// An IPC file of `columns` under their names.
fn file_of(dir: &Path, name: &str, columns: Vec<(&str, alkaid_array::ArrayRef)>) -> PathBuf {
    use alkaid_array::RecordBatch;
    use alkaid_ipc::{FileWriter, WriteOptions};
    use alkaid_schema::{Field, Schema};
    use std::sync::Arc;

    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, column)| Field::new(*name, column.data_type().clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batch =
        RecordBatch::try_new(schema.clone(), columns.into_iter().map(|c| c.1).collect()).unwrap();
    let mut writer = FileWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, writer.into_inner().unwrap()).unwrap();
    path
}

#[test]
fn validate_is_strict_by_default_and_full_on_request() {
    use alkaid_array::{Time32SecondArray, Time64NanosecondArray};
    use std::sync::Arc;

    let dir = scratch("levels");
    let late = file_of(
        &dir,
        "late.arrow",
        vec![
            ("ok", Arc::new(Time64NanosecondArray::from(vec![1, 2]))),
            ("t", Arc::new(Time32SecondArray::from(vec![0, 90_000]))),
        ],
    );
    let path = late.to_str().unwrap();
    let out = alkaid(&["validate", path]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("batch 0: field \"t\": value at slot 1 of Time32(s) is outside one day"),
        "{stderr}"
    );
    let out = alkaid(&["validate", path, "--level", "full"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("2 rows, every value valid"));
    let out = alkaid(&["validate", path, "--level", "sloppy"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn strict_validation_of_selected_stream_batches_holds_only_them_to_it() {
    use alkaid_array::{ArrayRef, RecordBatch, Time32SecondArray};
    use alkaid_ipc::{StreamWriter, WriteOptions};
    use alkaid_schema::{DataType, Field, Schema, TimeUnit};
    use std::sync::Arc;

    // Batch 0 holds a time past one day (valid in full, refused when strict), batch 1
    // none. A stream's batch 0 is read on the way to batch 1.
    let dir = scratch("strict-selection");
    let schema = Arc::new(Schema::new(vec![Field::new(
        "t",
        DataType::Time(TimeUnit::Second),
        true,
    )]));
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for values in [vec![0, 90_000], vec![1, 2]] {
        let column: ArrayRef = Arc::new(Time32SecondArray::from(values));
        writer
            .write(&RecordBatch::try_new(schema.clone(), vec![column]).unwrap())
            .unwrap();
    }
    let path = dir.join("late.arrows");
    std::fs::write(&path, writer.into_inner().unwrap()).unwrap();
    let path = path.to_str().unwrap();

    let out = alkaid(&["validate", path]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("batch 0: field \"t\": value at slot 1"),
        "{stderr}"
    );
    let out = alkaid(&["validate", path, "--batches", "1.."]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("1 batches, 2 rows"),
        "{}",
        text(&out.stdout)
    );
    let out = alkaid(&["validate", path, "--batches", "0"]);
    assert_eq!(out.status.code(), Some(1));
    let out = alkaid(&["validate", path, "--level", "full"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn file_errors_name_their_batch_once() {
    use alkaid_array::StringArray;
    use std::sync::Arc;

    let dir = scratch("named-once");
    let path = file_of(
        &dir,
        "bad_utf8.arrow",
        vec![("s", Arc::new(StringArray::from(vec!["abcdefgh"])))],
    );
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(8).position(|w| w == b"abcdefgh").unwrap();
    bytes[at] = 0xFF;
    std::fs::write(&path, bytes).unwrap();
    for command in ["cat", "validate"] {
        let out = alkaid(&[command, path.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("invalid UTF-8"), "{stderr}");
        assert_eq!(stderr.matches("batch 0").count(), 1, "{command}: {stderr}");
    }
}

fn integration_data(name: &str) -> String {
    format!(
        "{}/../alkaid-integration/tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn integration_modes_convert_and_validate() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop");
    std::fs::create_dir_all(&dir).unwrap();
    for group in ["primitive", "nested", "dictionary", "union"] {
        let json = integration_data(&format!("{group}.json"));
        let theirs = integration_data(&format!("{group}.arrow_file"));
        // pyarrow's file holds what the JSON describes.
        let out = alkaid(&[
            "integration",
            "--mode",
            "validate",
            "--json",
            &json,
            "--arrow",
            &theirs,
        ]);
        assert!(out.status.success(), "{group}: {}", text(&out.stderr));
        // JSON to an ARROW1 file (check_alkaid_files.py reads it with pyarrow), and back.
        let ours = dir.join(format!("integration_{group}.arrow_file"));
        let ours = ours.to_str().unwrap();
        let out = alkaid(&[
            "integration",
            "--mode",
            "json-to-arrow",
            "--json",
            &json,
            "--arrow",
            ours,
        ]);
        assert!(out.status.success(), "{group}: {}", text(&out.stderr));
        assert_eq!(&std::fs::read(ours).unwrap()[..6], b"ARROW1");
        let back = dir.join(format!("integration_{group}.json"));
        let back = back.to_str().unwrap();
        let out = alkaid(&[
            "integration",
            "--mode",
            "arrow-to-json",
            "--json",
            back,
            "--arrow",
            ours,
        ]);
        assert!(out.status.success(), "{group}: {}", text(&out.stderr));
        let out = alkaid(&[
            "integration",
            "--mode",
            "validate",
            "--json",
            back,
            "--arrow",
            &theirs,
        ]);
        assert!(out.status.success(), "{group}: {}", text(&out.stderr));
    }
    // A file that is not what the JSON says: status 1, naming both.
    let out = alkaid(&[
        "integration",
        "--mode",
        "validate",
        "--json",
        &integration_data("primitive.json"),
        "--arrow",
        &integration_data("binary.arrow_file"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("differs from"),
        "{}",
        text(&out.stderr)
    );
    let out = alkaid(&["integration", "--mode", "validate", "--json", "x.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("Validate needs --arrow"));
}

#[test]
fn integration_streams_and_files_convert_through_standard_io() {
    let dir = scratch("integration-io");
    let file = integration_data("dictionary.arrow_file");
    let out = alkaid(&["integration", "--mode", "file-to-stream", "--arrow", &file]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stream = out.stdout;
    let written = dir.join("from_stream.arrow_file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args([
            "integration",
            "--mode",
            "stream-to-file",
            "--arrow",
            written.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&stream).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = alkaid(&[
        "integration",
        "--mode",
        "validate",
        "--json",
        &integration_data("dictionary.json"),
        "--arrow",
        written.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn columns_select_what_schema_cat_validate_and_convert_read() {
    use alkaid_array::{Int32Array, Time32SecondArray};
    use std::sync::Arc;

    let zstd = fixture("all_types_zstd.arrow");
    let out = alkaid(&["schema", &zstd, "--columns", "struct_of_dictionary,int8"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "struct_of_dictionary: Struct(w: Dictionary(Int32, LargeUtf8))\nint8: Int8\n"
    );
    let out = alkaid(&[
        "cat",
        &fixture("all_types.stream"),
        "--columns",
        "dictionary,int8",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let header = table.lines().nth(1).unwrap();
    assert_eq!(
        header.split_whitespace().collect::<String>(),
        "|dictionary|int8|"
    );
    // A column that fails the strict checks fails validation only when it is read.
    let dir = scratch("columns");
    let late = file_of(
        &dir,
        "late.arrow",
        vec![
            ("n", Arc::new(Int32Array::from(vec![1, 2]))),
            ("t", Arc::new(Time32SecondArray::from(vec![0, 90_000]))),
        ],
    );
    let late = late.to_str().unwrap();
    let out = alkaid(&["validate", late, "--columns", "n"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = alkaid(&["validate", late, "--columns", "t,n"]);
    assert_eq!(out.status.code(), Some(1));
    // Convert keeps the selected columns, in the order given, dictionaries included.
    let out_path = dir.join("two.arrows");
    let two = out_path.to_str().unwrap();
    let out = alkaid(&[
        "convert",
        &zstd,
        two,
        "--to",
        "stream",
        "--columns",
        "dictionary,int16",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = alkaid(&["schema", two]);
    assert_eq!(
        text(&out.stdout),
        "dictionary: Dictionary(Int8, Utf8)\nint16: Int16\n"
    );
    // An unknown column: status 1, one line naming it.
    let out = alkaid(&["cat", &zstd, "--columns", "int8,nope"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("\"nope\"") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn batches_select_a_range_of_a_file_or_a_stream() {
    // Two batches of 4 and 2 rows, as pyarrow wrote them, and as an Alkaid file.
    let stream = fixture("all_types.stream");
    let dir = scratch("batches");
    let file_path = dir.join("all_types.arrow");
    let file = file_path.to_str().unwrap();
    assert!(alkaid(&["convert", &stream, file]).status.success());
    for (input, kind) in [(stream.as_str(), "stream"), (file, "file")] {
        for (range, summary) in [
            ("0", "1 batches, 4 rows"),
            ("1..", "1 batches, 2 rows"),
            ("0..2", "2 batches, 6 rows"),
            ("1..1", "0 batches, 0 rows"),
        ] {
            let out = alkaid(&["validate", input, "--batches", range]);
            assert!(
                out.status.success(),
                "{kind} {range}: {}",
                text(&out.stderr)
            );
            let stdout = text(&out.stdout);
            assert!(
                stdout.contains(&format!("{kind} of {summary}")),
                "{kind} {range}: {stdout}"
            );
        }
        let out = alkaid(&["validate", input, "--batches", "2..1"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{kind}: a reversed range is a usage error"
        );
    }
    // A file knows its batches: a range past them is an error naming the count.
    let out = alkaid(&["cat", file, "--batches", "1..5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("batches 1..5 of a file with 2 batches"));
    // Converting batch 1 alone keeps its rows, with the columns asked for.
    let one_path = dir.join("one.arrows");
    let one = one_path.to_str().unwrap();
    let out = alkaid(&[
        "convert",
        file,
        one,
        "--to",
        "stream",
        "--batches",
        "1",
        "--columns",
        "int8",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = alkaid(&["validate", one]);
    assert!(text(&out.stdout).contains("stream of 1 batches, 2 rows"));
    assert_eq!(text(&alkaid(&["schema", one]).stdout), "int8: Int8\n");
}

#[cfg(feature = "object-store")]
#[path = "../../alkaid-ipc-async/tests/moto/mod.rs"]
mod moto;

#[cfg(feature = "object-store")]
#[test]
fn object_store_urls_read_like_paths() {
    // A file:// URL: the local file system through object_store.
    let url = format!("file://{}", fixture("all_types.arrow"));
    let by_url = alkaid(&["cat", &url, "--columns", "utf8,int32", "--batches", "0"]);
    let by_path = alkaid(&[
        "cat",
        &fixture("all_types.arrow"),
        "--columns",
        "utf8,int32",
        "--batches",
        "0",
    ]);
    assert!(by_url.status.success(), "{}", text(&by_url.stderr));
    assert_eq!(text(&by_url.stdout), text(&by_path.stdout));

    let Some(moto) = moto::Moto::start_or_skip("object_store_urls_read_like_paths") else {
        return;
    };
    moto.create_bucket("cli");
    for name in [
        "all_types.arrow",
        "all_types.stream",
        "all_types_zstd.arrow",
    ] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        moto.put_object("cli", &format!("data/{name}"), &bytes);
    }
    let run = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_alkaid"));
        command.args(args);
        for (key, value) in moto.environment() {
            command.env(key, value);
        }
        command.output().expect("the binary runs")
    };
    for name in [
        "all_types.arrow",
        "all_types.stream",
        "all_types_zstd.arrow",
    ] {
        let url = format!("s3://cli/data/{name}");
        for args in [
            vec!["schema", url.as_str()],
            vec!["cat", url.as_str(), "--columns", "utf8,int32"],
            vec!["validate", url.as_str(), "--batches", "0.."],
        ] {
            let remote = run(&args);
            assert!(
                remote.status.success(),
                "{args:?}: {}",
                text(&remote.stderr)
            );
            let mut local_args = args.clone();
            let local_path = fixture(name);
            local_args[1] = &local_path;
            let local = alkaid(&local_args);
            assert_eq!(text(&remote.stdout), text(&local.stdout), "{args:?}");
        }
    }
    // convert reads from S3 and writes locally.
    let dir = scratch("s3_convert");
    let out = dir.join("copy.alkaid");
    let converted = run(&[
        "convert",
        "s3://cli/data/all_types.stream",
        out.to_str().unwrap(),
        "--to",
        "file",
    ]);
    assert!(converted.status.success(), "{}", text(&converted.stderr));
    let check = alkaid(&["validate", out.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    // Parquet by ranges, CSV and JSON whole: read as the same files are read locally.
    let dir = scratch("s3_tabular");
    let flat = "int64,utf8,float64,bool";
    for name in ["t.parquet", "t.csv", "t.ndjson"] {
        let local = dir.join(name);
        let made = alkaid(&[
            "convert",
            &fixture("all_types.arrow"),
            local.to_str().unwrap(),
            "--columns",
            flat,
        ]);
        assert!(made.status.success(), "{}", text(&made.stderr));
        moto.put_object(
            "cli",
            &format!("data/{name}"),
            &std::fs::read(&local).unwrap(),
        );
        let url = format!("s3://cli/data/{name}");
        let remote = run(&["cat", &url, "--columns", "utf8,int64"]);
        assert!(remote.status.success(), "{name}: {}", text(&remote.stderr));
        let here = alkaid(&["cat", local.to_str().unwrap(), "--columns", "utf8,int64"]);
        assert_eq!(text(&remote.stdout), text(&here.stdout), "{name}");
    }
    let out = dir.join("from_s3.arrow");
    let converted = run(&[
        "convert",
        "s3://cli/data/t.parquet",
        out.to_str().unwrap(),
        "--columns",
        "bool,float64",
    ]);
    assert!(converted.status.success(), "{}", text(&converted.stderr));
    assert_eq!(
        text(&alkaid(&["schema", out.to_str().unwrap()]).stdout),
        "bool: Boolean\nfloat64: Float64\n"
    );
    // A missing object: status 1, one line naming it.
    let missing = run(&["schema", "s3://cli/data/absent.arrow"]);
    assert_eq!(missing.status.code(), Some(1));
    let stderr = text(&missing.stderr);
    assert!(stderr.contains("data/absent.arrow"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

/// `alkaid serve DIR` in the background, on a free port; killed when dropped.
#[cfg(feature = "flight")]
struct Served {
    child: std::process::Child,
    uri: String,
}

#[cfg(feature = "flight")]
impl Served {
    fn start(dir: &Path, extra: &[&str]) -> Self {
        Self::start_with(dir.to_str().unwrap(), extra, &[])
    }

    /// Serves `location` (a directory or a URL) with `extra` arguments and `env` set.
    fn start_with(location: &str, extra: &[&str], env: &[(&str, String)]) -> Self {
        use std::io::{BufRead, BufReader};
        let mut child = Command::new(env!("CARGO_BIN_EXE_alkaid"))
            .args(["serve", location, "--port", "0"])
            .args(extra)
            .envs(env.iter().map(|(key, value)| (key, value)))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the server starts within 30 s");
        let uri = line.trim().rsplit(' ').next().unwrap().to_string();
        assert!(uri.starts_with("grpc://127.0.0.1:"), "{line}");
        Self { child, uri }
    }
}

#[cfg(feature = "flight")]
impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(feature = "flight")]
#[test]
fn serve_get_and_put_move_files_over_flight() {
    let served_dir = scratch("flight_served");
    let out_dir = scratch("flight_out");
    // Read-only unless the operator says otherwise: an upload is refused.
    let server = Served::start(&served_dir, &[]);
    let refused = alkaid(&[
        "put",
        &server.uri,
        &fixture("all_types.arrow"),
        "--name",
        "x",
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("read-only"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(std::fs::read_dir(&served_dir).unwrap().count(), 0);
    drop(server);
    let server = Served::start(&served_dir, &["--allow-writes"]);
    let uri = server.uri.clone();
    // A pyarrow file and pyarrow streams go up (one replacing its dictionaries, which the
    // server's file unifies), and come back as files.
    for fixture_name in [
        "all_types.arrow",
        "all_types.stream",
        "dictionary_replacement.stream",
    ] {
        let name = format!("up-{fixture_name}");
        let put = alkaid(&["put", &uri, &fixture(fixture_name), "--name", &name]);
        assert!(put.status.success(), "{}", text(&put.stderr));
        assert!(
            text(&put.stdout).contains("rows uploaded"),
            "{}",
            text(&put.stdout)
        );
        assert!(served_dir.join(&name).exists());
        let out = out_dir.join(&name);
        let get = alkaid(&["get", &uri, &name, out.to_str().unwrap()]);
        assert!(get.status.success(), "{}", text(&get.stderr));
        // The magic from the extension: `.arrow` opens in Arrow readers.
        let magic: &[u8] = match name.ends_with(".arrow") {
            true => b"ARROW1",
            false => b"ALKAID1",
        };
        assert!(std::fs::read(&out).unwrap().starts_with(magic), "{name}");
        let (back, original) = (
            alkaid(&["cat", out.to_str().unwrap()]),
            alkaid(&["cat", &fixture(fixture_name)]),
        );
        assert_eq!(text(&back.stdout), text(&original.stdout));
        // Printed instead of written.
        let printed = alkaid(&["get", &uri, &name]);
        assert_eq!(text(&printed.stdout), text(&original.stdout));
    }
    // An upload's and a fetch's progress, on a terminal.
    #[cfg(unix)]
    {
        let upload = fixture("all_types.stream");
        let drawn = progress::on_a_terminal(&["put", &uri, &upload, "--name", "progress.arrow"]);
        assert!(drawn.contains("uploading: "), "{drawn:?}");
        assert!(drawn.contains("rows uploaded"), "{drawn:?}");
        let out = out_dir.join("progress.arrow");
        let drawn =
            progress::on_a_terminal(&["get", &uri, "progress.arrow", out.to_str().unwrap()]);
        assert!(drawn.contains("fetching: "), "{drawn:?}");
    }
    // A name that is taken is refused; the file there is kept.
    let again = alkaid(&[
        "put",
        &uri,
        &fixture("all_types.arrow"),
        "--name",
        "up-all_types.arrow",
    ]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("AlreadyExists"),
        "{}",
        text(&again.stderr)
    );
    let missing = alkaid(&["get", &uri, "nothing.arrow"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("does not exist"),
        "{}",
        text(&missing.stderr)
    );
    drop(server);

    // With a token: without it, nothing. The token is handed out for a user's password.
    let server = Served::start(
        &served_dir,
        &["--token", "opensesame", "--basic", "ann:pa55"],
    );
    let denied = alkaid(&["get", &server.uri, "up-all_types.arrow"]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(
        text(&denied.stderr).contains("Unauthenticated"),
        "{}",
        text(&denied.stderr)
    );
    assert!(text(&denied.stdout).is_empty());
    let allowed = alkaid(&[
        "get",
        &server.uri,
        "up-all_types.arrow",
        "--token",
        "opensesame",
    ]);
    assert!(allowed.status.success(), "{}", text(&allowed.stderr));
    let by_password = alkaid(&[
        "get",
        &server.uri,
        "up-all_types.arrow",
        "--basic",
        "ann:pa55",
    ]);
    assert!(
        by_password.status.success(),
        "{}",
        text(&by_password.stderr)
    );
    assert_eq!(text(&by_password.stdout), text(&allowed.stdout));
    let wrong = alkaid(&[
        "get",
        &server.uri,
        "up-all_types.arrow",
        "--basic",
        "ann:nope",
    ]);
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        text(&wrong.stderr).contains("wrong user name or password"),
        "{}",
        text(&wrong.stderr)
    );
}

/// The high-water mark of `pid`'s resident memory, in bytes.
#[cfg(feature = "flight")]
/// The process's private resident memory (`RssAnon`): what it allocated, without the pages
/// of files it has mapped, which are the page cache's and shared.
fn private_resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("RssAnon:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[cfg(feature = "flight")]
#[test]
fn a_slow_client_holds_the_server_back_instead_of_filling_its_memory() {
    use std::sync::Arc;

    use alkaid_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use alkaid_ipc::{FileWriter, WriteOptions};
    use alkaid_schema::{DataType, Field, Schema};
    use futures_util::TryStreamExt;

    if !Path::new("/proc/self/status").exists() {
        eprintln!("no /proc here: the server's memory cannot be read");
        return;
    }
    let dir = scratch("flight_slow");
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    // 96 batches of about 1 MB: a file of about 90 MB.
    let mut writer =
        FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for b in 0..96i64 {
        let n: Vec<i64> = (b * 40_000..(b + 1) * 40_000).collect();
        let s: Vec<String> = n.iter().map(|i| format!("value {i}")).collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(n)),
            Arc::new(StringArray::from(s)),
        ];
        writer
            .write(&RecordBatch::try_new(schema.clone(), columns).unwrap())
            .unwrap();
    }
    let file = writer.into_inner().unwrap();
    let size = file.len() as u64;
    std::fs::write(dir.join("big.arrow"), file).unwrap();
    let server = Served::start(&dir, &[]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let rows = runtime.block_on(async {
        let mut client = alkaid_flight::FlightClient::connect(&server.uri)
            .await
            .unwrap();
        // Warm: the server's memory once a flight has been described.
        client.list_flights(Default::default()).await.unwrap();
        let before = private_resident(server.child.id());
        let mut batches = client.do_get(b"big.arrow").await.unwrap();
        let mut rows = 0;
        // The server reads from a memory map of the file: its pages become resident as
        // they are sent, but they are the page cache's. What must not grow with the file
        // is the memory the server allocates, sampled after every batch.
        let mut grown = 0;
        while let Some(batch) = batches.try_next().await.unwrap() {
            rows += batch.num_rows();
            grown = grown.max(private_resident(server.child.id()).saturating_sub(before));
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(
            grown < size / 4,
            "the server's private memory grew by {grown} bytes serving a {size}-byte file"
        );
        rows
    });
    assert_eq!(rows, 96 * 40_000);
}

#[cfg(feature = "sql")]
#[test]
fn sql_runs_a_query_over_files_with_datafusion() {
    let table = format!("t={}", fixture("all_types.arrow"));
    let out = alkaid(&[
        "sql",
        "SELECT count(*) AS n, count(utf8) AS texts, sum(int64) AS total FROM t",
        "--table",
        &table,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("texts") && stdout.contains("total"),
        "{stdout}"
    );
    // Six rows, four strings, and the sum of the four non-null int64 values.
    assert!(stdout.contains("15999999999980"), "{stdout}");
    let numbers: Vec<&str> = stdout
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .collect();
    assert!(numbers.starts_with(&["6", "4"]), "{stdout}");
    // Every type of the fixture through DataFusion and back to Alkaid's display.
    let out = alkaid(&["sql", "SELECT * FROM t", "--table", &table]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("utf8_view"),
        "{}",
        text(&out.stdout)
    );

    // The same rows as Parquet, CSV and JSON files, and directories of them, joined with the
    // IPC file: the same answers.
    let dir = scratch("sql_formats");
    let flat = "int64,utf8,float64,bool";
    let query = |name: &str| {
        format!(
            "SELECT count(*) AS n, count({name}.utf8) AS texts, sum({name}.int64) AS total \
             FROM {name} JOIN t ON {name}.int64 = t.int64"
        )
    };
    let expected = {
        let ipc = dir.join("flat.arrow");
        let made = alkaid(&[
            "convert",
            &fixture("all_types.arrow"),
            ipc.to_str().unwrap(),
            "--columns",
            flat,
        ]);
        assert!(made.status.success(), "{}", text(&made.stderr));
        let other = format!("x={}", ipc.display());
        let out = alkaid(&["sql", &query("x"), "--table", &other, "--table", &table]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert!(expected.contains("15999999999980"), "{expected}");
    for (extension, directory) in [("parquet", "pq"), ("csv", "csv"), ("ndjson", "json")] {
        let sub = dir.join(directory);
        std::fs::create_dir_all(&sub).unwrap();
        let file = sub.join(format!("part-0.{extension}"));
        let made = alkaid(&[
            "convert",
            &fixture("all_types.arrow"),
            file.to_str().unwrap(),
            "--columns",
            flat,
        ]);
        assert!(made.status.success(), "{}", text(&made.stderr));
        // A marker beside the files, as Spark leaves: not read.
        std::fs::write(sub.join("_SUCCESS"), b"").unwrap();
        for path in [
            file.to_str().unwrap().to_string(),
            format!("{}/", sub.display()),
        ] {
            let other = format!("x={path}");
            let out = alkaid(&["sql", &query("x"), "--table", &other, "--table", &table]);
            assert!(out.status.success(), "{path}: {}", text(&out.stderr));
            assert_eq!(text(&out.stdout), expected, "{path}");
        }
    }
    // Filters reach the Parquet scan.
    let parquet = format!("p={}/", dir.join("pq").display());
    let out = alkaid(&[
        "sql",
        "EXPLAIN SELECT utf8 FROM p WHERE int64 > 0",
        "--table",
        &parquet,
    ]);
    assert!(
        text(&out.stdout).contains("alkaid_filters=[int64@"),
        "{}",
        text(&out.stdout)
    );

    let out = alkaid(&["sql", "SELECT 1", "--table", "no-equals-sign"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("NAME=PATH"),
        "{}",
        text(&out.stderr)
    );
    let out = alkaid(&["sql", "SELECT * FROM missing"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("missing"),
        "{}",
        text(&out.stderr)
    );
}

/// `alkaid serve --help` says what each mode allows and every limit's default; a secret
/// inside the served directory (the users file, the TLS key) is refused at start.
#[cfg(all(unix, feature = "flight"))]
#[test]
fn serve_says_what_it_allows_and_keeps_secrets_out_of_the_directory() {
    let help = text(&alkaid(&["serve", "--help"]).stdout);
    for said in [
        "--allow-writes",
        "read-only",
        "--allow-replace",
        "--query-time-limit <SECONDS>",
        "[default: 300]",
        "--write-limit <MIB>",
        "[default: 16384]",
        "--message-limit <MIB>",
        "--parameter-rows <ROWS>",
    ] {
        assert!(help.contains(said), "{said}:\n{help}");
    }
    let dir = scratch("serve_secrets");
    let users = dir.join("users.csv");
    std::fs::write(&users, "ann:pw\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&users, std::fs::Permissions::from_mode(0o600)).unwrap();
    let refused = alkaid(&[
        "serve",
        dir.to_str().unwrap(),
        "--users",
        users.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("inside the served directory"),
        "{}",
        text(&refused.stderr)
    );
    let key = dir.join("key.pem");
    std::fs::write(&key, "not a key").unwrap();
    let refused = alkaid(&[
        "serve",
        dir.to_str().unwrap(),
        "--tls-cert",
        key.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("the TLS key lies inside"),
        "{}",
        text(&refused.stderr)
    );
}

/// `alkaid serve DIR --sql --users FILE`: ADBC's Flight SQL driver (from PyPI) queries
/// the directory's files as tables, each user with the token the handshake hands them; a
/// file written while the server runs is a table for the next query. A users file that
/// others may read is refused.
#[cfg(all(unix, feature = "flight", feature = "sql"))]
#[test]
fn serve_sql_answers_an_adbc_client_and_sees_new_files() {
    let Some(python) = python::python_with("adbc_driver_flightsql.dbapi") else {
        return;
    };
    let dir = scratch("serve_sql");
    std::fs::write(
        dir.join("cities.csv"),
        "city,people\nOslo,709000\nLima,10000000\n",
    )
    .unwrap();
    let users = scratch("serve_sql_users").join("users");
    std::fs::write(&users, "# analysts\nann:pw\n\nbob:pw2\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&users, std::fs::Permissions::from_mode(0o644)).unwrap();
    let users_arg = users.to_str().unwrap();
    let open = alkaid(&[
        "serve",
        dir.to_str().unwrap(),
        "--sql",
        "--users",
        users_arg,
    ]);
    assert_eq!(open.status.code(), Some(1));
    assert!(
        text(&open.stderr).contains("chmod 600"),
        "{}",
        text(&open.stderr)
    );
    std::fs::set_permissions(&users, std::fs::Permissions::from_mode(0o600)).unwrap();
    let server = Served::start(&dir, &["--sql", "--users", users_arg]);
    let query = |user: &str, password: &str, sql: &str| {
        let credentials = format!("{{'username': {user:?}, 'password': {password:?}}}");
        adbc_query(&python, &server.uri, &credentials, sql)
    };
    assert_eq!(
        query(
            "ann",
            "pw",
            "SELECT city FROM cities WHERE people > 1000000"
        ),
        "[{'city': 'Lima'}]"
    );
    std::fs::write(dir.join("later.csv"), "n\n1\n2\n").unwrap();
    assert_eq!(
        query("bob", "pw2", "SELECT sum(n) AS total FROM later"),
        "[{'total': 3}]"
    );
    let wrong = query("bob", "pw", "SELECT 1");
    assert!(wrong.to_lowercase().contains("unauthenticated"), "{wrong}");
    // Started without --allow-writes: a write is refused, and nothing is written.
    let copy = query("ann", "pw", "COPY (SELECT 1 AS x) TO 'x.csv' STORED AS CSV");
    assert!(copy.contains("read-only"), "{copy}");
    assert!(!dir.join("x.csv").exists());
}

/// `sql`'s rows as ADBC's driver in `python` fetches them from the Flight SQL server at
/// `uri` (`db_kwargs` a Python dict literal), or `error: ` and the error's first line.
#[cfg(all(unix, feature = "flight", feature = "sql"))]
fn adbc_query(python: &Path, uri: &str, db_kwargs: &str, sql: &str) -> String {
    let script = format!(
        "import adbc_driver_flightsql.dbapi as f\n\
         try:\n    \
         with f.connect({uri:?}, db_kwargs={db_kwargs}, autocommit=True) as c, c.cursor() as cur:\n        \
         cur.execute({sql:?})\n        print(cur.fetch_arrow_table().to_pylist())\n\
         except Exception as e:\n    print('error:', str(e).splitlines()[0])"
    );
    let out = Command::new(python).args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}

/// `alkaid serve URL --sql`: the tables of an S3 bucket (moto's server, its endpoint and
/// credentials in the `AWS_*` variables) for ADBC's driver, read-only; a URL without
/// `--sql` is refused, as the plain Flight service serves local directories only.
#[cfg(all(unix, feature = "flight", feature = "sql", feature = "object-store"))]
#[test]
fn serve_sql_reads_the_tables_of_an_object_store_url() {
    let plain = alkaid(&["serve", "s3://served/data/"]);
    assert_eq!(plain.status.code(), Some(1));
    assert!(
        text(&plain.stderr).contains("--sql"),
        "{}",
        text(&plain.stderr)
    );
    let Some(python) = python::python_with("adbc_driver_flightsql.dbapi") else {
        return;
    };
    let Some(moto) = moto::Moto::start_or_skip("serve_sql_reads_the_tables_of_an_object_store_url")
    else {
        return;
    };
    moto.create_bucket("served");
    moto.put_object(
        "served",
        "data/cities.csv",
        b"city,people\nOslo,709000\nLima,10000000\n",
    );
    let server = Served::start_with("s3://served/data/", &["--sql"], &moto.environment());
    let query = |sql: &str| adbc_query(&python, &server.uri, "{}", sql);
    assert_eq!(
        query("SELECT city FROM cities WHERE people > 1000000"),
        "[{'city': 'Lima'}]"
    );
    moto.put_object("served", "data/later.csv", b"n\n1\n2\n");
    assert_eq!(query("SELECT sum(n) AS total FROM later"), "[{'total': 3}]");
    let insert = query("INSERT INTO later VALUES (3)");
    assert!(insert.contains("read-only"), "{insert}");
}

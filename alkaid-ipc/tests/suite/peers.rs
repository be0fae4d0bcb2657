//! The Arrow world's other implementations, both ways, with the scripts in `tests/peers/`:
//! Polars, nanoarrow and apache-arrow JS write files and streams that Alkaid must read as
//! pyarrow reads them (schema and metadata, batch boundaries, values), and they read the
//! files and streams Alkaid writes (every type, the Arrow magic, compressed and not), equal
//! to what Alkaid wrote. What a peer cannot read is named below with the peer's own error,
//! never skipped in silence. arrow-rs is the other Rust peer: alkaid-arrow's suite.
//!
//! Needs Python with pyarrow, polars and nanoarrow, and node with `apache-arrow` in the
//! target directory's `npm/node_modules` (`.ci/run` installs both; `$ALKAID_NODE_MODULES`
//! points elsewhere). Without them the tests say so and pass, unless
//! `ALKAID_REQUIRE_PYARROW` is set (CI sets it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    Compression, FileReader, FileWriter, Magic, StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::SchemaRef;

use crate::common::Value;
use crate::common::decode::decode;
use crate::python::python_with;

/// What a peer cannot read of what Alkaid writes: the peer, the files (a column's files are
/// named after it, `col_NAME_CODEC`; `all_CODEC` holds every column; a pattern starting
/// with `.` is an extension), and words of the peer's error. Each is the peer's own
/// limitation, checked here to hold still.
const LIMITATIONS: &[(&str, &str, &str)] = &[
    // Polars 2.1: no list views, run-end encoding, unions, 256-bit decimals or
    // month-day-nano intervals, and no fixed-offset time zones ("+07:30").
    (
        "polars",
        "list_view",
        "is still not supported in Rust implementation",
    ),
    ("polars", "all_", "\"+vl\" is still not supported"),
    (
        "polars",
        "col_run_end_encoded",
        "\"+r\" is still not supported",
    ),
    ("polars", "union", "cannot create series from Union"),
    (
        "polars",
        "col_decimal256",
        "does not support primitive `Int256`",
    ),
    (
        "polars",
        "col_interval",
        "could not import from `month_day_nano_interval`",
    ),
    ("polars", "col_ts_ns", "unable to parse time zone: '+07:30'"),
    // nanoarrow 0.9's Python package: streams only, no compression, no view types and no
    // run-end encoding in its IPC reader.
    ("nanoarrow", ".arrow", "reads IPC streams, not files"),
    ("nanoarrow", "_lz4", "unsupported feature COMPRESSED_BODY"),
    ("nanoarrow", "_zstd", "unsupported feature COMPRESSED_BODY"),
    ("nanoarrow", "view", "View not yet supported in IPC reader"),
    (
        "nanoarrow",
        "all_none",
        "BinaryView not yet supported in IPC reader",
    ),
    (
        "nanoarrow",
        "col_run_end_encoded",
        "RunEndEncoded not yet supported",
    ),
    // apache-arrow JS 21 (with pure-JS LZ4 and zstd decoders registered as its codecs,
    // which it needs for compressed bodies): no list views or run-end encoding.
    ("js", "list_view", "Unrecognized type: \""),
    ("js", "all_", "Unrecognized type: \"ListView\""),
    (
        "js",
        "col_run_end_encoded",
        "Unrecognized type: \"RunEndEncoded\"",
    ),
];

/// What a peer cannot write: nanoarrow's IPC writer has no view types and no dictionaries.
const NANOARROW_CANNOT_WRITE: &[(&str, &str)] = &[
    (
        "binary_view",
        "Expected a valid enum ArrowType value but found 40",
    ),
    ("dict", "Cannot encode dictionary arrays"),
    (
        "list_view",
        "Expected a valid enum ArrowType value but found 44",
    ),
    (
        "utf8_view",
        "Expected a valid enum ArrowType value but found 41",
    ),
];

/// The small files of `tests/fixtures/peers` (written by the scripts' `fixtures` command),
/// read without Python or node: each shows a way a peer writes that Arrow C++ reads.
#[test]
fn files_as_polars_and_js_write_them_read() {
    let fixture = |name: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/peers")
            .join(name);
        read_ipc(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let rows = |(_, batches): &(SchemaRef, Vec<RecordBatch>)| -> usize {
        batches.iter().map(RecordBatch::num_rows).sum()
    };
    let column = |(_, batches): &(SchemaRef, Vec<RecordBatch>), c: usize| {
        batches
            .iter()
            .flat_map(|b| decode(&b.column(c).to_data()))
            .collect::<Vec<_>>()
    };
    // Polars: the schema flatbuffer after the magic has no length prefix.
    let polars = fixture("polars_small.arrow");
    assert_eq!(polars.0.to_string(), "a: Int64, s: Utf8View");
    assert_eq!(rows(&polars), 3);
    assert_eq!(column(&polars, 0)[2], Value::Null);
    let none = fixture("polars_no_columns.arrow");
    assert_eq!((none.0.fields().len(), none.1.len()), (0, 0));
    // apache-arrow JS: no schema message at all (the first block, a dictionary, is at byte
    // 8), or only an end-of-stream marker.
    let js = fixture("js_no_schema_message.arrow");
    assert_eq!(js.0.fields().len(), 2);
    assert_eq!(rows(&js), 3);
    assert_eq!(column(&js, 1)[1], Value::Null);
    let none = fixture("js_no_columns.arrow");
    assert_eq!((none.0.fields().len(), none.1.len()), (0, 0));
    // A sliced Null column, whose field node says null count -1.
    let nulls = fixture("js_sliced_null.arrows");
    assert_eq!(column(&nulls, 0), vec![Value::Null, Value::Null]);
}

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

/// An empty folder of the target directory's scratch space.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("peers")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `node_modules` holding `apache-arrow`, if node and it are there.
fn node_modules() -> Option<PathBuf> {
    let modules = std::env::var_os("ALKAID_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../npm/node_modules"));
    let node = Command::new("node").arg("--version").output();
    if node.is_ok_and(|o| o.status.success()) && modules.join("apache-arrow").is_dir() {
        return Some(modules);
    }
    assert!(
        std::env::var_os("ALKAID_REQUIRE_PYARROW").is_none(),
        "node or apache-arrow in {} is missing",
        modules.display()
    );
    eprintln!(
        "skipped: node or apache-arrow in {} is missing",
        modules.display()
    );
    None
}

/// Runs `command`, failing the test with its error output unless it succeeds; its output.
fn run(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// An IPC file or stream, as Alkaid reads it.
fn read_ipc(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let bytes = Buffer::from(std::fs::read(path).map_err(|e| e.to_string())?);
    let text = |e: alkaid_ipc::IpcError| e.to_string();
    if bytes.starts_with(b"ARROW1") || bytes.starts_with(b"ALKAID1") {
        let reader = FileReader::from_buffer(bytes).map_err(text)?;
        let schema = reader.schema();
        let batches = reader.collect::<Result<_, _>>().map_err(text)?;
        return Ok((schema, batches));
    }
    let reader = StreamReader::try_new(&bytes[..]).map_err(text)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<_, _>>().map_err(text)?;
    Ok((schema, batches))
}

/// Whether two readings hold the same: schema with its metadata, batch boundaries, values.
fn same(
    (schema, batches): &(SchemaRef, Vec<RecordBatch>),
    (expected_schema, expected): &(SchemaRef, Vec<RecordBatch>),
) -> Result<(), String> {
    if schema != expected_schema {
        return Err(format!("schema {schema}, expected {expected_schema}"));
    }
    let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).collect::<Vec<_>>();
    if rows(batches) != rows(expected) {
        return Err(format!(
            "batches of {:?} rows, expected {:?}",
            rows(batches),
            rows(expected)
        ));
    }
    for (i, (batch, want)) in batches.iter().zip(expected).enumerate() {
        for (c, field) in schema.fields().iter().enumerate() {
            let (got, want) = (
                decode(&batch.column(c).to_data()),
                decode(&want.column(c).to_data()),
            );
            if got != want {
                return Err(format!(
                    "batch {i}, column {:?}: {got:?}, expected {want:?}",
                    field.name()
                ));
            }
        }
    }
    Ok(())
}

/// Files and streams from Polars, nanoarrow and apache-arrow JS, each read equal to
/// pyarrow's reading of it (`NAME.pyarrow.arrows`, which the script writes beside it).
#[test]
fn what_peers_write_reads_as_pyarrow_reads_it() {
    let Some(python) = python_with("pyarrow, polars, nanoarrow") else {
        return;
    };
    let Some(modules) = node_modules() else {
        return;
    };
    let out = scratch("written");
    let script = scripts().join("python_peers.py");
    run(Command::new(&python).arg(&script).arg("write").arg(&out));
    run(Command::new("node")
        .env("NODE_PATH", &modules)
        .arg(scripts().join("js/peers.cjs"))
        .arg("write")
        .arg(out.join("js")));
    run(Command::new(&python)
        .arg(&script)
        .arg("canonical")
        .arg(out.join("js")));

    let mut failures = Vec::new();
    let mut table = String::from("| writer | files | read as pyarrow reads them |\n");
    for writer in ["polars", "nanoarrow", "js"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(out.join(writer))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                (name.ends_with(".arrow") || name.ends_with(".arrows"))
                    && !name.ends_with(".pyarrow.arrows")
            })
            .collect();
        names.sort();
        let mut passed = 0;
        for path in &names {
            let canonical = PathBuf::from(format!("{}.pyarrow.arrows", path.display()));
            let expected = read_ipc(&canonical).unwrap_or_else(|e| panic!("{canonical:?}: {e}"));
            match read_ipc(path).and_then(|read| same(&read, &expected)) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{writer}/{}: {e}", path.display())),
            }
        }
        assert!(names.len() >= 6, "{writer} wrote {} files", names.len());
        table.push_str(&format!("| {writer} | {} | {passed} |\n", names.len()));
    }
    eprintln!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // What nanoarrow could not write is what it is known not to write, for its reasons.
    let limits = std::fs::read_to_string(out.join("nanoarrow/limitations.tsv")).unwrap();
    let limits: Vec<(&str, &str)> = limits
        .lines()
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            let column = parts.next().unwrap();
            (column, parts.nth(1).unwrap())
        })
        .collect();
    assert_eq!(limits.len(), NANOARROW_CANNOT_WRITE.len(), "{limits:?}");
    for ((column, why), (known, reason)) in limits.iter().zip(NANOARROW_CANNOT_WRITE) {
        assert_eq!(column, known);
        assert!(why.contains(reason), "{column}: {why}");
    }
}

/// Every type, as Alkaid writes it with the Arrow magic, as a file and a stream: all of
/// them, and each column alone, with each codec; two batches, the second a slice.
fn write_every_type(dir: &Path) -> BTreeMap<String, (SchemaRef, Vec<RecordBatch>)> {
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pyarrow/all_types.stream");
    let (schema, batches) = read_ipc(&fixture).unwrap();
    let table = &batches[0];
    let two = [table.slice(0, 3), table.slice(3, table.num_rows() - 3)];
    let mut written = BTreeMap::new();
    let mut write = |name: String, schema: SchemaRef, batches: Vec<RecordBatch>, codec| {
        let options = WriteOptions::default()
            .with_magic(Magic::Arrow)
            .with_compression(codec);
        let mut file = FileWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        let mut stream = StreamWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
        for batch in &batches {
            file.write(batch).unwrap();
            stream.write(batch).unwrap();
        }
        std::fs::write(
            dir.join(format!("{name}.arrow")),
            file.into_inner().unwrap(),
        )
        .unwrap();
        std::fs::write(
            dir.join(format!("{name}.arrows")),
            stream.into_inner().unwrap(),
        )
        .unwrap();
        written.insert(format!("{name}.arrow"), (schema.clone(), batches.clone()));
        written.insert(format!("{name}.arrows"), (schema, batches));
    };
    let codecs = [
        ("none", Compression::None),
        ("lz4", Compression::Lz4Frame),
        ("zstd", Compression::ZSTD),
    ];
    for (codec_name, codec) in codecs {
        write(
            format!("all_{codec_name}"),
            schema.clone(),
            two.to_vec(),
            codec,
        );
        for (c, field) in schema.fields().iter().enumerate() {
            let column = Arc::new(schema.project(&[c]).unwrap());
            let batches = two.iter().map(|b| b.project(&[c]).unwrap()).collect();
            let name = format!("col_{}_{codec_name}", field.name());
            write(name, column, batches, codec);
        }
    }
    written
}

/// Polars, nanoarrow and apache-arrow JS read what Alkaid writes: Polars and nanoarrow
/// equal to pyarrow's reading of the same bytes (compared in their own terms), JS by
/// writing back what it read, which Alkaid reads equal to what it wrote.
#[test]
fn peers_read_what_alkaid_writes() {
    let Some(python) = python_with("pyarrow, polars, nanoarrow") else {
        return;
    };
    let Some(modules) = node_modules() else {
        return;
    };
    let dir = scratch("alkaid");
    let written = write_every_type(&dir);
    let mut outcomes = run(Command::new(&python)
        .arg(scripts().join("python_peers.py"))
        .arg("read")
        .arg(&dir));
    outcomes.push_str(&run(Command::new("node")
        .env("NODE_PATH", &modules)
        .arg(scripts().join("js/peers.cjs"))
        .arg("read")
        .arg(&dir)));

    let mut counts: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut seen = vec![false; LIMITATIONS.len()];
    for line in outcomes.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(file), Some(peer), Some(outcome)) = (parts.next(), parts.next(), parts.next())
        else {
            panic!("unexpected report line {line:?}");
        };
        let mut outcome = outcome.to_string();
        if peer == "js" && outcome == "ok" {
            // JS wrote back what it read: it must be what Alkaid wrote.
            let back = read_ipc(&dir.join("js").join(format!("{file}.arrows")));
            if let Err(e) = back.and_then(|back| same(&back, &written[file])) {
                outcome = format!("wrote back something else: {e}");
            }
        }
        let peer = ["polars", "nanoarrow", "js"]
            .into_iter()
            .find(|p| *p == peer)
            .unwrap_or_else(|| panic!("unknown peer {peer}"));
        let count = counts.entry(peer).or_default();
        count.0 += 1;
        if outcome == "ok" {
            count.1 += 1;
            continue;
        }
        let known = LIMITATIONS.iter().position(|(p, files, words)| {
            let named = match files.starts_with('.') {
                true => file.ends_with(files),
                false => file.contains(files),
            };
            *p == peer && named && outcome.contains(words)
        });
        match known {
            Some(k) => {
                seen[k] = true;
                count.2 += 1;
            }
            None => failures.push(format!("{peer} reading {file}: {outcome}")),
        }
    }
    let mut table = String::from("| peer | files | read equal | a named limitation |\n");
    for (peer, (files, ok, limited)) in &counts {
        table.push_str(&format!("| {peer} | {files} | {ok} | {limited} |\n"));
    }
    eprintln!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(counts.len(), 3, "{table}");
    for (k, seen) in seen.iter().enumerate() {
        assert!(
            seen,
            "the limitation {:?} no longer holds: drop it",
            LIMITATIONS[k]
        );
    }
}

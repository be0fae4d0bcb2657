//! SQL over Alkaid's provider against two references on the same data: DataFusion's own
//! Arrow IPC reader (same engine, other reader: results must be identical) and DuckDB on
//! the files as pyarrow reads them (other engine: same values). And files pyarrow wrote,
//! a bad file in a table's directory, and writes through `COPY` and `INSERT INTO`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use alkaid_arrow::arrow59::batch_from_arrow;
use alkaid_datafusion::{AlkaidContextExt, register_alkaid_format};
use alkaid_ipc::{Compression, FileWriter, Magic, WriteOptions};
use datafusion::arrow::array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, Int64Array, ListArray,
    StringArray,
};
use datafusion::arrow::datatypes::{Int32Type, Int64Type};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::execution::options::ArrowReadOptions;
use datafusion::prelude::SessionContext;

#[path = "../../alkaid-ipc-async/tests/support/python.rs"]
mod python;

const ROWS_PER_BATCH: usize = 1000;

/// Batch `n` of the test table: eight columns, nulls in four of them.
fn batch(n: usize) -> RecordBatch {
    let ids: Vec<i64> = (0..ROWS_PER_BATCH)
        .map(|i| (n * ROWS_PER_BATCH + i) as i64)
        .collect();
    let g: Int32Array = ids
        .iter()
        .map(|&i| (i % 11 != 0).then_some((i % 7) as i32))
        .collect();
    let x: Float64Array = ids
        .iter()
        .map(|&i| (i % 13 != 0).then_some((i * 37 % 1000) as f64 / 1000.0))
        .collect();
    let s: StringArray = ids
        .iter()
        .map(|&i| Some(format!("name-{}", i % 50)))
        .collect();
    let b: BooleanArray = ids
        .iter()
        .map(|&i| (i % 17 != 0).then_some(i % 3 == 0))
        .collect();
    // One dictionary for the whole file: a file holds one per column.
    let d = DictionaryArray::<Int32Type>::try_new(
        ids.iter().map(|&i| (i % 3) as i32).collect(),
        Arc::new(StringArray::from(vec!["red", "green", "blue"])),
    )
    .unwrap();
    let l = ListArray::from_iter_primitive::<Int64Type, _, _>(
        ids.iter()
            .map(|&i| (i % 5 != 0).then(|| (0..i % 4).map(Some).collect::<Vec<_>>())),
    );
    let small: Int32Array = ids.iter().map(|&i| Some((i % 100) as i32)).collect();
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(ids))),
        ("g", Arc::new(g)),
        ("x", Arc::new(x)),
        ("s", Arc::new(s)),
        ("b", Arc::new(b)),
        ("d", Arc::new(d)),
        ("l", Arc::new(l)),
        ("small", Arc::new(small)),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

/// Writes batches `batches` of the table as one IPC file with Alkaid's writer.
fn write_file(path: &Path, batches: std::ops::Range<usize>, options: WriteOptions) {
    let first = batch_from_arrow(&batch(batches.start)).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = FileWriter::try_new(file, first.schema().clone(), options).unwrap();
    for n in batches {
        writer.write(&batch_from_arrow(&batch(n)).unwrap()).unwrap();
    }
    writer.finish().unwrap();
}

struct Dirs {
    _root: tempfile::TempDir,
    /// `ALKAID1` and `ARROW1` files, compressed three ways.
    mixed: PathBuf,
    /// The same rows, all `ARROW1`, for DataFusion's reader and pyarrow.
    arrow: PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let (mixed, arrow) = (root.path().join("mixed"), root.path().join("arrow"));
    std::fs::create_dir_all(&mixed).unwrap();
    std::fs::create_dir_all(&arrow).unwrap();
    let alkaid = WriteOptions::default();
    write_file(&mixed.join("part-0.alkaid"), 0..3, alkaid.clone());
    write_file(
        &mixed.join("part-1.alkaid"),
        3..5,
        alkaid.clone().with_compression(Compression::Lz4Frame),
    );
    write_file(
        &mixed.join("part-2.arrow"),
        5..9,
        alkaid
            .clone()
            .with_compression(Compression::ZSTD)
            .with_magic(Magic::Arrow),
    );
    let arrow_magic = WriteOptions::default().with_magic(Magic::Arrow);
    write_file(&arrow.join("part-0.arrow"), 0..3, arrow_magic.clone());
    write_file(&arrow.join("part-1.arrow"), 3..5, arrow_magic.clone());
    write_file(&arrow.join("part-2.arrow"), 5..9, arrow_magic);
    Dirs {
        _root: root,
        mixed,
        arrow,
    }
}

fn url(dir: &Path) -> String {
    format!("{}/", dir.display())
}

const QUERIES: [&str; 8] = [
    "SELECT count(*), count(x), sum(id), min(s), max(s), sum(small), round(sum(x), 6) FROM t",
    // Sums of floats rounded: the order in which partitions add up differs between
    // readers that split the files differently.
    "SELECT g, count(*), round(sum(x), 6), round(avg(id), 6) FROM t GROUP BY g ORDER BY g NULLS FIRST",
    "SELECT id, s FROM t WHERE x > 0.5 AND b ORDER BY id LIMIT 10",
    "SELECT CAST(d AS VARCHAR) AS d, count(*), max(id) FROM t GROUP BY CAST(d AS VARCHAR) ORDER BY d",
    "SELECT a.g, count(*) FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.g IS NOT NULL AND b.b GROUP BY a.g ORDER BY a.g",
    "SELECT id, x FROM t WHERE x IS NOT NULL ORDER BY x DESC, id LIMIT 5",
    "SELECT s FROM t ORDER BY id LIMIT 3 OFFSET 4321",
    "SELECT count(*) FROM t WHERE s LIKE 'name-4%' AND id BETWEEN 100 AND 8000",
];

async fn run(ctx: &SessionContext, query: &str) -> Vec<RecordBatch> {
    ctx.sql(query).await.unwrap().collect().await.unwrap()
}

/// The result of `query` as a printed table.
async fn table(ctx: &SessionContext, query: &str) -> String {
    pretty_format_batches(&run(ctx, query).await)
        .unwrap()
        .to_string()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn queries_agree_with_datafusions_own_reader() {
    let dirs = dirs();
    runtime().block_on(async {
        let ours = SessionContext::new();
        ours.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let theirs = SessionContext::new();
        theirs
            .register_arrow("t", &url(&dirs.arrow), ArrowReadOptions::default())
            .await
            .unwrap();
        for query in QUERIES
            .iter()
            .chain(&["SELECT l, d, b FROM t WHERE id % 997 = 0 ORDER BY id"])
        {
            let a = table(&ours, query).await;
            let b = table(&theirs, query).await;
            assert_eq!(a, b, "{query}");
            assert!(a.lines().count() > 4, "{query} returned nothing:\n{a}");
        }
    });
}

/// Filters the scan evaluates with Alkaid's kernels (comparisons with literals and between
/// columns, null tests, `AND`, `OR`, `NOT`, distinctness), on every kind of column, and
/// filters it leaves to DataFusion, mixed.
const FILTERS: [&str; 12] = [
    "SELECT id FROM t WHERE g = 3 ORDER BY id",
    "SELECT id, s FROM t WHERE x >= 0.25 AND x < 0.3 AND s <> 'name-7' ORDER BY id",
    "SELECT count(*) FROM t WHERE NOT b OR b IS NULL",
    "SELECT count(*), sum(id) FROM t WHERE g IS NULL OR x IS NULL",
    "SELECT id FROM t WHERE s > 'name-48' AND id < 3000 ORDER BY id",
    "SELECT count(*) FROM t WHERE d = 'green'",
    "SELECT count(*) FROM t WHERE g IS DISTINCT FROM 2",
    "SELECT count(*) FROM t WHERE g IS NOT DISTINCT FROM small",
    "SELECT count(*) FROM t WHERE small < g",
    // Half for the scan, half (arithmetic) for DataFusion.
    "SELECT id FROM t WHERE b AND id % 97 = 0 ORDER BY id",
    // A column read for the filter only.
    "SELECT s FROM t WHERE x > 0.99 ORDER BY id",
    // Nothing passes.
    "SELECT count(*) FROM t WHERE id < 0",
];

#[test]
fn filters_run_in_the_scan_with_alkaids_kernels() {
    let dirs = dirs();
    runtime().block_on(async {
        let ours = SessionContext::new();
        ours.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let theirs = SessionContext::new();
        theirs
            .register_arrow("t", &url(&dirs.arrow), ArrowReadOptions::default())
            .await
            .unwrap();
        for query in FILTERS {
            let (a, b) = (table(&ours, query).await, table(&theirs, query).await);
            assert_eq!(a, b, "{query}");
        }
        // A filter the scan takes whole leaves no filter for DataFusion to run.
        let plan = table(&ours, "EXPLAIN SELECT id FROM t WHERE g = 3 AND x > 0.5").await;
        assert!(!plan.contains("FilterExec"), "{plan}");
        assert!(plan.contains("alkaid_filters=[g@"), "{plan}");
        // One it cannot take stays with DataFusion.
        let plan = table(&ours, "EXPLAIN SELECT id FROM t WHERE id % 97 = 0").await;
        assert!(plan.contains("FilterExec"), "{plan}");
    });
}

#[test]
fn files_split_into_byte_ranges_read_every_batch_once() {
    let dirs = dirs();
    runtime().block_on(async {
        // Ranges of 1 KiB and up: every file is split among four partitions, each reading
        // the batches that start in its range.
        let mut config = datafusion::prelude::SessionConfig::new().with_target_partitions(4);
        config.options_mut().optimizer.repartition_file_min_size = 1024;
        let split = SessionContext::new_with_config(config);
        split.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let plan = table(&split, "EXPLAIN SELECT sum(id) FROM t").await;
        assert!(
            plan.contains("part-0.alkaid:0.."),
            "no byte ranges in:\n{plan}"
        );
        let whole = SessionContext::new();
        whole.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let query = "SELECT count(*), sum(id), count(DISTINCT id) FROM t";
        let a = table(&split, query).await;
        let b = table(&whole, query).await;
        assert_eq!(a, b);
        assert!(a.contains("9000"), "{a}");
    });
}

/// The rows of `batches` as strings, one per cell (`null` for nulls).
fn cells(batches: &[RecordBatch]) -> Vec<Vec<Option<String>>> {
    let mut rows = Vec::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            rows.push(
                batch
                    .columns()
                    .iter()
                    .map(|c| (!c.is_null(row)).then(|| array_value_to_string(c, row).unwrap()))
                    .collect(),
            );
        }
    }
    rows
}

fn same_cell(ours: &Option<String>, duck: &serde_json::Value) -> bool {
    match (ours, duck) {
        (None, serde_json::Value::Null) => true,
        (Some(a), serde_json::Value::Number(n)) => {
            let (a, b) = (a.parse::<f64>().unwrap_or(f64::NAN), n.as_f64().unwrap());
            (a - b).abs() <= 1e-9 * b.abs().max(1.0)
        }
        (Some(a), serde_json::Value::String(b)) => a == b,
        (Some(a), serde_json::Value::Bool(b)) => a == &b.to_string(),
        _ => false,
    }
}

#[test]
fn queries_agree_with_duckdb_and_pyarrows_files_read_the_same() {
    let Some(python) = python::python_with("pyarrow, duckdb") else {
        return;
    };
    let dirs = dirs();
    let pyarrow_dir = dirs.arrow.parent().unwrap().join("pyarrow");
    let queries_path = dirs.arrow.parent().unwrap().join("queries.json");
    std::fs::write(&queries_path, serde_json::to_string(&QUERIES).unwrap()).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peer_queries.py");
    let output = Command::new(python)
        .arg(script)
        .args([&dirs.arrow, &pyarrow_dir, &queries_path])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let duck: Vec<Vec<Vec<serde_json::Value>>> = serde_json::from_slice(&output.stdout).unwrap();

    runtime().block_on(async {
        let ours = SessionContext::new();
        ours.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        for (query, expected) in QUERIES.iter().zip(&duck) {
            let rows = cells(&run(&ours, query).await);
            assert_eq!(rows.len(), expected.len(), "{query}");
            for (row, theirs) in rows.iter().zip(expected) {
                assert!(
                    row.iter().zip(theirs).all(|(a, b)| same_cell(a, b)),
                    "{query}: {row:?} against DuckDB's {theirs:?}"
                );
            }
        }

        // pyarrow's files, through Alkaid's provider and DataFusion's reader.
        let ours = SessionContext::new();
        ours.register_alkaid("p", &url(&pyarrow_dir)).await.unwrap();
        let theirs = SessionContext::new();
        theirs
            .register_arrow("p", &url(&pyarrow_dir), ArrowReadOptions::default())
            .await
            .unwrap();
        for query in [
            "SELECT count(*), sum(id), count(g), round(sum(x), 6), max(s) FROM p",
            "SELECT g, count(*), min(x) FROM p GROUP BY g ORDER BY g NULLS FIRST",
            "SELECT id, s FROM p WHERE x > 0.9 ORDER BY id DESC LIMIT 7",
        ] {
            let a = table(&ours, query).await;
            let b = table(&theirs, query).await;
            assert_eq!(a, b, "{query}");
        }
    });
}

#[test]
fn a_bad_file_in_the_directory_is_a_query_error_naming_it() {
    let dirs = dirs();
    // Registered while the directory is good, then a file goes bad: truncated.
    runtime().block_on(async {
        let ctx = SessionContext::new();
        ctx.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let victim = dirs.mixed.join("part-1.alkaid");
        let bytes = std::fs::read(&victim).unwrap();
        std::fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
        let error = error_of(&ctx, "SELECT sum(id) FROM t").await;
        assert!(error.contains("part-1.alkaid"), "{error}");

        // A file that is not IPC at all, found when the table is registered.
        std::fs::write(&victim, &bytes).unwrap();
        std::fs::write(dirs.mixed.join("notes.txt"), b"not an arrow file").unwrap();
        let error = SessionContext::new()
            .register_alkaid("u", &url(&dirs.mixed))
            .await
            .unwrap_err();
        assert!(error.to_string().contains("notes.txt"), "{error}");
    });
}

#[test]
fn copy_and_insert_write_alkaid_files_that_read_back() {
    let root = tempfile::tempdir().unwrap();
    let dirs = dirs();
    runtime().block_on(async {
        let ctx = SessionContext::new();
        register_alkaid_format(&ctx);
        ctx.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let out = root.path().join("copy.alkaid");
        run(&ctx, &format!(
            "COPY (SELECT id, s, l FROM t WHERE g = 3) TO '{}' STORED AS ALKAID OPTIONS ('compression' 'lz4', 'magic' 'arrow')",
            out.display()
        ))
        .await;
        // Any Arrow reader opens it: the ARROW1 magic was asked for.
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(&bytes[..6], b"ARROW1");
        let back = SessionContext::new();
        back.register_alkaid("c", out.to_str().unwrap()).await.unwrap();
        let expected = table(&ctx, "SELECT id, s, l FROM t WHERE g = 3 ORDER BY id").await;
        let got = table(&back, "SELECT * FROM c ORDER BY id").await;
        assert_eq!(got, expected);

        // INSERT INTO an external table stored as Alkaid.
        let table_dir = root.path().join("table");
        std::fs::create_dir_all(&table_dir).unwrap();
        run(&ctx, &format!(
            "CREATE EXTERNAL TABLE w (id BIGINT, s VARCHAR) STORED AS ALKAID LOCATION '{}/'",
            table_dir.display()
        ))
        .await;
        run(&ctx, "INSERT INTO w SELECT id, s FROM t WHERE id < 5").await;
        run(&ctx, "INSERT INTO w VALUES (100, 'last')").await;
        let rows = table(&ctx, "SELECT count(*), max(id) FROM w").await;
        assert!(rows.contains("| 6 ") && rows.contains("| 100 "), "{rows}");
        let written: Vec<_> = std::fs::read_dir(&table_dir).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(written.len(), 2);
        for path in written {
            assert_eq!(&std::fs::read(&path).unwrap()[..7], b"ALKAID1", "{}", path.display());
        }

        let bad = format!(
            "COPY (SELECT 1) TO '{}' STORED AS ALKAID OPTIONS ('compression' 'snappy')",
            root.path().join("x.alkaid").display()
        );
        let message = error_of(&ctx, &bad).await;
        assert!(message.contains("snappy"), "{message}");
    });
}

/// The error of `query`, whether planning or running it fails.
async fn error_of(ctx: &SessionContext, query: &str) -> String {
    match ctx.sql(query).await {
        Err(e) => e.to_string(),
        Ok(frame) => frame.collect().await.unwrap_err().to_string(),
    }
}

#[test]
fn statistics_give_row_counts_without_reading_data() {
    let dirs = dirs();
    runtime().block_on(async {
        let ctx = SessionContext::new();
        ctx.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let plan = table(&ctx, "EXPLAIN SELECT count(*) FROM t").await;
        // The count is answered from the files' row counts: no scan in the plan.
        assert!(!plan.contains("DataSourceExec"), "{plan}");
        let count = table(&ctx, "SELECT count(*) FROM t").await;
        assert!(count.contains("9000"), "{count}");
    });
}

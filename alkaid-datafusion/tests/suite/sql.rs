//! SQL over Alkaid's provider against two references on the same data: DataFusion's own
//! Arrow IPC reader (same engine, other reader: results must be identical) and DuckDB on
//! the files as pyarrow reads them (other engine: same values). And files pyarrow wrote,
//! a bad file in a table's directory, and writes through `COPY` and `INSERT INTO`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use alkaid_datafusion::{AlkaidContextExt, AlkaidSource, StoreSource, register_alkaid_format};
use alkaid_ipc_async::RangeSource;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::common::stats::Precision;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::options::ArrowReadOptions;
use datafusion::object_store::ObjectStoreExt;
use datafusion::object_store::local::LocalFileSystem;
use datafusion::object_store::memory::InMemory;
use datafusion::object_store::path::Path;
use datafusion::prelude::SessionContext;

use crate::tables;
use tables::{FILTERS, QUERIES, dirs, run, runtime, table, url};

use crate::python;

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

#[test]
fn copy_keeps_every_dictionary_an_engine_makes() {
    // A GROUP BY over a dictionary column makes a dictionary per output batch: the file
    // holds one, unified from them, instead of refusing the second.
    let root = tempfile::tempdir().unwrap();
    let dirs = dirs();
    runtime().block_on(async {
        let config = datafusion::prelude::SessionConfig::new()
            .with_target_partitions(4)
            .with_batch_size(2);
        let ctx = SessionContext::new_with_config(config);
        register_alkaid_format(&ctx);
        ctx.register_alkaid("t", &url(&dirs.mixed)).await.unwrap();
        let query = "SELECT d, g, count(*) AS n FROM t GROUP BY d, g";
        let out = root.path().join("grouped.alkaid");
        run(&ctx, &format!("COPY ({query}) TO '{}'", out.display())).await;
        let back = SessionContext::new();
        back.register_alkaid("c", out.to_str().unwrap())
            .await
            .unwrap();
        let order = " ORDER BY CAST(d AS VARCHAR), g NULLS FIRST";
        let expected = table(&ctx, &format!("SELECT * FROM ({query}){order}")).await;
        let got = table(&back, &format!("SELECT * FROM c{order}")).await;
        assert_eq!(got, expected);
        assert!(expected.lines().count() > 20, "{expected}");
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

        // A scan that filters says its row count is an estimate: no count over it may be
        // answered from the files' counts (a Ballista scheduler once did).
        let plan = ctx
            .sql("SELECT b FROM t WHERE NOT b OR b IS NULL")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let mut scan = plan;
        while let Some(child) = scan.children().first().map(|c| Arc::clone(c)) {
            scan = child;
        }
        let exec = scan.downcast_ref::<DataSourceExec>().unwrap();
        let (config, source) = exec.downcast_to_file_source::<AlkaidSource>().unwrap();
        assert_eq!(source.filters().count(), 1);
        let rows = config.statistics().num_rows;
        assert_eq!(rows, Precision::Inexact(9000));
    });
}

#[test]
fn files_on_another_object_store_read_the_same_through_ranged_requests() {
    // Local files are read from their handles; any other store by ranged requests.
    // `InMemory` is object_store's own store, which answers them as S3 would.
    let dirs = dirs();
    runtime().block_on(async {
        let store = Arc::new(InMemory::new());
        for entry in std::fs::read_dir(&dirs.mixed).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let location = Path::from(format!("mixed/{name}"));
            store.put(&location, bytes.into()).await.unwrap();
        }
        let remote = SessionContext::new();
        let url = url::Url::parse("memory://bucket").unwrap();
        remote.register_object_store(&url, Arc::clone(&store) as _);
        remote
            .register_alkaid("t", "memory://bucket/mixed/")
            .await
            .unwrap();
        let local = SessionContext::new();
        local
            .register_alkaid("t", &tables::url(&dirs.mixed))
            .await
            .unwrap();
        for query in QUERIES.iter().chain(&FILTERS) {
            let (a, b) = (table(&remote, query).await, table(&local, query).await);
            assert_eq!(a, b, "{query}");
        }

        // A file that is no longer IPC is an error naming it.
        let location = Path::from("mixed/part-1.alkaid");
        store
            .put(&location, b"replaced".to_vec().into())
            .await
            .unwrap();
        let error = error_of(&remote, "SELECT sum(id) FROM t").await;
        assert!(error.contains("part-1.alkaid"), "{error}");
    });
}

#[test]
fn an_opened_local_file_is_read_from_its_handle() {
    let dirs = dirs();
    runtime().block_on(async {
        let path = dirs.mixed.join("part-0.alkaid");
        let bytes = std::fs::read(&path).unwrap();
        let store = Arc::new(LocalFileSystem::new());
        let location = Path::from_filesystem_path(&path).unwrap();
        let meta = store.head(&location).await.unwrap();
        let source = StoreSource::open(Arc::clone(&store) as _, meta.clone(), true)
            .await
            .unwrap();
        assert_eq!(&source.fetch(8..64).await.unwrap()[..], &bytes[8..64]);
        let (size, tail) = source.fetch_suffix(10).await.unwrap();
        assert_eq!(
            (size, &tail[..]),
            (bytes.len() as u64, &bytes[bytes.len() - 10..])
        );

        // Replaced by another file under the same name: the opened file is still read.
        let other = dirs.mixed.join("other");
        std::fs::write(&other, vec![7u8; bytes.len()]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(&source.fetch(8..64).await.unwrap()[..], &bytes[8..64]);
        // Opening it again finds it changed since it was listed.
        let error = StoreSource::open(Arc::clone(&store) as _, meta.clone(), true)
            .await
            .unwrap_err();
        assert!(error.to_string().contains("part-0.alkaid"), "{error}");

        // Cut short while open: reading past its new end is an error, not stale bytes.
        let source = StoreSource::open(
            Arc::clone(&store) as _,
            store.head(&location).await.unwrap(),
            true,
        )
        .await
        .unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100)
            .unwrap();
        assert!(source.fetch(50..200).await.is_err());
        assert_eq!(source.fetch(50..100).await.unwrap().len(), 50);
    });
}

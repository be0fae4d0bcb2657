//! Parquet tables read through alkaid-formats (`register_alkaid_parquet`): the SQL tests'
//! queries and filters answer as DataFusion does over the same rows in memory, files split
//! into byte ranges read every row group once, a Parquet table joins an IPC one, and the
//! files a writer leaves beside its Parquet files are not read.

use std::path::Path;
use std::sync::Arc;

use alkaid_arrow::arrow59::batch_from_arrow;
use alkaid_datafusion::AlkaidContextExt;
use alkaid_formats::parquet::{Codec, ParquetWriter, WriteOptions};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::tables::{self, FILTERS, QUERIES, batch, runtime, table, url};

/// Batches `batches` of the test table as one Parquet file, in row groups of 500 rows and
/// pages of 100.
fn write_parquet(path: &Path, batches: std::ops::Range<usize>, codec: Codec) {
    let first = batch_from_arrow(&batch(batches.start)).unwrap();
    let options = WriteOptions::default()
        .with_codec(codec)
        .with_row_group_rows(500)
        .with_page_rows(100);
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ParquetWriter::try_new(file, first.schema().clone(), &options).unwrap();
    for n in batches {
        writer.write(&batch_from_arrow(&batch(n)).unwrap()).unwrap();
    }
    writer.finish().unwrap();
}

/// The test table as three Parquet files (and a `_SUCCESS` marker), and its rows in memory.
fn parquet_dir() -> (tempfile::TempDir, MemTable) {
    let root = tempfile::tempdir().unwrap();
    write_parquet(&root.path().join("part-0.parquet"), 0..3, Codec::Zstd(3));
    write_parquet(&root.path().join("part-1.parquet"), 3..5, Codec::Snappy);
    write_parquet(
        &root.path().join("part-2.parquet"),
        5..9,
        Codec::Uncompressed,
    );
    std::fs::write(root.path().join("_SUCCESS"), b"").unwrap();
    let batches: Vec<_> = (0..9).map(batch).collect();
    let memory = MemTable::try_new(batches[0].schema(), vec![batches]).unwrap();
    (root, memory)
}

#[test]
fn parquet_tables_answer_as_datafusion_does_in_memory() {
    let (root, memory) = parquet_dir();
    runtime().block_on(async {
        let ours = SessionContext::new();
        ours.register_alkaid_parquet("t", &url(root.path()))
            .await
            .unwrap();
        let theirs = SessionContext::new();
        theirs.register_table("t", Arc::new(memory)).unwrap();
        for query in QUERIES.iter().chain(&FILTERS) {
            let (a, b) = (table(&ours, query).await, table(&theirs, query).await);
            assert_eq!(a, b, "{query}");
        }
        let plan = table(&ours, "EXPLAIN SELECT id FROM t WHERE g = 3 AND x > 0.5").await;
        assert!(!plan.contains("FilterExec"), "{plan}");
        assert!(plan.contains("file_type=parquet"), "{plan}");
        assert!(plan.contains("alkaid_filters=[g@"), "{plan}");
    });
}

#[test]
fn parquet_files_split_into_byte_ranges_read_every_row_group_once() {
    let (root, memory) = parquet_dir();
    runtime().block_on(async {
        let config = SessionConfig::new()
            .with_target_partitions(4)
            .with_repartition_file_min_size(1);
        let ours = SessionContext::new_with_config(config);
        ours.register_alkaid_parquet("t", &url(root.path()))
            .await
            .unwrap();
        let plan = table(&ours, "EXPLAIN SELECT count(*), sum(id) FROM t").await;
        assert!(plan.contains("part-0.parquet:0.."), "{plan}");
        let theirs = SessionContext::new();
        theirs.register_table("t", Arc::new(memory)).unwrap();
        for query in [
            "SELECT count(*), sum(id), count(DISTINCT id) FROM t",
            "SELECT count(*), sum(id) FROM t WHERE id % 500 < 3 OR s = 'name-7'",
        ] {
            assert_eq!(
                table(&ours, query).await,
                table(&theirs, query).await,
                "{query}"
            );
        }
    });
}

#[test]
fn a_parquet_table_joins_an_ipc_table_and_is_read_only() {
    let (root, memory) = parquet_dir();
    let dirs = tables::dirs();
    runtime().block_on(async {
        let ctx = SessionContext::new();
        ctx.register_alkaid_parquet("p", &url(root.path()))
            .await
            .unwrap();
        ctx.register_alkaid("a", &url(&dirs.mixed)).await.unwrap();
        ctx.register_table("m", Arc::new(memory)).unwrap();
        let joined = table(
            &ctx,
            "SELECT count(*), sum(a.small) FROM p JOIN a ON p.id = a.id + 1 WHERE p.g = 3",
        )
        .await;
        // The same join with the Parquet rows in memory.
        let alone = table(
            &ctx,
            "SELECT count(*), sum(a.small) FROM m JOIN a ON m.id = a.id + 1 WHERE m.g = 3",
        )
        .await;
        assert_eq!(joined, alone);
        assert!(joined.contains("| 1169 "), "{joined}");
        // One file, by its name.
        ctx.register_alkaid_parquet("one", root.path().join("part-1.parquet").to_str().unwrap())
            .await
            .unwrap();
        let rows = table(&ctx, "SELECT count(*) FROM one").await;
        assert!(rows.contains("2000"), "{rows}");
        let error = ctx
            .sql("INSERT INTO p SELECT * FROM p LIMIT 1")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("read-only"), "{error}");
    });
}

/// DataFusion's own Parquet reader over the same files. It is compiled only where Ballista
/// is (ballista-core takes DataFusion's default features, Parquet among them), so this
/// comparison runs in the `ballista` pass CI makes; the in-memory comparison above runs in
/// every build.
#[cfg(feature = "ballista")]
#[test]
fn parquet_tables_answer_as_datafusions_own_parquet_reader() {
    use datafusion::prelude::ParquetReadOptions;
    let (root, _) = parquet_dir();
    runtime().block_on(async {
        let ours = SessionContext::new();
        ours.register_alkaid_parquet("t", &url(root.path()))
            .await
            .unwrap();
        let theirs = SessionContext::new();
        theirs
            .register_parquet("t", url(root.path()), ParquetReadOptions::default())
            .await
            .unwrap();
        for query in QUERIES.iter().chain(&FILTERS) {
            let (a, b) = (table(&ours, query).await, table(&theirs, query).await);
            assert_eq!(a, b, "{query}");
        }
    });
}

/// A Parquet file's key-value metadata is the table's schema metadata, as it is the
/// readers' (Spark's row schema and version here, from the Parquet project's corpus), and a
/// query's answer carries it.
#[test]
fn parquet_tables_keep_the_files_key_value_metadata() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../alkaid-formats/tests/parquet-testing/data/delta_encoding_required_column.parquet",
    );
    runtime().block_on(async {
        let ctx = SessionContext::new();
        ctx.register_alkaid_parquet("t", corpus.to_str().unwrap())
            .await
            .unwrap();
        let spark = |metadata: &std::collections::HashMap<String, String>| {
            metadata.get("org.apache.spark.version").cloned()
        };
        let table = ctx.table("t").await.unwrap();
        assert_eq!(
            spark(table.schema().as_arrow().metadata()).as_deref(),
            Some("3.2.0")
        );
        let answer = ctx
            .sql("SELECT * FROM t")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        assert_eq!(answer.iter().map(|b| b.num_rows()).sum::<usize>(), 100);
        assert_eq!(
            spark(answer[0].schema().metadata()).as_deref(),
            Some("3.2.0")
        );
    });
}

/// Spark's INT96 timestamps (one is `9999-12-31`, past what nanoseconds hold): an error
/// naming the value by default, read in microseconds when the session sets DataFusion's
/// own `datafusion.execution.parquet.coerce_int96` to `'us'`, and a unit Alkaid does not
/// read an error when the table is registered, not a table of another type.
#[test]
fn parquet_tables_read_int96_in_the_unit_the_session_asks() {
    let spark = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../alkaid-formats/tests/parquet-testing/data/int96_from_spark.parquet");
    let spark = spark.to_str().unwrap();
    let session = |unit: Option<&str>| {
        let mut config = SessionConfig::new();
        config.options_mut().execution.parquet.coerce_int96 = unit.map(String::from);
        SessionContext::new_with_config(config)
    };
    runtime().block_on(async {
        let nanoseconds = session(None);
        nanoseconds
            .register_alkaid_parquet("t", spark)
            .await
            .unwrap();
        let refused = nanoseconds
            .sql("SELECT * FROM t")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap_err()
            .to_string();
        assert!(refused.contains("read INT96 as microseconds"), "{refused}");

        let microseconds = session(Some("us"));
        microseconds
            .register_alkaid_parquet("t", spark)
            .await
            .unwrap();
        let answer = microseconds
            .sql(
                "SELECT CAST(a AS BIGINT) AS a FROM t WHERE CAST(a AS BIGINT) > 253000000000000000",
            )
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let values = answer[0]
            .column(0)
            .as_any()
            .downcast_ref::<datafusion::arrow::array::Int64Array>()
            .unwrap();
        // 9999-12-31T03:00 (as pyarrow reads it with `coerce_int96_timestamp_unit="us"`)
        // and year 290000 (which Spark wrote wrapped, and arrow-rs unwraps as Spark does).
        assert_eq!(
            values.values().as_ref(),
            &[253_402_225_200_000_000, 9_089_380_393_200_000_000]
        );

        for (unit, named) in [(Some("ms"), "'ns'"), (Some("s"), "'us'")] {
            let refused = session(unit)
                .register_alkaid_parquet("t", spark)
                .await
                .unwrap_err()
                .to_string();
            assert!(
                refused.contains("coerce_int96") && refused.contains(named),
                "{refused}"
            );
        }
        let mut zoned = SessionConfig::new();
        zoned.options_mut().execution.parquet.coerce_int96 = Some("us".into());
        zoned.options_mut().execution.parquet.coerce_int96_tz = Some("UTC".into());
        let refused = SessionContext::new_with_config(zoned)
            .register_alkaid_parquet("t", spark)
            .await
            .unwrap_err()
            .to_string();
        assert!(refused.contains("coerce_int96_tz"), "{refused}");
    });
}

//! Tables over files whose schemas differ: a column added in a later file, one missing from
//! another, columns in another order, and (under a declared schema) a file whose column is
//! of a narrower type. The reference is DataFusion over the same rows in memory, under the
//! merged schema, nulls where a file has no column: what its Parquet reader makes of such
//! files. (Its Arrow IPC reader does not read them: it projects each file by the table's
//! column positions, and fails with "project index 2 out of bounds".) Filters the scan
//! evaluates must give DataFusion's answers over the nulls that fill missing columns.

use std::path::Path;
use std::sync::Arc;

use alkaid_arrow::arrow59::batch_from_arrow;
use alkaid_datafusion::{AlkaidContextExt, register_alkaid_format};
use alkaid_ipc::{FileWriter, Magic, WriteOptions};
use datafusion::arrow::array::{ArrayRef, Float64Array, Int32Array, Int64Array, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

use crate::tables::{runtime, table, url};

fn write(path: &Path, columns: Vec<(&str, ArrayRef)>) {
    let batch = batch_from_arrow(&RecordBatch::try_from_iter(columns).unwrap()).unwrap();
    let options = WriteOptions::default().with_magic(Magic::Arrow);
    let file = std::fs::File::create(path).unwrap();
    let mut writer = FileWriter::try_new(file, batch.schema().clone(), options).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
}

fn ids(values: &[i64]) -> ArrayRef {
    Arc::new(Int64Array::from(values.to_vec()))
}

fn texts(values: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

/// Three files: the first has `id, a`; the second `a, id, b` (another order, `b` added);
/// the third `id` alone.
fn evolving_files(dir: &Path) {
    write(
        &dir.join("1.arrow"),
        vec![
            ("id", ids(&[1, 2, 3])),
            ("a", texts(&[Some("x"), None, Some("y")])),
        ],
    );
    write(
        &dir.join("2.arrow"),
        vec![
            ("a", texts(&[Some("y"), Some("z")])),
            ("id", ids(&[4, 5])),
            ("b", Arc::new(Float64Array::from(vec![Some(1.5), None]))),
        ],
    );
    write(&dir.join("3.arrow"), vec![("id", ids(&[6, 7]))]);
}

const QUERIES: [&str; 9] = [
    "SELECT * FROM t ORDER BY id",
    "SELECT id, a FROM t WHERE a = 'y' ORDER BY id",
    "SELECT id FROM t WHERE b IS NULL ORDER BY id",
    "SELECT id FROM t WHERE b > 1.0 ORDER BY id",
    "SELECT id FROM t WHERE a IS NULL OR b < 2 ORDER BY id",
    "SELECT count(*), count(a), count(b), sum(id) FROM t",
    "SELECT b, count(*) FROM t GROUP BY b ORDER BY b NULLS FIRST",
    "SELECT a FROM t WHERE NOT (a <> 'x') ORDER BY a",
    "SELECT id FROM t WHERE id > 2 AND a IS NOT NULL ORDER BY id",
];

#[test]
fn files_that_gain_lose_and_reorder_columns_read_as_datafusion_reads_them() {
    let root = tempfile::tempdir().unwrap();
    evolving_files(root.path());
    runtime().block_on(async {
        let ours = SessionContext::new();
        ours.register_alkaid("t", &url(root.path())).await.unwrap();
        // The same rows under the merged schema, as DataFusion's Parquet reader fills them.
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("a", DataType::Utf8, true),
            Field::new("b", DataType::Float64, true),
        ]));
        let rows = RecordBatch::try_new(
            schema.clone(),
            vec![
                ids(&[1, 2, 3, 4, 5, 6, 7]),
                texts(&[Some("x"), None, Some("y"), Some("y"), Some("z"), None, None]),
                Arc::new(Float64Array::from(vec![
                    None,
                    None,
                    None,
                    Some(1.5),
                    None,
                    None,
                    None,
                ])),
            ],
        )
        .unwrap();
        let theirs = SessionContext::new();
        let memory = MemTable::try_new(schema, vec![vec![rows]]).unwrap();
        theirs.register_table("t", Arc::new(memory)).unwrap();
        for query in QUERIES {
            assert_eq!(
                table(&ours, query).await,
                table(&theirs, query).await,
                "{query}"
            );
        }
        // The merged schema: `b` and `a` nullable (files lack them), every file's rows.
        let all = table(&ours, "SELECT count(*) AS n FROM t").await;
        assert!(all.contains("| 7 "), "{all}");
    });
}

#[test]
fn a_declared_schema_casts_what_files_hold_narrower() {
    let root = tempfile::tempdir().unwrap();
    write(
        &root.path().join("old.arrow"),
        vec![
            ("id", Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef),
            ("a", texts(&[Some("x"), None, Some("y")])),
        ],
    );
    write(
        &root.path().join("new.arrow"),
        vec![("a", texts(&[Some("z")])), ("id", ids(&[1 << 40]))],
    );
    let create = format!(
        "CREATE EXTERNAL TABLE t (id BIGINT, a VARCHAR) STORED AS ALKAID LOCATION '{}'",
        url(root.path())
    );
    runtime().block_on(async {
        let ours = SessionContext::new();
        register_alkaid_format(&ours);
        ours.sql(&create).await.unwrap();
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("a", DataType::Utf8, true),
        ]));
        let rows = RecordBatch::try_new(
            schema.clone(),
            vec![
                ids(&[1 << 40, 1, 2, 3]),
                texts(&[Some("z"), Some("x"), None, Some("y")]),
            ],
        )
        .unwrap();
        let theirs = SessionContext::new();
        let memory = MemTable::try_new(schema, vec![vec![rows]]).unwrap();
        theirs.register_table("t", Arc::new(memory)).unwrap();
        for query in [
            "SELECT * FROM t ORDER BY id",
            "SELECT id FROM t WHERE id > 2 ORDER BY id",
            "SELECT sum(id), count(a) FROM t",
        ] {
            assert_eq!(
                table(&ours, query).await,
                table(&theirs, query).await,
                "{query}"
            );
        }
        let rows = table(&ours, "SELECT id FROM t WHERE id > 2 ORDER BY id").await;
        assert!(rows.contains("1099511627776"), "{rows}");
    });
}

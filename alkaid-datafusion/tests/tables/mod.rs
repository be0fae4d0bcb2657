//! The test table (eight columns, nulls in four, 9,000 rows in nine batches), its files
//! written three ways, and the queries the SQL tests run over it. Each test binary uses
//! part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alkaid_arrow::arrow59::batch_from_arrow;
use alkaid_ipc::{Compression, FileWriter, Magic, WriteOptions};
use datafusion::arrow::array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, Int64Array, ListArray,
    StringArray,
};
use datafusion::arrow::datatypes::{Int32Type, Int64Type};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::SessionContext;

pub const ROWS_PER_BATCH: usize = 1000;

/// Batch `n` of the test table: eight columns, nulls in four of them.
pub fn batch(n: usize) -> RecordBatch {
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
pub fn write_file(path: &Path, batches: std::ops::Range<usize>, options: WriteOptions) {
    let first = batch_from_arrow(&batch(batches.start)).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = FileWriter::try_new(file, first.schema().clone(), options).unwrap();
    for n in batches {
        writer.write(&batch_from_arrow(&batch(n)).unwrap()).unwrap();
    }
    writer.finish().unwrap();
}

pub struct Dirs {
    _root: tempfile::TempDir,
    /// `ALKAID1` and `ARROW1` files, compressed three ways.
    pub mixed: PathBuf,
    /// The same rows, all `ARROW1`, for DataFusion's reader and pyarrow.
    pub arrow: PathBuf,
}

pub fn dirs() -> Dirs {
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

pub fn url(dir: &Path) -> String {
    format!("{}/", dir.display())
}

pub const QUERIES: [&str; 8] = [
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

pub async fn run(ctx: &SessionContext, query: &str) -> Vec<RecordBatch> {
    ctx.sql(query).await.unwrap().collect().await.unwrap()
}

/// The result of `query` as a printed table.
pub async fn table(ctx: &SessionContext, query: &str) -> String {
    pretty_format_batches(&run(ctx, query).await)
        .unwrap()
        .to_string()
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Filters the scan evaluates with Alkaid's kernels (comparisons with literals and between
/// columns, null tests, `AND`, `OR`, `NOT`, distinctness), on every kind of column, and
/// filters it leaves to DataFusion, mixed.
pub const FILTERS: [&str; 12] = [
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

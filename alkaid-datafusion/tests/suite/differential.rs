//! Alkaid's tables against DataFusion's own answers: random tables (floats with -0.0, NaN
//! and infinities, nulls, dictionaries, multi-byte strings, decimals, timestamps with a
//! zone, and files that lack columns), random filters, projections, limits and aggregates.
//! Each query runs over an Alkaid table of the files and over DataFusion's in-memory table
//! of the same rows under the merged schema; the answers must be the same rows. A filter
//! the scan takes over (`alkaid_filters`) must never change an answer.
//!
//! The same runs over Parquet files (alkaid-formats' reader, with the filters pruning row
//! groups and pages of a few rows each) as over IPC files.
//!
//! Seeds are fixed, so a failure repeats; its message names the seed and the query.

use std::path::Path;
use std::sync::Arc;

use alkaid_arrow::arrow59::batch_from_arrow;
use alkaid_datafusion::AlkaidContextExt;
use alkaid_ipc::{FileWriter, WriteOptions};
use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Decimal128Array, DictionaryArray, Float64Array, Int64Array,
    RecordBatch, StringArray, TimestampMicrosecondArray, new_null_array,
};
use datafusion::arrow::datatypes::{DataType, Field, Int32Type, Schema, SchemaRef, TimeUnit};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

use crate::tables::{runtime, table, url};

/// A small xorshift generator: the same seed, the same tables and queries.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const FLOATS: [f64; 9] = [
    0.0,
    -0.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1.5,
    -2.25,
    1e300,
    3.0,
];
const WORDS: [&str; 7] = [
    "",
    "a",
    "é",
    "日本語",
    "zz",
    "ünï ✓ longer than twelve",
    "a ",
];
const ZONE: &str = "Europe/Paris";

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("rid", DataType::Int64, false),
        Field::new("f", DataType::Float64, true),
        Field::new("i", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new(
            "d",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
        Field::new("dec", DataType::Decimal128(12, 2), true),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some(ZONE.into())),
            true,
        ),
        Field::new("b", DataType::Boolean, true),
    ]))
}

/// Rows `first..first + rows` of a random table, every column.
fn rows(rng: &mut Rng, first: i64, rows: usize) -> RecordBatch {
    let nullable = |rng: &mut Rng| !rng.chance(15);
    let rid: Int64Array = (0..rows as i64).map(|r| first + r).collect();
    let f: Float64Array = (0..rows)
        .map(|_| nullable(rng).then(|| *rng.pick(&FLOATS)))
        .collect();
    let i: Int64Array = (0..rows)
        .map(|_| nullable(rng).then(|| rng.below(21) as i64 - 10))
        .collect();
    let s: StringArray = (0..rows)
        .map(|_| nullable(rng).then(|| rng.pick(&WORDS).to_string()))
        .collect();
    let d: DictionaryArray<Int32Type> = (0..rows)
        .map(|_| nullable(rng).then(|| *rng.pick(&WORDS)))
        .collect();
    let dec = Decimal128Array::from(
        (0..rows)
            .map(|_| nullable(rng).then(|| rng.below(2001) as i128 - 1000))
            .collect::<Vec<_>>(),
    )
    .with_precision_and_scale(12, 2)
    .unwrap();
    let ts = TimestampMicrosecondArray::from(
        (0..rows)
            .map(|_| nullable(rng).then(|| (rng.below(1000) as i64 - 500) * 3_600_000_000))
            .collect::<Vec<_>>(),
    )
    .with_timezone(ZONE);
    let b: BooleanArray = (0..rows)
        .map(|_| nullable(rng).then(|| rng.chance(50)))
        .collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(rid),
        Arc::new(f),
        Arc::new(i),
        Arc::new(s),
        Arc::new(d),
        Arc::new(dec),
        Arc::new(ts),
        Arc::new(b),
    ];
    RecordBatch::try_new(schema(), columns).unwrap()
}

/// The files a table is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Files {
    Ipc,
    Parquet,
}

/// Writes `batch` without the columns `dropped` (a file of an older or newer schema) and
/// returns the rows as the table holds them: nulls in the dropped columns.
fn write_file(files: Files, path: &Path, batch: &RecordBatch, dropped: &[usize]) -> RecordBatch {
    let kept: Vec<usize> = (0..batch.num_columns())
        .filter(|c| !dropped.contains(c))
        .collect();
    let file_batch = batch_from_arrow(&batch.project(&kept).unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    // Two batches per file, the second a slice.
    let half = file_batch.num_rows() / 2;
    let halves = [
        file_batch.slice(0, half),
        file_batch.slice(half, file_batch.num_rows() - half),
    ];
    match files {
        Files::Ipc => {
            let options = WriteOptions::default();
            let mut writer =
                FileWriter::try_new(file, file_batch.schema().clone(), options).unwrap();
            for half in &halves {
                writer.write(half).unwrap();
            }
            writer.finish().unwrap();
        }
        Files::Parquet => {
            // Row groups of 16 rows and pages of 4: statistics to prune by.
            let options = alkaid_formats::parquet::WriteOptions::default()
                .with_row_group_rows(16)
                .with_page_rows(4);
            let schema = file_batch.schema().clone();
            let mut writer =
                alkaid_formats::parquet::ParquetWriter::try_new(file, schema, &options).unwrap();
            for half in &halves {
                writer.write(half).unwrap();
            }
            writer.finish().unwrap();
        }
    }
    let columns = (0..batch.num_columns())
        .map(|c| match dropped.contains(&c) {
            true => new_null_array(batch.column(c).data_type(), batch.num_rows()),
            false => batch.column(c).clone(),
        })
        .collect();
    RecordBatch::try_new(schema_nullable(), columns).unwrap()
}

/// The table's schema as Alkaid infers it from files that lack columns: all nullable but
/// the row id, which every file has.
fn schema_nullable() -> SchemaRef {
    let fields: Vec<Field> = schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(f.name() != "rid"))
        .collect();
    Arc::new(Schema::new(fields))
}

/// A literal of column `column`'s type.
fn literal(rng: &mut Rng, column: &str) -> String {
    match column {
        "f" => match rng.below(6) {
            0 => "'NaN'::double".to_string(),
            1 => "'-Infinity'::double".to_string(),
            2 => "-0.0".to_string(),
            _ => format!("{}", rng.pick(&[0.0, 1.5, -2.25, 3.0, 1e300])),
        },
        "i" => format!("{}", rng.below(21) as i64 - 10),
        "s" | "d" => format!("'{}'", rng.pick(&WORDS)),
        "dec" => format!(
            "CAST({}.{:02} AS DECIMAL(12, 2))",
            rng.below(20) as i64 - 10,
            rng.below(100)
        ),
        "ts" => format!(
            "CAST('{}' AS TIMESTAMP WITH TIME ZONE)",
            rng.pick(&[
                "1970-01-01T00:00:00Z",
                "1969-12-20T05:00:00+01:00",
                "1970-01-15T12:00:00Z"
            ])
        ),
        "b" => rng.pick(&["true", "false"]).to_string(),
        other => unreachable!("{other}"),
    }
}

const COLUMNS: [&str; 7] = ["f", "i", "s", "d", "dec", "ts", "b"];

/// A random filter: comparisons with literals, null tests, AND, OR, NOT.
fn filter(rng: &mut Rng, depth: u32) -> String {
    if depth > 0 && rng.chance(40) {
        let (a, b) = (filter(rng, depth - 1), filter(rng, depth - 1));
        return match rng.below(3) {
            0 => format!("({a} AND {b})"),
            1 => format!("({a} OR {b})"),
            _ => format!("(NOT {a})"),
        };
    }
    let column = *rng.pick(&COLUMNS);
    match rng.below(10) {
        0 => format!("{column} IS NULL"),
        1 => format!("{column} IS NOT NULL"),
        2 if column == "b" => "b".to_string(),
        _ => {
            let op = *rng.pick(&["=", "<>", "<", "<=", ">", ">="]);
            format!("{column} {op} {}", literal(rng, column))
        }
    }
}

/// A random query: a projection with a filter and a limit, or an aggregate.
fn query(rng: &mut Rng) -> String {
    let filter = filter(rng, 2);
    if rng.chance(35) {
        let group = *rng.pick(&["d", "b", "s", "i"]);
        return format!(
            "SELECT {group}, count(*) AS n, count(f) AS nf, min(i) AS lo, max(dec) AS hi, \
             sum(i) AS total, min(ts) AS first FROM t WHERE {filter} \
             GROUP BY {group} ORDER BY {group} NULLS FIRST"
        );
    }
    let mut columns: Vec<&str> = COLUMNS.iter().copied().filter(|_| rng.chance(60)).collect();
    columns.insert(0, "rid");
    let limit = match rng.chance(30) {
        true => format!(" LIMIT {}", rng.below(20)),
        false => String::new(),
    };
    format!(
        "SELECT {} FROM t WHERE {filter} ORDER BY rid{limit}",
        columns.join(", ")
    )
}

#[test]
fn random_queries_over_random_tables_answer_as_datafusion_does() {
    random_queries_answer_as_datafusion_does(Files::Ipc);
}

#[test]
fn random_queries_over_random_parquet_tables_answer_as_datafusion_does() {
    random_queries_answer_as_datafusion_does(Files::Parquet);
}

fn random_queries_answer_as_datafusion_does(files: Files) {
    let (mut queries_run, mut pushed_down, mut answered) = (0, 0, 0);
    for seed in 1..=8u64 {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let root = tempfile::tempdir().unwrap();
        let mut held = Vec::new();
        let mut first = 0;
        for part in 0..3 {
            let count = 20 + rng.below(40) as usize;
            let batch = rows(&mut rng, first, count);
            first += batch.num_rows() as i64;
            // Files of an evolving table: some lack a column or two (never the row id).
            let dropped: Vec<usize> = (1..8).filter(|_| rng.chance(15)).collect();
            let extension = match files {
                Files::Ipc => "alkaid",
                Files::Parquet => "parquet",
            };
            held.push(write_file(
                files,
                &root.path().join(format!("part-{part}.{extension}")),
                &batch,
                &dropped,
            ));
        }
        runtime().block_on(async {
            let ours = SessionContext::new();
            match files {
                Files::Ipc => ours.register_alkaid("t", &url(root.path())).await.unwrap(),
                Files::Parquet => ours
                    .register_alkaid_parquet("t", &url(root.path()))
                    .await
                    .unwrap(),
            }
            let theirs = SessionContext::new();
            let memory = MemTable::try_new(schema_nullable(), vec![held]).unwrap();
            theirs.register_table("t", Arc::new(memory)).unwrap();
            for _ in 0..25 {
                let sql = query(&mut rng);
                let (a, b) = (table(&ours, &sql).await, table(&theirs, &sql).await);
                assert_eq!(a, b, "{files:?}, seed {seed}: {sql}");
                // A header, a rule and a border: more lines hold rows.
                answered += usize::from(a.lines().count() > 4);
                let plan = table(&ours, &format!("EXPLAIN {sql}")).await;
                pushed_down += usize::from(plan.contains("alkaid_filters"));
                queries_run += 1;
            }
        });
    }
    // The scan took a good share of the filters over: they were tested, not passed by.
    assert!(
        pushed_down * 3 > queries_run,
        "{pushed_down} of {queries_run}"
    );
    // And most answers hold rows: the filters were not all empty.
    assert!(answered * 2 > queries_run, "{answered} of {queries_run}");
}

//! Parquet read with a predicate: row groups and pages ruled out by their statistics are
//! never fetched, and what is read equals the predicate applied to the whole file (random
//! predicates, against that plain reference, through the sync and the ranged reader).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use alkaid_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, Scalar, StringArray,
};
use alkaid_buffer::Buffer;
use alkaid_compute::predicate::{Comparison, Operand, Predicate};
use alkaid_formats::parquet::{self as pq, ParquetReadOptions, WriteOptions};
use alkaid_ipc_async::RangeSource;
use alkaid_schema::{DataType, Field, Schema, SchemaRef};
use futures_util::TryStreamExt;
use proptest::prelude::*;

const ROWS: i64 = 8000;
const GROUP_ROWS: usize = 1000;
const PAGE_ROWS: usize = 100;

/// `ROWS` rows in groups of 1,000 and pages of 100: `id` ascending; `x` a tenth of it,
/// NaN every 97th row and null every 50th; `s` its text, null every 33rd; `b` true in
/// even row groups.
fn table() -> (SchemaRef, RecordBatch) {
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("x", DataType::Float64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("b", DataType::Boolean, true),
    ]));
    let ids = 0..ROWS;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids.clone().collect::<Vec<_>>())),
        Arc::new(Float64Array::from(
            ids.clone()
                .map(|i| match (i % 50, i % 97) {
                    (0, _) => None,
                    (_, 0) => Some(f64::NAN),
                    _ => Some(i as f64 / 10.0),
                })
                .collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(
            ids.clone()
                .map(|i| (i % 33 != 0).then(|| format!("k{i:05}")))
                .collect::<Vec<_>>(),
        )),
        Arc::new(BooleanArray::from(
            ids.map(|i| Some((i / GROUP_ROWS as i64) % 2 == 0))
                .collect::<Vec<_>>(),
        )),
    ];
    (
        schema.clone(),
        RecordBatch::try_new(schema, columns).unwrap(),
    )
}

fn file() -> &'static Vec<u8> {
    static FILE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let (schema, batch) = table();
        let options = WriteOptions::default()
            .with_row_group_rows(GROUP_ROWS)
            .with_page_rows(PAGE_ROWS);
        let mut bytes = Vec::new();
        let mut writer = pq::ParquetWriter::try_new(&mut bytes, schema, &options).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        bytes
    })
}

/// A source over bytes in memory that records every range asked of it.
struct Counting {
    bytes: Buffer,
    log: Mutex<Vec<Range<u64>>>,
}

impl Counting {
    fn new(bytes: &[u8]) -> Self {
        Self {
            bytes: Buffer::from_slice_ref(bytes),
            log: Mutex::new(Vec::new()),
        }
    }
}

impl RangeSource for Counting {
    async fn size(&self) -> alkaid_ipc::Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    async fn fetch(&self, range: Range<u64>) -> alkaid_ipc::Result<Buffer> {
        self.log.lock().unwrap().push(range.clone());
        self.bytes.fetch(range).await
    }
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn ids(batches: &[RecordBatch]) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            let ids = b.column_by_name("id").unwrap();
            let ids = ids.as_any().downcast_ref::<Int64Array>().unwrap();
            ids.values().to_vec()
        })
        .collect()
}

/// The ids of the rows where `predicate` is true, row by row over the whole table.
fn reference(predicate: &Predicate) -> Vec<i64> {
    let (_, batch) = table();
    let keep = predicate.evaluate(&batch).unwrap();
    (0..ROWS)
        .filter(|&i| keep.is_valid(i as usize) && keep.value(i as usize))
        .collect()
}

fn read_sync(predicate: &Predicate) -> Vec<RecordBatch> {
    let options = ParquetReadOptions::default().with_predicate(predicate.clone());
    pq::read_bytes(file().clone(), options)
        .unwrap()
        .collect_all()
        .unwrap()
}

fn read_ranged(source: &Arc<Counting>, options: ParquetReadOptions) -> Vec<RecordBatch> {
    block_on(async {
        pq::read_source(Arc::clone(source), "t.parquet", options)
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap()
    })
}

fn compare(column: &str, op: Comparison, value: impl Into<Scalar>) -> Predicate {
    Predicate::compare(Operand::column(column), op, Operand::literal(value))
}

/// The requests after the first, which is the footer's: the last 64 KiB, which in these
/// small files hold data pages too.
fn after_footer(source: &Counting) -> Vec<Range<u64>> {
    let log = source.log.lock().unwrap().clone();
    let len = file().len() as u64;
    assert_eq!(log[0], len.saturating_sub(64 * 1024)..len, "{log:?}");
    log[1..].to_vec()
}

/// The byte ranges of each row group's column chunks, from the footer.
fn chunk_ranges() -> Vec<Vec<Range<u64>>> {
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::from(file().clone()))
        .unwrap();
    metadata
        .row_groups()
        .iter()
        .map(|group| {
            group
                .columns()
                .iter()
                .map(|c| {
                    let (start, len) = c.byte_range();
                    start..start + len
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_predicate_on_one_row_group_fetches_only_its_pages() {
    let groups = chunk_ranges();
    assert_eq!(groups.len(), 8);
    let data_end = groups.iter().flatten().map(|r| r.end).max().unwrap();
    let inside = |range: &Range<u64>, group: usize| {
        groups[group]
            .iter()
            .any(|chunk| chunk.start <= range.start && range.end <= chunk.end)
    };

    // The whole of row group 3, for scale.
    let whole = Arc::new(Counting::new(file()));
    let read = read_ranged(&whole, ParquetReadOptions::default().with_row_groups([3]));
    assert_eq!(ids(&read).len(), GROUP_ROWS);
    let whole_bytes: u64 = after_footer(&whole)
        .iter()
        .filter(|r| r.start < data_end)
        .map(|r| r.end - r.start)
        .sum();

    let predicate =
        compare("id", Comparison::GtEq, 3000i64).and(compare("id", Comparison::Lt, 3050i64));
    let source = Arc::new(Counting::new(file()));
    // Columns both filtered on and read are fetched in whole batches (arrow-rs caches
    // them between the two); batches of a page make that the page.
    let options = ParquetReadOptions::default()
        .with_predicate(predicate.clone())
        .with_batch_size(PAGE_ROWS);
    let read = read_ranged(&source, options);
    assert_eq!(ids(&read), (3000..3050).collect::<Vec<_>>());
    let log = after_footer(&source);
    let data: Vec<&Range<u64>> = log.iter().filter(|r| r.start < data_end).collect();
    assert!(!data.is_empty());
    for range in &data {
        assert!(
            inside(range, 3),
            "{range:?} lies outside row group 3 ({:?}); every request: {log:?}",
            groups[3]
        );
    }
    let data_bytes: u64 = data.iter().map(|r| r.end - r.start).sum();
    // Of row group 3's ten pages per column, the page index keeps one (and the column's
    // dictionary page, the bulk of these small chunks).
    assert!(data.len() <= 8, "{data:?}");
    assert!(
        data_bytes * 2 < whole_bytes,
        "{data_bytes} bytes of data fetched, the whole row group is {whole_bytes}"
    );
    // Past the footer, only the page index is not data.
    assert!(log.len() - data.len() <= 1, "{log:?}");
}

#[test]
fn a_predicate_no_row_group_can_match_fetches_no_data() {
    let data_end = chunk_ranges()
        .iter()
        .flatten()
        .map(|r| r.end)
        .max()
        .unwrap();
    let source = Arc::new(Counting::new(file()));
    let predicate = compare("id", Comparison::Gt, ROWS);
    let read = read_ranged(
        &source,
        ParquetReadOptions::default().with_predicate(predicate),
    );
    assert!(ids(&read).is_empty());
    let log = after_footer(&source);
    assert!(log.iter().all(|r| r.start >= data_end), "{log:?}");
}

#[test]
fn nan_rows_are_found_past_the_maxima_that_leave_them_out() {
    // Every row group's maximum of x is below 800, but NaN is above everything.
    let predicate = compare("x", Comparison::Gt, 900.0f64);
    let got = ids(&read_sync(&predicate));
    assert_eq!(got, reference(&predicate));
    assert!(!got.is_empty());
    assert!(got.iter().all(|i| i % 97 == 0));
}

#[test]
fn the_predicate_columns_need_not_be_selected() {
    let predicate = compare("s", Comparison::Eq, "k04242");
    let options = ParquetReadOptions::default()
        .with_columns(["x"])
        .with_predicate(predicate);
    let batches = pq::read_bytes(file().clone(), options)
        .unwrap()
        .collect_all()
        .unwrap();
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 1);
    assert_eq!(batches[0].schema().fields().len(), 1);
    assert_eq!(batches[0].schema().fields()[0].name(), "x");
}

#[test]
fn a_predicate_the_file_cannot_answer_is_an_error_naming_it() {
    let absent = compare("nope", Comparison::Eq, 1i64);
    let error = pq::read_bytes(
        file().clone(),
        ParquetReadOptions::default().with_predicate(absent),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("\"nope\""), "{error}");
    let mistyped = compare("id", Comparison::Eq, "one");
    let error = pq::read_bytes(
        file().clone(),
        ParquetReadOptions::default().with_predicate(mistyped),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("predicate"), "{error}");
}

#[test]
fn a_lying_source_is_an_error_not_a_panic() {
    /// Claims twice the length, so the footer is looked for in the wrong place.
    struct Lying(Buffer);
    impl RangeSource for Lying {
        async fn size(&self) -> alkaid_ipc::Result<u64> {
            Ok(self.0.len() as u64 * 2)
        }
        async fn fetch(&self, range: Range<u64>) -> alkaid_ipc::Result<Buffer> {
            self.0.fetch(range).await
        }
    }
    let source = Lying(Buffer::from_slice_ref(file()));
    let error = block_on(pq::read_source(
        source,
        "lying.parquet",
        ParquetReadOptions::default(),
    ))
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("lying.parquet: "), "{error}");
}

fn literal(column: &'static str) -> BoxedStrategy<Scalar> {
    match column {
        "id" => prop_oneof![
            9 => (-10i64..ROWS + 10).prop_map(Scalar::from),
            1 => Just(Scalar::new_null(&DataType::Int64).unwrap()),
        ]
        .boxed(),
        "x" => prop_oneof![
            8 => (-10i64..ROWS / 10 + 10).prop_map(|v| Scalar::from(v as f64)),
            1 => Just(Scalar::from(f64::NAN)),
            1 => Just(Scalar::new_null(&DataType::Float64).unwrap()),
        ]
        .boxed(),
        "s" => (0i64..ROWS)
            .prop_map(|i| Scalar::from(format!("k{i:05}").as_str()))
            .boxed(),
        _ => any::<bool>().prop_map(Scalar::from).boxed(),
    }
}

fn leaf() -> impl Strategy<Value = Predicate> {
    let op = prop_oneof![
        Just(Comparison::Eq),
        Just(Comparison::NotEq),
        Just(Comparison::Lt),
        Just(Comparison::LtEq),
        Just(Comparison::Gt),
        Just(Comparison::GtEq),
        Just(Comparison::Distinct),
        Just(Comparison::NotDistinct),
    ];
    let column = prop_oneof![Just("id"), Just("x"), Just("s"), Just("b")];
    (column, op, any::<bool>(), 0..8u8).prop_flat_map(|(column, op, flipped, kind)| {
        literal(column).prop_map(move |value| {
            let (c, v) = (Operand::column(column), Operand::Literal(value));
            match kind {
                0 => Predicate::IsNull(c),
                1 => Predicate::IsNotNull(c),
                2 if column == "b" => Predicate::Value(c),
                _ if flipped => Predicate::compare(v, op, c),
                _ => Predicate::compare(c, op, v),
            }
        })
    })
}

fn predicate() -> impl Strategy<Value = Predicate> {
    leaf().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| l.and(r)),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| l.or(r)),
            inner.prop_map(Predicate::not),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn pruned_reads_equal_the_predicate_on_every_row(predicate in predicate()) {
        let expected = reference(&predicate);
        prop_assert_eq!(&ids(&read_sync(&predicate)), &expected, "{:?}", predicate);
        let source = Arc::new(Counting::new(file()));
        let ranged = read_ranged(&source, ParquetReadOptions::default().with_predicate(predicate.clone()));
        prop_assert_eq!(&ids(&ranged), &expected, "{:?}", predicate);
    }
}

#[cfg(feature = "object_store")]
#[test]
fn an_object_store_object_reads_as_the_bytes_do() {
    use object_store::ObjectStoreExt;
    let store = Arc::new(object_store::memory::InMemory::new());
    let path = object_store::path::Path::from("tables/t.parquet");
    let predicate =
        compare("s", Comparison::GtEq, "k07990").or(compare("id", Comparison::Lt, 3i64));
    let read = block_on(async {
        store
            .put(&path, bytes::Bytes::from(file().clone()).into())
            .await
            .unwrap();
        let options = ParquetReadOptions::default().with_predicate(predicate.clone());
        pq::read_object(store, &path, options)
            .await
            .unwrap()
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
    });
    assert_eq!(ids(&read), reference(&predicate));
    let absent = object_store::path::Path::from("tables/absent.parquet");
    let error = block_on(pq::read_object(
        Arc::new(object_store::memory::InMemory::new()),
        &absent,
        ParquetReadOptions::default(),
    ))
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("tables/absent.parquet: "), "{error}");
}

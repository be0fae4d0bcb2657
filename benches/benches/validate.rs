//! Full validation of a 4 Mi-row Utf8 column and a 4 Mi-row list-of-Int64 column: the work
//! every IPC read of untrusted bytes pays.

use alkaid_benches::data::Rng;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const ROWS: usize = 4 << 20;

/// Offsets and bytes of `ROWS` strings of 0 to 15 characters, a few of them non-ASCII.
fn strings() -> (Vec<i32>, Vec<u8>) {
    let mut rng = Rng::new(11);
    let mut offsets = Vec::with_capacity(ROWS + 1);
    let mut data = Vec::with_capacity(ROWS * 8);
    offsets.push(0);
    for _ in 0..ROWS {
        let len = (rng.next_u64() % 16) as usize;
        for _ in 0..len {
            if rng.chance(0.02) {
                data.extend_from_slice("é".as_bytes());
            } else {
                data.push(b'a' + (rng.next_u64() % 26) as u8);
            }
        }
        offsets.push(data.len() as i32);
    }
    (offsets, data)
}

/// Offsets of `ROWS` lists of 0 to 4 items, and the items.
fn lists() -> (Vec<i32>, Vec<i64>) {
    let mut rng = Rng::new(12);
    let mut offsets = Vec::with_capacity(ROWS + 1);
    offsets.push(0);
    let mut total = 0;
    for _ in 0..ROWS {
        total += (rng.next_u64() % 5) as i32;
        offsets.push(total);
    }
    let items = (0..total as i64).collect();
    (offsets, items)
}

fn utf8(c: &mut Criterion) {
    let (offsets, data) = strings();
    let ours = alkaid_data::ArrayData::builder(alkaid_schema::DataType::Utf8)
        .len(ROWS)
        .buffers(vec![
            alkaid_buffer::Buffer::from_slice_ref(&offsets),
            alkaid_buffer::Buffer::from_slice_ref(&data),
        ])
        .build()
        .expect("valid strings");
    let arrow = arrow_data::ArrayData::builder(arrow_schema::DataType::Utf8)
        .len(ROWS)
        .add_buffer(arrow_buffer::Buffer::from_slice_ref(&offsets))
        .add_buffer(arrow_buffer::Buffer::from_slice_ref(&data))
        .build()
        .expect("valid strings");
    let mut group = c.benchmark_group("validate_full");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function(BenchmarkId::new("alkaid", "utf8/4Mi"), |b| {
        b.iter(|| {
            ours.validate(alkaid_data::ValidationLevel::Full)
                .expect("valid")
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "utf8/4Mi"), |b| {
        b.iter(|| arrow.validate_full().expect("valid"))
    });
    group.finish();
}

fn list_of_int64(c: &mut Criterion) {
    let (offsets, items) = lists();
    let ours_items = alkaid_data::ArrayData::builder(alkaid_schema::DataType::Int64)
        .len(items.len())
        .buffers(vec![alkaid_buffer::Buffer::from_slice_ref(&items)])
        .build()
        .expect("valid items");
    let ours = alkaid_data::ArrayData::builder(alkaid_schema::DataType::list(
        alkaid_schema::DataType::Int64,
    ))
    .len(ROWS)
    .buffers(vec![alkaid_buffer::Buffer::from_slice_ref(&offsets)])
    .children(vec![ours_items])
    .build()
    .expect("valid lists");
    let item_field = arrow_schema::Field::new("item", arrow_schema::DataType::Int64, true);
    let arrow_items = arrow_data::ArrayData::builder(arrow_schema::DataType::Int64)
        .len(items.len())
        .add_buffer(arrow_buffer::Buffer::from_slice_ref(&items))
        .build()
        .expect("valid items");
    let arrow = arrow_data::ArrayData::builder(arrow_schema::DataType::List(item_field.into()))
        .len(ROWS)
        .add_buffer(arrow_buffer::Buffer::from_slice_ref(&offsets))
        .add_child_data(arrow_items)
        .build()
        .expect("valid lists");
    let mut group = c.benchmark_group("validate_full");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function(BenchmarkId::new("alkaid", "list_i64/4Mi"), |b| {
        b.iter(|| {
            ours.validate(alkaid_data::ValidationLevel::Full)
                .expect("valid")
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "list_i64/4Mi"), |b| {
        b.iter(|| arrow.validate_full().expect("valid"))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = utf8, list_of_int64
}
criterion_main!(benches);

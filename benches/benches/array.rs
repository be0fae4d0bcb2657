//! Reading and building typed arrays: string access (one bounds check per value, no UTF-8
//! re-check) and primitive and string builders, 1 Mi values each.

use alkaid_benches::data::Rng;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const ROWS: usize = 1 << 20;

fn words() -> Vec<String> {
    let mut rng = Rng::new(21);
    (0..ROWS)
        .map(|_| "x".repeat((rng.next_u64() % 24) as usize))
        .collect()
}

fn string_access(c: &mut Criterion) {
    let words = words();
    let ours =
        alkaid_array::StringArray::from(words.iter().map(String::as_str).collect::<Vec<_>>());
    let arrow =
        arrow_array::StringArray::from(words.iter().map(String::as_str).collect::<Vec<_>>());
    let mut group = c.benchmark_group("string_value");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function(BenchmarkId::new("alkaid", "1Mi"), |b| {
        b.iter(|| {
            (0..ROWS)
                .map(|i| black_box(ours.value(i)).len())
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "1Mi"), |b| {
        b.iter(|| {
            (0..ROWS)
                .map(|i| black_box(arrow.value(i)).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

fn builders(c: &mut Criterion) {
    let words = words();
    let mut group = c.benchmark_group("build");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function(BenchmarkId::new("alkaid", "int64/1Mi"), |b| {
        b.iter(|| {
            let mut builder = alkaid_array::Int64Array::builder(ROWS);
            for i in 0..ROWS as i64 {
                if i % 7 == 0 {
                    builder.append_null()
                } else {
                    builder.append_value(i)
                }
            }
            builder.finish()
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "int64/1Mi"), |b| {
        b.iter(|| {
            let mut builder = arrow_array::builder::Int64Builder::with_capacity(ROWS);
            for i in 0..ROWS as i64 {
                if i % 7 == 0 {
                    builder.append_null()
                } else {
                    builder.append_value(i)
                }
            }
            builder.finish()
        })
    });
    group.bench_function(BenchmarkId::new("alkaid", "utf8/1Mi"), |b| {
        b.iter(|| {
            let mut builder = alkaid_array::StringArray::builder(ROWS, ROWS * 12);
            for word in &words {
                builder.append_value(word);
            }
            builder.finish()
        })
    });
    group.bench_function(BenchmarkId::new("arrow", "utf8/1Mi"), |b| {
        b.iter(|| {
            let mut builder = arrow_array::builder::StringBuilder::with_capacity(ROWS, ROWS * 12);
            for word in &words {
                builder.append_value(word);
            }
            builder.finish()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = string_access, builders
}
criterion_main!(benches);

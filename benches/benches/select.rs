//! Selection kernels: filter at several selectivities and mask shapes, take of random
//! indices, and concat of slices, through alkaid-select and arrow-select on the same data.

use std::sync::Arc;

use alkaid_benches::data::Rng;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const ROWS: usize = 1 << 20;

struct Inputs {
    ours: Vec<(&'static str, alkaid_array::ArrayRef)>,
    theirs: Vec<(&'static str, arrow_array::ArrayRef)>,
}

fn inputs() -> Inputs {
    let mut rng = Rng::new(7);
    let ints: Vec<i32> = (0..ROWS).map(|_| rng.next_u64() as i32).collect();
    let longs: Vec<Option<i64>> = (0..ROWS)
        .map(|i| (i % 7 != 0).then_some(i as i64))
        .collect();
    let words: Vec<String> = (0..ROWS).map(|i| format!("word {}", i % 5000)).collect();
    let word_refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let lists: Vec<Vec<i32>> = (0..ROWS).map(|i| (0..(i % 4) as i32).collect()).collect();

    let mut list_builder =
        alkaid_array::GenericListBuilder::<i32, _>::new(alkaid_array::PrimitiveBuilder::<
            alkaid_array::types::Int32Type,
        >::with_capacity(ROWS * 2));
    for list in &lists {
        for &v in list {
            list_builder.values().append_value(v);
        }
        list_builder.append(true);
    }
    let ours: Vec<(&'static str, alkaid_array::ArrayRef)> = vec![
        (
            "i32",
            Arc::new(alkaid_array::Int32Array::from(ints.clone())),
        ),
        (
            "i64_nulls",
            Arc::new(alkaid_array::Int64Array::from(longs.clone())),
        ),
        (
            "utf8",
            Arc::new(alkaid_array::StringArray::from(word_refs.clone())),
        ),
        ("list_i32", Arc::new(list_builder.finish().unwrap())),
    ];
    let theirs: Vec<(&'static str, arrow_array::ArrayRef)> = vec![
        ("i32", Arc::new(arrow_array::Int32Array::from(ints))),
        ("i64_nulls", Arc::new(arrow_array::Int64Array::from(longs))),
        ("utf8", Arc::new(arrow_array::StringArray::from(word_refs))),
        (
            "list_i32",
            Arc::new(arrow_array::ListArray::from_iter_primitive::<
                arrow_array::types::Int32Type,
                _,
                _,
            >(
                lists
                    .iter()
                    .map(|l| Some(l.iter().map(|&v| Some(v)).collect::<Vec<_>>())),
            )),
        ),
    ];
    Inputs { ours, theirs }
}

/// Masks by name: a selectivity, or long runs (1 Ki rows on, 1 Ki off).
fn mask(name: &str) -> Vec<bool> {
    let mut rng = Rng::new(11);
    match name {
        "runs" => (0..ROWS).map(|i| (i / 1024) % 2 == 0).collect(),
        other => {
            let p: f64 = other.parse().unwrap();
            (0..ROWS).map(|_| rng.chance(p)).collect()
        }
    }
}

fn select(c: &mut Criterion) {
    let Inputs { ours, theirs } = inputs();
    let mut group = c.benchmark_group("filter");
    for shape in ["0.999", "0.5", "0.001", "runs"] {
        let bits = mask(shape);
        let our_mask = alkaid_array::BooleanArray::from(bits.clone());
        let their_mask = arrow_array::BooleanArray::from(bits);
        for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
            let id = format!("{name}@{shape}");
            group.bench_function(BenchmarkId::new("alkaid", &id), |bench| {
                bench.iter(|| alkaid_select::filter(a.as_ref(), &our_mask).unwrap())
            });
            group.bench_function(BenchmarkId::new("arrow", &id), |bench| {
                bench.iter(|| arrow_select::filter::filter(b.as_ref(), &their_mask).unwrap())
            });
        }
    }
    group.finish();

    let mut rng = Rng::new(3);
    let picks: Vec<u32> = (0..ROWS)
        .map(|_| (rng.next_u64() % ROWS as u64) as u32)
        .collect();
    let our_indices = alkaid_array::UInt32Array::from(picks.clone());
    let their_indices = arrow_array::UInt32Array::from(picks);
    let mut group = c.benchmark_group("take");
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        group.bench_function(BenchmarkId::new("alkaid", format!("{name}/1Mi")), |bench| {
            bench.iter(|| alkaid_select::take(a.as_ref(), &our_indices).unwrap())
        });
        group.bench_function(BenchmarkId::new("arrow", format!("{name}/1Mi")), |bench| {
            bench.iter(|| arrow_select::take::take(b.as_ref(), &their_indices, None).unwrap())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("concat");
    let eighth = ROWS / 8;
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        let our_parts: Vec<_> = (0..8).map(|k| a.slice(k * eighth, eighth)).collect();
        let their_parts: Vec<_> = (0..8).map(|k| b.slice(k * eighth, eighth)).collect();
        let our_refs: Vec<&dyn alkaid_array::Array> =
            our_parts.iter().map(|p| p.as_ref()).collect();
        let their_refs: Vec<&dyn arrow_array::Array> =
            their_parts.iter().map(|p| p.as_ref()).collect();
        group.bench_function(BenchmarkId::new("alkaid", format!("{name}/8")), |bench| {
            bench.iter(|| alkaid_select::concat(&our_refs).unwrap())
        });
        group.bench_function(BenchmarkId::new("arrow", format!("{name}/8")), |bench| {
            bench.iter(|| arrow_select::concat::concat(&their_refs).unwrap())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion().sample_size(10);
    targets = select
}
criterion_main!(benches);

//! Selection kernels: filter at several selectivities and mask shapes, take of random
//! indices, concat of slices and interleave of random rows, through alkaid-select and
//! arrow-select on the same data of every kind the issue names.

use std::sync::Arc;

use alkaid_benches::VersusGroup;
use alkaid_benches::data::Rng;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const ROWS: usize = 1 << 20;

struct Inputs {
    ours: Vec<(&'static str, alkaid_array::ArrayRef)>,
    theirs: Vec<(&'static str, arrow_array::ArrayRef)>,
}

fn inputs() -> Inputs {
    use alkaid_array as ours;
    use arrow_array as theirs;
    let mut rng = Rng::new(7);
    let ints: Vec<i32> = (0..ROWS).map(|_| rng.next_u64() as i32).collect();
    let longs: Vec<Option<i64>> = (0..ROWS)
        .map(|i| (i % 7 != 0).then_some(i as i64))
        .collect();
    let floats: Vec<f64> = (0..ROWS).map(|i| i as f64 * 0.5).collect();
    let flags: Vec<bool> = (0..ROWS).map(|_| rng.chance(0.5)).collect();
    let words: Vec<String> = (0..ROWS).map(|i| format!("word {}", i % 5000)).collect();
    let word_refs: Vec<&str> = words.iter().map(String::as_str).collect();
    // Views: a third of the values longer than 12 bytes, so not inline.
    let long_words: Vec<String> = (0..ROWS)
        .map(|i| match i % 3 {
            0 => format!("a longer word, number {}", i % 5000),
            _ => format!("w{}", i % 5000),
        })
        .collect();
    let long_refs: Vec<&str> = long_words.iter().map(String::as_str).collect();
    let lists: Vec<Vec<i32>> = (0..ROWS).map(|i| (0..(i % 4) as i32).collect()).collect();
    let keys: Vec<i32> = (0..ROWS).map(|_| (rng.next_u64() % 1000) as i32).collect();
    let categories: Vec<String> = (0..1000).map(|i| format!("category {i}")).collect();
    let category_refs: Vec<&str> = categories.iter().map(String::as_str).collect();

    let mut list_builder = ours::GenericListBuilder::<i32, _>::new(ours::PrimitiveBuilder::<
        ours::types::Int32Type,
    >::with_capacity(ROWS * 2));
    for list in &lists {
        for &v in list {
            list_builder.values().append_value(v);
        }
        list_builder.append(true);
    }
    let struct_fields = alkaid_schema::Fields::from(vec![
        alkaid_schema::Field::new("a", alkaid_schema::DataType::Int32, false),
        alkaid_schema::Field::new("b", alkaid_schema::DataType::Float64, false),
    ]);
    let our_struct = ours::StructArray::try_new(
        struct_fields,
        vec![
            Arc::new(ours::Int32Array::from(ints.clone())),
            Arc::new(ours::Float64Array::from(floats.clone())),
        ],
        None,
    )
    .unwrap();
    let our_dictionary = ours::DictionaryArray::<ours::types::Int32Type>::try_new(
        ours::Int32Array::from(keys.clone()),
        Arc::new(ours::StringArray::from(category_refs.clone())),
    )
    .unwrap();
    let ours: Vec<(&'static str, ours::ArrayRef)> = vec![
        ("i32", Arc::new(ours::Int32Array::from(ints.clone()))),
        ("i64_nulls", Arc::new(ours::Int64Array::from(longs.clone()))),
        ("f64", Arc::new(ours::Float64Array::from(floats.clone()))),
        ("bool", Arc::new(ours::BooleanArray::from(flags.clone()))),
        ("utf8", Arc::new(ours::StringArray::from(word_refs.clone()))),
        (
            "utf8_view",
            Arc::new(ours::StringViewArray::from_iter_values(long_refs.clone())),
        ),
        ("list_i32", Arc::new(list_builder.finish().unwrap())),
        ("dict_i32_utf8", Arc::new(our_dictionary)),
        ("struct", Arc::new(our_struct)),
    ];

    let their_struct = theirs::StructArray::from(vec![
        (
            Arc::new(arrow_schema::Field::new(
                "a",
                arrow_schema::DataType::Int32,
                false,
            )),
            Arc::new(theirs::Int32Array::from(ints.clone())) as theirs::ArrayRef,
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "b",
                arrow_schema::DataType::Float64,
                false,
            )),
            Arc::new(theirs::Float64Array::from(floats.clone())) as theirs::ArrayRef,
        ),
    ]);
    let their_dictionary = theirs::DictionaryArray::<theirs::types::Int32Type>::try_new(
        theirs::Int32Array::from(keys),
        Arc::new(theirs::StringArray::from(category_refs)),
    )
    .unwrap();
    let theirs: Vec<(&'static str, theirs::ArrayRef)> = vec![
        ("i32", Arc::new(theirs::Int32Array::from(ints))),
        ("i64_nulls", Arc::new(theirs::Int64Array::from(longs))),
        ("f64", Arc::new(theirs::Float64Array::from(floats))),
        ("bool", Arc::new(theirs::BooleanArray::from(flags))),
        ("utf8", Arc::new(theirs::StringArray::from(word_refs))),
        (
            "utf8_view",
            Arc::new(theirs::StringViewArray::from_iter_values(long_refs)),
        ),
        (
            "list_i32",
            Arc::new(theirs::ListArray::from_iter_primitive::<
                theirs::types::Int32Type,
                _,
                _,
            >(
                lists
                    .iter()
                    .map(|l| Some(l.iter().map(|&v| Some(v)).collect::<Vec<_>>())),
            )),
        ),
        ("dict_i32_utf8", Arc::new(their_dictionary)),
        ("struct", Arc::new(their_struct)),
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
    let mut group = VersusGroup::new(c, "filter");
    for shape in ["0.999", "0.5", "0.001", "runs"] {
        let bits = mask(shape);
        let our_mask = alkaid_array::BooleanArray::from(bits.clone());
        let their_mask = arrow_array::BooleanArray::from(bits);
        for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
            let id = format!("{name}@{shape}");
            group.versus(
                &id,
                || alkaid_select::filter(a.as_ref(), &our_mask).unwrap(),
                || arrow_select::filter::filter(b.as_ref(), &their_mask).unwrap(),
            );
        }
    }
    group.finish();

    let mut rng = Rng::new(3);
    let picks: Vec<u32> = (0..ROWS)
        .map(|_| (rng.next_u64() % ROWS as u64) as u32)
        .collect();
    let our_indices = alkaid_array::UInt32Array::from(picks.clone());
    let their_indices = arrow_array::UInt32Array::from(picks);
    let mut group = VersusGroup::new(c, "take");
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        group.versus(
            &format!("{name}/1Mi"),
            || alkaid_select::take(a.as_ref(), &our_indices).unwrap(),
            || arrow_select::take::take(b.as_ref(), &their_indices, None).unwrap(),
        );
    }
    group.finish();

    let mut group = VersusGroup::new(c, "concat");
    let eighth = ROWS / 8;
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        let our_parts: Vec<_> = (0..8).map(|k| a.slice(k * eighth, eighth)).collect();
        let their_parts: Vec<_> = (0..8).map(|k| b.slice(k * eighth, eighth)).collect();
        let our_refs: Vec<&dyn alkaid_array::Array> =
            our_parts.iter().map(|p| p.as_ref()).collect();
        let their_refs: Vec<&dyn arrow_array::Array> =
            their_parts.iter().map(|p| p.as_ref()).collect();
        group.versus(
            &format!("{name}/8"),
            || alkaid_select::concat(&our_refs).unwrap(),
            || arrow_select::concat::concat(&their_refs).unwrap(),
        );
    }
    group.finish();

    // Interleave 1 Mi rows picked at random from four quarter-length slices.
    let mut group = VersusGroup::new(c, "interleave");
    let quarter = ROWS / 4;
    let mut rng = Rng::new(5);
    let pairs: Vec<(usize, usize)> = (0..ROWS)
        .map(|_| {
            let a = (rng.next_u64() % 4) as usize;
            (a, (rng.next_u64() % quarter as u64) as usize)
        })
        .collect();
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        let our_parts: Vec<_> = (0..4).map(|k| a.slice(k * quarter, quarter)).collect();
        let their_parts: Vec<_> = (0..4).map(|k| b.slice(k * quarter, quarter)).collect();
        let our_refs: Vec<&dyn alkaid_array::Array> =
            our_parts.iter().map(|p| p.as_ref()).collect();
        let their_refs: Vec<&dyn arrow_array::Array> =
            their_parts.iter().map(|p| p.as_ref()).collect();
        group.versus(
            &format!("{name}/4"),
            || alkaid_select::interleave(&our_refs, &pairs).unwrap(),
            || arrow_select::interleave::interleave(&their_refs, &pairs).unwrap(),
        );
    }
    group.finish();

    // The memory bound each kernel is judged against: a copy of all the input's bytes
    // (every buffer, children and dictionary included) into memory allocated once, so
    // reading everything once and writing as much. A filter or take moves no more.
    let mut group = c.benchmark_group("bound");
    for (name, a) in &ours {
        let mut source = Vec::new();
        collect_bytes(&a.to_data(), &mut source);
        let mut target = vec![0u8; source.len()];
        group.bench_function(BenchmarkId::new("memcpy", *name), |bench| {
            bench.iter(|| target.copy_from_slice(&source))
        });
    }
    group.finish();
}

/// Every byte `data` holds: its buffers, its children's and its dictionary's.
fn collect_bytes(data: &alkaid_data::ArrayData, out: &mut Vec<u8>) {
    for buffer in data.buffers() {
        out.extend_from_slice(buffer);
    }
    if let Some(nulls) = data.nulls() {
        out.extend_from_slice(nulls.validity().inner());
    }
    for child in data.children() {
        collect_bytes(child, out);
    }
    if let Some(dictionary) = data.dictionary() {
        collect_bytes(dictionary, out);
    }
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion().sample_size(10);
    targets = select
}
criterion_main!(benches);

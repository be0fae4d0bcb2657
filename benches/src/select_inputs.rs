//! The selection benchmark's inputs: 1 Mi rows of nine kinds of column, the filter masks,
//! the take indices and the interleave picks, from fixed seeds.

use std::sync::Arc;

use crate::data::Rng;

/// Rows in every input.
pub const ROWS: usize = 1 << 20;

/// The inputs by name, once for each library.
pub struct Inputs {
    /// Alkaid's arrays.
    pub ours: Vec<(&'static str, alkaid_array::ArrayRef)>,
    /// The same values as arrow-rs arrays, in the same order.
    pub theirs: Vec<(&'static str, arrow_array::ArrayRef)>,
}

/// The nine inputs, from fixed seeds.
pub fn inputs() -> Inputs {
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

/// The filter masks' names: a selectivity, or runs of 1 Ki rows (`runs`) or of 64 rows
/// (`runs64`), alternately kept and dropped.
pub const MASKS: [&str; 5] = ["0.999", "0.5", "0.001", "runs", "runs64"];

/// The mask named `name` (one of [`MASKS`]).
pub fn mask(name: &str) -> Vec<bool> {
    let mut rng = Rng::new(11);
    match name {
        "runs" => (0..ROWS).map(|i| (i / 1024) % 2 == 0).collect(),
        "runs64" => (0..ROWS).map(|i| (i / 64) % 2 == 0).collect(),
        other => {
            let p: f64 = other.parse().unwrap();
            (0..ROWS).map(|_| rng.chance(p)).collect()
        }
    }
}

/// The indices of `take`: 1 Mi rows picked at random.
pub fn take_indices() -> Vec<u32> {
    let mut rng = Rng::new(3);
    (0..ROWS)
        .map(|_| (rng.next_u64() % ROWS as u64) as u32)
        .collect()
}

/// The (input, row) pairs of `interleave`: 1 Mi rows picked at random from four
/// quarter-length slices.
pub fn interleave_pairs() -> Vec<(usize, usize)> {
    let quarter = ROWS / 4;
    let mut rng = Rng::new(5);
    (0..ROWS)
        .map(|_| {
            let a = (rng.next_u64() % 4) as usize;
            (a, (rng.next_u64() % quarter as u64) as usize)
        })
        .collect()
}

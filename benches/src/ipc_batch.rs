//! The IPC benchmark's batch: 4 Mi rows of seven columns (integers with nulls, floats,
//! booleans, strings, a list, a dictionary, a struct), built from the same values for Alkaid
//! and for arrow-rs.

use std::sync::Arc;

use crate::data::Rng;

/// Rows in the batch.
pub const ROWS: usize = 4 << 20;

/// The columns' values, shared by both libraries.
pub struct Columns {
    ints: Vec<Option<i64>>,
    floats: Vec<f64>,
    flags: Vec<bool>,
    words: Vec<String>,
    lists: Vec<Vec<i32>>,
    keys: Vec<i32>,
    dictionary: Vec<String>,
}

/// The values of `rows` rows, from a fixed seed.
pub fn columns(rows: usize) -> Columns {
    let mut rng = Rng::new(42);
    let mut next = |n: u64| rng.next_u64() % n;
    Columns {
        ints: (0..rows)
            .map(|i| (i % 7 != 0).then_some(next(1 << 40) as i64))
            .collect(),
        floats: (0..rows).map(|_| next(1_000_000) as f64 / 7.0).collect(),
        flags: (0..rows).map(|_| next(2) == 0).collect(),
        words: (0..rows)
            .map(|_| format!("w{}", next(1 << 30)).repeat(1 + next(2) as usize))
            .collect(),
        lists: (0..rows)
            .map(|_| (0..next(4)).map(|v| v as i32).collect())
            .collect(),
        keys: (0..rows).map(|_| next(1000) as i32).collect(),
        dictionary: (0..1000).map(|i| format!("category {i}")).collect(),
    }
}

/// The batch as Alkaid holds it.
pub fn alkaid_batch(c: &Columns) -> alkaid_array::RecordBatch {
    use alkaid_array::types::Int32Type;
    use alkaid_array::*;
    let mut lists = GenericListBuilder::<i32, _>::new(
        PrimitiveBuilder::<Int32Type>::with_capacity(c.lists.len() * 2),
    );
    for list in &c.lists {
        for &v in list {
            lists.values().append_value(v);
        }
        lists.append(true);
    }
    let words = StringArray::from(c.words.iter().map(String::as_str).collect::<Vec<_>>());
    let dictionary: ArrayRef = Arc::new(StringArray::from(
        c.dictionary.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    let keys = Int32Array::from(c.keys.clone());
    let struct_fields = alkaid_schema::Fields::from(vec![
        alkaid_schema::Field::new("a", alkaid_schema::DataType::Int32, false),
        alkaid_schema::Field::new("b", alkaid_schema::DataType::Float64, false),
    ]);
    let structs = StructArray::try_new(
        struct_fields,
        vec![
            Arc::new(keys.clone()),
            Arc::new(Float64Array::from(c.floats.clone())),
        ],
        None,
    )
    .unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(c.ints.clone())),
        Arc::new(Float64Array::from(c.floats.clone())),
        Arc::new(BooleanArray::from(c.flags.clone())),
        Arc::new(words),
        Arc::new(lists.finish().unwrap()),
        Arc::new(DictionaryArray::<Int32Type>::try_new(keys, dictionary).unwrap()),
        Arc::new(structs),
    ];
    let fields: Vec<alkaid_schema::Field> = [
        "ints", "floats", "flags", "words", "lists", "dict", "struct",
    ]
    .iter()
    .zip(&columns)
    .map(|(name, column)| alkaid_schema::Field::new(*name, column.data_type().clone(), true))
    .collect();
    RecordBatch::try_new(Arc::new(alkaid_schema::Schema::new(fields)), columns).unwrap()
}

/// The same batch as arrow-rs holds it.
pub fn arrow_batch(c: &Columns) -> arrow_array::RecordBatch {
    use arrow_array::types::Int32Type;
    use arrow_array::*;
    let lists = ListArray::from_iter_primitive::<Int32Type, _, _>(
        c.lists
            .iter()
            .map(|l| Some(l.iter().map(|&v| Some(v)).collect::<Vec<_>>())),
    );
    let words = StringArray::from(c.words.iter().map(String::as_str).collect::<Vec<_>>());
    let dictionary = StringArray::from(c.dictionary.iter().map(String::as_str).collect::<Vec<_>>());
    let keys = Int32Array::from(c.keys.clone());
    let structs = StructArray::from(vec![
        (
            Arc::new(arrow_schema::Field::new(
                "a",
                arrow_schema::DataType::Int32,
                false,
            )),
            Arc::new(keys.clone()) as ArrayRef,
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "b",
                arrow_schema::DataType::Float64,
                false,
            )),
            Arc::new(Float64Array::from(c.floats.clone())) as ArrayRef,
        ),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(c.ints.clone())),
        Arc::new(Float64Array::from(c.floats.clone())),
        Arc::new(BooleanArray::from(c.flags.clone())),
        Arc::new(words),
        Arc::new(lists),
        Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(dictionary)).unwrap()),
        Arc::new(structs),
    ];
    RecordBatch::try_from_iter(
        [
            "ints", "floats", "flags", "words", "lists", "dict", "struct",
        ]
        .into_iter()
        .zip(columns),
    )
    .unwrap()
}

//! The compute benchmark's inputs: 4 Mi rows of each kind, from fixed seeds, each once
//! without nulls and once (`_nulls`) with one row in ten null.

use std::sync::Arc;

use alkaid_array::{
    ArrayRef, BooleanArray, Decimal128Array, DictionaryArray, Float64Array, Int32Array, Int64Array,
    StringArray, StringViewArray,
};
use alkaid_schema::DataType;

use crate::data::Rng;

/// Rows in every input.
pub const ROWS: usize = 1 << 22;

/// The inputs, by name.
pub fn inputs() -> Vec<(&'static str, ArrayRef)> {
    let mut rng = Rng::new(28);
    let mut out: Vec<(&'static str, ArrayRef)> = Vec::new();
    let null_every = |i: usize| i % 10 == 3;
    for nulls in [false, true] {
        let keep = |i: usize| !(nulls && null_every(i));
        let name = |base: &'static str| -> &'static str {
            if nulls {
                Box::leak(format!("{base}_nulls").into_boxed_str())
            } else {
                base
            }
        };
        let ints: Vec<Option<i32>> = (0..ROWS)
            .map(|i| keep(i).then(|| (rng.next_u64() % 2_000_000) as i32 - 1_000_000))
            .collect();
        out.push((name("i32"), Arc::new(Int32Array::from(ints))));
        for base in ["i64", "i64b"] {
            let longs: Vec<Option<i64>> = (0..ROWS)
                .map(|i| keep(i).then(|| (rng.next_u64() >> 23) as i64 - (1 << 40)))
                .collect();
            out.push((name(base), Arc::new(Int64Array::from(longs))));
        }
        let floats: Vec<Option<f64>> = (0..ROWS)
            .map(|i| keep(i).then(|| (rng.next_u64() % 1_000_000) as f64 * 0.25))
            .collect();
        out.push((name("f64"), Arc::new(Float64Array::from(floats))));
        for base in ["bool", "boolb"] {
            let flags: Vec<Option<bool>> = (0..ROWS)
                .map(|i| keep(i).then(|| rng.chance(0.5)))
                .collect();
            out.push((name(base), Arc::new(BooleanArray::from(flags))));
        }
        // False but for the last row: `any` reads it all (on the columns above, both
        // libraries stop at the first word).
        let late: Vec<Option<bool>> = (0..ROWS)
            .map(|i| keep(i).then_some(i == ROWS - 1))
            .collect();
        out.push((name("bool_late"), Arc::new(BooleanArray::from(late))));
        for base in ["utf8", "utf8b"] {
            let words: Vec<Option<String>> = (0..ROWS)
                .map(|i| keep(i).then(|| format!("word {}", rng.next_u64() % 5000)))
                .collect();
            out.push((
                name(base),
                Arc::new(StringArray::from_iter(words.iter().map(|w| w.as_deref()))),
            ));
        }
        let long_words: Vec<Option<String>> = (0..ROWS)
            .map(|i| {
                keep(i).then(|| match i % 3 {
                    0 => format!("a longer word, number {}", rng.next_u64() % 5000),
                    _ => format!("word {}", rng.next_u64() % 5000),
                })
            })
            .collect();
        out.push((
            name("utf8view"),
            Arc::new(StringViewArray::from_iter(
                long_words.iter().map(|w| w.as_deref()),
            )),
        ));
        let categories: ArrayRef = Arc::new(StringArray::from_iter(
            (0..1000).map(|i| Some(format!("word {}", i * 5))),
        ));
        let keys: Vec<Option<i32>> = (0..ROWS)
            .map(|i| keep(i).then(|| (rng.next_u64() % 1000) as i32))
            .collect();
        let dictionary = DictionaryArray::<alkaid_array::types::Int32Type>::try_new(
            Int32Array::from(keys),
            categories,
        )
        .expect("keys below 1000");
        out.push((name("dictionary"), Arc::new(dictionary)));
        let decimals: Vec<Option<i128>> = (0..ROWS)
            .map(|i| keep(i).then(|| i128::from(rng.next_u64() % 10_000_000_000) - 5_000_000_000))
            .collect();
        let decimals = Decimal128Array::from(decimals)
            .with_data_type(DataType::decimal(128, 20, 4).expect("a valid decimal"))
            .expect("a Decimal128 type");
        out.push((name("decimal128"), Arc::new(decimals)));
    }
    out
}

//! Hashing: fixed values (the algorithm must not drift), agreement across layouts and
//! encodings, nulls at every level, and distinct values.

use std::sync::Arc;

use alkaid_array::types::{Int8Type, Int32Type, Int64Type};
use alkaid_array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, DictionaryArray, FixedSizeBinaryArray,
    Float32Array, Float64Array, Int8Array, Int32Array, Int64Array, LargeStringArray, ListArray,
    NullArray, RunArray, StringArray, StringViewArray, StructArray,
};
use alkaid_buffer::OffsetBuffer;
use alkaid_schema::{DataType, Field};

use super::*;

fn hashes(columns: &[&dyn Array], seed: u64) -> Vec<u64> {
    hash_rows(columns, seed).unwrap().values().to_vec()
}

#[test]
fn hashes_do_not_drift() {
    // Fixed expectations: a change here breaks every stored or exchanged hash, and must be
    // a deliberate, announced one.
    let ints = Int64Array::from(vec![0, 1, -1]);
    let text = StringArray::from(vec!["", "a", "hello, world"]);
    assert_eq!(
        hashes(&[&ints], 0),
        [one(8, 0), one(8, 1), one(8, u64::MAX)].map(|v| combine(0, v))
    );
    let expected_text = [K, fold(K ^ 1 ^ 0x61, K)];
    assert_eq!(
        &hashes(&[&text], 7)[..2],
        &expected_text.map(|v| combine(7, v))
    );
    assert_eq!(hashes(&[&ints, &text], 42), golden());
    // The same, as numbers: what every stored hash of these rows is.
    assert_eq!(
        hashes(&[&ints, &text], 42),
        [
            0xb872_75fb_206c_75f3,
            0x5c98_48f0_05ab_e342,
            0xe1f6_4fba_5ff4_66a9
        ]
    );
}

fn one(n: u64, word: u64) -> u64 {
    fold(K ^ n ^ word, K)
}

fn golden() -> Vec<u64> {
    let ints = [one(8, 0), one(8, 1), one(8, u64::MAX)];
    let text = [
        K,
        fold(K ^ 1 ^ 0x61, K),
        fold(
            fold(K ^ 12 ^ u64::from_le_bytes(*b"hello, w"), K)
                ^ u64::from_le_bytes(*b"orld\0\0\0\0"),
            K,
        ),
    ];
    (0..3)
        .map(|i| combine(combine(42, ints[i]), text[i]))
        .collect()
}

#[test]
fn text_hashes_alike_in_every_layout_and_encoding() {
    let words = ["a", "a value longer than twelve", ""];
    let small = StringArray::from(words.to_vec());
    let large = LargeStringArray::from(words.to_vec());
    let views = StringViewArray::from_iter_values(words);
    let keys = Int8Array::from(vec![1, 0, 2]);
    let entries: ArrayRef = Arc::new(StringArray::from(vec![words[1], words[0], words[2]]));
    let dictionary = DictionaryArray::<Int8Type>::try_new(keys, entries).unwrap();
    let expected = hashes(&[&small], 3);
    for other in [&large as &dyn Array, &views, &dictionary] {
        assert_eq!(hashes(&[other], 3), expected);
    }
    // Bytes and text of the same bytes hash alike too (they are never equal, but nothing
    // is lost by agreeing); fixed-size binary hashes as its bytes.
    let bytes = BinaryArray::from_iter(words.iter().map(|w| Some(w.as_bytes())));
    assert_eq!(hashes(&[&bytes], 3), expected);
    let fixed = FixedSizeBinaryArray::try_from_iter(1, [Some(&b"a"[..])]).unwrap();
    assert_eq!(hashes(&[&fixed], 3)[0], expected[0]);
}

#[test]
fn equal_floats_hash_alike() {
    let values = Float64Array::from(vec![0.0, -0.0, f64::NAN, -f64::NAN, 1.0]);
    let h = hashes(&[&values], 0);
    assert_eq!(h[0], h[1]);
    assert_eq!(h[2], h[3]);
    assert_ne!(h[0], h[4]);
    let narrow = Float32Array::from(vec![f32::NAN, -0.0]);
    let n = hashes(&[&narrow], 0);
    assert_ne!(n[0], n[1]);
}

#[test]
fn nulls_hash_alike_at_every_level() {
    let ints = Int32Array::from(vec![Some(1), None]);
    let text = StringArray::from(vec![None, Some("x")]);
    let null_type = NullArray::new(2);
    let (a, b, c) = (
        hashes(&[&ints], 5),
        hashes(&[&text], 5),
        hashes(&[&null_type], 5),
    );
    assert_eq!(a[1], b[0]);
    assert_eq!(a[1], c[0]);
    let values: ArrayRef = Arc::new(Int32Array::from(vec![Some(4), None]));
    let runs = RunArray::<Int32Type>::try_new(Int32Array::from(vec![1, 3]), values).unwrap();
    let r = hashes(&[&runs], 5);
    assert_eq!((r[1], r[2]), (a[1], a[1]));
    assert_eq!(r[0], hashes(&[&Int32Array::from(vec![4])], 5)[0]);
}

#[test]
fn sliced_and_nested_values_hash_by_value() {
    let long = Int64Array::from((0..100).collect::<Vec<i64>>());
    let short = Int64Array::from((40..50).collect::<Vec<i64>>());
    assert_eq!(
        hashes(&[long.slice(40, 10).as_ref()], 1),
        hashes(&[&short], 1)
    );
    let items = Arc::new(Field::new("item", DataType::Int32, true));
    let lists = ListArray::try_new(
        items,
        OffsetBuffer::from_lengths([2, 0, 2]),
        Arc::new(Int32Array::from(vec![Some(1), None, Some(1), None])),
        None,
    )
    .unwrap();
    let h = hashes(&[&lists], 9);
    assert_eq!(h[0], h[2]);
    assert_ne!(h[0], h[1]);
    let structs = StructArray::try_new(
        vec![Field::new("b", DataType::Boolean, true)].into(),
        vec![Arc::new(BooleanArray::from(vec![true, true, false])) as ArrayRef],
        Some(vec![true, true, false].into()),
    )
    .unwrap();
    let s = hashes(&[&structs], 9);
    assert_eq!(s[0], s[1]);
    assert_eq!(s[2], hashes(&[&Int32Array::from(vec![None])], 9)[0]);
}

#[test]
fn columns_must_have_one_length() {
    let (a, b) = (Int32Array::from(vec![1, 2]), Int32Array::from(vec![1]));
    assert!(matches!(
        hash_rows(&[&a, &b], 0),
        Err(ComputeError::LengthMismatch { .. })
    ));
    assert!(hash_rows(&[], 0).is_err());
    // Column order matters, and so does the seed.
    let c = Int32Array::from(vec![2, 1]);
    assert_ne!(hashes(&[&a, &c], 0), hashes(&[&c, &a], 0));
    assert_ne!(hashes(&[&a], 0), hashes(&[&a], 1));
}

#[test]
fn unique_and_value_counts_treat_nan_and_nulls_as_one_value() {
    let values = Float64Array::from(vec![
        Some(f64::NAN),
        None,
        Some(-0.0),
        Some(0.0),
        Some(f64::NAN),
        None,
    ]);
    let distinct = unique(&values).unwrap();
    let distinct: Vec<Option<f64>> = distinct
        .as_primitive::<alkaid_array::types::Float64Type>()
        .iter()
        .collect();
    assert_eq!(distinct.len(), 3);
    assert!(distinct[0].unwrap().is_nan());
    assert_eq!((distinct[1], distinct[2]), (None, Some(-0.0)));
    let counted = value_counts(&values).unwrap();
    let counts = counted.column(1).as_primitive::<Int64Type>();
    assert_eq!(counts.values().as_slice(), &[2, 2, 2]);
    let empty = unique(&Int32Array::from(Vec::<i32>::new())).unwrap();
    assert_eq!(empty.len(), 0);
    let keys = Int8Array::from(vec![Some(0), Some(1), None, Some(2)]);
    let entries: ArrayRef = Arc::new(StringArray::from(vec![Some("x"), Some("y"), Some("x")]));
    let dictionary = DictionaryArray::<Int8Type>::try_new(keys, entries).unwrap();
    let distinct = unique(&dictionary).unwrap();
    assert_eq!(distinct.len(), 3);
    assert!(matches!(distinct.data_type(), DataType::Dictionary { .. }));
}

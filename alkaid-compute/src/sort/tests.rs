//! Sorting edge cases, named: empty, all-null, sliced, stability in both directions, NaN
//! and -0.0, long shared prefixes, wide decimals, encodings, nesting three deep, limits.

use std::sync::Arc;

use alkaid_array::types::{Int8Type, Int32Type};
use alkaid_array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, Decimal256Array, DictionaryArray, Float64Array,
    Int8Array, Int32Array, Int64Array, LargeStringArray, ListArray, NullArray, RunArray, Scalar,
    StringArray, StringViewArray, StructArray, UnionBuilder,
};
use alkaid_buffer::OffsetBuffer;
use alkaid_buffer::native::i256;
use alkaid_schema::{DataType, Field, UnionMode, UnionType};

use super::*;

const ASC: SortOptions = SortOptions::ASCENDING;
const DESC: SortOptions = SortOptions::DESCENDING;
const ASC_NULLS_FIRST: SortOptions = SortOptions::ASCENDING.with_nulls_first(true);
const DESC_NULLS_LAST: SortOptions = SortOptions::DESCENDING.with_nulls_first(false);

fn order(array: &dyn Array, options: SortOptions) -> Vec<u32> {
    sort_to_indices(array, options, None)
        .unwrap()
        .values()
        .to_vec()
}

#[test]
fn empty_and_all_null_arrays_sort() {
    assert!(order(&Int32Array::from(Vec::<i32>::new()), ASC).is_empty());
    assert!(order(&StringArray::from(Vec::<&str>::new()), DESC).is_empty());
    assert_eq!(
        order(&Int32Array::from(vec![None, None, None]), DESC),
        [0, 1, 2]
    );
    assert_eq!(order(&NullArray::new(3), ASC), [0, 1, 2]);
    assert_eq!(rank(&NullArray::new(2), ASC).unwrap().values()[..], [1, 1]);
}

#[test]
fn equal_values_keep_their_order_in_both_directions() {
    let values = Int64Array::from(vec![Some(2), None, Some(1), Some(2), None, Some(1)]);
    assert_eq!(order(&values, ASC), [2, 5, 0, 3, 1, 4]);
    assert_eq!(order(&values, ASC_NULLS_FIRST), [1, 4, 2, 5, 0, 3]);
    assert_eq!(order(&values, DESC), [1, 4, 0, 3, 2, 5]);
    assert_eq!(order(&values, DESC_NULLS_LAST), [0, 3, 2, 5, 1, 4]);
}

#[test]
fn integers_sort_at_their_extremes() {
    let values = Int8Array::from(vec![i8::MAX, i8::MIN, 0, -1, 1]);
    assert_eq!(order(&values, ASC), [1, 3, 2, 4, 0]);
    let wide = alkaid_array::UInt64Array::from(vec![u64::MAX, 0, 1 << 63]);
    assert_eq!(order(&wide, DESC), [0, 2, 1]);
}

#[test]
fn floats_sort_nan_last_and_zeros_as_equals() {
    let values = Float64Array::from(vec![
        f64::NAN,
        1.0,
        -0.0,
        0.0,
        f64::NEG_INFINITY,
        -f64::NAN,
        f64::INFINITY,
    ]);
    // -0.0 and 0.0 tie (input order kept), as do the two NaNs.
    assert_eq!(order(&values, ASC), [4, 2, 3, 1, 6, 0, 5]);
    assert_eq!(order(&values, DESC), [0, 5, 6, 1, 2, 3, 4]);
}

#[test]
fn strings_sort_past_long_shared_prefixes_in_every_flavour() {
    let words = [
        "prefix-shared-b",
        "",
        "prefix-shared-a",
        "ab",
        "ab\0",
        "prefix-shared",
        "ä",
        "z",
    ];
    let expected = [1, 3, 4, 5, 2, 0, 7, 6];
    assert_eq!(order(&StringArray::from(words.to_vec()), ASC), expected);
    assert_eq!(
        order(&LargeStringArray::from(words.to_vec()), ASC),
        expected
    );
    assert_eq!(
        order(&StringViewArray::from_iter_values(words), ASC),
        expected
    );
    let mut reversed = expected;
    reversed.reverse();
    assert_eq!(order(&StringArray::from(words.to_vec()), DESC), reversed);
}

#[test]
fn sliced_arrays_sort_their_own_rows() {
    let values = Int32Array::from((0..100).rev().collect::<Vec<i32>>()).slice(37, 4);
    assert_eq!(order(values.as_ref(), ASC), [3, 2, 1, 0]);
    let text = StringArray::from(vec!["d", "c", "b", "a", "e"]).slice(1, 3);
    assert_eq!(order(text.as_ref(), ASC), [2, 1, 0]);
    let sorted = sort(text.as_ref(), ASC).unwrap();
    assert_eq!(
        sorted.as_any().downcast_ref::<StringArray>().unwrap(),
        &StringArray::from(vec!["a", "b", "c"])
    );
}

#[test]
fn wide_decimals_compare_past_their_first_word() {
    let small = [1i128, (1 << 64) + 1, 1 << 64, -1, i128::MIN, i128::MAX];
    let values = Decimal128Array::from(small.to_vec())
        .with_data_type(DataType::decimal(128, 38, 2).unwrap())
        .unwrap();
    assert_eq!(order(&values, ASC), [4, 3, 0, 2, 1, 5]);
    let wide = Decimal256Array::from(vec![
        i256::from_i128(3),
        i256::from_i128(-3),
        i256::from_i128(2),
    ]);
    assert_eq!(order(&wide, DESC), [0, 2, 1]);
}

#[test]
fn booleans_sort_false_first() {
    let values = BooleanArray::from(vec![Some(true), None, Some(false), Some(true)]);
    assert_eq!(order(&values, ASC), [2, 0, 3, 1]);
    assert_eq!(order(&values, DESC), [1, 0, 3, 2]);
}

fn dictionary(keys: Vec<Option<i8>>, values: ArrayRef) -> DictionaryArray<Int8Type> {
    DictionaryArray::try_new(Int8Array::from(keys), values).unwrap()
}

#[test]
fn dictionaries_sort_by_value_with_repeated_and_null_entries() {
    // Entries 0 and 2 are equal: their rows tie, in input order.
    let entries: ArrayRef = Arc::new(StringArray::from(vec![
        Some("b"),
        Some("a"),
        Some("b"),
        None,
    ]));
    let keyed = dictionary(
        vec![Some(2), Some(0), Some(3), None, Some(1), Some(2)],
        entries,
    );
    assert_eq!(order(&keyed, ASC), [4, 0, 1, 5, 2, 3]);
    assert_eq!(order(keyed.slice(1, 4).as_ref(), DESC), [1, 2, 0, 3]);
}

#[test]
fn run_end_encoded_arrays_sort_by_their_runs_values() {
    let values: ArrayRef = Arc::new(Int32Array::from(vec![Some(5), None, Some(1)]));
    let runs = RunArray::<Int32Type>::try_new(Int32Array::from(vec![2, 3, 6]), values).unwrap();
    assert_eq!(order(&runs, ASC), [3, 4, 5, 0, 1, 2]);
    assert_eq!(order(runs.slice(1, 3).as_ref(), ASC_NULLS_FIRST), [1, 2, 0]);
}

fn int_list(lengths: Vec<usize>, items: Vec<Option<i32>>, valid: Option<Vec<bool>>) -> ListArray {
    let field = Arc::new(Field::new("item", DataType::Int32, true));
    ListArray::try_new(
        field,
        OffsetBuffer::from_lengths(lengths),
        Arc::new(Int32Array::from(items)),
        valid.map(Into::into),
    )
    .unwrap()
}

#[test]
fn lists_sort_element_by_element_and_prefixes_first() {
    // [1, 2], [1], [], [1, null], null, [0, 9]
    let lists = int_list(
        vec![2, 1, 0, 2, 0, 2],
        vec![Some(1), Some(2), Some(1), Some(1), None, Some(0), Some(9)],
        Some(vec![true, true, true, true, false, true]),
    );
    // Null items sort last inside lists too (ascending).
    assert_eq!(order(&lists, ASC), [2, 5, 1, 0, 3, 4]);
    // Descending: longer lists before their prefixes, null items first.
    assert_eq!(order(&lists, DESC), [4, 3, 0, 1, 5, 2]);
}

#[test]
fn structs_sort_field_by_field_nested_three_deep() {
    // A struct of (a: Int32, b: List<Int32>), inside a list: three levels.
    let a: ArrayRef = Arc::new(Int32Array::from(vec![1, 1, 0, 1]));
    let b: ArrayRef = Arc::new(int_list(
        vec![1, 1, 1, 0],
        vec![Some(7), Some(3), Some(9)],
        None,
    ));
    let fields = vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", b.data_type().clone(), true),
    ];
    let structs = StructArray::try_new(fields.clone().into(), vec![a, b], None).unwrap();
    assert_eq!(order(&structs, ASC), [2, 3, 1, 0]);
    let struct_type = DataType::Struct(fields.into());
    let outer = ListArray::try_new(
        Arc::new(Field::new("item", struct_type, true)),
        OffsetBuffer::from_lengths([2, 1, 1]),
        Arc::new(structs),
        None,
    )
    .unwrap();
    // Rows: [s0, s1] = [(1,[7]), (1,[3])], [s2] = [(0,[9])], [s3] = [(1,[])].
    assert_eq!(order(&outer, ASC), [1, 2, 0]);
}

#[test]
fn limits_give_the_first_rows_of_the_full_sort() {
    let values = Int64Array::from(vec![
        Some(5),
        None,
        Some(3),
        Some(9),
        Some(3),
        None,
        Some(1),
    ]);
    for options in [ASC, DESC, ASC_NULLS_FIRST, DESC_NULLS_LAST] {
        let full = order(&values, options);
        for limit in 0..=values.len() + 2 {
            let part = sort_to_indices(&values, options, Some(limit)).unwrap();
            assert_eq!(
                part.values()[..],
                full[..limit.min(full.len())],
                "{options:?} {limit}"
            );
        }
    }
    let text = StringArray::from(vec!["pear", "fig", "apple", "kiwi"]);
    let largest = top_k(&text, 2, DESC).unwrap();
    assert_eq!(
        largest.as_any().downcast_ref::<StringArray>().unwrap(),
        &StringArray::from(vec!["pear", "kiwi"])
    );
}

#[test]
fn lexsort_breaks_ties_with_later_columns_nulls_included() {
    let first = StringArray::from(vec![Some("x"), None, Some("x"), None, Some("a")]);
    let second = Int32Array::from(vec![Some(2), Some(9), Some(1), Some(3), None]);
    let columns = [
        SortColumn {
            values: &first,
            options: ASC,
        },
        SortColumn {
            values: &second,
            options: DESC,
        },
    ];
    assert_eq!(
        lexsort_to_indices(&columns, None).unwrap().values()[..],
        [4, 0, 2, 1, 3]
    );
    assert_eq!(
        lexsort_to_indices(&columns, Some(2)).unwrap().values()[..],
        [4, 0]
    );
    let sorted = lexsort(&columns, None).unwrap();
    assert_eq!(
        sorted[1]
            .as_any()
            .downcast_ref::<Int32Array>()
            .unwrap()
            .value(1),
        2
    );
    let short = Int32Array::from(vec![1]);
    let mismatched = [
        SortColumn {
            values: &first,
            options: ASC,
        },
        SortColumn {
            values: &short,
            options: ASC,
        },
    ];
    assert!(matches!(
        lexsort_to_indices(&mismatched, None),
        Err(ComputeError::LengthMismatch {
            expected: 5,
            found: 1,
            ..
        })
    ));
    assert!(lexsort_to_indices(&[], None).unwrap().is_empty());
}

#[test]
fn ranks_follow_sqls_rank() {
    let values = Int32Array::from(vec![Some(10), Some(20), Some(10), None, Some(5)]);
    assert_eq!(rank(&values, ASC).unwrap().values()[..], [2, 4, 2, 5, 1]);
    assert_eq!(rank(&values, DESC).unwrap().values()[..], [3, 2, 3, 1, 5]);
}

#[test]
fn bounds_find_where_a_value_goes() {
    let ascending = Int32Array::from(vec![None, Some(1), Some(3), Some(3), Some(7)]);
    let three = Scalar::from(3i32);
    assert_eq!(
        lower_bound(&ascending, &three, ASC_NULLS_FIRST).unwrap(),
        3 - 1
    );
    assert_eq!(upper_bound(&ascending, &three, ASC_NULLS_FIRST).unwrap(), 4);
    assert_eq!(
        lower_bound(&ascending, &Scalar::from(0i32), ASC_NULLS_FIRST).unwrap(),
        1
    );
    assert_eq!(
        lower_bound(&ascending, &Scalar::from(8i32), ASC_NULLS_FIRST).unwrap(),
        5
    );
    let null = Scalar::new_null(&DataType::Int32).unwrap();
    assert_eq!(upper_bound(&ascending, &null, ASC_NULLS_FIRST).unwrap(), 1);
    let descending = StringArray::from(vec![Some("pear"), Some("fig"), Some("fig"), None]);
    assert_eq!(
        lower_bound(&descending, &Scalar::from("fig"), DESC_NULLS_LAST).unwrap(),
        1
    );
    assert_eq!(
        upper_bound(&descending, &Scalar::from("fig"), DESC_NULLS_LAST).unwrap(),
        3
    );
    assert_eq!(
        upper_bound(&descending, &Scalar::from("zz"), DESC_NULLS_LAST).unwrap(),
        0
    );
    // A dictionary is ranked with the value to find it.
    let entries: ArrayRef = Arc::new(StringArray::from(vec!["b", "a"]));
    let keyed = dictionary(vec![Some(1), Some(1), Some(0)], entries);
    let value = Scalar::from_array(&keyed, 2);
    assert_eq!(lower_bound(&keyed, &value, ASC).unwrap(), 2);
    assert!(matches!(
        lower_bound(&ascending, &Scalar::from(3i64), ASC),
        Err(ComputeError::Unsupported { .. })
    ));
}

#[test]
fn unions_have_no_order() {
    let union_type = UnionType::try_new(
        vec![Field::new("i", DataType::Int32, true)],
        [0],
        UnionMode::Sparse,
    )
    .unwrap();
    let mut builder =
        UnionBuilder::new(union_type, vec![Box::new(Int32Array::builder(0))]).unwrap();
    builder
        .child::<alkaid_array::PrimitiveBuilder<Int32Type>>(0)
        .unwrap()
        .append_value(1);
    builder.append(0).unwrap();
    let union = builder.finish().unwrap();
    let error = sort_to_indices(&union, ASC, None).unwrap_err();
    assert!(error.to_string().contains("no order"), "{error}");
}

/// A deterministic stream of numbers for the large inputs.
fn numbers(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[test]
fn large_inputs_sort_by_radix_and_match_a_plain_stable_sort() {
    let mut next = numbers(29);
    let len = 6000;
    let text: Vec<Option<String>> = (0..len)
        .map(|_| (!next().is_multiple_of(10)).then(|| format!("shared prefix {}", next() % 300)))
        .collect();
    let ints: Vec<Option<i64>> = (0..len)
        .map(|_| (!next().is_multiple_of(7)).then(|| (next() % 500) as i64 - 250))
        .collect();
    let text_array = StringArray::from_iter(text.iter().map(|t| t.as_deref()));
    let int_array = Int64Array::from(ints.clone());
    for options in [ASC, DESC, ASC_NULLS_FIRST, DESC_NULLS_LAST] {
        // `Option`'s order puts `None` first; flip it for nulls last, reverse for descending.
        fn key<T: Ord>(value: &Option<T>, options: SortOptions) -> impl Ord + '_ {
            let null_rank = value.is_none() != options.nulls_first;
            (
                null_rank,
                if options.descending {
                    None
                } else {
                    value.as_ref()
                },
                if options.descending {
                    std::cmp::Reverse(value.as_ref())
                } else {
                    std::cmp::Reverse(None)
                },
            )
        }
        let mut expected: Vec<u32> = (0..len as u32).collect();
        expected.sort_by_key(|&r| key(&ints[r as usize], options));
        assert_eq!(order(&int_array, options), expected, "{options:?}");
        let mut expected: Vec<u32> = (0..len as u32).collect();
        expected.sort_by_key(|&r| key(&text[r as usize], options));
        assert_eq!(order(&text_array, options), expected, "{options:?}");
        let mut expected: Vec<u32> = (0..len as u32).collect();
        expected.sort_by_key(|&r| (key(&text[r as usize], options), key(&ints[r as usize], ASC)));
        let columns = [
            SortColumn {
                values: &text_array,
                options,
            },
            SortColumn {
                values: &int_array,
                options: ASC,
            },
        ];
        assert_eq!(
            lexsort_to_indices(&columns, None)
                .unwrap()
                .values()
                .to_vec(),
            expected,
            "{options:?}"
        );
    }
}

//! Aggregate edge cases, named: empty, all-null, masks, slices, overflow at the extremes,
//! NaN and -0.0, decimals, encodings, groups.

use std::sync::Arc;

use alkaid_array::types::{
    Decimal128Type, Float64Type, Int8Type, Int32Type, Int64Type, UInt64Type,
};
use alkaid_array::{
    Array, ArrayRef, AsArray, BinaryViewArray, BooleanArray, Decimal128Array, DictionaryArray,
    DurationSecondArray, Float32Array, Float64Array, Int8Array, Int32Array, Int64Array,
    LargeStringArray, NullArray, RunArray, Scalar, StringArray, UInt64Array,
};
use alkaid_schema::{DataType, TimeUnit};

use super::*;

fn int(scalar: Scalar) -> Option<i64> {
    scalar.value::<Int64Type>()
}

#[test]
fn empty_and_all_null_inputs() {
    let empty = Int32Array::from(Vec::<i32>::new());
    let nulls = Int32Array::from(vec![None, None]);
    for values in [&empty as &dyn Array, &nulls] {
        assert_eq!(int(count(values).unwrap()), Some(0));
        assert_eq!(int(count_distinct(values).unwrap()), Some(0));
        for aggregate in [
            Aggregate::Sum,
            Aggregate::Min,
            Aggregate::Max,
            Aggregate::Mean,
        ] {
            let result = aggregate.evaluate(values).unwrap();
            assert!(result.is_null(), "{aggregate:?}");
            assert_eq!(
                result.data_type(),
                &aggregate.result_type(&DataType::Int32).unwrap()
            );
        }
    }
    assert!(
        any(&BooleanArray::from(Vec::<bool>::new()))
            .unwrap()
            .is_null()
    );
    assert!(
        all(&BooleanArray::from(vec![None, None]))
            .unwrap()
            .is_null()
    );
    assert_eq!(int(count(&NullArray::new(3)).unwrap()), Some(0));
    assert!(max(&NullArray::new(3)).unwrap().is_null());
}

#[test]
fn sums_are_exact_and_only_the_total_is_checked() {
    // Intermediate totals pass i64::MAX, the final one does not.
    let values = Int64Array::from(vec![i64::MAX, 1, -2]);
    assert_eq!(int(sum(&values).unwrap()), Some(i64::MAX - 1));
    let error = sum(&Int64Array::from(vec![i64::MAX, 1])).unwrap_err();
    assert!(error.to_string().contains("does not fit Int64"), "{error}");
    assert!(sum(&Int64Array::from(vec![i64::MIN, -1])).is_err());
    // Unsigned sums are UInt64.
    let big = UInt64Array::from(vec![u64::MAX - 1, 1]);
    assert_eq!(sum(&big).unwrap().value::<UInt64Type>(), Some(u64::MAX));
    assert!(sum(&UInt64Array::from(vec![u64::MAX, 1])).is_err());
    // Narrow types widen.
    let bytes = Int8Array::from(vec![127, 127, 127]);
    assert_eq!(int(sum(&bytes).unwrap()), Some(381));
    let durations = DurationSecondArray::from(vec![1, 2]);
    let total = sum(&durations).unwrap();
    assert_eq!(total.data_type(), &DataType::Duration(TimeUnit::Second));
    // Many rows, past one lane block.
    let ones = Int32Array::from(vec![-3; 10_000]);
    assert_eq!(int(sum(&ones).unwrap()), Some(-30_000));
    assert_eq!(mean(&ones).unwrap().value::<Float64Type>(), Some(-3.0));
}

#[test]
fn masks_and_slices_select_rows() {
    let values = Int64Array::from((0..1000).collect::<Vec<i64>>());
    let sliced = values.slice(100, 200);
    let expected: i64 = (100..300).sum();
    assert_eq!(int(sum(sliced.as_ref()).unwrap()), Some(expected));
    let mask = BooleanArray::from((0..200).map(|i| i % 2 == 0).collect::<Vec<_>>());
    let evens: i64 = (100..300).step_by(2).sum();
    assert_eq!(
        int(Aggregate::Sum
            .evaluate_where(sliced.as_ref(), &mask)
            .unwrap()),
        Some(evens)
    );
    assert_eq!(
        int(Aggregate::Count
            .evaluate_where(sliced.as_ref(), &mask)
            .unwrap()),
        Some(100)
    );
    assert_eq!(
        int(Aggregate::Max
            .evaluate_where(sliced.as_ref(), &mask)
            .unwrap()),
        Some(298)
    );
    // A null in the mask counts as false.
    let with_null = BooleanArray::from(vec![Some(true), None, Some(true)]);
    let three = Int32Array::from(vec![1, 10, 100]);
    assert_eq!(
        int(Aggregate::Sum.evaluate_where(&three, &with_null).unwrap()),
        Some(101)
    );
    let short = BooleanArray::from(vec![true]);
    assert!(matches!(
        Aggregate::Sum.evaluate_where(&three, &short),
        Err(ComputeError::LengthMismatch { .. })
    ));
}

#[test]
fn float_extremes_follow_the_total_order() {
    let values = Float64Array::from(vec![
        Some(1.0),
        Some(f64::NAN),
        None,
        Some(-0.0),
        Some(f64::NEG_INFINITY),
    ]);
    assert!(
        max(&values)
            .unwrap()
            .value::<Float64Type>()
            .unwrap()
            .is_nan()
    );
    assert_eq!(
        min(&values).unwrap().value::<Float64Type>(),
        Some(f64::NEG_INFINITY)
    );
    let zeros = Float64Array::from(vec![0.0, -0.0]);
    assert_eq!(int(count_distinct(&zeros).unwrap()), Some(1));
    let narrow = Float32Array::from(vec![1.5, 2.5]);
    assert_eq!(sum(&narrow).unwrap().value::<Float64Type>(), Some(4.0));
    assert!(
        sum(&values)
            .unwrap()
            .value::<Float64Type>()
            .unwrap()
            .is_nan()
    );
}

#[test]
fn text_extremes_in_every_flavour() {
    let words = ["pear", "apple", "a value longer than twelve", "zebra"];
    let small = StringArray::from(words.to_vec());
    let large = LargeStringArray::from(words.to_vec());
    let views = alkaid_array::StringViewArray::from_iter_values(words);
    for values in [&small as &dyn Array, &large, &views] {
        assert_eq!(
            min(values).unwrap().to_string(),
            "a value longer than twelve"
        );
        assert_eq!(max(values).unwrap().to_string(), "zebra");
        assert_eq!(min(values).unwrap().data_type(), values.data_type());
    }
    let binary = BinaryViewArray::from_iter_values([&[0xffu8][..], &[0x00, 0x01]]);
    assert_eq!(max(&binary).unwrap().array().len(), 1);
    assert!(sum(&small).is_err());
}

#[test]
fn booleans() {
    let values = BooleanArray::from(vec![Some(true), None, Some(false)]);
    assert_eq!(any(&values).unwrap().as_bool(), Some(true));
    assert_eq!(all(&values).unwrap().as_bool(), Some(false));
    assert_eq!(min(&values).unwrap().as_bool(), Some(false));
    assert_eq!(max(&values).unwrap().as_bool(), Some(true));
    let mask = BooleanArray::from(vec![true, true, false]);
    assert_eq!(
        Aggregate::All
            .evaluate_where(&values, &mask)
            .unwrap()
            .as_bool(),
        Some(true)
    );
    assert!(any(&Int32Array::from(vec![1])).is_err());
}

fn decimal(values: Vec<Option<i128>>, precision: u8, scale: i8) -> Decimal128Array {
    Decimal128Array::from(values)
        .with_data_type(DataType::decimal(128, precision, scale).unwrap())
        .unwrap()
}

#[test]
fn decimal_sums_widen_their_precision() {
    let values = decimal(vec![Some(1050), None, Some(-25)], 10, 2);
    let total = sum(&values).unwrap();
    assert_eq!(total.data_type(), &DataType::decimal(128, 20, 2).unwrap());
    assert_eq!(total.value::<Decimal128Type>(), Some(1025));
    assert_eq!(mean(&values).unwrap().value::<Float64Type>(), Some(5.125));
    // 38 digits: the sum of two maxima does not fit.
    let max_value = 10i128.pow(38) - 1;
    assert!(sum(&decimal(vec![Some(max_value), Some(1)], 38, 0)).is_err());
    assert_eq!(max(&values).unwrap().value::<Decimal128Type>(), Some(1050));
}

#[test]
fn encoded_inputs_count_each_value_as_often_as_rows_use_it() {
    let entries: ArrayRef = Arc::new(Int32Array::from(vec![Some(10), Some(1000), None, Some(7)]));
    // Rows: 10, 10, null key, null entry, 7; the entry 1000 is unused.
    let keys = Int8Array::from(vec![Some(0), Some(0), None, Some(2), Some(3)]);
    let dictionary = DictionaryArray::<Int8Type>::try_new(keys, entries).unwrap();
    assert_eq!(int(sum(&dictionary).unwrap()), Some(27));
    assert_eq!(int(count(&dictionary).unwrap()), Some(3));
    assert_eq!(int(count_distinct(&dictionary).unwrap()), Some(2));
    assert_eq!(max(&dictionary).unwrap().value::<Int32Type>(), Some(10));
    assert_eq!(mean(&dictionary).unwrap().value::<Float64Type>(), Some(9.0));
    let mask = BooleanArray::from(vec![false, true, true, true, false]);
    assert_eq!(
        int(Aggregate::Sum.evaluate_where(&dictionary, &mask).unwrap()),
        Some(10)
    );
    let runs = RunArray::<Int32Type>::try_new(
        Int32Array::from(vec![3, 5, 9]),
        Arc::new(Int64Array::from(vec![Some(2), None, Some(5)])),
    )
    .unwrap();
    assert_eq!(int(sum(&runs).unwrap()), Some(2 * 3 + 5 * 4));
    let window = runs.slice(2, 4); // 2, null, null, 5
    assert_eq!(int(sum(window.as_ref()).unwrap()), Some(7));
    assert_eq!(int(count(window.as_ref()).unwrap()), Some(2));
    assert_eq!(int(min(window.as_ref()).unwrap()), Some(2));
}

#[test]
fn grouped_aggregates_give_one_row_per_group() {
    let values = Int32Array::from(vec![Some(1), None, Some(3), Some(4), Some(5)]);
    let groups = [0, 0, 2, 2, 0];
    let result = |aggregate: Aggregate| {
        aggregate
            .evaluate_grouped(&values, &groups, 4, None)
            .unwrap()
    };
    let sums = result(Aggregate::Sum);
    assert_eq!(
        sums.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
        [Some(6), None, Some(7), None]
    );
    let counts = result(Aggregate::Count);
    assert_eq!(
        counts.as_primitive::<Int64Type>().values().as_slice(),
        &[2, 0, 2, 0]
    );
    let maxima = result(Aggregate::Max);
    assert_eq!(
        maxima
            .as_primitive::<Int32Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(5), None, Some(4), None]
    );
    let means = result(Aggregate::Mean);
    assert_eq!(
        means
            .as_primitive::<Float64Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(3.0), None, Some(3.5), None]
    );
    let distinct = Aggregate::CountDistinct
        .evaluate_grouped(&Int32Array::from(vec![1, 1, 2, 1]), &[0, 0, 0, 1], 2, None)
        .unwrap();
    assert_eq!(
        distinct.as_primitive::<Int64Type>().values().as_slice(),
        &[2, 1]
    );
    let words = StringArray::from(vec!["b", "a", "c"]);
    let least = Aggregate::Min
        .evaluate_grouped(&words, &[1, 1, 0], 2, None)
        .unwrap();
    assert_eq!(
        least.as_string::<i32>().iter().collect::<Vec<_>>(),
        [Some("c"), Some("a")]
    );
    let flags = BooleanArray::from(vec![true, false, true]);
    let every = Aggregate::All
        .evaluate_grouped(&flags, &[0, 0, 1], 3, None)
        .unwrap();
    assert_eq!(
        every.as_boolean().iter().collect::<Vec<_>>(),
        [Some(false), Some(true), None]
    );
    let mask = BooleanArray::from(vec![true, false, true, true, false]);
    let masked = Aggregate::Sum
        .evaluate_grouped(&values, &groups, 3, Some(&mask))
        .unwrap();
    assert_eq!(
        masked
            .as_primitive::<Int64Type>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(1), None, Some(7)]
    );
}

#[test]
fn bad_group_ids_are_errors_naming_the_row() {
    let values = Int32Array::from(vec![1, 2, 3]);
    let error = Aggregate::Sum
        .evaluate_grouped(&values, &[0, 5, 1], 2, None)
        .unwrap_err();
    assert!(error.to_string().contains("group id 5 at row 1"), "{error}");
    assert!(
        Aggregate::Sum
            .evaluate_grouped(&values, &[0, 1], 2, None)
            .is_err()
    );
    let error = Aggregate::Sum
        .evaluate_grouped(&Int64Array::from(vec![i64::MAX, 1]), &[1, 1], 2, None)
        .unwrap_err();
    assert!(error.to_string().contains("group 1"), "{error}");
}

#[test]
fn any_and_all_find_the_deciding_row_anywhere() {
    for len in [1usize, 63, 64, 65, 4096, 5000, 70_000] {
        for at in [0, len / 2, len - 1] {
            let late: Vec<bool> = (0..len).map(|i| i == at).collect();
            let flags = BooleanArray::from(late.clone());
            assert_eq!(any(&flags).unwrap().as_bool(), Some(true), "{len} {at}");
            assert_eq!(all(&flags).unwrap().as_bool(), Some(len == 1), "{len} {at}");
            // Sliced off the word boundary, and masked so that the true row does not count.
            if len > 3 {
                let sliced = flags.slice(1, len - 1);
                assert_eq!(
                    any(sliced.as_ref()).unwrap().as_bool(),
                    Some(at != 0),
                    "{len} {at}"
                );
                let mask: Vec<bool> = (0..len).map(|i| i != at).collect();
                let mask = BooleanArray::from(mask);
                assert_eq!(
                    Aggregate::Any
                        .evaluate_where(&flags, &mask)
                        .unwrap()
                        .as_bool(),
                    Some(false)
                );
                // Only the true row counts: every counted row is true.
                let only = BooleanArray::from((0..len).map(|i| i == at).collect::<Vec<_>>());
                assert_eq!(
                    Aggregate::All
                        .evaluate_where(&flags, &only)
                        .unwrap()
                        .as_bool(),
                    Some(true)
                );
            }
        }
    }
    let none = BooleanArray::from(vec![false; 10_000]);
    let nothing_counts = BooleanArray::from(vec![false; 10_000]);
    assert!(
        Aggregate::Any
            .evaluate_where(&none, &nothing_counts)
            .unwrap()
            .is_null()
    );
}

#[test]
fn wide_sums_past_a_lane_overflow_are_exact() {
    // Lanes wrap (eight values of i64::MAX in one lane); the total fits.
    let mut values = vec![i64::MAX; 64];
    values.extend(vec![i64::MIN; 64]);
    values.push(5);
    let array = Int64Array::from(values.clone());
    assert_eq!(int(sum(&array).unwrap()), Some(5 - 64));
    let mask = BooleanArray::from((0..values.len()).map(|i| i % 2 == 0).collect::<Vec<_>>());
    let expected: i128 = values.iter().step_by(2).map(|&v| i128::from(v)).sum();
    assert_eq!(
        Aggregate::Sum
            .evaluate_where(&array, &mask)
            .unwrap()
            .value::<Int64Type>()
            .map(i128::from),
        Some(expected)
    );
    let unsigned = UInt64Array::from(vec![u64::MAX / 2; 3]);
    assert!(sum(&unsigned).is_err());
    let unsigned = UInt64Array::from(vec![u64::MAX / 3; 3]);
    assert_eq!(
        sum(&unsigned).unwrap().value::<UInt64Type>(),
        Some(u64::MAX / 3 * 3)
    );
}

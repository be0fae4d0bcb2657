//! Comparison edge cases, named: empty, all-null, sliced, NaN and -0.0, the extremes of
//! each type, mixed units and scales, every string flavour, encodings and nesting.

use std::sync::Arc;

use alkaid_array::types::{Int8Type, Int32Type};
use alkaid_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Datum, Decimal128Array, Decimal256Array,
    DictionaryArray, FixedSizeBinaryArray, Float64Array, Int32Array, Int64Array, LargeStringArray,
    ListArray, NullArray, RunArray, Scalar, StringArray, StringViewArray, StructArray,
    TimestampMillisecondArray, TimestampSecondArray, UInt64Array,
};
use alkaid_buffer::native::i256;
use alkaid_schema::{DataType, Field, TimeUnit};

use super::*;

fn bools(result: BooleanArray) -> Vec<Option<bool>> {
    result.iter().collect()
}

fn check(
    kernel: fn(&dyn Datum, &dyn Datum) -> Result<BooleanArray, ComputeError>,
    left: &dyn Datum,
    right: &dyn Datum,
    expected: &[Option<bool>],
) {
    assert_eq!(bools(kernel(left, right).unwrap()), expected);
}

#[test]
fn empty_inputs_give_empty_results() {
    let empty = Int32Array::from(Vec::<i32>::new());
    assert_eq!(eq(&empty, &empty).unwrap().len(), 0);
    assert_eq!(lt(&empty, &Scalar::from(1i32)).unwrap().len(), 0);
    assert_eq!(distinct(&empty, &empty).unwrap().len(), 0);
}

#[test]
fn all_null_inputs_give_all_null_results() {
    let nulls = Int32Array::from(vec![None, None, None]);
    let values = Int32Array::from(vec![1, 2, 3]);
    check(gt, &nulls, &values, &[None, None, None]);
    check(
        eq,
        &values,
        &Scalar::new_null(&DataType::Int32).unwrap(),
        &[None, None, None],
    );
    check(not_distinct, &nulls, &nulls, &[Some(true); 3]);
    check(distinct, &nulls, &values, &[Some(true); 3]);
    let null_type = NullArray::new(3);
    check(eq, &values, &null_type, &[None, None, None]);
}

#[test]
fn sliced_inputs_compare_their_own_rows() {
    let left = Int64Array::from((0..200).collect::<Vec<i64>>()).slice(67, 70);
    let right = Int64Array::from((0..200).map(|v| 200 - v).collect::<Vec<i64>>()).slice(3, 70);
    let result = lt(&left, &right).unwrap();
    for i in 0..70 {
        let (l, r) = (67 + i as i64, 200 - (3 + i as i64));
        assert_eq!(result.value(i), l < r, "row {i}");
    }
    let bits = BooleanArray::from(vec![true, false, true, true, false]).slice(1, 4);
    check(
        eq,
        &bits,
        &Scalar::from(true),
        &[Some(false), Some(true), Some(true), Some(false)],
    );
}

#[test]
fn floats_order_nan_last_and_zeros_equal() {
    let left = Float64Array::from(vec![f64::NAN, f64::NAN, -0.0, 1.0, f64::INFINITY]);
    let right = Float64Array::from(vec![f64::NAN, 1.0, 0.0, f64::NAN, f64::NAN]);
    check(
        eq,
        &left,
        &right,
        &[
            Some(true),
            Some(false),
            Some(true),
            Some(false),
            Some(false),
        ],
    );
    check(
        gt,
        &left,
        &right,
        &[
            Some(false),
            Some(true),
            Some(false),
            Some(false),
            Some(false),
        ],
    );
    check(
        lt,
        &left,
        &right,
        &[
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
        ],
    );
    check(
        gt_eq,
        &left,
        &Scalar::from(f64::NAN),
        &[
            Some(true),
            Some(true),
            Some(false),
            Some(false),
            Some(false),
        ],
    );
}

#[test]
fn integer_extremes_compare_exactly() {
    let left = UInt64Array::from(vec![u64::MAX, 0, 1 << 63]);
    check(
        gt,
        &left,
        &Scalar::from(1u64 << 63),
        &[Some(true), Some(false), Some(false)],
    );
    let left = Int64Array::from(vec![i64::MIN, i64::MAX]);
    check(
        lt_eq,
        &left,
        &Scalar::from(i64::MIN),
        &[Some(true), Some(false)],
    );
    // A scalar on the left flips the comparison.
    check(lt, &Scalar::from(0i64), &left, &[Some(false), Some(true)]);
}

#[test]
fn timestamps_compare_as_instants_across_units_and_zones() {
    let paris = DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into()));
    let seconds = TimestampSecondArray::from(vec![1, 2, 3])
        .with_data_type(paris)
        .unwrap();
    let millis = TimestampMillisecondArray::from(vec![1000, 2500, 2999]);
    check(
        eq,
        &seconds,
        &millis,
        &[Some(true), Some(false), Some(false)],
    );
    check(
        gt,
        &seconds,
        &millis,
        &[Some(false), Some(false), Some(true)],
    );
    let utc = DataType::Timestamp(TimeUnit::Second, Some("UTC".into()));
    let same_instant = TimestampSecondArray::from(vec![2, 2, 2])
        .with_data_type(utc)
        .unwrap();
    check(
        eq,
        &seconds,
        &same_instant,
        &[Some(false), Some(true), Some(false)],
    );
}

#[test]
fn decimals_compare_as_numbers_across_scales_and_widths() {
    // 1.50, 2.25 at scale 2 against 1.5 at scale 1 (128 bits) and 2.250 at scale 3 (256).
    let left = Decimal128Array::from(vec![150i128, 225])
        .with_data_type(DataType::decimal(128, 10, 2).unwrap())
        .unwrap();
    let right = Decimal128Array::from(vec![15i128, 23])
        .with_data_type(DataType::decimal(128, 10, 1).unwrap())
        .unwrap();
    check(eq, &left, &right, &[Some(true), Some(false)]);
    check(lt, &left, &right, &[Some(false), Some(true)]);
    let wide = Decimal256Array::from(vec![i256::from_i128(1500), i256::from_i128(2250)])
        .with_data_type(DataType::decimal(256, 40, 3).unwrap())
        .unwrap();
    check(eq, &left, &wide, &[Some(true), Some(true)]);
    // Negative scales: 12 * 10^2 = 1200.
    let hundreds = Decimal128Array::from(vec![12i128])
        .with_data_type(DataType::decimal(128, 5, -2).unwrap())
        .unwrap();
    let units = Decimal128Array::from(vec![1200i128])
        .with_data_type(DataType::decimal(128, 5, 0).unwrap())
        .unwrap();
    check(eq, &hundreds, &units, &[Some(true)]);
}

#[test]
fn every_string_flavour_compares_with_every_other() {
    let words = ["apple", "", "a value longer than twelve bytes", "ü"];
    let small = StringArray::from(words.to_vec());
    let large = LargeStringArray::from(words.to_vec());
    let views = StringViewArray::from_iter_values(words);
    let flavours: [&dyn Datum; 3] = [&small, &large, &views];
    for left in flavours {
        for right in flavours {
            check(eq, left, right, &[Some(true); 4]);
        }
    }
    // Byte order is code point order: "ü" (0xC3 0xBC) sorts after "z".
    check(
        gt,
        &views,
        &Scalar::from("z"),
        &[Some(false), Some(false), Some(false), Some(true)],
    );
    check(lt, &small, &Scalar::from(""), &[Some(false); 4]);
}

#[test]
fn text_does_not_compare_with_bytes_but_bytes_do_with_fixed_size() {
    let text = StringArray::from(vec!["ab"]);
    let bytes = BinaryArray::from_iter([Some(&b"ab"[..])]);
    let error = eq(&text, &bytes).unwrap_err();
    assert!(matches!(error, ComputeError::Unsupported { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("cannot compare Utf8 with Binary"),
        "{error}"
    );
    let fixed = FixedSizeBinaryArray::try_from_iter(2, [Some(&b"ab"[..])]).unwrap();
    check(eq, &bytes, &fixed, &[Some(true)]);
    assert!(eq(&Int32Array::from(vec![1]), &Int64Array::from(vec![1])).is_err());
}

#[test]
fn different_lengths_are_an_error() {
    let error = eq(&Int32Array::from(vec![1, 2]), &Int32Array::from(vec![1])).unwrap_err();
    assert!(matches!(
        error,
        ComputeError::LengthMismatch {
            expected: 2,
            found: 1,
            ..
        }
    ));
}

fn dictionary(keys: Vec<Option<i8>>, values: &[Option<&str>]) -> DictionaryArray<Int8Type> {
    let values: ArrayRef = Arc::new(StringArray::from(values.to_vec()));
    DictionaryArray::try_new(alkaid_array::Int8Array::from(keys), values).unwrap()
}

#[test]
fn dictionaries_compare_through_their_keys() {
    // Values include one no key uses and one null.
    let colours = dictionary(
        vec![Some(0), Some(2), None, Some(0), Some(3)],
        &[Some("red"), Some("unused"), Some("blue"), None],
    );
    check(
        eq,
        &colours,
        &Scalar::from("red"),
        &[Some(true), Some(false), None, Some(true), None],
    );
    check(
        gt,
        &Scalar::from("green"),
        &colours,
        &[Some(false), Some(true), None, Some(false), None],
    );
    let plain = StringArray::from(vec!["red", "blue", "x", "x", "x"]);
    check(
        eq,
        &colours,
        &plain,
        &[Some(true), Some(true), None, Some(false), None],
    );
    check(
        eq,
        &colours.slice(1, 2),
        &Scalar::from("blue"),
        &[Some(true), None],
    );
}

#[test]
fn run_end_encoded_values_compare_per_run() {
    let values: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(5)]));
    let runs = RunArray::<Int32Type>::try_new(Int32Array::from(vec![2, 3, 6]), values).unwrap();
    check(
        lt,
        &runs,
        &Scalar::from(3i32),
        &[
            Some(true),
            Some(true),
            None,
            Some(false),
            Some(false),
            Some(false),
        ],
    );
    check(
        eq,
        &runs.slice(1, 3),
        &Scalar::from(5i32),
        &[Some(false), None, Some(true)],
    );
    check(
        is_null_as_kernel,
        &runs,
        &runs,
        &[
            Some(false),
            Some(false),
            Some(true),
            Some(false),
            Some(false),
            Some(false),
        ],
    );
}

fn is_null_as_kernel(left: &dyn Datum, _: &dyn Datum) -> Result<BooleanArray, ComputeError> {
    is_null(left.get().0)
}

#[test]
fn nested_values_compare_for_equality_only() {
    let items = Arc::new(Field::new("item", DataType::Int32, true));
    let lists = ListArray::try_new(
        Arc::clone(&items),
        alkaid_buffer::OffsetBuffer::from_lengths([2, 0, 2]),
        Arc::new(Int32Array::from(vec![Some(1), None, Some(1), None])),
        None,
    )
    .unwrap();
    let same = lists.slice(0, 3);
    check(eq, &lists, &same, &[Some(true); 3]);
    let shifted = ListArray::try_new(
        items,
        alkaid_buffer::OffsetBuffer::from_lengths([2, 1, 1]),
        Arc::new(Int32Array::from(vec![Some(1), None, Some(1), None])),
        None,
    )
    .unwrap();
    check(
        neq,
        &lists,
        &shifted,
        &[Some(false), Some(true), Some(true)],
    );
    let error = lt(&lists, &same).unwrap_err();
    assert!(error.to_string().contains("only equality"), "{error}");
    let fields = vec![Field::new("a", DataType::Float64, true)];
    let structs = StructArray::try_new(
        fields.into(),
        vec![Arc::new(Float64Array::from(vec![f64::NAN, -0.0])) as ArrayRef],
        None,
    )
    .unwrap();
    let other = StructArray::try_new(
        vec![Field::new("b", DataType::Float64, true)].into(),
        vec![Arc::new(Float64Array::from(vec![f64::NAN, 0.0])) as ArrayRef],
        None,
    )
    .unwrap();
    check(eq, &structs, &other, &[Some(true), Some(true)]);
}

#[test]
fn null_and_nan_tests() {
    let values = Float64Array::from(vec![Some(f64::NAN), None, Some(0.0)]);
    assert_eq!(
        bools(is_nan(&values).unwrap()),
        [Some(true), None, Some(false)]
    );
    assert_eq!(
        bools(is_not_null(&values).unwrap()),
        [Some(true), Some(false), Some(true)]
    );
    assert_eq!(
        bools(is_nan(&Int32Array::from(vec![1])).unwrap()),
        [Some(false)]
    );
    assert!(is_nan(&StringArray::from(vec!["x"])).is_err());
    assert_eq!(
        bools(is_null(&NullArray::new(2)).unwrap()),
        [Some(true), Some(true)]
    );
}

#[test]
fn two_scalars_give_one_row() {
    check(lt, &Scalar::from(1i32), &Scalar::from(2i32), &[Some(true)]);
    check(
        not_distinct,
        &Scalar::from("a"),
        &Scalar::new_null(&DataType::Utf8).unwrap(),
        &[Some(false)],
    );
}

#[test]
fn empty_arrays_without_offsets_compare_hash_and_count() {
    use alkaid_buffer::Buffer;
    use alkaid_data::ArrayData;
    let empty = |data_type: DataType| {
        let data = ArrayData::builder(data_type).buffers(vec![Buffer::empty(), Buffer::empty()]);
        alkaid_array::make_array(data.build().unwrap())
    };
    for data_type in [DataType::Utf8, DataType::LargeBinary] {
        let array = empty(data_type.clone());
        assert_eq!(eq(&array, &array).unwrap().len(), 0);
        assert_eq!(crate::hash_rows(&[array.as_ref()], 0).unwrap().len(), 0);
        assert_eq!(crate::unique(array.as_ref()).unwrap().len(), 0);
        assert!(crate::max(array.as_ref()).unwrap().is_null());
    }
    let lists = alkaid_array::make_array(
        ArrayData::builder(DataType::list(DataType::Int32))
            .buffers(vec![Buffer::empty()])
            .children(vec![ArrayData::new_empty(&DataType::Int32)])
            .build()
            .unwrap(),
    );
    assert_eq!(eq(&lists, &lists).unwrap().len(), 0);
    assert_eq!(crate::hash_rows(&[lists.as_ref()], 0).unwrap().len(), 0);
}

#[test]
fn views_against_a_scalar_compare_sixteen_bytes_at_a_time() {
    let words = [
        "short",
        "a value longer than twelve",
        "a value longer than twelvX",
        "",
        "short",
    ];
    let views = StringViewArray::from_iter_values(words).slice(0, 5);
    check(
        eq,
        &views,
        &Scalar::from("short"),
        &[
            Some(true),
            Some(false),
            Some(false),
            Some(false),
            Some(true),
        ],
    );
    check(
        neq,
        &Scalar::from("a value longer than twelve"),
        &views,
        &[Some(true), Some(false), Some(true), Some(true), Some(true)],
    );
    check(
        eq,
        &views,
        &Scalar::from(""),
        &[
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(false),
        ],
    );
    let large = LargeStringArray::from(vec!["short"]);
    check(
        eq,
        &views.slice(4, 1),
        &Scalar::try_new(Arc::new(large) as ArrayRef).unwrap(),
        &[Some(true)],
    );
}

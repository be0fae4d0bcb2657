//! Arithmetic edge cases, named: the extremes of every integer type, division by zero,
//! wrapping, slices and null scalars, decimal precision, scale and rounding, month ends and
//! leap years, daylight saving, and encodings kept.

use std::sync::Arc;

use alkaid_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal256Type, DurationMillisecondType,
    DurationSecondType, Float16Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    IntervalDayTimeType, IntervalMonthDayNanoType, IntervalYearMonthType, PrimitiveType,
    TimestampMillisecondType, TimestampSecondType, UInt8Type,
};
use alkaid_array::{
    Array, ArrayRef, AsArray, Date32Array, Date64Array, Decimal32Array, Decimal128Array,
    Decimal256Array, DictionaryArray, DurationMillisecondArray, DurationSecondArray, Float16Array,
    Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, IntervalDayTimeArray,
    IntervalMonthDayNanoArray, IntervalYearMonthArray, NullArray, RunArray, Scalar, StringArray,
    TimestampMillisecondArray, TimestampSecondArray, UInt8Array, UInt16Array, UInt32Array,
    UInt64Array,
};
use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano, f16, i256};
use alkaid_schema::{DataType, TimeUnit};

use super::*;
use crate::calendar::days_from_civil;

fn ints<T: PrimitiveType>(array: &ArrayRef) -> Vec<Option<T::Native>> {
    array.as_primitive::<T>().iter().collect()
}

macro_rules! extremes {
    ($($array:ident, $t:ty),*) => {$(
        // MAX + 1 overflows at the row of MAX; the wrapping kernel gives MIN.
        let values = $array::from(vec![0, <$t>::MAX]);
        let error = add(&values, &Scalar::from(1 as $t)).unwrap_err();
        assert!(matches!(error, ComputeError::Overflow { row: Some(1), .. }), "{error}");
        let wrapped = add_wrapping(&values, &Scalar::from(1 as $t)).unwrap();
        assert_eq!(wrapped.as_primitive::<<$array as TypedNative>::Type>().value(1), <$t>::MIN);
        let error = sub(&$array::from(vec![<$t>::MIN]), &Scalar::from(1 as $t)).unwrap_err();
        assert_eq!(error.row(), Some(0));
        let error = mul(&$array::from(vec![<$t>::MAX]), &Scalar::from(2 as $t)).unwrap_err();
        assert!(error.to_string().contains(&format!("{} * 2 does not fit", <$t>::MAX)), "{error}");
        let error = div(&Scalar::from(7 as $t), &$array::from(vec![1, 0])).unwrap_err();
        assert!(matches!(error, ComputeError::DivideByZero { row: 1 }));
        let error = rem(&$array::from(vec![7, 7, 7]), &$array::from(vec![1, 2, 0])).unwrap_err();
        assert!(matches!(error, ComputeError::DivideByZero { row: 2 }));
    )*};
}

/// Names the marker type of a primitive array alias, for the macro above.
trait TypedNative {
    type Type: PrimitiveType;
}
impl<T: PrimitiveType> TypedNative for alkaid_array::PrimitiveArray<T> {
    type Type = T;
}

#[test]
fn every_integer_type_fails_at_its_extremes() {
    extremes!(
        Int8Array,
        i8,
        Int16Array,
        i16,
        Int32Array,
        i32,
        Int64Array,
        i64,
        UInt8Array,
        u8,
        UInt16Array,
        u16,
        UInt32Array,
        u32,
        UInt64Array,
        u64
    );
}

#[test]
fn signed_division_overflow_and_remainder() {
    let min = Int32Array::from(vec![i32::MIN]);
    let minus_one = Scalar::from(-1i32);
    assert!(matches!(
        div(&min, &minus_one),
        Err(ComputeError::Overflow { row: Some(0), .. })
    ));
    let wrapped = div_wrapping(&min, &minus_one).unwrap();
    assert_eq!(ints::<Int32Type>(&wrapped), [Some(i32::MIN)]);
    assert_eq!(
        ints::<Int32Type>(&rem(&min, &minus_one).unwrap()),
        [Some(0)]
    );
    let signs = rem(
        &Int32Array::from(vec![-7, 7]),
        &Int32Array::from(vec![2, -2]),
    )
    .unwrap();
    assert_eq!(ints::<Int32Type>(&signs), [Some(-1), Some(1)]);
    assert!(neg(&UInt8Array::from(vec![1])).is_err());
    assert_eq!(
        ints::<UInt8Type>(&neg(&UInt8Array::from(vec![0])).unwrap()),
        [Some(0)]
    );
    assert!(abs(&Int64Array::from(vec![i64::MIN])).is_err());
    assert_eq!(
        ints::<Int64Type>(&abs_wrapping(&Int64Array::from(vec![i64::MIN])).unwrap()),
        [Some(i64::MIN)]
    );
    assert_eq!(
        ints::<Int8Type>(&neg_wrapping(&Int8Array::from(vec![i8::MIN])).unwrap()),
        [Some(i8::MIN)]
    );
}

#[test]
fn failures_under_nulls_are_ignored_and_nulls_propagate() {
    // The garbage under the null would overflow; it is not looked at.
    let values = Int32Array::from(vec![Some(1), None, Some(3)]);
    let data = values.to_data();
    let garbage = ArrayData::builder(DataType::Int32)
        .len(3)
        .nulls(data.nulls().cloned())
        .buffers(vec![alkaid_buffer::Buffer::from_slice_ref(&[
            1i32,
            i32::MAX,
            3,
        ])])
        .build()
        .unwrap();
    let garbage = Int32Array::try_from(garbage).unwrap();
    let sums = add(&garbage, &Scalar::from(1i32)).unwrap();
    assert_eq!(ints::<Int32Type>(&sums), [Some(2), None, Some(4)]);
    // A zero divisor in a null row is not an error.
    let quotients = div(&values, &Int32Array::from(vec![Some(1), Some(0), None])).unwrap();
    assert_eq!(ints::<Int32Type>(&quotients), [Some(1), None, None]);
    let null = Scalar::new_null(&DataType::Int32).unwrap();
    assert_eq!(
        ints::<Int32Type>(&mul(&values, &null).unwrap()),
        [None, None, None]
    );
    let empty = Int32Array::from(Vec::<i32>::new());
    assert_eq!(add(&empty, &empty).unwrap().len(), 0);
    let with_null_type = add(&values, &NullArray::new(3)).unwrap();
    assert_eq!(
        (with_null_type.data_type(), with_null_type.null_count()),
        (&DataType::Int32, 3)
    );
}

#[test]
fn slices_line_up_on_both_sides() {
    let left = Int64Array::from((0..300).collect::<Vec<i64>>()).slice(100, 150);
    let right = Int64Array::from((0..300).map(|v| v * 10).collect::<Vec<i64>>()).slice(7, 150);
    let sums = add(&left, &right).unwrap();
    let sums = sums.as_primitive::<Int64Type>();
    for i in 0..150 {
        assert_eq!(sums.value(i), (100 + i as i64) + (7 + i as i64) * 10);
    }
}

#[test]
fn floats_follow_ieee() {
    let values = Float64Array::from(vec![1.0, -1.0, 0.0]);
    let quotients = div(&values, &Scalar::from(0.0f64)).unwrap();
    let quotients = quotients.as_primitive::<Float64Type>();
    assert_eq!(quotients.value(0), f64::INFINITY);
    assert_eq!(quotients.value(1), f64::NEG_INFINITY);
    assert!(quotients.value(2).is_nan());
    let halves = Float16Array::from(vec![f16::from_f32(1.5)]);
    let product = mul(&halves, &halves).unwrap();
    assert_eq!(
        product.as_primitive::<Float16Type>().value(0),
        f16::from_f32(2.25)
    );
    assert_eq!(
        abs(&Float64Array::from(vec![-0.5]))
            .unwrap()
            .as_primitive::<Float64Type>()
            .value(0),
        0.5
    );
}

fn decimal128(values: Vec<i128>, precision: u8, scale: i8) -> Decimal128Array {
    Decimal128Array::from(values)
        .with_data_type(DataType::decimal(128, precision, scale).unwrap())
        .unwrap()
}

fn decimal_values(array: &ArrayRef) -> Vec<i128> {
    array.as_primitive::<Decimal128Type>().values().to_vec()
}

#[test]
fn decimal_results_follow_the_sql_rules() {
    // 0.015, -0.577 (12, 3) and 5.4, -35.6 (12, 1).
    let a = decimal128(vec![15, -577], 12, 3);
    let b = decimal128(vec![54, -356], 12, 1);
    let sum = add(&a, &b).unwrap();
    assert_eq!(sum.data_type(), &DataType::decimal(128, 15, 3).unwrap());
    assert_eq!(decimal_values(&sum), [5415, -36177]);
    let product = mul(&a, &b).unwrap();
    assert_eq!(product.data_type(), &DataType::decimal(128, 25, 4).unwrap());
    assert_eq!(decimal_values(&product), [810, 205_412]);
    // 0.015 / 5.4 = 0.00277777… at scale 7: 0.0027778 rounded up (arrow-rs gives 27777).
    let quotient = div(&a, &b).unwrap();
    assert_eq!(
        quotient.data_type(),
        &DataType::decimal(128, 17, 7).unwrap()
    );
    assert_eq!(decimal_values(&quotient), [27_778, 162_079]);
    let remainder = rem(&a, &b).unwrap();
    assert_eq!(
        remainder.data_type(),
        &DataType::decimal(128, 12, 3).unwrap()
    );
    assert_eq!(decimal_values(&remainder), [15, -577]);
}

#[test]
fn decimal_division_rounds_half_away_from_zero() {
    // 1.00 / 8 at scale 6: 0.125 exactly; 2 / 3 = 0.666666|6… rounds up; -2 / 3 down.
    let a = decimal128(vec![100, 200, -200, 5], 5, 2);
    let b = decimal128(vec![8, 3, 3, 2], 5, 0);
    let quotient = div(&a, &b).unwrap();
    assert_eq!(quotient.data_type(), &DataType::decimal(128, 9, 6).unwrap());
    // 0.05 / 2 = 0.025 exactly.
    assert_eq!(
        decimal_values(&quotient),
        [125_000, 666_667, -666_667, 25_000]
    );
    let error = div(&a, &decimal128(vec![1, 1, 0, 1], 5, 0)).unwrap_err();
    assert!(matches!(error, ComputeError::DivideByZero { row: 2 }));
}

#[test]
fn decimal_overflow_past_a_capped_precision_is_an_error() {
    // Precision 38 on both sides: the sum's precision is capped at 38, and 10^38 - 1 + 1
    // has 39 digits.
    let max = 10i128.pow(38) - 1;
    let a = decimal128(vec![1, max], 38, 0);
    let error = add(
        &a,
        &Scalar::try_new(Arc::new(decimal128(vec![1], 38, 0))).unwrap(),
    )
    .unwrap_err();
    assert_eq!(error.row(), Some(1));
    // Decimal32 multiplication past 9 digits.
    let small = Decimal32Array::from(vec![99_999i32])
        .with_data_type(DataType::decimal(32, 5, 0).unwrap())
        .unwrap();
    assert!(mul(&small, &small).is_err());
    // Decimal256 goes through 256 bits.
    let wide = Decimal256Array::from(vec![i256::from_i128(10i128.pow(37))])
        .with_data_type(DataType::decimal(256, 40, 0).unwrap())
        .unwrap();
    let square = mul(&wide, &wide).unwrap();
    assert_eq!(square.data_type(), &DataType::decimal(256, 76, 0).unwrap());
    let expected = i256::from_i128(10i128.pow(37)).checked_mul(i256::from_i128(10i128.pow(37)));
    assert_eq!(
        Some(square.as_primitive::<Decimal256Type>().value(0)),
        expected
    );
    // Different widths must be cast first.
    let error = add(&a.slice(0, 1), &wide).unwrap_err();
    assert!(error.to_string().contains("width"), "{error}");
    assert_eq!(decimal_values(&neg(&a).unwrap()), [-1, -max]);
}

#[test]
fn timestamps_subtract_to_durations_in_the_finer_unit() {
    let seconds = TimestampSecondArray::from(vec![10, 20]);
    let millis = TimestampMillisecondArray::from(vec![500, 25_000]);
    let difference = sub(&seconds, &millis).unwrap();
    assert_eq!(
        difference.data_type(),
        &DataType::Duration(TimeUnit::Millisecond)
    );
    assert_eq!(
        ints::<DurationMillisecondType>(&difference),
        [Some(9_500), Some(-5_000)]
    );
    let later = add(&seconds, &DurationMillisecondArray::from(vec![1, 2])).unwrap();
    assert_eq!(
        later.data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, None)
    );
    assert_eq!(
        ints::<TimestampMillisecondType>(&later),
        [Some(10_001), Some(20_002)]
    );
    let commuted = add(&DurationSecondArray::from(vec![1, 1]), &seconds).unwrap();
    assert_eq!(ints::<TimestampSecondType>(&commuted), [Some(11), Some(21)]);
    // Converting to the finer unit can overflow.
    let far = TimestampSecondArray::from(vec![i64::MAX / 10]);
    assert!(sub(&far, &TimestampMillisecondArray::from(vec![0])).is_err());
    let days = sub(&Date32Array::from(vec![10]), &Date32Array::from(vec![3])).unwrap();
    assert_eq!(ints::<DurationSecondType>(&days), [Some(7 * 86_400)]);
    assert!(add(&Date32Array::from(vec![1]), &Date32Array::from(vec![1])).is_err());
}

fn date(y: i64, m: u32, d: u32) -> i32 {
    days_from_civil(y, m, d) as i32
}

#[test]
fn dates_move_by_calendar_months_clamped_to_month_ends() {
    let dates = Date32Array::from(vec![
        date(2024, 1, 31),
        date(2023, 1, 31),
        date(2024, 2, 29),
        date(2024, 3, 31),
    ]);
    let one_month = Scalar::primitive::<IntervalYearMonthType>(1);
    let moved = add(&dates, &one_month).unwrap();
    assert_eq!(
        ints::<Date32Type>(&moved),
        [
            date(2024, 2, 29),
            date(2023, 2, 28),
            date(2024, 3, 29),
            date(2024, 4, 30)
        ]
        .map(Some)
    );
    let a_year_back = sub(&dates, &Scalar::primitive::<IntervalYearMonthType>(12)).unwrap();
    assert_eq!(ints::<Date32Type>(&a_year_back)[2], Some(date(2023, 2, 28)));
    // Months, then days, then time (a Date32 drops the part shorter than a day).
    let mixed =
        IntervalMonthDayNanoArray::from(vec![
            IntervalMonthDayNano::new(1, 1, 86_399_999_999_999);
            4
        ]);
    let moved = add(&mixed, &dates).unwrap();
    assert_eq!(ints::<Date32Type>(&moved)[0], Some(date(2024, 3, 1)));
    let day_time = IntervalDayTimeArray::from(vec![IntervalDayTime::new(-1, -1); 4]);
    assert_eq!(
        ints::<Date32Type>(&add(&dates, &day_time).unwrap())[0],
        Some(date(2024, 1, 30))
    );
    // Date64 keeps milliseconds.
    let noon = i64::from(date(2024, 1, 31)) * 86_400_000 + 43_200_000;
    let moved = add(
        &Date64Array::from(vec![noon]),
        &Scalar::primitive::<IntervalYearMonthType>(1),
    )
    .unwrap();
    assert_eq!(
        ints::<Date64Type>(&moved),
        [Some(i64::from(date(2024, 2, 29)) * 86_400_000 + 43_200_000)]
    );
    // Out of Date32's range.
    assert!(
        add(
            &Date32Array::from(vec![i32::MAX]),
            &Scalar::primitive::<IntervalYearMonthType>(1)
        )
        .is_err()
    );
}

#[test]
fn zoned_timestamps_move_in_local_time() {
    // 2024-03-30 12:00 in Paris (UTC+1) plus one day is 2024-03-31 12:00 local, which is
    // UTC+2 after the change: 23 hours later. Plus 24 hours as time is 24 hours later.
    let paris = DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into()));
    let noon_utc = (i64::from(date(2024, 3, 30)) * 86_400) + 11 * 3600;
    let times = TimestampSecondArray::from(vec![noon_utc])
        .with_data_type(paris.clone())
        .unwrap();
    let one_day = Scalar::primitive::<IntervalDayTimeType>(IntervalDayTime::new(1, 0));
    let moved = add(&times, &one_day).unwrap();
    assert_eq!(moved.data_type(), &paris);
    assert_eq!(
        ints::<TimestampSecondType>(&moved),
        [Some(noon_utc + 23 * 3600)]
    );
    let day_of_time = Scalar::primitive::<IntervalDayTimeType>(IntervalDayTime::new(0, 86_400_000));
    assert_eq!(
        ints::<TimestampSecondType>(&add(&times, &day_of_time).unwrap()),
        [Some(noon_utc + 24 * 3600)]
    );
    // Months and days of different signs: back a month from March 30, then forward a day.
    let mixed = Scalar::primitive::<IntervalMonthDayNanoType>(IntervalMonthDayNano::new(-1, 1, 0));
    let moved = add(&times, &mixed).unwrap();
    let expected = i64::from(date(2024, 3, 1)) * 86_400 + 11 * 3600;
    assert_eq!(ints::<TimestampSecondType>(&moved), [Some(expected)]);
    // Without a zone, a day is 24 hours.
    let plain = TimestampSecondArray::from(vec![noon_utc]);
    assert_eq!(
        ints::<TimestampSecondType>(&add(&plain, &one_day).unwrap()),
        [Some(noon_utc + 24 * 3600)]
    );
    let unknown = TimestampSecondArray::from(vec![0])
        .with_data_type(DataType::Timestamp(
            TimeUnit::Second,
            Some("Nowhere/Atlantis".into()),
        ))
        .unwrap();
    assert!(matches!(
        add(&unknown, &one_day),
        Err(ComputeError::InvalidArgument(_))
    ));
}

#[test]
fn intervals_add_field_by_field() {
    let a = IntervalMonthDayNanoArray::from(vec![IntervalMonthDayNano::new(1, 2, 3)]);
    let b = IntervalMonthDayNanoArray::from(vec![IntervalMonthDayNano::new(10, 20, 30)]);
    let difference = sub(&a, &b).unwrap();
    assert_eq!(
        difference
            .as_primitive::<IntervalMonthDayNanoType>()
            .value(0),
        IntervalMonthDayNano::new(-9, -18, -27)
    );
    let months = add(
        &IntervalYearMonthArray::from(vec![i32::MAX]),
        &IntervalYearMonthArray::from(vec![1]),
    );
    assert!(months.is_err());
    let negated = neg(&IntervalDayTimeArray::from(vec![IntervalDayTime::new(
        1, -2,
    )]))
    .unwrap();
    assert_eq!(
        negated.as_primitive::<IntervalDayTimeType>().value(0),
        IntervalDayTime::new(-1, 2)
    );
    assert!(mul(&a, &b).is_err());
}

#[test]
fn dictionaries_and_runs_keep_their_encoding_beside_a_scalar() {
    let values: ArrayRef = Arc::new(Int32Array::from(vec![Some(10), Some(i32::MAX), None]));
    let keys = Int8Array::from(vec![Some(0), Some(2), None, Some(0)]);
    let dictionary = DictionaryArray::<Int8Type>::try_new(keys, Arc::clone(&values)).unwrap();
    // The entry i32::MAX would overflow, but no key uses it.
    let sums = add(&dictionary, &Scalar::from(1i32)).unwrap();
    assert_eq!(
        sums.data_type(),
        &DataType::dictionary(alkaid_schema::IntegerType::Int8, DataType::Int32)
    );
    let plain = crate::encoding::decoded(&sums.to_data()).unwrap();
    assert_eq!(
        Int32Array::try_from(plain)
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        [Some(11), None, None, Some(11)]
    );
    // Once a key uses it, the error names the row.
    let keys = Int8Array::from(vec![Some(0), Some(1)]);
    let dictionary = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
    assert_eq!(
        add(&dictionary, &Scalar::from(1i32)).unwrap_err().row(),
        Some(1)
    );
    let runs = RunArray::<Int16Type>::try_new(
        Int16Array::from(vec![3, 5]),
        Arc::new(Float64Array::from(vec![1.5, 2.5])),
    )
    .unwrap();
    let doubled = mul(&runs.slice(1, 3), &Scalar::from(2.0f64)).unwrap();
    assert!(matches!(doubled.data_type(), DataType::RunEndEncoded(_)));
    let plain =
        Float64Array::try_from(crate::encoding::decoded(&doubled.to_data()).unwrap()).unwrap();
    assert_eq!(plain.values().as_slice(), &[3.0, 3.0, 5.0]);
    let negated = neg(&runs).unwrap();
    assert!(matches!(negated.data_type(), DataType::RunEndEncoded(_)));
}

#[test]
fn types_that_do_not_combine_are_an_error() {
    let error = add(&Int32Array::from(vec![1]), &Int64Array::from(vec![1])).unwrap_err();
    assert!(
        error.to_string().contains("cannot compute Int32 + Int64"),
        "{error}"
    );
    assert!(add(&StringArray::from(vec!["a"]), &StringArray::from(vec!["b"])).is_err());
    assert!(neg(&StringArray::from(vec!["a"])).is_err());
    let error = add(&Int32Array::from(vec![1, 2]), &Int32Array::from(vec![1])).unwrap_err();
    assert!(matches!(error, ComputeError::LengthMismatch { .. }));
}

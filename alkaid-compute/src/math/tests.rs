use std::sync::Arc;

use alkaid_array::types::{Decimal128Type, Float32Type, Float64Type, Int8Type, Int64Type};
use alkaid_array::{
    AsArray, Decimal128Array, DictionaryArray, Float32Array, Float64Array, Int8Array, Int32Array,
    Int64Array, NullArray, Scalar, StringArray, UInt8Array,
};
use alkaid_schema::DataType;

use super::*;

fn floats(array: &ArrayRef) -> Vec<Option<f64>> {
    array.as_primitive::<Float64Type>().iter().collect()
}

fn decimals(array: &ArrayRef) -> Vec<Option<i128>> {
    array.as_primitive::<Decimal128Type>().iter().collect()
}

fn decimal(values: Vec<Option<i128>>, precision: u8, scale: i8) -> Decimal128Array {
    Decimal128Array::from(values)
        .with_data_type(DataType::decimal(128, precision, scale).unwrap())
        .unwrap()
}

#[test]
fn float_functions_follow_ieee_and_keep_nulls() {
    let values = Float64Array::from(vec![Some(4.0), None, Some(-1.0), Some(0.0)]);
    let roots = floats(&sqrt(&values).unwrap());
    assert_eq!((roots[0], roots[1]), (Some(2.0), None));
    assert!(roots[2].unwrap().is_nan());
    let logs = floats(&ln(&values).unwrap());
    assert_eq!(logs[3], Some(f64::NEG_INFINITY));
    assert!(logs[2].unwrap().is_nan());
    assert_eq!(
        floats(&log10(&Float64Array::from(vec![1000.0])).unwrap()),
        [Some(3.0)]
    );
    assert_eq!(
        floats(&log2(&Float64Array::from(vec![0.125])).unwrap()),
        [Some(-3.0)]
    );
    assert_eq!(
        floats(&exp(&Float64Array::from(vec![0.0])).unwrap()),
        [Some(1.0)]
    );
    let angles = floats(&atan(&Float64Array::from(vec![1.0])).unwrap());
    assert_eq!(angles, [Some(std::f64::consts::FRAC_PI_4)]);
    assert!(
        floats(&asin(&Float64Array::from(vec![2.0])).unwrap())[0]
            .unwrap()
            .is_nan()
    );
}

#[test]
fn integers_and_decimals_compute_as_float64_and_float32_stays() {
    let roots = sqrt(&Int32Array::from(vec![16, 2])).unwrap();
    assert_eq!(roots.data_type(), &DataType::Float64);
    assert_eq!(floats(&roots)[0], Some(4.0));
    let roots = sqrt(&decimal(vec![Some(625)], 5, 2)).unwrap();
    assert_eq!(floats(&roots), [Some(2.5)]);
    let single = cos(&Float32Array::from(vec![0.0f32])).unwrap();
    assert_eq!(single.as_primitive::<Float32Type>().value(0), 1.0);
    let error = sqrt(&StringArray::from(vec!["4"])).unwrap_err().to_string();
    assert!(
        error.contains("sqrt: expected a number, found Utf8"),
        "{error}"
    );
    assert_eq!(sin(&NullArray::new(2)).unwrap().null_count(), 2);
}

#[test]
fn a_dictionary_keeps_its_encoding() {
    let values: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 9.0]));
    let keys = Int8Array::from(vec![Some(1), None, Some(0), Some(1)]);
    let dictionary = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
    let roots = sqrt(dictionary.slice(1, 3).as_ref()).unwrap();
    let roots = roots
        .as_any()
        .downcast_ref::<DictionaryArray<Int8Type>>()
        .unwrap();
    assert_eq!(roots.values().len(), 2);
    assert_eq!(floats(roots.values()), [Some(1.0), Some(3.0)]);
    assert_eq!(
        roots.keys().iter().collect::<Vec<_>>(),
        [None, Some(0), Some(1)]
    );
}

#[test]
fn power_and_atan2() {
    let bases = Float64Array::from(vec![2.0, 9.0, -8.0]);
    let powers = floats(&power(&bases, &Scalar::from(0.5f64)).unwrap());
    assert_eq!(powers[1], Some(3.0));
    assert!(powers[2].unwrap().is_nan());
    // Integers of one type stay integers, checked.
    let ints = power(
        &Int64Array::from(vec![2, -3]),
        &Int64Array::from(vec![62, 3]),
    )
    .unwrap();
    assert_eq!(
        &ints.as_primitive::<Int64Type>().values()[..],
        &[1 << 62, -27]
    );
    let error = power(
        &Int64Array::from(vec![Some(1), Some(2)]),
        &Scalar::from(-1i64),
    )
    .unwrap_err();
    assert_eq!(error.row(), Some(0));
    let error = power(&UInt8Array::from(vec![2, 16]), &Scalar::from(2u8)).unwrap_err();
    assert_eq!(error.row(), Some(1));
    // A failing row under a null is not an error.
    let nulls = Int64Array::from(vec![None, Some(2)]);
    let fine = power(&nulls, &Int64Array::from(vec![-1, 2])).unwrap();
    assert_eq!(
        fine.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
        [None, Some(4)]
    );
    // Numbers of different types meet as Float64.
    let mixed = power(&Int32Array::from(vec![4]), &Scalar::from(0.5f64)).unwrap();
    assert_eq!(floats(&mixed), [Some(2.0)]);
    let angles = floats(&atan2(&Scalar::from(0.0f64), &Float64Array::from(vec![-1.0])).unwrap());
    assert_eq!(angles, [Some(std::f64::consts::PI)]);
}

#[test]
fn float_rounding_modes_and_digits() {
    let values = Float64Array::from(vec![2.5, -2.5, 3.5, -0.4, 1234.5678, f64::NAN]);
    let even = floats(&round(&values, 0, RoundMode::HalfEven).unwrap());
    assert_eq!(
        &even[..5],
        &[Some(2.0), Some(-2.0), Some(4.0), Some(-0.0), Some(1235.0)]
    );
    assert!(even[4..].iter().take(1).all(|v| v.is_some()));
    assert!(even[5].unwrap().is_nan());
    assert!(
        even[3].unwrap().is_sign_negative(),
        "round(-0.4) keeps its sign"
    );
    let up = floats(&round(&values, 0, RoundMode::HalfUp).unwrap());
    assert_eq!(&up[..3], &[Some(3.0), Some(-2.0), Some(4.0)]);
    let down = floats(&round(&values, 0, RoundMode::HalfDown).unwrap());
    assert_eq!(&down[..3], &[Some(2.0), Some(-3.0), Some(3.0)]);
    let away = floats(&round(&values, 0, RoundMode::HalfAwayFromZero).unwrap());
    assert_eq!(&away[..3], &[Some(3.0), Some(-3.0), Some(4.0)]);
    let two = floats(&round(&values, 2, RoundMode::HalfEven).unwrap());
    assert_eq!(two[4], Some(1234.57));
    let hundreds = floats(&round(&values, -2, RoundMode::HalfEven).unwrap());
    assert_eq!(hundreds[4], Some(1200.0));
    // More digits than a float holds: the value itself.
    let huge = Float64Array::from(vec![1e300, 0.1]);
    assert_eq!(
        floats(&round(&huge, 20, RoundMode::HalfEven).unwrap()),
        [Some(1e300), Some(0.1)]
    );
    assert_eq!(
        floats(&round(&huge, -400, RoundMode::HalfEven).unwrap()),
        [Some(0.0), Some(0.0)]
    );
    let c = floats(&ceil(&Float64Array::from(vec![-1.5, 1.2])).unwrap());
    let f = floats(&floor(&Float64Array::from(vec![-1.5, 1.2])).unwrap());
    let t = floats(&trunc(&Float64Array::from(vec![-1.5, 1.2])).unwrap());
    assert_eq!(
        (c, f, t),
        (
            vec![Some(-1.0), Some(2.0)],
            vec![Some(-2.0), Some(1.0)],
            vec![Some(-1.0), Some(1.0)]
        )
    );
}

#[test]
fn integers_round_exactly_and_overflow_is_an_error() {
    let values = Int64Array::from(vec![1250, -1250, 1350, 1249, i64::MAX]);
    let even = round(values.slice(0, 4).as_ref(), -2, RoundMode::HalfEven).unwrap();
    assert_eq!(
        &even.as_primitive::<Int64Type>().values()[..],
        &[1200, -1200, 1400, 1200]
    );
    let away = round(values.slice(0, 4).as_ref(), -2, RoundMode::HalfAwayFromZero).unwrap();
    assert_eq!(
        &away.as_primitive::<Int64Type>().values()[..],
        &[1300, -1300, 1400, 1200]
    );
    let same = round(&values, 3, RoundMode::HalfEven).unwrap();
    assert_eq!(same.as_primitive::<Int64Type>().value(4), i64::MAX);
    let error = round(&values, -1, RoundMode::HalfEven).unwrap_err();
    assert_eq!(error.row(), Some(4));
    let tiny = round(&Int8Array::from(vec![-128, 100]), -3, RoundMode::HalfEven).unwrap();
    assert_eq!(&tiny.as_primitive::<Int8Type>().values()[..], &[0, 0]);
    let error = round(&Int8Array::from(vec![125]), -1, RoundMode::HalfAwayFromZero).unwrap_err();
    assert!(
        error.to_string().contains("round of 125 does not fit Int8"),
        "{error}"
    );
    assert_eq!(
        ceil(&Int8Array::from(vec![7]))
            .unwrap()
            .as_primitive::<Int8Type>()
            .value(0),
        7
    );
}

#[test]
fn decimals_round_exactly_within_their_precision() {
    // 1.25, -1.25, 1.35, 9.99 at scale 2.
    let values = decimal(
        vec![Some(125), Some(-125), Some(135), Some(999), None],
        3,
        2,
    );
    assert_eq!(
        decimals(&round(values.slice(0, 3).as_ref(), 1, RoundMode::HalfEven).unwrap()),
        [Some(120), Some(-120), Some(140)]
    );
    assert_eq!(
        decimals(&round(values.slice(0, 3).as_ref(), 1, RoundMode::HalfUp).unwrap()),
        [Some(130), Some(-120), Some(140)]
    );
    assert_eq!(
        decimals(&ceil(values.slice(0, 3).as_ref()).unwrap()),
        [Some(200), Some(-100), Some(200)]
    );
    assert_eq!(
        decimals(&floor(values.slice(0, 3).as_ref()).unwrap()),
        [Some(100), Some(-200), Some(100)]
    );
    assert_eq!(
        decimals(&trunc(values.slice(0, 3).as_ref()).unwrap()),
        [Some(100), Some(-100), Some(100)]
    );
    // 9.99 rounds to 10.00, which needs four digits: an error naming the row.
    let error = round(&values, 1, RoundMode::HalfEven).unwrap_err();
    assert_eq!(error.row(), Some(3));
    // Unless the precision has room.
    let roomy = decimal(vec![Some(999), None], 4, 2);
    assert_eq!(
        decimals(&round(&roomy, 0, RoundMode::HalfEven).unwrap()),
        [Some(1000), None]
    );
    let signs = sign(&decimal(vec![Some(-5), Some(0), Some(7), None], 3, 1)).unwrap();
    assert_eq!(signs.data_type(), &DataType::Int64);
    assert_eq!(
        signs.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
        [Some(-1), Some(0), Some(1), None]
    );
}

#[test]
fn signs_of_numbers() {
    let signs = sign(&Float64Array::from(vec![-2.0, -0.0, 5.0, f64::NAN])).unwrap();
    let signs = floats(&signs);
    assert_eq!(&signs[..3], &[Some(-1.0), Some(0.0), Some(1.0)]);
    assert!(signs[3].unwrap().is_nan());
    let unsigned = sign(&UInt8Array::from(vec![0, 200])).unwrap();
    assert_eq!(
        &unsigned
            .as_primitive::<alkaid_array::types::UInt8Type>()
            .values()[..],
        &[0, 1]
    );
}

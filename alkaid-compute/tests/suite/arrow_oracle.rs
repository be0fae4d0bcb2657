//! Differential tests: the same random inputs through Alkaid's kernels and arrow-rs's
//! (arrow-ord's comparisons, arrow-arith's boolean logic, arithmetic and aggregates),
//! handed over without a copy by alkaid-arrow. Wherever both take an input, the outputs
//! must be equal, except where the two differ on purpose, which each test names:
//!
//! - floats: Alkaid orders `-0.0` equal to `0.0` and all NaNs equal (as PostgreSQL does);
//!   arrow-rs uses IEEE 754's `totalOrder`, where `-0.0 < 0.0` and NaNs order by sign and
//!   payload;
//! - decimal division: Alkaid rounds half away from zero, arrow-rs truncates;
//! - integer sums: Alkaid's are exact until the total (widened to 64 bits) is checked,
//!   arrow-rs's `sum_checked` fails as soon as a partial sum in the input's own type does.

use crate::common;
use crate::reference;

use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, BooleanArray, Datum, Scalar, make_array};
use alkaid_arrow::arrow60::{array_from_arrow, array_to_arrow};
use alkaid_compute::ComputeError;
use alkaid_schema::{DataType, TimeUnit};
use arrow_array::Array as _;
use arrow_array::cast::AsArray as _;
use common::encode::encode;
use common::{Rng, Value};
use proptest::prelude::*;
use reference::{R, comparable_types, pooled, read};

fn array(data_type: &DataType, values: &[Value], rng: &mut Rng) -> ArrayRef {
    make_array(encode(data_type, values, rng))
}

fn arrow(array: &dyn Array) -> arrow_array::ArrayRef {
    array_to_arrow(array)
}

fn back(array: &dyn arrow_array::Array) -> ArrayRef {
    array_from_arrow(array).expect("arrow-rs's results bridge back")
}

fn bools(array: &BooleanArray) -> Vec<Option<bool>> {
    array.iter().collect()
}

type Ours = fn(&dyn Datum, &dyn Datum) -> Result<BooleanArray, ComputeError>;
type Theirs = fn(
    &dyn arrow_array::Datum,
    &dyn arrow_array::Datum,
) -> Result<arrow_array::BooleanArray, arrow_schema::ArrowError>;
/// An arithmetic kernel of each library.
type OurArithmetic = fn(&dyn Datum, &dyn Datum) -> Result<ArrayRef, ComputeError>;
type TheirArithmetic = fn(
    &dyn arrow_array::Datum,
    &dyn arrow_array::Datum,
) -> Result<arrow_array::ArrayRef, arrow_schema::ArrowError>;

/// Whether a row's difference is the documented float one: zeros of both signs, or NaNs.
fn float_difference(a: &R, b: &R) -> bool {
    match (a, b) {
        (R::Float(a), R::Float(b)) => (*a == 0.0 && *b == 0.0) || a.is_nan() || b.is_nan(),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn comparisons_agree_with_arrow_ord(seed in any::<u64>(), len in 0usize..60, pick in any::<usize>(), dictionary in any::<bool>()) {
        let mut rng = Rng::new(seed);
        let types = comparable_types();
        let (data_type, _) = &types[pick % types.len()];
        let left_values = pooled(data_type, len, &mut rng);
        let right_values = pooled(data_type, len, &mut rng);
        let plain = array(data_type, &left_values, &mut rng);
        // The left side again, dictionary-encoded half the time: arrow-rs compares a
        // dictionary with a scalar (and two plain arrays), so that is what is checked.
        let encoded = match dictionary {
            true => array(&DataType::dictionary(alkaid_schema::IntegerType::Int16, data_type.clone()), &left_values, &mut rng),
            false => plain.clone(),
        };
        let right = array(data_type, &right_values, &mut rng);
        let (arrow_plain, arrow_encoded, arrow_right) = (arrow(plain.as_ref()), arrow(encoded.as_ref()), arrow(right.as_ref()));
        let kernels: [(Ours, Theirs); 8] = [
            (alkaid_compute::eq, arrow_ord::cmp::eq),
            (alkaid_compute::neq, arrow_ord::cmp::neq),
            (alkaid_compute::lt, arrow_ord::cmp::lt),
            (alkaid_compute::lt_eq, arrow_ord::cmp::lt_eq),
            (alkaid_compute::gt, arrow_ord::cmp::gt),
            (alkaid_compute::gt_eq, arrow_ord::cmp::gt_eq),
            (alkaid_compute::distinct, arrow_ord::cmp::distinct),
            (alkaid_compute::not_distinct, arrow_ord::cmp::not_distinct),
        ];
        let at = rng.below(len.max(1));
        for (ours, theirs) in kernels {
            // Array against array, and (if there are rows) against one of the right's values.
            let mut pairs = vec![(ours(&plain, &right), theirs(&arrow_plain, &arrow_right), None)];
            if len > 0 {
                let scalar = Scalar::from_array(right.as_ref(), at);
                let theirs_scalar = arrow_array::Scalar::new(arrow_right.slice(at, 1));
                pairs.push((ours(&encoded, &scalar), theirs(&arrow_encoded, &theirs_scalar), Some(at)));
            }
            for (ours_result, theirs_result, scalar_row) in pairs {
                // Types arrow-rs does not compare are not part of the comparison.
                let Ok(theirs_result) = theirs_result else { continue };
                let ours_result = bools(&ours_result.unwrap());
                let theirs_result = back(&theirs_result);
                let theirs_result = bools(theirs_result.as_any().downcast_ref().unwrap());
                for row in 0..len {
                    if ours_result[row] != theirs_result[row] {
                        let a = read(data_type, &left_values[row]);
                        let b = read(data_type, &right_values[scalar_row.unwrap_or(row)]);
                        prop_assert!(float_difference(&a, &b), "{} row {}: {:?} against {:?}, {:?} vs {:?}",
                            data_type, row, ours_result[row], theirs_result[row], a, b);
                    }
                }
            }
        }
    }

    #[test]
    fn boolean_logic_agrees_with_arrow_arith(seed in any::<u64>(), len in 0usize..200) {
        let mut rng = Rng::new(seed);
        let draw = |rng: &mut Rng| -> Vec<Value> {
            (0..len).map(|_| if rng.chance(0.3) { Value::Null } else { Value::Bool(rng.chance(0.5)) }).collect()
        };
        let (l, r) = (draw(&mut rng), draw(&mut rng));
        let (left, right) = (array(&DataType::Boolean, &l, &mut rng), array(&DataType::Boolean, &r, &mut rng));
        let (al, ar) = (arrow(left.as_ref()), arrow(right.as_ref()));
        let (al, ar) = (al.as_boolean(), ar.as_boolean());
        type Theirs = fn(&arrow_array::BooleanArray, &arrow_array::BooleanArray) -> Result<arrow_array::BooleanArray, arrow_schema::ArrowError>;
        let kernels: [(Ours, Theirs); 5] = [
            (alkaid_compute::and, arrow_arith::boolean::and),
            (alkaid_compute::or, arrow_arith::boolean::or),
            (alkaid_compute::and_not, arrow_arith::boolean::and_not),
            (alkaid_compute::and_kleene, arrow_arith::boolean::and_kleene),
            (alkaid_compute::or_kleene, arrow_arith::boolean::or_kleene),
        ];
        for (ours, theirs) in kernels {
            let expected = back(&theirs(al, ar).unwrap());
            prop_assert_eq!(bools(&ours(&left, &right).unwrap()), bools(expected.as_any().downcast_ref().unwrap()));
        }
        let expected = back(&arrow_arith::boolean::not(al).unwrap());
        prop_assert_eq!(bools(&alkaid_compute::not(left.as_ref()).unwrap()), bools(expected.as_any().downcast_ref().unwrap()));
    }

    #[test]
    fn arithmetic_agrees_with_arrow_arith(seed in any::<u64>(), len in 0usize..60, pick in any::<usize>(), op in 0usize..5) {
        let mut rng = Rng::new(seed);
        let types = [
            DataType::Int8, DataType::Int16, DataType::Int32, DataType::Int64,
            DataType::UInt8, DataType::UInt32, DataType::UInt64,
            DataType::Float32, DataType::Float64,
        ];
        let data_type = &types[pick % types.len()];
        let (l, r) = (pooled(data_type, len, &mut rng), pooled(data_type, len, &mut rng));
        let (left, right) = (array(data_type, &l, &mut rng), array(data_type, &r, &mut rng));
        let ours: [OurArithmetic; 5] =
            [alkaid_compute::add, alkaid_compute::sub, alkaid_compute::mul, alkaid_compute::div, alkaid_compute::rem];
        let theirs: [TheirArithmetic; 5] =
            [arrow_arith::numeric::add, arrow_arith::numeric::sub, arrow_arith::numeric::mul, arrow_arith::numeric::div, arrow_arith::numeric::rem];
        let (al, ar) = (arrow(left.as_ref()), arrow(right.as_ref()));
        match (ours[op](&left, &right), theirs[op](&al, &ar)) {
            (Ok(ours), Ok(theirs)) => {
                let theirs = back(theirs.as_ref());
                prop_assert!(same_values(ours.as_ref(), theirs.as_ref()), "{:?} against {:?}", ours, theirs);
            }
            (Err(_), Err(_)) => {}
            (ours, theirs) => prop_assert!(false, "{:?} against {:?}", ours.map(|a| a.len()), theirs.map(|a| a.len())),
        }
        // The wrapping kernels wrap alike.
        if data_type.is_integer() && op < 3 {
            let ours: [OurArithmetic; 3] =
                [alkaid_compute::add_wrapping, alkaid_compute::sub_wrapping, alkaid_compute::mul_wrapping];
            let theirs: [TheirArithmetic; 3] =
                [arrow_arith::numeric::add_wrapping, arrow_arith::numeric::sub_wrapping, arrow_arith::numeric::mul_wrapping];
            let theirs = back(theirs[op](&al, &ar).unwrap().as_ref());
            prop_assert!(same_values(ours[op](&left, &right).unwrap().as_ref(), theirs.as_ref()));
        }
    }

    #[test]
    fn aggregates_agree_with_arrow_arith(seed in any::<u64>(), len in 0usize..100, pick in 0usize..4) {
        let mut rng = Rng::new(seed);
        let data_type = [DataType::Int64, DataType::Float64, DataType::Utf8, DataType::Boolean][pick].clone();
        let values = pooled(&data_type, len, &mut rng);
        let input = array(&data_type, &values, &mut rng);
        let theirs = arrow(input.as_ref());
        let scalar_text = |s: Scalar| (!s.is_null()).then(|| s.to_string());
        match pick {
            0 => {
                let theirs = theirs.as_primitive::<arrow_array::types::Int64Type>();
                let max = alkaid_compute::max(input.as_ref()).unwrap().value::<alkaid_array::types::Int64Type>();
                prop_assert_eq!(max, arrow_arith::aggregate::max(theirs));
                let min = alkaid_compute::min(input.as_ref()).unwrap().value::<alkaid_array::types::Int64Type>();
                prop_assert_eq!(min, arrow_arith::aggregate::min(theirs));
                // Exact sums agree wherever arrow-rs's checked sum succeeds.
                if let Ok(total) = arrow_arith::aggregate::sum_checked(theirs) {
                    let ours = alkaid_compute::sum(input.as_ref()).unwrap().value::<alkaid_array::types::Int64Type>();
                    prop_assert_eq!(ours, total);
                }
            }
            1 => {
                let theirs = theirs.as_primitive::<arrow_array::types::Float64Type>();
                let ours = alkaid_compute::max(input.as_ref()).unwrap().value::<alkaid_array::types::Float64Type>();
                let expected = arrow_arith::aggregate::max(theirs);
                // The documented difference: any NaN is Alkaid's maximum, while arrow-rs's
                // totalOrder puts a NaN with its sign bit set below every number.
                let any_nan = theirs.iter().flatten().any(f64::is_nan);
                if any_nan {
                    prop_assert!(ours.is_some_and(f64::is_nan), "{:?}", ours);
                } else {
                    prop_assert!(ours.zip(expected).is_none_or(|(a, b)| a == b), "{:?} {:?}", ours, expected);
                    prop_assert_eq!(ours.is_some(), expected.is_some());
                }
            }
            2 => {
                let theirs = theirs.as_string::<i32>();
                prop_assert_eq!(scalar_text(alkaid_compute::min(input.as_ref()).unwrap()), arrow_arith::aggregate::min_string(theirs).map(str::to_string));
                prop_assert_eq!(scalar_text(alkaid_compute::max(input.as_ref()).unwrap()), arrow_arith::aggregate::max_string(theirs).map(str::to_string));
            }
            _ => {
                let theirs = theirs.as_boolean();
                prop_assert_eq!(alkaid_compute::all(input.as_ref()).unwrap().as_bool(), arrow_arith::aggregate::bool_and(theirs));
                prop_assert_eq!(alkaid_compute::any(input.as_ref()).unwrap().as_bool(), arrow_arith::aggregate::bool_or(theirs));
            }
        }
    }
}

/// Equal values, treating every NaN as equal to every other.
fn same_values(ours: &dyn Array, theirs: &dyn Array) -> bool {
    if ours.data_type() != theirs.data_type() || ours.len() != theirs.len() {
        return false;
    }
    let (a, b) = (
        common::decode::decode(&ours.to_data()),
        common::decode::decode(&theirs.to_data()),
    );
    a.iter().zip(&b).all(
        |(x, y)| match (read(ours.data_type(), x), read(theirs.data_type(), y)) {
            (R::Float(x), R::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            (x, y) => x == y,
        },
    )
}

#[test]
fn decimal_arithmetic_agrees_up_to_the_rounding_of_quotients() {
    let mut rng = Rng::new(7);
    let data_type = DataType::decimal(128, 18, 4).unwrap();
    for _ in 0..50 {
        let values: Vec<Value> = (0..40)
            .map(|_| {
                let v = (rng.next_u64() as i64 as i128) % 10i128.pow(17);
                Value::Bytes(v.to_le_bytes().to_vec())
            })
            .collect();
        let divisors: Vec<Value> = (0..40)
            .map(|_| {
                Value::Bytes(
                    ((rng.next_u64() % 100_000) as i128 + 1)
                        .to_le_bytes()
                        .to_vec(),
                )
            })
            .collect();
        let left = array(&data_type, &values, &mut rng);
        let right = array(&data_type, &divisors, &mut rng);
        let (al, ar) = (arrow(left.as_ref()), arrow(right.as_ref()));
        for (ours, theirs) in [
            (
                alkaid_compute::add as OurArithmetic,
                arrow_arith::numeric::add
                    as fn(&dyn arrow_array::Datum, &dyn arrow_array::Datum) -> _,
            ),
            (alkaid_compute::sub, arrow_arith::numeric::sub),
            (alkaid_compute::mul, arrow_arith::numeric::mul),
            (alkaid_compute::rem, arrow_arith::numeric::rem),
        ] {
            let ours = ours(&left, &right).unwrap();
            let theirs = back(theirs(&al, &ar).unwrap().as_ref());
            assert!(same_values(ours.as_ref(), theirs.as_ref()));
        }
        // Quotients: the same type; values equal or one unit of the last digit apart
        // (Alkaid rounds half away from zero, arrow-rs truncates).
        let ours = alkaid_compute::div(&left, &right).unwrap();
        let theirs = back(arrow_arith::numeric::div(&al, &ar).unwrap().as_ref());
        assert_eq!(ours.data_type(), theirs.data_type());
        let (ours, theirs) = (
            ours.as_any()
                .downcast_ref::<alkaid_array::Decimal128Array>()
                .unwrap(),
            theirs
                .as_any()
                .downcast_ref::<alkaid_array::Decimal128Array>()
                .unwrap(),
        );
        for i in 0..40 {
            assert!((ours.value(i) - theirs.value(i)).abs() <= 1, "row {i}");
        }
    }
}

#[test]
fn temporal_arithmetic_agrees_with_arrow_arith() {
    let mut rng = Rng::new(11);
    let days: Vec<i32> = (0..200)
        .map(|_| (rng.next_u64() % 40_000) as i32 - 10_000)
        .collect();
    let dates = alkaid_array::Date32Array::from(days.clone());
    let months = alkaid_array::IntervalYearMonthArray::from(
        (0..200)
            .map(|_| (rng.next_u64() % 50) as i32 - 25)
            .collect::<Vec<_>>(),
    );
    let mdn = alkaid_array::IntervalMonthDayNanoArray::from(
        (0..200)
            .map(|_| {
                alkaid_buffer::native::IntervalMonthDayNano::new(
                    (rng.next_u64() % 30) as i32 - 15,
                    (rng.next_u64() % 60) as i32 - 30,
                    0,
                )
            })
            .collect::<Vec<_>>(),
    );
    for interval in [&months as &dyn Array, &mdn] {
        for (ours, theirs) in [
            (
                alkaid_compute::add as OurArithmetic,
                arrow_arith::numeric::add
                    as fn(&dyn arrow_array::Datum, &dyn arrow_array::Datum) -> _,
            ),
            (alkaid_compute::sub, arrow_arith::numeric::sub),
        ] {
            let ours = ours(&dates, &interval).unwrap();
            let theirs = back(theirs(&arrow(&dates), &arrow(interval)).unwrap().as_ref());
            assert!(
                same_values(ours.as_ref(), theirs.as_ref()),
                "{}",
                interval.data_type()
            );
        }
    }
    let zone = Some(Arc::<str>::from("America/New_York"));
    let stamps = alkaid_array::TimestampSecondArray::from(
        (0..200)
            .map(|_| (rng.next_u64() % 2_000_000_000) as i64)
            .collect::<Vec<_>>(),
    )
    .with_data_type(DataType::Timestamp(TimeUnit::Second, zone))
    .unwrap();
    for interval in [&months as &dyn Array, &mdn] {
        let ours = alkaid_compute::add(&stamps, &interval).unwrap();
        let theirs = back(
            arrow_arith::numeric::add(&arrow(&stamps), &arrow(interval))
                .unwrap()
                .as_ref(),
        );
        assert!(
            same_values(ours.as_ref(), theirs.as_ref()),
            "{}",
            interval.data_type()
        );
    }
    let difference = alkaid_compute::sub(&stamps, &stamps.slice(0, 200).as_ref()).unwrap();
    assert_eq!(
        difference.data_type(),
        &DataType::Duration(TimeUnit::Second)
    );
}

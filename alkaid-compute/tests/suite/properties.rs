//! Property tests: every kernel against a plain row-by-row reference, on random values of
//! every type it takes, encoded at random (dictionaries with unused and null entries, split
//! runs, views over several buffers, slices of longer arrays, garbage under nulls), as
//! arrays and as scalars.

use crate::common;
use crate::reference;

use std::cmp::Ordering;

use alkaid_array::{ArrayRef, BooleanArray, Datum, Scalar, make_array};
use alkaid_compute::{
    Aggregate, ComputeError, and, and_kleene, and_not, distinct, eq, gt, gt_eq, hash_rows,
    is_not_null, is_null, lt, lt_eq, neq, not, not_distinct, or, or_kleene, unique, xor,
};
use alkaid_schema::DataType;
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value};
use proptest::prelude::*;
use reference::{R, comparable_types, maybe_encoded, order, pooled, read};

type Kernel = fn(&dyn Datum, &dyn Datum) -> Result<BooleanArray, ComputeError>;
/// What a comparison says of two values' order.
type Holds = fn(Ordering) -> bool;

fn array(data_type: &DataType, values: &[Value], rng: &mut Rng) -> ArrayRef {
    make_array(encode(data_type, values, rng))
}

fn bools(array: &BooleanArray) -> Vec<Option<bool>> {
    array.iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn comparisons_match_the_reference(seed in any::<u64>(), len in 0usize..40, pick in any::<usize>()) {
        let mut rng = Rng::new(seed);
        let types = comparable_types();
        let (left_type, partners) = &types[pick % types.len()];
        let right_type = &partners[rng.below(partners.len())];
        let left_values = pooled(left_type, len, &mut rng);
        // The right side draws from the left's pool half the time, so that equal values meet.
        let right_values: Vec<Value> = if rng.chance(0.5) {
            let mut shuffled = left_values.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.below(i + 1));
            }
            shuffled
        } else {
            pooled(right_type, len, &mut rng)
        };
        let left = array(&maybe_encoded(left_type, &mut rng), &left_values, &mut rng);
        let right = array(&maybe_encoded(right_type, &mut rng), &right_values, &mut rng);
        let scalar_at = rng.below(len.max(1));
        let kernels: [(Kernel, Holds); 6] = [
            (eq, |o| o == Ordering::Equal),
            (neq, |o| o != Ordering::Equal),
            (lt, |o| o == Ordering::Less),
            (lt_eq, |o| o != Ordering::Greater),
            (gt, |o| o == Ordering::Greater),
            (gt_eq, |o| o != Ordering::Less),
        ];
        let cell = |t: &DataType, v: &Value| read(t, v);
        for (kernel, holds) in kernels {
            let expected: Vec<Option<bool>> = left_values.iter().zip(&right_values).map(|(a, b)| {
                match (cell(left_type, a), cell(right_type, b)) {
                    (R::Null, _) | (_, R::Null) => None,
                    (a, b) => Some(holds(order(&a, &b))),
                }
            }).collect();
            let result = kernel(&left, &right).unwrap();
            prop_assert_eq!(bools(&result), expected, "{} vs {}", left.data_type(), right.data_type());
            // A scalar on the right: the right value of one row, for every row.
            if len > 0 {
                let scalar = Scalar::from_array(right.as_ref(), scalar_at);
                let b = cell(right_type, &right_values[scalar_at]);
                let expected: Vec<Option<bool>> = left_values.iter().map(|a| match (cell(left_type, a), &b) {
                    (R::Null, _) | (_, R::Null) => None,
                    (a, b) => Some(holds(order(&a, b))),
                }).collect();
                prop_assert_eq!(bools(&kernel(&left, &scalar).unwrap()), expected.clone());
                // And on the left, with the comparison mirrored.
                let mirrored: Vec<Option<bool>> = left_values.iter().map(|a| match (&b, cell(left_type, a)) {
                    (R::Null, _) | (_, R::Null) => None,
                    (b, a) => Some(holds(order(b, &a))),
                }).collect();
                prop_assert_eq!(bools(&kernel(&scalar, &left).unwrap()), mirrored);
            }
        }
        // Distinctness never gives null.
        let expected: Vec<Option<bool>> = left_values.iter().zip(&right_values).map(|(a, b)| {
            Some(match (cell(left_type, a), cell(right_type, b)) {
                (R::Null, R::Null) => true,
                (R::Null, _) | (_, R::Null) => false,
                (a, b) => order(&a, &b) == Ordering::Equal,
            })
        }).collect();
        prop_assert_eq!(bools(&not_distinct(&left, &right).unwrap()), expected.clone());
        let negated: Vec<Option<bool>> = expected.iter().map(|b| b.map(|b| !b)).collect();
        prop_assert_eq!(bools(&distinct(&left, &right).unwrap()), negated);
        let nulls: Vec<Option<bool>> = left_values.iter().map(|v| Some(cell(left_type, v) == R::Null)).collect();
        prop_assert_eq!(bools(&is_null(left.as_ref()).unwrap()), nulls.clone());
        let valid: Vec<Option<bool>> = nulls.iter().map(|b| b.map(|b| !b)).collect();
        prop_assert_eq!(bools(&is_not_null(left.as_ref()).unwrap()), valid);
    }

    #[test]
    fn boolean_logic_matches_the_truth_tables(seed in any::<u64>(), len in 0usize..150) {
        let mut rng = Rng::new(seed);
        let values = |rng: &mut Rng| -> Vec<Value> {
            (0..len).map(|_| if rng.chance(0.25) { Value::Null } else { Value::Bool(rng.chance(0.5)) }).collect()
        };
        let (lv, rv) = (values(&mut rng), values(&mut rng));
        let left = array(&maybe_encoded(&DataType::Boolean, &mut rng), &lv, &mut rng);
        let right = array(&DataType::Boolean, &rv, &mut rng);
        let as_bool = |v: &Value| match v { Value::Bool(b) => Some(*b), _ => None };
        let both = |f: fn(bool, bool) -> bool| -> Vec<Option<bool>> {
            lv.iter().zip(&rv).map(|(a, b)| Some(f(as_bool(a)?, as_bool(b)?))).collect()
        };
        prop_assert_eq!(bools(&and(&left, &right).unwrap()), both(|a, b| a && b));
        prop_assert_eq!(bools(&or(&left, &right).unwrap()), both(|a, b| a || b));
        prop_assert_eq!(bools(&xor(&left, &right).unwrap()), both(|a, b| a != b));
        prop_assert_eq!(bools(&and_not(&left, &right).unwrap()), both(|a, b| a && !b));
        let kleene_and: Vec<Option<bool>> = lv.iter().zip(&rv).map(|(a, b)| match (as_bool(a), as_bool(b)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        }).collect();
        prop_assert_eq!(bools(&and_kleene(&left, &right).unwrap()), kleene_and);
        let kleene_or: Vec<Option<bool>> = lv.iter().zip(&rv).map(|(a, b)| match (as_bool(a), as_bool(b)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        }).collect();
        prop_assert_eq!(bools(&or_kleene(&left, &right).unwrap()), kleene_or);
        let negated: Vec<Option<bool>> = lv.iter().map(|a| as_bool(a).map(|b| !b)).collect();
        prop_assert_eq!(bools(&not(left.as_ref()).unwrap()), negated);
    }

    #[test]
    fn integer_arithmetic_matches_i128(seed in any::<u64>(), len in 0usize..60, pick in 0usize..8, op in 0usize..5, wrapping in any::<bool>()) {
        let mut rng = Rng::new(seed);
        let types = [DataType::Int8, DataType::Int16, DataType::Int32, DataType::Int64,
            DataType::UInt8, DataType::UInt16, DataType::UInt32, DataType::UInt64];
        let data_type = &types[pick];
        // Small values most of the time (so most rows succeed), extremes sometimes.
        let values = |rng: &mut Rng| -> Vec<Value> {
            (0..len).map(|_| {
                let v = common::value(data_type, rng, 0.2);
                match v {
                    Value::Bytes(mut bytes) if rng.chance(0.8) => {
                        let small = rng.below(7) as u8;
                        bytes.iter_mut().enumerate().for_each(|(i, b)| *b = if i == 0 { small } else { 0 });
                        Value::Bytes(bytes)
                    }
                    other => other,
                }
            }).collect()
        };
        let (lv, rv) = (values(&mut rng), values(&mut rng));
        let left = array(&maybe_encoded(data_type, &mut rng), &lv, &mut rng);
        let right = array(data_type, &rv, &mut rng);
        let bits = data_type.primitive_byte_width().unwrap() as u32 * 8;
        let signed = data_type.is_signed_integer();
        let (min, max) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        let wrap = |v: i128| -> i128 {
            let modulus = 1i128 << bits;
            let v = v.rem_euclid(modulus);
            if signed && v > max { v - modulus } else { v }
        };
        let int = |v: &Value| match read(data_type, v) { R::Int(i) => Some(i), _ => None };
        // The reference: each row's value, or which failure.
        let rows: Vec<Result<Option<i128>, bool>> = lv.iter().zip(&rv).map(|(a, b)| {
            let (Some(a), Some(b)) = (int(a), int(b)) else { return Ok(None) };
            let exact = match op {
                0 => a + b,
                1 => a - b,
                // Past i128 (two 64-bit extremes): no type's range, and the wrapped value
                // is the product modulo 2^128 reduced further.
                2 => match a.checked_mul(b) {
                    Some(product) => product,
                    None if wrapping => return Ok(Some(wrap(a.wrapping_mul(b)))),
                    None => return Err(false),
                },
                3 => { if b == 0 { return Err(true) } a / b }
                _ => { if b == 0 { return Err(true) } return Ok(Some(a % b)) }
            };
            if (min..=max).contains(&exact) { Ok(Some(exact)) } else if wrapping { Ok(Some(wrap(exact))) } else { Err(false) }
        }).collect();
        let kernel = match (op, wrapping) {
            (0, false) => alkaid_compute::add, (0, true) => alkaid_compute::add_wrapping,
            (1, false) => alkaid_compute::sub, (1, true) => alkaid_compute::sub_wrapping,
            (2, false) => alkaid_compute::mul, (2, true) => alkaid_compute::mul_wrapping,
            (3, false) => alkaid_compute::div, (3, true) => alkaid_compute::div_wrapping,
            _ => alkaid_compute::rem,
        };
        match (kernel(&left, &right), rows.iter().position(Result::is_err)) {
            (Ok(result), None) => {
                let decoded = decode(&result.to_data());
                let got: Vec<Option<i128>> = decoded.iter().map(int).collect();
                let expected: Vec<Option<i128>> = rows.into_iter().map(|r| r.unwrap()).collect();
                prop_assert_eq!(got, expected);
            }
            (Err(error), Some(row)) => {
                prop_assert_eq!(error.row(), Some(row), "{}", error);
                let zero = rows[row] == Err(true);
                prop_assert_eq!(matches!(error, ComputeError::DivideByZero { .. }), zero, "{}", error);
            }
            (result, expected) => prop_assert!(false, "{:?} against a failure at {:?}", result.map(|a| a.len()), expected),
        }
        // Division and remainder by a scalar (which divide by multiplying) against the
        // same reference, for every valid right value as the divisor.
        if op >= 3 {
            for (k, divisor) in rv.iter().enumerate() {
                let Some(d) = int(divisor).filter(|&d| d != 0) else { continue };
                let scalar = Scalar::from_array(right.as_ref(), k);
                let expected: Vec<Option<i128>> = lv.iter().map(|a| int(a).map(|a| if op == 3 { a / d } else { a % d })).collect();
                // MIN / -1 overflows; the wrapping kernel gives MIN.
                let overflow = expected.iter().flatten().any(|q| !(min..=max).contains(q));
                match kernel(&left, &scalar) {
                    Ok(result) => {
                        let got: Vec<Option<i128>> = decode(&result.to_data()).iter().map(int).collect();
                        let expected: Vec<Option<i128>> = expected.iter().map(|q| q.map(wrap)).collect();
                        prop_assert!(!overflow || wrapping, "{:?}", got);
                        prop_assert_eq!(got, expected);
                    }
                    Err(error) => prop_assert!(overflow && !wrapping, "{}", error),
                }
            }
        }
    }

    #[test]
    fn float_arithmetic_is_ieee(seed in any::<u64>(), len in 0usize..60, op in 0usize..5) {
        let mut rng = Rng::new(seed);
        let lv: Vec<Option<f64>> = (0..len).map(|_| (!rng.chance(0.2)).then(|| f64::from_bits(rng.next_u64()))).collect();
        let rv: Vec<Option<f64>> = (0..len).map(|_| (!rng.chance(0.2)).then(|| [0.0, -0.0, 1.5, f64::NAN, f64::INFINITY][rng.below(5)])).collect();
        let left = alkaid_array::Float64Array::from(lv.clone());
        let right = alkaid_array::Float64Array::from(rv.clone());
        let kernel = [alkaid_compute::add, alkaid_compute::sub, alkaid_compute::mul, alkaid_compute::div, alkaid_compute::rem][op];
        let result = kernel(&left, &right).unwrap();
        let result = result.as_any().downcast_ref::<alkaid_array::Float64Array>().unwrap();
        for (i, (a, b)) in lv.iter().zip(&rv).enumerate() {
            let expected = match (a, b) {
                (Some(a), Some(b)) => Some([a + b, a - b, a * b, a / b, a % b][op]),
                _ => None,
            };
            let got = result.iter().nth(i).unwrap();
            prop_assert_eq!(got.map(f64::to_bits), expected.map(f64::to_bits), "row {}", i);
        }
    }

    #[test]
    fn aggregates_match_the_reference(seed in any::<u64>(), len in 0usize..80, pick in any::<usize>(), groups in 1usize..5) {
        let mut rng = Rng::new(seed);
        let types = comparable_types();
        let (data_type, _) = &types[pick % types.len()];
        let values = pooled(data_type, len, &mut rng);
        let input = array(&maybe_encoded(data_type, &mut rng), &values, &mut rng);
        let mask: Vec<Option<bool>> = (0..len).map(|_| (!rng.chance(0.1)).then(|| rng.chance(0.7))).collect();
        let ids: Vec<u32> = (0..len).map(|_| rng.below(groups) as u32).collect();
        let cells: Vec<R> = values.iter().map(|v| read(data_type, v)).collect();
        let masked = |i: usize| mask[i] == Some(true);
        let mask_array = BooleanArray::from(mask.clone());
        // Per group (and once for all rows), the values that count.
        let mut chosen: Vec<Vec<R>> = vec![Vec::new(); groups];
        let mut all_rows = Vec::new();
        let mut kept = Vec::new();
        for (i, cell) in cells.iter().enumerate() {
            if *cell == R::Null { continue; }
            all_rows.push(cell.clone());
            if masked(i) {
                kept.push(cell.clone());
                chosen[ids[i] as usize].push(cell.clone());
            }
        }
        let count = |s: &Scalar| s.value::<alkaid_array::types::Int64Type>();
        prop_assert_eq!(count(&Aggregate::Count.evaluate(input.as_ref()).unwrap()), Some(all_rows.len() as i64));
        prop_assert_eq!(count(&Aggregate::Count.evaluate_where(input.as_ref(), &mask_array).unwrap()), Some(kept.len() as i64));
        prop_assert_eq!(count(&Aggregate::CountDistinct.evaluate(input.as_ref()).unwrap()), Some(distinct_count(&all_rows) as i64));
        // min and max: the reference's extremes, compared through the crate's order.
        let extreme = |rows: &[R], max: bool| rows.iter().cloned().reduce(|a, b| {
            let better = if max { order(&b, &a) == Ordering::Greater } else { order(&b, &a) == Ordering::Less };
            if better { b } else { a }
        });
        for (aggregate, is_max) in [(Aggregate::Min, false), (Aggregate::Max, true)] {
            let got = aggregate.evaluate_where(input.as_ref(), &mask_array).unwrap();
            let got = read(data_type, &decode(&got.array().to_data())[0]);
            let expected = extreme(&kept, is_max).unwrap_or(R::Null);
            prop_assert!(same(&got, &expected), "{:?}: {:?} against {:?}", aggregate, got, expected);
            let grouped = aggregate.evaluate_grouped(input.as_ref(), &ids, groups, Some(&mask_array)).unwrap();
            let grouped = decode(&grouped.to_data());
            for g in 0..groups {
                let expected = extreme(&chosen[g], is_max).unwrap_or(R::Null);
                prop_assert!(same(&read(data_type, &grouped[g]), &expected), "group {}", g);
            }
        }
        let grouped = Aggregate::CountDistinct.evaluate_grouped(input.as_ref(), &ids, groups, Some(&mask_array)).unwrap();
        let grouped: Vec<i64> = grouped.as_any().downcast_ref::<alkaid_array::Int64Array>().unwrap().values().to_vec();
        let expected: Vec<i64> = chosen.iter().map(|rows| distinct_count(rows) as i64).collect();
        prop_assert_eq!(grouped, expected);
        // Sums of integers, exactly.
        if let Some(R::Int(_)) = kept.first().filter(|_| data_type.is_integer()) {
            let total: i128 = kept.iter().map(|r| match r { R::Int(i) => *i, _ => 0 }).sum();
            let got = Aggregate::Sum.evaluate_where(input.as_ref(), &mask_array);
            let fits = if data_type.is_signed_integer() { i64::try_from(total).is_ok() } else { u64::try_from(total).is_ok() };
            match got {
                Ok(scalar) => {
                    let got = scalar.value::<alkaid_array::types::Int64Type>().map(i128::from)
                        .or_else(|| scalar.value::<alkaid_array::types::UInt64Type>().map(i128::from));
                    prop_assert_eq!(got, Some(total));
                }
                Err(error) => prop_assert!(!fits, "{}", error),
            }
        }
    }

    #[test]
    fn hashes_follow_equality(seed in any::<u64>(), len in 1usize..60, pick in any::<usize>()) {
        let mut rng = Rng::new(seed);
        let types = comparable_types();
        let (data_type, partners) = &types[pick % types.len()];
        let values = pooled(data_type, len, &mut rng);
        let plain = array(data_type, &values, &mut rng);
        let other_type = &partners[rng.below(partners.len())];
        let other = array(&maybe_encoded(other_type, &mut rng), &values, &mut rng);
        let seed = rng.next_u64();
        // The same values hash alike in every layout and encoding.
        let a = hash_rows(&[plain.as_ref()], seed).unwrap();
        let b = hash_rows(&[other.as_ref()], seed).unwrap();
        prop_assert_eq!(a.values().as_slice(), b.values().as_slice());
        // Equal values hash alike.
        let cells: Vec<R> = values.iter().map(|v| read(data_type, v)).collect();
        for i in 0..len {
            for j in 0..len {
                let equal = match (&cells[i], &cells[j]) {
                    (R::Null, R::Null) => true,
                    (R::Null, _) | (_, R::Null) => false,
                    (x, y) => order(x, y) == Ordering::Equal,
                };
                if equal {
                    prop_assert_eq!(a.value(i), a.value(j));
                }
            }
        }
        let distinct_with_null = distinct_count(&cells.iter().filter(|c| **c != R::Null).cloned().collect::<Vec<_>>())
            + usize::from(cells.contains(&R::Null));
        prop_assert_eq!(unique(other.as_ref()).unwrap().len(), distinct_with_null);
    }
}

/// The number of distinct values by the reference order.
fn distinct_count(rows: &[R]) -> usize {
    let mut seen: Vec<&R> = Vec::new();
    for row in rows {
        if !seen.iter().any(|s| order(s, row) == Ordering::Equal) {
            seen.push(row);
        }
    }
    seen.len()
}

/// Equal in the reference order (nulls equal nulls).
fn same(a: &R, b: &R) -> bool {
    match (a, b) {
        (R::Null, R::Null) => true,
        (R::Null, _) | (_, R::Null) => false,
        _ => order(a, b) == Ordering::Equal,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn decimal_arithmetic_matches_i128(
        seed in any::<u64>(),
        len in 0usize..30,
        width in 0usize..3,
        op in 0usize..5,
        shape in (1u8..=9, 0i8..=4, 1u8..=9, 0i8..=4),
    ) {
        let mut rng = Rng::new(seed);
        let bits = [32u16, 64, 128][width];
        let (p1, s1, p2, s2) = shape;
        let (s1, s2) = (s1.min(p1 as i8), s2.min(p2 as i8));
        let left_type = DataType::decimal(bits, p1, s1).unwrap();
        let right_type = DataType::decimal(bits, p2, s2).unwrap();
        let draw = |rng: &mut Rng, precision: u8| -> Option<i128> {
            if rng.chance(0.15) {
                return None;
            }
            let bound = 10i128.pow(u32::from(precision));
            // Zero sometimes, for the divisions; the extremes sometimes.
            Some(match rng.below(6) {
                0 => 0,
                1 => bound - 1,
                2 => -(bound - 1),
                _ => (rng.next_u64() as i128).rem_euclid(2 * bound - 1) - (bound - 1),
            })
        };
        let lv: Vec<Option<i128>> = (0..len).map(|_| draw(&mut rng, p1)).collect();
        let rv: Vec<Option<i128>> = (0..len).map(|_| draw(&mut rng, p2)).collect();
        let make = |values: &[Option<i128>], data_type: &DataType| -> ArrayRef {
            let bytes: Vec<Value> = values.iter().map(|v| match v {
                Some(v) => Value::Bytes(v.to_le_bytes()[..usize::from(bits / 8).min(16)].to_vec()),
                None => Value::Null,
            }).collect();
            let mut rng = Rng::new(seed ^ 1);
            array(data_type, &bytes, &mut rng)
        };
        let (left, right) = (make(&lv, &left_type), make(&rv, &right_type));
        let kernel = [alkaid_compute::add, alkaid_compute::sub, alkaid_compute::mul, alkaid_compute::div, alkaid_compute::rem][op];
        let max_precision = i32::from(DataType::decimal(bits, 1, 0).map(|t| match t { DataType::Decimal(d) => d.width().max_precision(), _ => 0 }).unwrap());
        let (p1, s1, p2, s2) = (i32::from(p1), i32::from(s1), i32::from(p2), i32::from(s2));
        let (precision, scale) = match op {
            0 | 1 => ((p1 - s1).max(p2 - s2) + s1.max(s2) + 1, s1.max(s2)),
            2 => (p1 + p2 + 1, s1 + s2),
            3 => (p1 - s1 + s2 + s1 + 4, s1 + 4),
            _ => ((p1 - s1).min(p2 - s2) + s1.max(s2), s1.max(s2)),
        };
        let precision = precision.clamp(1, max_precision);
        let pow = |e: i32| 10i128.pow(e as u32);
        let rows: Vec<Result<Option<i128>, bool>> = lv.iter().zip(&rv).map(|(a, b)| {
            let (Some(a), Some(b)) = (*a, *b) else { return Ok(None) };
            let value = match op {
                0 => a * pow(scale - s1) + b * pow(scale - s2),
                1 => a * pow(scale - s1) - b * pow(scale - s2),
                2 => a * b,
                3 => {
                    if b == 0 { return Err(true) }
                    let (n, d) = (a * pow(scale - s1 + s2), b);
                    let (q, r) = (n / d, n % d);
                    if r != 0 && 2 * r.abs() >= d.abs() { q + if (n < 0) != (d < 0) { -1 } else { 1 } } else { q }
                }
                _ => {
                    if b == 0 { return Err(true) }
                    (a * pow(scale - s1)) % (b * pow(scale - s2))
                }
            };
            if value.abs() < pow(precision) { Ok(Some(value)) } else { Err(false) }
        }).collect();
        match (kernel(&left, &right), rows.iter().position(Result::is_err)) {
            (Ok(result), None) => {
                prop_assert_eq!(result.data_type(), &DataType::decimal(bits, precision as u8, scale as i8).unwrap());
                let got: Vec<Option<i128>> = decode(&result.to_data()).iter().map(|v| match read(result.data_type(), v) {
                    R::Int(i) => Some(i),
                    _ => None,
                }).collect();
                let expected: Vec<Option<i128>> = rows.into_iter().map(|r| r.unwrap()).collect();
                prop_assert_eq!(got, expected);
            }
            (Err(error), Some(row)) => {
                prop_assert_eq!(error.row(), Some(row), "{}", error);
                prop_assert_eq!(matches!(error, ComputeError::DivideByZero { .. }), rows[row] == Err(true));
            }
            (result, expected) => prop_assert!(false, "{:?} against a failure at {:?}", result.map(|a| a.len()), expected),
        }
    }
}

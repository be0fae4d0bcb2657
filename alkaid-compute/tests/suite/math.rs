//! Property tests of exact rounding: integers and decimals rounded by `round`, `ceil`,
//! `floor` and `trunc` against a reference that picks the nearer of the two multiples
//! around each value (floor division, a different route from the kernel's truncating one),
//! in `i128`.

use crate::common;

use alkaid_array::types::{Decimal128Type, Int64Type};
use alkaid_array::{Array, AsArray, Decimal128Array, Int64Array};
use alkaid_compute::{RoundMode, ceil, floor, round, trunc};
use alkaid_schema::DataType;
use common::Rng;
use proptest::prelude::*;

#[derive(Debug, Clone, Copy)]
enum How {
    Half(RoundMode),
    Ceil,
    Floor,
    Trunc,
}

/// `value` rounded to a multiple of `10^exponent`, as `how` says; `None` past `i128`.
fn reference(value: i128, exponent: u32, how: How) -> Option<i128> {
    let factor = 10i128.checked_pow(exponent)?;
    let below = value.div_euclid(factor) * factor;
    if below == value {
        return Some(value);
    }
    let above = below.checked_add(factor)?;
    let toward_zero = if value < 0 { above } else { below };
    let away = if value < 0 { below } else { above };
    Some(match how {
        How::Ceil => above,
        How::Floor => below,
        How::Trunc => toward_zero,
        How::Half(mode) => {
            let (down, up) = (value - below, above - value);
            match down.cmp(&up) {
                std::cmp::Ordering::Less => below,
                std::cmp::Ordering::Greater => above,
                std::cmp::Ordering::Equal => match mode {
                    RoundMode::HalfEven if (below / factor) % 2 == 0 => below,
                    RoundMode::HalfEven => above,
                    RoundMode::HalfUp => above,
                    RoundMode::HalfDown => below,
                    RoundMode::HalfAwayFromZero => away,
                },
            }
        }
    })
}

fn how(pick: usize) -> How {
    [
        How::Half(RoundMode::HalfEven),
        How::Half(RoundMode::HalfUp),
        How::Half(RoundMode::HalfDown),
        How::Half(RoundMode::HalfAwayFromZero),
        How::Ceil,
        How::Floor,
        How::Trunc,
    ][pick % 7]
}

fn run(
    array: &dyn Array,
    digits: i32,
    how: How,
) -> Result<alkaid_array::ArrayRef, alkaid_compute::ComputeError> {
    match how {
        How::Half(mode) => round(array, digits, mode),
        How::Ceil => ceil(array),
        How::Floor => floor(array),
        How::Trunc => trunc(array),
    }
}

/// A value with a tie at some digit half the time.
fn value(rng: &mut Rng, limit: i128) -> i128 {
    let v = (rng.next_u64() as i128) % limit;
    let v = if rng.chance(0.5) { -v } else { v };
    if rng.chance(0.5) {
        v / 10 * 10 + 5 * v.signum()
    } else {
        v
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn integers_round_as_the_reference_does(seed in any::<u64>(), len in 1usize..40, digits in -20i32..3, pick in 0usize..7) {
        let mut rng = Rng::new(seed);
        let how = how(pick);
        let digits = if matches!(how, How::Half(_)) { digits } else { 0 };
        let limits = [1_000i128, 1_000_000_000, i64::MAX as i128];
        let values: Vec<i64> = (0..len)
            .map(|_| {
                let limit = limits[rng.below(3)];
                value(&mut rng, limit).clamp(i64::MIN as i128, i64::MAX as i128) as i64
            })
            .collect();
        let expected: Option<Vec<i64>> = values
            .iter()
            .map(|&v| match digits {
                d if d >= 0 => Some(v),
                d => reference(i128::from(v), d.unsigned_abs(), how)
                    .and_then(|r| i64::try_from(r).ok()),
            })
            .collect();
        match (run(&Int64Array::from(values.clone()), digits, how), expected) {
            (Ok(result), Some(expected)) => {
                prop_assert_eq!(&result.as_primitive::<Int64Type>().values()[..], &expected[..]);
            }
            (Err(e), None) => prop_assert!(e.row().is_some(), "{}", e),
            (result, expected) => prop_assert!(false, "{:?} for {:?}, expected {:?}", result, values, expected),
        }
    }

    #[test]
    fn decimals_round_as_the_reference_does(seed in any::<u64>(), len in 1usize..40, digits in -4i32..8, pick in 0usize..7, precision in 3u8..20, scale in 0i8..6) {
        let mut rng = Rng::new(seed);
        let how = how(pick);
        prop_assume!(i32::from(precision) > i32::from(scale));
        let digits = if matches!(how, How::Half(_)) { digits } else { 0 };
        let max = 10i128.pow(u32::from(precision)) - 1;
        let values: Vec<i128> = (0..len).map(|_| value(&mut rng, max + 1).clamp(-max, max)).collect();
        let exponent = i32::from(scale) - digits;
        let expected: Option<Vec<i128>> = values
            .iter()
            .map(|&v| {
                let rounded = match exponent {
                    e if e <= 0 => Some(v),
                    e => reference(v, e as u32, how),
                };
                rounded.filter(|r| r.abs() <= max)
            })
            .collect();
        let array = Decimal128Array::from(values.clone())
            .with_data_type(DataType::decimal(128, precision, scale).unwrap())
            .unwrap();
        match (run(&array, digits, how), expected) {
            (Ok(result), Some(expected)) => {
                prop_assert_eq!(&result.as_primitive::<Decimal128Type>().values()[..], &expected[..]);
            }
            (Err(e), None) => prop_assert!(e.row().is_some(), "{}", e),
            (result, expected) => prop_assert!(false, "{:?} for {:?}, expected {:?}", result, values, expected),
        }
    }
}

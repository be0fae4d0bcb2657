//! Strict validation: data-quality checks that the spec does not demand.

use alkaid_buffer::native::i256;
use alkaid_schema::{DataType, DecimalWidth};

use super::end;
use super::values::typed_slots;
use crate::{ArrayData, DataError, DataErrorKind};

const MILLISECONDS_PER_DAY: i64 = 86_400_000;

/// Decimals of valid slots fit their precision; `Date64` values of valid slots are whole
/// days.
pub(super) fn check(data: &ArrayData) -> Result<(), DataError> {
    match &data.data_type {
        DataType::Decimal(decimal) => {
            let digits = u32::from(decimal.precision());
            match decimal.width() {
                DecimalWidth::W32 => check_slots::<i32>(data, |v| fits(i128::from(v), digits)),
                DecimalWidth::W64 => check_slots::<i64>(data, |v| fits(i128::from(v), digits)),
                DecimalWidth::W128 => check_slots::<i128>(data, |v| fits(v, digits)),
                DecimalWidth::W256 => {
                    let max = i256_max(digits);
                    let min = max.wrapping_neg();
                    check_slots::<i256>(data, |v| v >= min && v <= max)
                }
            }
            .map_err(|slot| {
                DataError::new(
                    DataErrorKind::DecimalPrecision,
                    format!(
                        "value at slot {slot} of {} has more than {digits} digits",
                        data.data_type
                    ),
                )
            })
        }
        DataType::Date64 => {
            check_slots::<i64>(data, |v| v % MILLISECONDS_PER_DAY == 0).map_err(|slot| {
                DataError::new(
                    DataErrorKind::Date64,
                    format!("value at slot {slot} of Date64 is not a whole number of days"),
                )
            })
        }
        _ => Ok(()),
    }
}

/// Finds the first valid slot whose value fails `ok`.
fn check_slots<T: alkaid_buffer::NativeType>(
    data: &ArrayData,
    ok: impl Fn(T) -> bool,
) -> Result<(), usize> {
    let Ok(values) = typed_slots::<T>(data, 0, data.offset, end(data)) else {
        return Ok(());
    };
    let bad = match data.nulls() {
        None => values.iter().position(|&v| !ok(v)),
        Some(nulls) => nulls.valid_indices().find(|&i| !ok(values[i])),
    };
    bad.map_or(Ok(()), Err)
}

/// Whether `value` has at most `digits` decimal digits (digits <= 38).
fn fits(value: i128, digits: u32) -> bool {
    let max = 10i128.pow(digits) - 1;
    (-max..=max).contains(&value)
}

/// 10^digits - 1 as an i256 (digits <= 76).
fn i256_max(digits: u32) -> i256 {
    let ten = i256::from_i128(10);
    let mut power = i256::ONE;
    for _ in 0..digits {
        power = power.wrapping_mul(ten);
    }
    power.wrapping_sub(i256::ONE)
}

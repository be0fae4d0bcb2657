//! Strict validation: data-quality checks that the spec does not demand.

use alkaid_buffer::native::i256;
use alkaid_schema::{DataType, DecimalWidth, TimeUnit};

use super::slots::{end, typed_slots};
use crate::{ArrayData, DataError, DataErrorKind};

const MILLISECONDS_PER_DAY: i64 = 86_400_000;

/// Decimals of valid slots fit their precision; `Date64` values of valid slots are whole
/// days; times of day of valid slots lie in `[0, one day)`; a map's entries struct is not
/// nullable. These are the value checks Arrow C++'s full validation makes beyond the spec's
/// layout rules, so that a strict validation finds what pyarrow's `validate(full=True)`
/// finds.
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
        DataType::Time(unit) => {
            let per_day = match unit {
                TimeUnit::Second => 86_400,
                TimeUnit::Millisecond => MILLISECONDS_PER_DAY,
                TimeUnit::Microsecond => MILLISECONDS_PER_DAY * 1_000,
                TimeUnit::Nanosecond => MILLISECONDS_PER_DAY * 1_000_000,
            };
            let in_day = |v: i64| (0..per_day).contains(&v);
            match unit {
                TimeUnit::Second | TimeUnit::Millisecond => {
                    check_slots::<i32>(data, |v| in_day(i64::from(v)))
                }
                TimeUnit::Microsecond | TimeUnit::Nanosecond => check_slots::<i64>(data, in_day),
            }
            .map_err(|slot| {
                DataError::new(
                    DataErrorKind::TimeOfDay,
                    format!(
                        "value at slot {slot} of {} is outside one day (0 to {per_day} {})",
                        data.data_type,
                        unit.abbreviation()
                    ),
                )
            })
        }
        DataType::Map(map) if map.entries().is_nullable() => Err(DataError::new(
            DataErrorKind::MapEntries,
            format!(
                "the entries field {:?} of {} is nullable",
                map.entries().name(),
                data.data_type
            ),
        )),
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

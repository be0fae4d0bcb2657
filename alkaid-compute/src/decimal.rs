//! Decimal helpers shared by comparison, arithmetic and aggregates: powers of ten, the four
//! storage widths widened to 256 bits and back, and precision checks.

use std::sync::OnceLock;

use alkaid_buffer::native::i256;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, DecimalWidth};

use crate::access::native_values;
use crate::error::ComputeError;

/// `10^n` as a 256-bit integer, if it fits (`n <= 76`).
pub(crate) fn pow10(n: u32) -> Option<i256> {
    static POWERS: OnceLock<Vec<i256>> = OnceLock::new();
    let powers = POWERS.get_or_init(|| {
        let ten = i256::from_i128(10);
        let mut powers = vec![i256::ONE];
        while let Some(next) = powers.last().and_then(|p| p.checked_mul(ten)) {
            powers.push(next);
        }
        powers
    });
    powers.get(n as usize).copied()
}

/// The largest value of `precision` digits: `10^precision - 1`.
pub(crate) fn max_of_precision(precision: u8) -> i256 {
    pow10(u32::from(precision))
        .map(|p| p.wrapping_sub(i256::ONE))
        .unwrap_or(i256::MAX)
}

/// A stored decimal value of any width.
pub(crate) trait DecimalNative: alkaid_buffer::NativeType + std::fmt::Display {
    /// Whether the width is 256 bits (more than `i128` holds).
    const WIDE: bool;
    /// The value widened to 256 bits.
    fn widen(self) -> i256;
    /// The value narrowed from 256 bits, if it fits the width.
    fn try_narrow(value: i256) -> Option<Self>;
    /// The value as an `i128`, if it fits.
    fn try_to_i128(self) -> Option<i128>;
    /// The value from an `i128`, if it fits the width.
    fn try_from_i128(value: i128) -> Option<Self>;
}

macro_rules! decimal_native {
    ($($t:ty),*) => {$(
        impl DecimalNative for $t {
            const WIDE: bool = false;
            #[inline]
            fn widen(self) -> i256 {
                i256::from_i128(i128::from(self))
            }
            #[inline]
            fn try_narrow(value: i256) -> Option<Self> {
                value.to_i128().and_then(|v| <$t>::try_from(v).ok())
            }
            #[inline(always)]
            fn try_to_i128(self) -> Option<i128> {
                Some(i128::from(self))
            }
            #[inline(always)]
            fn try_from_i128(value: i128) -> Option<Self> {
                <$t>::try_from(value).ok()
            }
        }
    )*};
}
decimal_native!(i32, i64, i128);

impl DecimalNative for i256 {
    const WIDE: bool = true;
    #[inline]
    fn widen(self) -> i256 {
        self
    }
    #[inline]
    fn try_narrow(value: i256) -> Option<Self> {
        Some(value)
    }
    #[inline]
    fn try_to_i128(self) -> Option<i128> {
        i256::to_i128(self)
    }
    #[inline]
    fn try_from_i128(value: i128) -> Option<Self> {
        Some(i256::from_i128(value))
    }
}

/// Evaluates `$body` with `$t` naming the native type of decimal width `$width`.
macro_rules! with_decimal {
    ($width:expr, |$t:ident| $body:expr) => {{
        use alkaid_schema::DecimalWidth as W;
        match $width {
            W::W32 => {
                type $t = i32;
                $body
            }
            W::W64 => {
                type $t = i64;
                $body
            }
            W::W128 => {
                type $t = i128;
                $body
            }
            W::W256 => {
                type $t = alkaid_buffer::native::i256;
                $body
            }
        }
    }};
}
pub(crate) use with_decimal;

/// The width of a decimal type.
pub(crate) fn width_of(data_type: &DataType) -> Option<DecimalWidth> {
    match data_type {
        DataType::Decimal(d) => Some(d.width()),
        _ => None,
    }
}

/// Every value of a decimal array, widened to 256 bits (slot 0 first; whatever is stored
/// under nulls).
pub(crate) fn decimal_to_i256(data: &ArrayData) -> Result<Vec<i256>, ComputeError> {
    let width = width_of(data.data_type()).ok_or_else(|| {
        ComputeError::InvalidArgument(format!("expected a decimal, found {}", data.data_type()))
    })?;
    with_decimal!(width, |T| {
        let values = native_values::<T>(data)?;
        Ok(values.iter().map(|v| v.widen()).collect())
    })
}

/// `numerator / denominator`, rounded half away from zero; `None` for a zero denominator or
/// an overflow (`MIN / -1`).
pub(crate) fn round_div(numerator: i256, denominator: i256) -> Option<i256> {
    let (quotient, remainder) = numerator.checked_div_rem(denominator)?;
    // |remainder| * 2 >= |denominator| rounds away from zero. Doubling cannot overflow:
    // |remainder| < |denominator| <= 2^255, and a remainder at least half the largest
    // denominator is compared through the subtraction instead.
    let remainder_abs = if remainder.is_negative() {
        remainder.wrapping_neg()
    } else {
        remainder
    };
    let denominator_abs = if denominator.is_negative() {
        denominator.wrapping_neg()
    } else {
        denominator
    };
    let rest = denominator_abs.wrapping_sub(remainder_abs);
    if remainder_abs >= rest && remainder != i256::ZERO {
        let away = if numerator.is_negative() != denominator.is_negative() {
            i256::MINUS_ONE
        } else {
            i256::ONE
        };
        quotient.checked_add(away)
    } else {
        Some(quotient)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i128) -> i256 {
        i256::from_i128(v)
    }

    #[test]
    fn powers_of_ten_stop_where_256_bits_do() {
        assert_eq!(pow10(0), Some(i256::ONE));
        assert_eq!(pow10(3), Some(int(1000)));
        assert!(pow10(76).is_some());
        assert!(pow10(77).is_none());
        assert_eq!(max_of_precision(2), int(99));
        assert_eq!(max_of_precision(77), i256::MAX);
    }

    #[test]
    fn division_rounds_half_away_from_zero() {
        assert_eq!(round_div(int(5), int(2)), Some(int(3)));
        assert_eq!(round_div(int(-5), int(2)), Some(int(-3)));
        assert_eq!(round_div(int(7), int(-2)), Some(int(-4)));
        assert_eq!(round_div(int(4), int(3)), Some(int(1)));
        assert_eq!(round_div(int(-4), int(3)), Some(int(-1)));
        assert_eq!(round_div(int(1), int(0)), None);
        assert_eq!(round_div(int(12350), int(100)), Some(int(124)));
        assert_eq!(round_div(int(-12349), int(100)), Some(int(-123)));
        assert_eq!(round_div(i256::MAX, i256::MAX), Some(i256::ONE));
        assert_eq!(round_div(i256::MIN, i256::MINUS_ONE), None);
    }
}

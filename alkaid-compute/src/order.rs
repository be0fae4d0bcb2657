//! The one order every kernel uses for fixed-width values.
//!
//! Integers, decimals and temporal values order as numbers. Intervals order field by field
//! (months, then days, then the rest), which is the only order their parts allow without a
//! calendar. Floats follow a **total order**, as PostgreSQL orders them: `-0.0` equals
//! `0.0`, every NaN equals every other NaN, and NaN is greater than every other value,
//! infinity included. So `NaN = NaN` is true, `x < NaN` is true for every other `x`, and
//! sorting, grouping and `max` all agree on where NaN goes. (arrow-rs orders floats by IEEE
//! 754's `totalOrder`, which tells `-0.0` from `0.0` and orders NaNs by sign and payload.)

use alkaid_buffer::NativeType;
use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano, f16, i256};

/// A fixed-width value with the order of the [module docs](self).
pub(crate) trait TotalOrder: NativeType {
    /// Whether `a` equals `b`.
    fn is_eq(a: Self, b: Self) -> bool;
    /// Whether `a` is less than `b`.
    fn is_lt(a: Self, b: Self) -> bool;
    /// Whether `a` is at most `b`.
    #[inline(always)]
    fn is_le(a: Self, b: Self) -> bool {
        !Self::is_lt(b, a)
    }
    /// How `a` compares with `b`.
    #[inline(always)]
    fn order(a: Self, b: Self) -> std::cmp::Ordering {
        if Self::is_lt(a, b) {
            std::cmp::Ordering::Less
        } else if Self::is_lt(b, a) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }
}

macro_rules! ordered_by_ord {
    ($($t:ty),*) => {$(
        impl TotalOrder for $t {
            #[inline(always)]
            fn is_eq(a: Self, b: Self) -> bool {
                a == b
            }
            #[inline(always)]
            fn is_lt(a: Self, b: Self) -> bool {
                a < b
            }
        }
    )*};
}
ordered_by_ord!(
    i8,
    i16,
    i32,
    i64,
    i128,
    u8,
    u16,
    u32,
    u64,
    i256,
    IntervalDayTime,
    IntervalMonthDayNano
);

macro_rules! ordered_float {
    ($($t:ty),*) => {$(
        impl TotalOrder for $t {
            #[inline(always)]
            #[allow(clippy::eq_op)] // `a != a` is the branch-free NaN test
            fn is_eq(a: Self, b: Self) -> bool {
                a == b || (a != a && b != b)
            }
            #[inline(always)]
            #[allow(clippy::eq_op)]
            fn is_lt(a: Self, b: Self) -> bool {
                a < b || (a == a && b != b)
            }
        }
    )*};
}
ordered_float!(f32, f64);

impl TotalOrder for f16 {
    #[inline(always)]
    fn is_eq(a: Self, b: Self) -> bool {
        f32::is_eq(a.to_f32(), b.to_f32())
    }
    #[inline(always)]
    fn is_lt(a: Self, b: Self) -> bool {
        f32::is_lt(a.to_f32(), b.to_f32())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_put_nan_last_and_zeros_together() {
        let nan = f64::NAN;
        assert!(f64::is_eq(nan, -nan));
        assert!(f64::is_eq(0.0, -0.0));
        assert!(f64::is_lt(f64::INFINITY, nan));
        assert!(!f64::is_lt(nan, f64::INFINITY));
        assert!(!f64::is_lt(nan, nan));
        assert!(f64::is_le(nan, nan));
        assert!(f64::is_lt(-1.0, 0.0));
        assert!(f32::is_lt(f32::NEG_INFINITY, f32::MIN));
        let half = |x: f32| f16::from_f32(x);
        assert!(f16::is_lt(half(1.0), half(f32::NAN)));
        assert!(f16::is_eq(half(-0.0), half(0.0)));
    }

    #[test]
    fn intervals_order_field_by_field() {
        let a = IntervalMonthDayNano::new(1, 40, 0);
        let b = IntervalMonthDayNano::new(2, 0, 0);
        assert!(IntervalMonthDayNano::is_lt(a, b));
        assert!(i256::is_lt(i256::MIN, i256::from_i128(-1)));
    }
}

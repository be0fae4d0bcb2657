//! Integer arithmetic: checked (overflow and division by zero fail the row) or wrapping
//! (two's complement; division by zero still fails, since no value stands for it), for the
//! eight integer types and, through the same code, durations and year-month intervals.

use alkaid_buffer::NativeType;

use super::op::{ArithOp, Overflow};

/// An integer type's operations, each returning the value and whether it failed.
pub(crate) trait Integer: NativeType + std::fmt::Display {
    /// Whether every value fits an `i64` (every type but `u64`).
    const FITS_I64: bool;
    /// The value as an `i64` (wrapping for `u64` values past `i64::MAX`).
    fn widen(self) -> i64;
    /// An `i64` back in this type (the caller knows it fits).
    fn narrow(value: i64) -> Self;
    /// `a op b`.
    fn apply(op: ArithOp, overflow: Overflow, a: Self, b: Self) -> (Self, bool);
    /// `-a`.
    fn negate(overflow: Overflow, a: Self) -> (Self, bool);
    /// `|a|`.
    fn absolute(overflow: Overflow, a: Self) -> (Self, bool);
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            const FITS_I64: bool = size_of::<$t>() < 8 || <$t>::MIN != 0;

            #[inline(always)]
            fn widen(self) -> i64 {
                self as i64
            }

            #[inline(always)]
            fn narrow(value: i64) -> Self {
                value as $t
            }

            #[inline(always)]
            fn apply(op: ArithOp, overflow: Overflow, a: Self, b: Self) -> (Self, bool) {
                let wrap = overflow == Overflow::Wrap;
                match op {
                    ArithOp::Add => {
                        let (v, o) = a.overflowing_add(b);
                        (v, o && !wrap)
                    }
                    ArithOp::Sub => {
                        let (v, o) = a.overflowing_sub(b);
                        (v, o && !wrap)
                    }
                    ArithOp::Mul => {
                        let (v, o) = a.overflowing_mul(b);
                        (v, o && !wrap)
                    }
                    ArithOp::Div => {
                        // A zero divisor fails in either mode; computing with 1 instead
                        // keeps the loop free of panics (the value is never used).
                        let zero = b == 0;
                        let (v, o) = a.overflowing_div(if zero { 1 } else { b });
                        (v, zero || (o && !wrap))
                    }
                    ArithOp::Rem => {
                        // `MIN % -1` is 0 (the remainder exists; only the quotient overflows).
                        let zero = b == 0;
                        (a.wrapping_rem(if zero { 1 } else { b }), zero)
                    }
                }
            }

            #[inline(always)]
            fn negate(overflow: Overflow, a: Self) -> (Self, bool) {
                let (v, o) = a.overflowing_neg();
                (v, o && overflow == Overflow::Check)
            }

            #[inline(always)]
            #[allow(unused_comparisons)] // unsigned values are never below zero
            fn absolute(overflow: Overflow, a: Self) -> (Self, bool) {
                if a < 0 { Self::negate(overflow, a) } else { (a, false) }
            }
        }
    )*};
}
integer!(i8, i16, i32, i64, u8, u16, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_operations_fail_at_the_extremes() {
        let check = Overflow::Check;
        assert!(i32::apply(ArithOp::Add, check, i32::MAX, 1).1);
        assert_eq!(
            i32::apply(ArithOp::Add, Overflow::Wrap, i32::MAX, 1),
            (i32::MIN, false)
        );
        assert!(u8::apply(ArithOp::Sub, check, 0, 1).1);
        assert!(i64::apply(ArithOp::Div, check, i64::MIN, -1).1);
        assert_eq!(
            i64::apply(ArithOp::Div, Overflow::Wrap, i64::MIN, -1),
            (i64::MIN, false)
        );
        assert!(i64::apply(ArithOp::Div, Overflow::Wrap, 1, 0).1);
        assert_eq!(i16::apply(ArithOp::Rem, check, i16::MIN, -1), (0, false));
        assert!(i16::apply(ArithOp::Rem, check, 7, 0).1);
        assert_eq!(i8::apply(ArithOp::Rem, check, -7, 2), (-1, false));
        assert!(i8::negate(check, i8::MIN).1);
        assert_eq!(u32::negate(check, 0), (0, false));
        assert!(u32::negate(check, 1).1);
        assert!(i32::absolute(check, i32::MIN).1);
        assert_eq!(i32::absolute(check, -5), (5, false));
        assert_eq!(u64::absolute(check, u64::MAX), (u64::MAX, false));
        assert!(u16::apply(ArithOp::Mul, check, 256, 256).1);
    }
}

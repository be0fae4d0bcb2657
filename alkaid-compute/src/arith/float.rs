//! Float arithmetic: IEEE 754, never failing (division by zero gives an infinity or NaN,
//! overflow an infinity). `Float16` computes in `f32` and rounds back.

use alkaid_buffer::NativeType;
use alkaid_buffer::native::f16;

use super::op::ArithOp;

/// A float type's operations.
pub(crate) trait Float: NativeType {
    /// `a op b`.
    fn apply(op: ArithOp, a: Self, b: Self) -> Self;
    /// `-a`.
    fn negate(a: Self) -> Self;
    /// `|a|`.
    fn absolute(a: Self) -> Self;
}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            #[inline(always)]
            fn apply(op: ArithOp, a: Self, b: Self) -> Self {
                match op {
                    ArithOp::Add => a + b,
                    ArithOp::Sub => a - b,
                    ArithOp::Mul => a * b,
                    ArithOp::Div => a / b,
                    ArithOp::Rem => a % b,
                }
            }
            #[inline(always)]
            fn negate(a: Self) -> Self {
                -a
            }
            #[inline(always)]
            fn absolute(a: Self) -> Self {
                a.abs()
            }
        }
    )*};
}
float!(f32, f64);

impl Float for f16 {
    #[inline(always)]
    fn apply(op: ArithOp, a: Self, b: Self) -> Self {
        f16::from_f32(f32::apply(op, a.to_f32(), b.to_f32()))
    }
    #[inline(always)]
    fn negate(a: Self) -> Self {
        -a
    }
    #[inline(always)]
    fn absolute(a: Self) -> Self {
        f16::from_f32(a.to_f32().abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_by_zero_follows_ieee() {
        assert_eq!(f64::apply(ArithOp::Div, 1.0, 0.0), f64::INFINITY);
        assert_eq!(f64::apply(ArithOp::Div, -1.0, 0.0), f64::NEG_INFINITY);
        assert!(f64::apply(ArithOp::Div, 0.0, 0.0).is_nan());
        assert!(f32::apply(ArithOp::Rem, 1.0, 0.0).is_nan());
        assert_eq!(f32::apply(ArithOp::Rem, -7.5, 2.0), -1.5);
        assert_eq!(f64::negate(0.0).to_bits(), (-0.0f64).to_bits());
        let half = f16::from_f32(1.5);
        assert_eq!(f16::apply(ArithOp::Mul, half, half), f16::from_f32(2.25));
        assert_eq!(f16::absolute(f16::from_f32(-2.0)), f16::from_f32(2.0));
    }
}

//! Decimal arithmetic (rules in the [module docs](super)): each row computed exactly in
//! `i128` when its operands and result fit there, else in 256 bits, then checked against
//! the result's precision and stored in the result's width.

use alkaid_buffer::native::i256;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, DecimalType};

use super::kernel::{Side, try_binary, try_unary};
use super::op::{ArithOp, Job};
use crate::access::native_values;
use crate::decimal::{DecimalNative, max_of_precision, pow10, round_div, with_decimal};
use crate::error::ComputeError;

fn decimal_of(data_type: &DataType) -> Option<&DecimalType> {
    match data_type {
        DataType::Decimal(d) => Some(d),
        _ => None,
    }
}

/// The type of `left op right` for two decimals.
pub(super) fn result_type(
    op: ArithOp,
    left: &DataType,
    right: &DataType,
) -> Result<DataType, ComputeError> {
    let (Some(l), Some(r)) = (decimal_of(left), decimal_of(right)) else {
        return Err(ComputeError::unsupported(
            op.name(),
            "expected two decimals",
        ));
    };
    if l.width() != r.width() {
        return Err(ComputeError::unsupported(
            op.name(),
            format!(
                "cannot compute {left} {} {right}: cast one side to the other's width first",
                op.symbol()
            ),
        ));
    }
    let max = i32::from(l.width().max_precision());
    let (p1, s1) = (i32::from(l.precision()), i32::from(l.scale()));
    let (p2, s2) = (i32::from(r.precision()), i32::from(r.scale()));
    let (precision, scale) = match op {
        ArithOp::Add | ArithOp::Sub => {
            let scale = s1.max(s2);
            ((p1 - s1).max(p2 - s2) + scale + 1, scale)
        }
        ArithOp::Mul => (p1 + p2 + 1, s1 + s2),
        ArithOp::Div => {
            let scale = (s1 + 4).min(max.max(s1));
            (p1 - s1 + s2 + scale, scale)
        }
        ArithOp::Rem => {
            let scale = s1.max(s2);
            ((p1 - s1).min(p2 - s2) + scale, scale)
        }
    };
    let scale = i8::try_from(scale).map_err(|_| {
        ComputeError::unsupported(
            op.name(),
            format!(
                "the scale of {left} {} {right} would be {scale}, past 127",
                op.symbol()
            ),
        )
    })?;
    let precision = precision.clamp(1, max) as u8;
    Ok(DataType::Decimal(DecimalType::try_new(
        l.width(),
        precision,
        scale,
    )?))
}

/// Powers of ten a row's operands are multiplied by before the operation: `left` and
/// `right` for `+`, `−` and `%` (to the common scale), the numerator's and denominator's for
/// `÷`. `None` when the power does not fit 256 bits.
#[derive(Clone, Copy)]
struct Scaling {
    op: ArithOp,
    left: Option<i256>,
    right: Option<i256>,
    /// The same powers in `i128`, where they fit.
    left_128: Option<i128>,
    right_128: Option<i128>,
    /// The result's bound: `10^precision - 1`.
    max: i256,
    max_128: Option<i128>,
}

impl Scaling {
    fn new(op: ArithOp, left: &DecimalType, right: &DecimalType, output: &DecimalType) -> Self {
        let (s1, s2, s) = (
            i32::from(left.scale()),
            i32::from(right.scale()),
            i32::from(output.scale()),
        );
        let (left_exp, right_exp) = match op {
            ArithOp::Add | ArithOp::Sub | ArithOp::Rem => (s - s1, s - s2),
            ArithOp::Mul => (0, 0),
            ArithOp::Div => {
                let k = s - s1 + s2;
                (k.max(0), (-k).max(0))
            }
        };
        let power = |exp: i32| pow10(exp as u32);
        let narrow = |p: Option<i256>| p.and_then(|p| p.to_i128());
        let max = max_of_precision(output.precision());
        Self {
            op,
            left: power(left_exp),
            right: power(right_exp),
            left_128: narrow(power(left_exp)),
            right_128: narrow(power(right_exp)),
            max,
            max_128: max.to_i128(),
        }
    }

    /// The row in `i128`, or `None` if some step does not fit there (or fails).
    #[inline(always)]
    fn fast(&self, a: i128, b: i128) -> Option<i128> {
        let value = match self.op {
            ArithOp::Add => a
                .checked_mul(self.left_128?)?
                .checked_add(b.checked_mul(self.right_128?)?)?,
            ArithOp::Sub => a
                .checked_mul(self.left_128?)?
                .checked_sub(b.checked_mul(self.right_128?)?)?,
            ArithOp::Mul => a.checked_mul(b)?,
            ArithOp::Div => {
                let numerator = a.checked_mul(self.left_128?)?;
                let denominator = b.checked_mul(self.right_128?)?;
                if denominator == 0 {
                    return None;
                }
                let (quotient, remainder) =
                    (numerator.checked_div(denominator)?, numerator % denominator);
                // Half away from zero: |remainder| * 2 >= |denominator|.
                if remainder != 0
                    && remainder.unsigned_abs()
                        >= denominator.unsigned_abs() - remainder.unsigned_abs()
                {
                    quotient
                        + if (numerator < 0) != (denominator < 0) {
                            -1
                        } else {
                            1
                        }
                } else {
                    quotient
                }
            }
            ArithOp::Rem => {
                let divisor = b.checked_mul(self.right_128?)?;
                a.checked_mul(self.left_128?)?.checked_rem(divisor)?
            }
        };
        let max = self.max_128?;
        (value <= max && value >= -max).then_some(value)
    }

    /// The row in 256 bits, or `None` if it overflows, fails its precision or divides by
    /// zero.
    fn exact(&self, a: i256, b: i256) -> Option<i256> {
        let scaled = |v: i256, power: Option<i256>| match power {
            Some(p) => v.checked_mul(p),
            None if v == i256::ZERO => Some(i256::ZERO),
            None => None,
        };
        let value = match self.op {
            ArithOp::Add => scaled(a, self.left)?.checked_add(scaled(b, self.right)?)?,
            ArithOp::Sub => scaled(a, self.left)?.checked_sub(scaled(b, self.right)?)?,
            ArithOp::Mul => a.checked_mul(b)?,
            ArithOp::Div => round_div(scaled(a, self.left)?, scaled(b, self.right)?)?,
            ArithOp::Rem => {
                let (_, remainder) =
                    scaled(a, self.left)?.checked_div_rem(scaled(b, self.right)?)?;
                remainder
            }
        };
        (value <= self.max && value >= self.max.wrapping_neg()).then_some(value)
    }

    /// The row in the result's width `T`, and whether it failed.
    #[inline(always)]
    fn row<T: DecimalNative>(&self, a: T, b: T) -> (T, bool) {
        if !T::WIDE
            && let (Some(a), Some(b)) = (a.try_to_i128(), b.try_to_i128())
            && let Some(value) = self.fast(a, b).and_then(T::try_from_i128)
        {
            return (value, false);
        }
        match self.exact(a.widen(), b.widen()).and_then(T::try_narrow) {
            Some(value) => (value, false),
            None => (T::default(), true),
        }
    }
}

/// `left op right` for two decimals of one width.
pub(super) fn compute(job: &Job<'_>) -> Result<ArrayData, ComputeError> {
    let (Some(l), Some(r), Some(out)) = (
        decimal_of(job.left.data.data_type()),
        decimal_of(job.right.data.data_type()),
        decimal_of(&job.output),
    ) else {
        return Err(ComputeError::unsupported(
            job.op.name(),
            "expected two decimals",
        ));
    };
    let scaling = Scaling::new(job.op, l, r, out);
    with_decimal!(out.width(), |T| {
        let (lv, rv) = (
            native_values::<T>(&job.left.data)?,
            native_values::<T>(&job.right.data)?,
        );
        let (ls, rs) = (
            Side::new(&lv, job.left.scalar),
            Side::new(&rv, job.right.scalar),
        );
        let same_scale = l.scale() == r.scale() && !T::WIDE;
        let max = scaling.max_128.unwrap_or(i128::MAX);
        // |v| <= max as one unsigned comparison: v + max lands in 0..=2 max exactly then.
        let span = (max as u128).wrapping_mul(2);
        let outside = move |v: i128| v.wrapping_add(max) as u128 > span;
        let result = match job.op {
            // The common case gets its own loop: no rescaling, one add and one bound check.
            ArithOp::Add if same_scale => {
                try_binary(ls, rs, job.len, job.valid.as_ref(), |a, b| {
                    match (a.try_to_i128(), b.try_to_i128()) {
                        (Some(a), Some(b)) => {
                            let (v, o) = a.overflowing_add(b);
                            let bad = o | outside(v);
                            (T::try_from_i128(v).unwrap_or_default(), bad)
                        }
                        _ => scaling.row(a, b),
                    }
                })
            }
            ArithOp::Sub if same_scale => {
                try_binary(ls, rs, job.len, job.valid.as_ref(), |a, b| {
                    match (a.try_to_i128(), b.try_to_i128()) {
                        (Some(a), Some(b)) => {
                            let (v, o) = a.overflowing_sub(b);
                            let bad = o | outside(v);
                            (T::try_from_i128(v).unwrap_or_default(), bad)
                        }
                        _ => scaling.row(a, b),
                    }
                })
            }
            _ => try_binary(ls, rs, job.len, job.valid.as_ref(), |a, b| {
                scaling.row(a, b)
            }),
        };
        match result {
            Ok(values) => job.finish(values),
            Err(row) => Err(job.failure(row, rs.at(row) == T::default())),
        }
    })
}

/// `-data` or `|data|` for a decimal array: never out of its precision.
pub(super) fn unary(negate: bool, data: &ArrayData) -> Result<ArrayData, ComputeError> {
    let Some(decimal) = decimal_of(data.data_type()) else {
        return Err(ComputeError::unsupported("neg", "expected a decimal"));
    };
    let values = with_decimal!(decimal.width(), |T| {
        let values = native_values::<T>(data)?;
        // |v| <= 10^precision - 1 < the width's maximum, so negation fits; values outside
        // the precision (possible in unvalidated data) are negated in 256 bits and fail
        // only if they then do not fit the width.
        let result = try_unary(&values, data.nulls(), |v| {
            let wide = v.widen();
            let flipped = if negate || wide.is_negative() {
                wide.wrapping_neg()
            } else {
                wide
            };
            match T::try_narrow(flipped) {
                Some(value) if wide != i256::MIN => (value, false),
                _ => (T::default(), true),
            }
        });
        result.map_err(|row| ComputeError::Overflow {
            row: Some(row),
            message: format!(
                "the {} of {} does not fit {}",
                if negate { "negation" } else { "absolute value" },
                values[row],
                data.data_type()
            ),
        })?
    });
    Ok(ArrayData::builder(data.data_type().clone())
        .len(data.len())
        .nulls(data.nulls().cloned())
        .buffers(vec![values])
        .build()?)
}

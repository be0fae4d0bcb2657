//! Arithmetic: `add`, `sub`, `mul`, `div`, `rem`, `neg`, `abs`, checked by default.
//!
//! | inputs | result | notes |
//! | --- | --- | --- |
//! | two integers of one type | that type | overflow and division by zero are errors naming the row; the `_wrapping` kernels wrap instead (division by zero stays an error); `MIN % -1` is 0 |
//! | two floats of one type | that type | IEEE 754: never an error |
//! | two decimals of one width | a decimal of that width | precision and scale below; a result that does not fit its precision is an error |
//! | timestamp − timestamp | duration | in the finer unit of the two |
//! | timestamp ± duration, duration + timestamp | timestamp | the finer unit, the timestamp's zone |
//! | duration ± duration | duration | the finer unit |
//! | date ± interval, timestamp ± interval, interval + date or timestamp | the date or timestamp | calendar arithmetic, below |
//! | date − date | duration | seconds for `Date32`, milliseconds for `Date64` |
//! | interval ± interval, of one unit | interval | field by field, each checked |
//! | `Null` and anything | the other type, all null | |
//!
//! **Decimals** follow the rules Hive set and most SQL engines use (arrow-rs too), with
//! `p`, `s` the precision and scale of each side and `P` the width's largest precision:
//! `+` and `−` give scale `max(s1, s2)` and precision `max(p1 − s1, p2 − s2) + max(s1, s2) + 1`;
//! `×` gives scale `s1 + s2` and precision `p1 + p2 + 1`; `÷` gives scale `s1 + 4` and
//! precision `p1 − s1 + s2 + s1 + 4`, the quotient **rounded half away from zero** (arrow-rs
//! truncates); `%` gives scale `max(s1, s2)` and precision `min(p1 − s1, p2 − s2) + max(s1, s2)`.
//! Precisions are capped at `P`, and then a value with more digits is an overflow error
//! (arrow-rs lets it through). Both sides must have one width; cast one first otherwise.
//!
//! **Calendar arithmetic** adds months first, keeping the day of the month unless the new
//! month is shorter (then its last day: January 31 plus one month is February 28 or 29),
//! then days, then the rest as elapsed time. A timestamp with a zone does the month and day
//! steps in that zone's local time (so a day is 23 or 25 hours across a daylight-saving
//! change) and resolves a local time that falls in a gap or an overlap as the earlier
//! offset does; a timestamp without a zone uses UTC. A `Date32` drops the part of an
//! interval shorter than a day (toward zero); a `Date64` keeps milliseconds.
//!
//! Dictionary and run-end encoded inputs beside a scalar keep their encoding: the values
//! are computed once and the keys or runs stay as they were.

mod decimal;
mod divide;
mod float;
mod integer;
pub(crate) mod kernel;
mod op;
mod temporal;

use alkaid_array::{Array, ArrayRef, Datum, display::format_value, make_array, make_builder};
use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, IntervalUnit, NativeKind, PhysicalType};

use crate::access::native_values;
use crate::error::ComputeError;
use crate::lift::{Lift, lift_binary, lift_unary};
use crate::operand::{Operand, binary_operands, operand_validity, result_len};
use divide::SignedDivisor;
use float::Float;
use integer::Integer;
use kernel::{Side, map_binary, try_binary, try_unary};
pub(crate) use op::{ArithOp, Job, Overflow};

macro_rules! arithmetic {
    ($(#[$doc:meta])* $name:ident, $op:ident, $overflow:ident) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// If the types do not combine (see the [module docs](self)), two arrays differ in
        /// length, or a row fails: [`ComputeError::Overflow`] or
        /// [`ComputeError::DivideByZero`], naming the row.
        pub fn $name(left: &dyn Datum, right: &dyn Datum) -> Result<ArrayRef, ComputeError> {
            binary(ArithOp::$op, Overflow::$overflow, left, right)
        }
    };
}

arithmetic!(
    /// `left + right`, checked.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::{AsArray, Int64Array, Scalar, types::Int64Type};
    /// use alkaid_compute::add;
    /// let sums = add(&Int64Array::from(vec![Some(1), None, Some(3)]), &Scalar::from(10i64))?;
    /// let sums = sums.as_primitive::<Int64Type>();
    /// assert_eq!(sums.iter().collect::<Vec<_>>(), [Some(11), None, Some(13)]);
    /// let error = add(&Int64Array::from(vec![0, i64::MAX]), &Scalar::from(1i64)).unwrap_err();
    /// assert_eq!(error.row(), Some(1));
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    add, Add, Check
);
arithmetic!(
    /// `left + right`, wrapping on integer overflow.
    add_wrapping, Add, Wrap
);
arithmetic!(
    /// `left - right`, checked.
    sub, Sub, Check
);
arithmetic!(
    /// `left - right`, wrapping on integer overflow.
    sub_wrapping, Sub, Wrap
);
arithmetic!(
    /// `left * right`, checked.
    mul, Mul, Check
);
arithmetic!(
    /// `left * right`, wrapping on integer overflow.
    mul_wrapping, Mul, Wrap
);
arithmetic!(
    /// `left / right`, checked: integers truncate toward zero, decimals round half away
    /// from zero; integer and decimal division by zero is an error, float division by zero
    /// gives an infinity or NaN.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::Int32Array;
    /// use alkaid_compute::{div, ComputeError};
    /// let error = div(&Int32Array::from(vec![4, 5]), &Int32Array::from(vec![2, 0])).unwrap_err();
    /// assert!(matches!(error, ComputeError::DivideByZero { row: 1 }));
    /// ```
    div, Div, Check
);
arithmetic!(
    /// `left / right`, wrapping on integer overflow (`MIN / -1` is `MIN`); division by zero
    /// is still an error.
    div_wrapping, Div, Wrap
);
arithmetic!(
    /// `left % right`: the remainder of truncating division, with the sign of `left`.
    rem, Rem, Check
);

/// `-array`, checked (negating an integer's minimum, or any unsigned value but zero, is an
/// error naming the row).
///
/// # Errors
/// For types without a negation (strings, unsigned integers that are not zero, …) and
/// overflows.
///
/// # Examples
/// ```
/// use alkaid_array::{AsArray, Int8Array, types::Int8Type};
/// use alkaid_compute::neg;
/// let negated = neg(&Int8Array::from(vec![1, -5]))?;
/// assert_eq!(negated.as_primitive::<Int8Type>().values().as_slice(), &[-1, 5]);
/// assert!(neg(&Int8Array::from(vec![i8::MIN])).is_err());
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn neg(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    unary(Unary::Neg, Overflow::Check, array)
}

/// `-array`, wrapping on integer overflow.
///
/// # Errors
/// For types without a negation.
pub fn neg_wrapping(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    unary(Unary::Neg, Overflow::Wrap, array)
}

/// `|array|`, checked (the absolute value of an integer's minimum is an error).
///
/// # Errors
/// For types without an absolute value, and overflows.
pub fn abs(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    unary(Unary::Abs, Overflow::Check, array)
}

/// `|array|`, wrapping on integer overflow (`|MIN|` is `MIN`).
///
/// # Errors
/// For types without an absolute value.
pub fn abs_wrapping(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    unary(Unary::Abs, Overflow::Wrap, array)
}

fn binary(
    op: ArithOp,
    overflow: Overflow,
    left: &dyn Datum,
    right: &dyn Datum,
) -> Result<ArrayRef, ComputeError> {
    let (left, right, _) = binary_operands(left, right)?;
    let data = lift_binary(&left, &right, Lift::Keep, &|l, r| plain(op, overflow, l, r))?;
    Ok(make_array(data))
}

/// What a binary operation on two plain types computes.
enum Plan {
    /// Integers (or durations or year-month intervals, which add as integers).
    Integer(NativeKind),
    /// Floats.
    Float(NativeKind),
    /// Decimals.
    Decimal,
    /// Temporal values of different kinds or units.
    Temporal,
    /// One side is `Null`: every row is null.
    Null,
}

fn plan(op: ArithOp, left: &DataType, right: &DataType) -> Result<(Plan, DataType), ComputeError> {
    let additive = matches!(op, ArithOp::Add | ArithOp::Sub);
    let same = left == right;
    let plan = match (left, right) {
        (DataType::Null, DataType::Null) => (Plan::Null, DataType::Null),
        (DataType::Null, other) | (other, DataType::Null) => (Plan::Null, other.clone()),
        _ if same && left.is_integer() => (Plan::Integer(primitive(left)), left.clone()),
        _ if same && left.is_floating() => (Plan::Float(primitive(left)), left.clone()),
        (DataType::Decimal(_), DataType::Decimal(_)) => {
            (Plan::Decimal, decimal::result_type(op, left, right)?)
        }
        (DataType::Duration(_), DataType::Duration(_))
        | (
            DataType::Interval(IntervalUnit::YearMonth),
            DataType::Interval(IntervalUnit::YearMonth),
        ) if same && additive => (Plan::Integer(primitive(left)), left.clone()),
        _ => match temporal::result_type(op, left, right) {
            Some(data_type) => (Plan::Temporal, data_type),
            None => {
                return Err(ComputeError::unsupported(
                    op.name(),
                    format!("cannot compute {left} {} {right}", op.symbol()),
                ));
            }
        },
    };
    Ok(plan)
}

fn primitive(data_type: &DataType) -> NativeKind {
    match data_type.to_physical() {
        PhysicalType::Primitive(p) => p,
        _ => NativeKind::Int64,
    }
}

fn plain(
    op: ArithOp,
    overflow: Overflow,
    left: &Operand,
    right: &Operand,
) -> Result<ArrayData, ComputeError> {
    let (plan, output) = plan(op, left.data.data_type(), right.data.data_type())?;
    let len = result_len(left, right);
    let valid = NullBuffer::union(
        operand_validity(left, len)?.as_ref(),
        operand_validity(right, len)?.as_ref(),
    );
    if matches!(plan, Plan::Null)
        || valid
            .as_ref()
            .is_some_and(|v| v.null_count() == len && len > 0)
    {
        return null_array(&output, len);
    }
    let job = Job {
        op,
        overflow,
        left,
        right,
        len,
        valid,
        output,
    };
    match plan {
        Plan::Integer(p) => alkaid_array::with_integer!(p, |T| integers::<T>(&job)),
        Plan::Float(p) => alkaid_array::with_float!(p, |T| floats::<T>(&job)),
        Plan::Decimal => decimal::compute(&job),
        Plan::Temporal => temporal::compute(&job),
        Plan::Null => unreachable!("answered above"),
    }
}

/// `len` nulls of `data_type`.
pub(crate) fn null_array(data_type: &DataType, len: usize) -> Result<ArrayData, ComputeError> {
    let mut builder = make_builder(data_type, len)?;
    for _ in 0..len {
        builder.append_null();
    }
    Ok(builder.try_finish()?.to_data())
}

/// Evaluates `$body` with `$op` and `$overflow` bound to the constants `op` and `overflow`
/// hold, so that each combination's loop is compiled with them folded in.
macro_rules! constant_op {
    ($op:expr, $overflow:expr, |$o:ident, $v:ident| $body:expr) => {{
        match ($op, $overflow) {
            (ArithOp::Add, Overflow::Check) => {
                const $o: ArithOp = ArithOp::Add;
                const $v: Overflow = Overflow::Check;
                $body
            }
            (ArithOp::Add, Overflow::Wrap) => {
                const $o: ArithOp = ArithOp::Add;
                const $v: Overflow = Overflow::Wrap;
                $body
            }
            (ArithOp::Sub, Overflow::Check) => {
                const $o: ArithOp = ArithOp::Sub;
                const $v: Overflow = Overflow::Check;
                $body
            }
            (ArithOp::Sub, Overflow::Wrap) => {
                const $o: ArithOp = ArithOp::Sub;
                const $v: Overflow = Overflow::Wrap;
                $body
            }
            (ArithOp::Mul, Overflow::Check) => {
                const $o: ArithOp = ArithOp::Mul;
                const $v: Overflow = Overflow::Check;
                $body
            }
            (ArithOp::Mul, Overflow::Wrap) => {
                const $o: ArithOp = ArithOp::Mul;
                const $v: Overflow = Overflow::Wrap;
                $body
            }
            (ArithOp::Div, Overflow::Check) => {
                const $o: ArithOp = ArithOp::Div;
                const $v: Overflow = Overflow::Check;
                $body
            }
            (ArithOp::Div, Overflow::Wrap) => {
                const $o: ArithOp = ArithOp::Div;
                const $v: Overflow = Overflow::Wrap;
                $body
            }
            (ArithOp::Rem, _) => {
                const $o: ArithOp = ArithOp::Rem;
                const $v: Overflow = Overflow::Check;
                $body
            }
        }
    }};
}

fn integers<T: Integer>(job: &Job<'_>) -> Result<ArrayData, ComputeError> {
    let (l, r) = (
        native_values::<T>(&job.left.data)?,
        native_values::<T>(&job.right.data)?,
    );
    let (ls, rs) = (
        Side::new(&l, job.left.scalar),
        Side::new(&r, job.right.scalar),
    );
    // An array divided by a scalar divides by multiplying (see `divide.rs`); a scalar of
    // 0, 1 or -1, and `u64`, go the general way, which names a division by zero or an
    // overflow.
    if let (Side::Values(values), Side::Scalar(divisor)) = (ls, rs)
        && matches!(job.op, ArithOp::Div | ArithOp::Rem)
        && T::FITS_I64
        && !matches!(divisor.widen(), -1..=1)
    {
        let divisor = SignedDivisor::new(divisor.widen());
        let (values, none) = (Side::Values(values), Side::Scalar(0u8));
        let divided = match job.op {
            ArithOp::Div => map_binary(values, none, job.len, |a: T, _| {
                T::narrow(divisor.divide(a.widen()))
            }),
            _ => map_binary(values, none, job.len, |a: T, _| {
                T::narrow(divisor.remainder(a.widen()))
            }),
        };
        return job.finish(divided);
    }
    // Wrapping addition, subtraction and multiplication cannot fail: one pass, no flags.
    let infallible = job.overflow == Overflow::Wrap
        && matches!(job.op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul);
    let result = constant_op!(job.op, job.overflow, |OP, OV| {
        if infallible {
            Ok(map_binary(ls, rs, job.len, |a, b| T::apply(OP, OV, a, b).0))
        } else {
            try_binary(ls, rs, job.len, job.valid.as_ref(), |a, b| {
                T::apply(OP, OV, a, b)
            })
        }
    });
    match result {
        Ok(values) => job.finish(values),
        Err(row) => Err(job.failure(row, rs.at(row) == T::default())),
    }
}

fn floats<T: Float>(job: &Job<'_>) -> Result<ArrayData, ComputeError> {
    let (l, r) = (
        native_values::<T>(&job.left.data)?,
        native_values::<T>(&job.right.data)?,
    );
    let (ls, rs) = (
        Side::new(&l, job.left.scalar),
        Side::new(&r, job.right.scalar),
    );
    let values = constant_op!(job.op, Overflow::Check, |OP, _OV| {
        map_binary(ls, rs, job.len, |a, b| T::apply(OP, a, b))
    });
    job.finish(values)
}

/// A unary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unary {
    Neg,
    Abs,
}

fn unary(op: Unary, overflow: Overflow, array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let data = lift_unary(&array.to_data(), Lift::Keep, &|data| {
        unary_plain(op, overflow, data)
    })?;
    Ok(make_array(data))
}

fn unary_plain(op: Unary, overflow: Overflow, data: &ArrayData) -> Result<ArrayData, ComputeError> {
    let data_type = data.data_type();
    let valid = data.nulls();
    let name = if op == Unary::Neg { "neg" } else { "abs" };
    let fail = |row: usize| ComputeError::Overflow {
        row: Some(row),
        message: format!(
            "{name}({}) does not fit {data_type}",
            format_value(make_array(data.clone()).as_ref(), row)
        ),
    };
    let values = match (data_type, data_type.to_physical()) {
        (DataType::Null, _) => return Ok(data.clone()),
        (DataType::Decimal(_), _) => return decimal::unary(op == Unary::Neg, data),
        (DataType::Interval(unit), _) if op == Unary::Neg && *unit != IntervalUnit::YearMonth => {
            return temporal::negate_interval(data);
        }
        (_, PhysicalType::Primitive(p))
            if data_type.is_integer()
                || matches!(data_type, DataType::Duration(_))
                || (op == Unary::Neg
                    && matches!(data_type, DataType::Interval(IntervalUnit::YearMonth))) =>
        {
            alkaid_array::with_integer!(p, |T| {
                let values = native_values::<T>(data)?;
                let result = match op {
                    Unary::Neg => try_unary(&values, valid, |a| T::negate(overflow, a)),
                    Unary::Abs => try_unary(&values, valid, |a| T::absolute(overflow, a)),
                };
                result.map_err(fail)?
            })
        }
        (_, PhysicalType::Primitive(p)) if data_type.is_floating() => {
            alkaid_array::with_float!(p, |T| {
                let values = native_values::<T>(data)?;
                let result = match op {
                    Unary::Neg => try_unary(&values, None, |a| (T::negate(a), false)),
                    Unary::Abs => try_unary(&values, None, |a| (T::absolute(a), false)),
                };
                result.unwrap_or_else(|_| unreachable!("float negation never fails"))
            })
        }
        _ => {
            return Err(ComputeError::unsupported(
                name,
                format!(
                    "{data_type} has no {}",
                    if op == Unary::Neg {
                        "negation"
                    } else {
                        "absolute value"
                    }
                ),
            ));
        }
    };
    Ok(ArrayData::builder(data_type.clone())
        .len(data.len())
        .nulls(valid.cloned())
        .buffers(vec![values])
        .build()?)
}

#[cfg(test)]
mod tests;

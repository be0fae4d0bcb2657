//! Math: square roots, exponentials, logarithms, trigonometry, powers, signs and rounding.
//!
//! | kernels | inputs | result |
//! | --- | --- | --- |
//! | [`sqrt`], [`exp`], [`ln`], [`log10`], [`log2`], [`sin`], [`cos`], [`tan`], [`asin`], [`acos`], [`atan`] | floats; integers and decimals as `Float64` | the float type (`Float64` for integers and decimals); IEEE 754, never an error: `sqrt(-1)` and `ln(-1)` are NaN, `ln(0)` is −∞ (pyarrow's unchecked kernels) |
//! | [`atan2`], [`power`] | two floats of one type, or numbers widened to `Float64`; [`power`] of two integers of one type | as above; an integer power is checked (overflow and a negative exponent are errors naming the row) |
//! | [`sign`] | integers, floats, decimals | −1, 0 or 1 in the input's type (NaN stays NaN, both zeros are 0); `Int64` for decimals, as pyarrow |
//! | [`round`], [`ceil`], [`floor`], [`trunc`] | floats, integers, decimals | the input's type; [`round`] to a number of digits (negative: tens, hundreds, …) with a [`RoundMode`]; a decimal or integer result that does not fit its type is an error naming the row |
//!
//! `abs` and `neg` are arithmetic kernels ([`crate::arith`]). Every kernel keeps the input's
//! nulls, computes a dictionary's values or a run's value once and keeps the encoding,
//! and takes `Null` arrays (all null, of the result type).

mod float;
mod input;
mod round;

use alkaid_array::{Array, ArrayRef, make_array};
use alkaid_schema::{DataType, PhysicalType};

use crate::error::ComputeError;
use crate::lift::{Lift, lift_unary};

pub use float::{atan2, power};
pub use round::{RoundMode, ceil, floor, round, sign, trunc};

use float::Unary;
use input::as_float;

macro_rules! float_function {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// If the input is not a number (see the [module docs](self)).
        pub fn $name(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
            float_unary(Unary::$op, array)
        }
    };
}

float_function!(
    /// The square root of each value (NaN below zero).
    ///
    /// ```
    /// use alkaid_array::{Array, AsArray, Float64Array, types::Float64Type};
    /// let roots = alkaid_compute::sqrt(&Float64Array::from(vec![Some(9.0), None, Some(-1.0)]))?;
    /// let roots = roots.as_primitive::<Float64Type>();
    /// assert_eq!((roots.value(0), roots.is_null(1), roots.value(2).is_nan()), (3.0, true, true));
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    sqrt,
    Sqrt
);
float_function!(
    /// `e` raised to each value.
    exp,
    Exp
);
float_function!(
    /// The natural logarithm of each value (−∞ at zero, NaN below).
    ln,
    Ln
);
float_function!(
    /// The base-10 logarithm of each value (−∞ at zero, NaN below).
    log10,
    Log10
);
float_function!(
    /// The base-2 logarithm of each value (−∞ at zero, NaN below).
    log2,
    Log2
);
float_function!(
    /// The sine of each value, in radians.
    sin,
    Sin
);
float_function!(
    /// The cosine of each value, in radians.
    cos,
    Cos
);
float_function!(
    /// The tangent of each value, in radians.
    tan,
    Tan
);
float_function!(
    /// The arcsine of each value, in radians (NaN outside −1..=1).
    asin,
    Asin
);
float_function!(
    /// The arccosine of each value, in radians (NaN outside −1..=1).
    acos,
    Acos
);
float_function!(
    /// The arctangent of each value, in radians.
    atan,
    Atan
);

fn float_unary(op: Unary, array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let data = array.to_data();
    if data.data_type() == &DataType::Null {
        return Ok(make_array(data));
    }
    let result = lift_unary(&data, Lift::Keep, &|plain| {
        let (floats, to) = as_float(op.name(), plain)?;
        let PhysicalType::Primitive(kind) = to.to_physical() else {
            unreachable!("float types are primitive")
        };
        float::unary(op, kind, &floats)
    })?;
    Ok(make_array(result))
}

#[cfg(test)]
mod tests;

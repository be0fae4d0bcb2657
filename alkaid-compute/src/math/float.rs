//! The float functions, and the two binary ones: `atan2` and `power`.
//!
//! Every float type computes in `f64` and rounds back (`f32` results are then correctly
//! rounded for `sqrt`, and within an ulp for the others, as the platform's `f32` functions
//! are; `Float16` goes through `f32` too).

use alkaid_array::{ArrayRef, Datum, make_array};
use alkaid_buffer::native::f16;
use alkaid_buffer::{Buffer, NativeType, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, NativeKind, PhysicalType};

use super::input::{as_float, rebuilt};
use crate::access::native_values;
use crate::arith::kernel::{Side, map_binary, try_binary};
use crate::arith::null_array;
use crate::error::ComputeError;
use crate::lift::{Lift, lift_binary};
use crate::operand::{Operand, binary_operands, operand_validity, result_len};

/// A float type, computed through `f64`.
pub(super) trait Real: NativeType {
    fn to_f64(self) -> f64;
    fn from_f64(value: f64) -> Self;
}

impl Real for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value
    }
}

impl Real for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

impl Real for f16 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        f16::from_f64(value)
    }
}

/// A one-argument float function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unary {
    Sqrt,
    Exp,
    Ln,
    Log10,
    Log2,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
}

impl Unary {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Sqrt => "sqrt",
            Self::Exp => "exp",
            Self::Ln => "ln",
            Self::Log10 => "log10",
            Self::Log2 => "log2",
            Self::Sin => "sin",
            Self::Cos => "cos",
            Self::Tan => "tan",
            Self::Asin => "asin",
            Self::Acos => "acos",
            Self::Atan => "atan",
        }
    }
}

/// `op` of each value of the plain float array `data` of native kind `kind`.
pub(super) fn unary(
    op: Unary,
    kind: NativeKind,
    data: &ArrayData,
) -> Result<ArrayData, ComputeError> {
    // A loop per function, each calling it directly: through a function pointer, no
    // call could be inlined and `sqrt` (one instruction) did not vectorise (13 ms for
    // 4 Mi values, against pyarrow's 6.8).
    macro_rules! each_function {
        ($($op:ident => $function:path),*) => {
            match op {
                $(Unary::$op => alkaid_array::with_float!(kind, |T| {
                    let values = native_values::<T>(data)?;
                    map::<T>(&values, |v| T::from_f64($function(v.to_f64())))
                }),)*
            }
        };
    }
    let values = each_function!(
        Sqrt => f64::sqrt,
        Exp => f64::exp,
        Ln => f64::ln,
        Log10 => f64::log10,
        Log2 => f64::log2,
        Sin => f64::sin,
        Cos => f64::cos,
        Tan => f64::tan,
        Asin => f64::asin,
        Acos => f64::acos,
        Atan => f64::atan
    );
    rebuilt(data.data_type().clone(), data, values)
}

#[inline(always)]
fn map<T: NativeType>(values: &[T], f: impl Fn(T) -> T) -> Buffer {
    Buffer::from_vec(values.iter().map(|&v| f(v)).collect::<Vec<T>>())
}

/// The arctangent of `y / x` in radians, in the quadrant of the point `(x, y)`.
///
/// # Errors
/// If an input is not a number, or two arrays differ in length.
///
/// ```
/// use alkaid_array::{AsArray, Float64Array, Scalar, types::Float64Type};
/// let angles = alkaid_compute::atan2(&Float64Array::from(vec![1.0, -1.0]), &Scalar::from(-1.0f64))?;
/// let angles = angles.as_primitive::<Float64Type>();
/// assert_eq!((angles.value(0), angles.value(1)), (0.75 * std::f64::consts::PI, -0.75 * std::f64::consts::PI));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn atan2(y: &dyn Datum, x: &dyn Datum) -> Result<ArrayRef, ComputeError> {
    binary("atan2", y, x)
}

/// `base` raised to `exponent`: floats (or numbers of different types, as `Float64`) by
/// IEEE 754's `pow`; two integers of one type exactly, checked.
///
/// # Errors
/// If an input is not a number, two arrays differ in length, or an integer power
/// overflows its type or has a negative exponent (naming the row).
///
/// ```
/// use alkaid_array::{AsArray, Int64Array, Scalar, types::Int64Type};
/// let squares = alkaid_compute::power(&Int64Array::from(vec![3, -4]), &Scalar::from(2i64))?;
/// assert_eq!(squares.as_primitive::<Int64Type>().values().as_slice(), &[9, 16]);
/// assert!(alkaid_compute::power(&Int64Array::from(vec![10]), &Scalar::from(19i64)).is_err());
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn power(base: &dyn Datum, exponent: &dyn Datum) -> Result<ArrayRef, ComputeError> {
    binary("power", base, exponent)
}

fn binary(
    kernel: &'static str,
    left: &dyn Datum,
    right: &dyn Datum,
) -> Result<ArrayRef, ComputeError> {
    let (left, right, _) = binary_operands(left, right)?;
    let result = lift_binary(&left, &right, Lift::Keep, &|l, r| {
        binary_plain(kernel, l, r)
    })?;
    Ok(make_array(result))
}

fn binary_plain(
    kernel: &'static str,
    left: &Operand,
    right: &Operand,
) -> Result<ArrayData, ComputeError> {
    let len = result_len(left, right);
    let (lt, rt) = (left.data.data_type(), right.data.data_type());
    let integers = kernel == "power" && lt == rt && lt.is_integer();
    let nulls = (lt == &DataType::Null) || (rt == &DataType::Null);
    let output = match (integers, nulls) {
        (true, _) => lt.clone(),
        (false, true) => DataType::Float64,
        (false, false) if lt == rt && lt.is_floating() => lt.clone(),
        (false, false) => DataType::Float64,
    };
    if nulls {
        return null_array(&output, len);
    }
    let valid = NullBuffer::union(
        operand_validity(left, len)?.as_ref(),
        operand_validity(right, len)?.as_ref(),
    );
    let values = if integers {
        let PhysicalType::Primitive(kind) = output.to_physical() else {
            unreachable!("integers are primitive")
        };
        alkaid_array::with_integer!(kind, |T| integer_power::<T>(
            left,
            right,
            len,
            valid.as_ref()
        )?)
    } else {
        let widen = |operand: &Operand| -> Result<Operand, ComputeError> {
            let (data, _) = as_float(kernel, &operand.data)?;
            let data = if data.data_type() == &output {
                data
            } else {
                crate::cast::cast(
                    make_array(data).as_ref(),
                    &output,
                    crate::cast::CastOptions::STRICT,
                )?
                .to_data()
            };
            Ok(operand.with_data(data))
        };
        let (left, right) = (widen(left)?, widen(right)?);
        let PhysicalType::Primitive(kind) = output.to_physical() else {
            unreachable!("floats are primitive")
        };
        let f: fn(f64, f64) -> f64 = if kernel == "power" {
            f64::powf
        } else {
            f64::atan2
        };
        alkaid_array::with_float!(kind, |T| {
            let (l, r) = (
                native_values::<T>(&left.data)?,
                native_values::<T>(&right.data)?,
            );
            let (ls, rs) = (Side::new(&l, left.scalar), Side::new(&r, right.scalar));
            map_binary(ls, rs, len, |a, b| T::from_f64(f(a.to_f64(), b.to_f64())))
        })
    };
    Ok(ArrayData::builder(output)
        .len(len)
        .nulls(valid)
        .buffers(vec![values])
        .build()?)
}

/// A checked integer power.
trait IntegerPower: NativeType + std::fmt::Display {
    fn checked_power(self, exponent: Self) -> Option<Self>;
}

macro_rules! integer_power {
    ($($t:ty),*) => {$(
        impl IntegerPower for $t {
            #[allow(unused_comparisons)]
            fn checked_power(self, exponent: Self) -> Option<Self> {
                if exponent < 0 {
                    return None;
                }
                let exponent = u32::try_from(exponent).ok();
                match exponent {
                    Some(e) => self.checked_pow(e),
                    // Only 0, 1 and -1 survive an exponent past u32::MAX.
                    None if self == 0 || self == 1 => Some(self),
                    None => None,
                }
            }
        }
    )*};
}
integer_power!(i8, i16, i32, i64, u8, u16, u32, u64);

fn integer_power<T: IntegerPower>(
    left: &Operand,
    right: &Operand,
    len: usize,
    valid: Option<&NullBuffer>,
) -> Result<Buffer, ComputeError> {
    let (l, r) = (
        native_values::<T>(&left.data)?,
        native_values::<T>(&right.data)?,
    );
    let (ls, rs) = (Side::new(&l, left.scalar), Side::new(&r, right.scalar));
    try_binary(ls, rs, len, valid, |a, b| match a.checked_power(b) {
        Some(v) => (v, false),
        None => (T::default(), true),
    })
    .map_err(|row| ComputeError::Overflow {
        row: Some(row),
        message: format!(
            "power({}, {}) has no value of the input's type",
            ls.at(row),
            rs.at(row)
        ),
    })
}

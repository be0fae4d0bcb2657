//! Numbers to numbers: every integer and float width, and booleans as 0 and 1.
//!
//! Integers convert exactly or fail (out of the target's range); floats to integers
//! truncate toward zero and fail on NaN, infinities and values out of range; integers to
//! floats round to the nearest float; floats narrow by rounding (overflowing to infinity,
//! as IEEE 754 does).

use alkaid_buffer::native::f16;
use alkaid_buffer::{BooleanBuffer, NativeType};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, NativeKind, PhysicalType};

use super::options::CastOptions;
use super::values::{convert_rows, primitive};
use crate::access::native_values;
use crate::error::ComputeError;

/// A number a cast reads and writes.
pub(super) trait Number: NativeType + std::fmt::Display {
    /// Whether the type is an integer.
    const INTEGER: bool;
    /// The value as an integer (integers only).
    fn as_integer(self) -> i128;
    /// The value as a float.
    fn as_float(self) -> f64;
    /// The integer as this type, if it fits.
    fn from_integer(value: i128) -> Option<Self>;
    /// The float as this type: truncated toward zero for integers (if it fits), rounded
    /// for floats.
    fn from_float(value: f64) -> Option<Self>;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Number for $t {
            const INTEGER: bool = true;
            #[inline(always)]
            fn as_integer(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn as_float(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_integer(value: i128) -> Option<Self> {
                <$t>::try_from(value).ok()
            }
            #[inline(always)]
            fn from_float(value: f64) -> Option<Self> {
                // The bounds are powers of two, exact as floats: [MIN, MAX + 1).
                let low = <$t>::MIN as f64;
                let high = if <$t>::MIN == 0 { <$t>::MAX as f64 + 1.0 } else { -(<$t>::MIN as f64) };
                let truncated = value.trunc();
                (truncated >= low && truncated < high).then(|| truncated as $t)
            }
        }
    )*};
}
integer!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Number for $t {
            const INTEGER: bool = false;
            #[inline(always)]
            fn as_integer(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn as_float(self) -> f64 {
                f64::from(self)
            }
            #[inline(always)]
            fn from_integer(value: i128) -> Option<Self> {
                Some(value as $t)
            }
            #[inline(always)]
            fn from_float(value: f64) -> Option<Self> {
                Some(value as $t)
            }
        }
    )*};
}
float!(f32, f64);

impl Number for f16 {
    const INTEGER: bool = false;
    fn as_integer(self) -> i128 {
        f16::to_f64(self) as i128
    }
    fn as_float(self) -> f64 {
        f16::to_f64(self)
    }
    fn from_integer(value: i128) -> Option<Self> {
        Some(f16::from_f64(value as f64))
    }
    fn from_float(value: f64) -> Option<Self> {
        Some(f16::from_f64(value))
    }
}

/// Evaluates `$body` with `$t` the Rust type of the numeric physical type `$p`, or
/// evaluates `$other` for the others (decimals, intervals): the crate's integer and float
/// maps, side by side.
macro_rules! with_number {
    ($p:expr, |$t:ident| $body:expr, $other:expr) => {{
        use alkaid_schema::NativeKind as P;
        match $p {
            p @ (P::Int8
            | P::Int16
            | P::Int32
            | P::Int64
            | P::UInt8
            | P::UInt16
            | P::UInt32
            | P::UInt64) => {
                alkaid_array::with_integer!(p, |$t| $body)
            }
            p @ (P::Float16 | P::Float32 | P::Float64) => {
                alkaid_array::with_float!(p, |$t| $body)
            }
            _ => $other,
        }
    }};
}
pub(super) use with_number;

/// `value` as `T`, if it fits.
#[inline(always)]
pub(super) fn number<S: Number, T: Number>(value: S) -> Option<T> {
    if S::INTEGER && T::INTEGER {
        T::from_integer(value.as_integer())
    } else {
        // Integers reach floats through f64: exact up to 2^53, rounded beyond.
        T::from_float(value.as_float())
    }
}

/// The physical numeric type of `data_type`, if it has one (numbers, and the temporal
/// types, whose values are integers).
pub(super) fn numeric_physical(data_type: &DataType) -> Option<NativeKind> {
    match data_type.to_physical() {
        PhysicalType::Primitive(p)
            if !matches!(
                p,
                NativeKind::Int128
                    | NativeKind::Int256
                    | NativeKind::DayTime
                    | NativeKind::MonthDayNano
            ) =>
        {
            Some(p)
        }
        _ => None,
    }
}

/// Numbers of `data` (any numeric physical type) as `to` (another).
pub(super) fn numbers(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    let (Some(from_p), Some(to_p)) = (numeric_physical(data.data_type()), numeric_physical(to))
    else {
        return Err(ComputeError::unsupported(
            "cast",
            format!("{} to {}", data.data_type(), to),
        ));
    };
    with_number!(
        from_p,
        |S| {
            let values = native_values::<S>(data)?;
            with_number!(
                to_p,
                |T| {
                    // One branch-free pass first; only if some valid row does not fit is
                    // the input gone over again row by row.
                    let mut fits = true;
                    let converted: Vec<T> = crate::bits::vectorized(|| {
                        values
                            .iter()
                            .map(|&v| match number::<S, T>(v) {
                                Some(t) => t,
                                None => {
                                    fits = false;
                                    T::default()
                                }
                            })
                            .collect()
                    });
                    let failed_at_valid_row = !fits
                        && (0..data.len())
                            .any(|row| data.is_valid(row) && number::<S, T>(values[row]).is_none());
                    if !failed_at_valid_row {
                        return primitive(to, converted.into(), data.nulls().cloned());
                    }
                    convert_rows::<T>(to, data.len(), data.nulls(), options, |row| {
                        number::<S, T>(values[row]).ok_or_else(|| {
                            format!(
                                "{} {} is out of the range of {}",
                                data.data_type(),
                                values[row],
                                to
                            )
                        })
                    })
                },
                unreachable!("checked above")
            )
        },
        unreachable!("checked above")
    )
}

/// Booleans as numbers: `true` is 1.
pub(super) fn from_booleans(data: &ArrayData, to: &DataType) -> Result<ArrayData, ComputeError> {
    let bits = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
    let Some(p) = numeric_physical(to) else {
        return Err(ComputeError::unsupported(
            "cast",
            format!("Boolean to {to}"),
        ));
    };
    with_number!(
        p,
        |T| {
            let one = T::from_integer(1).expect("1 fits every number");
            let values: Vec<T> = bits
                .iter()
                .map(|b| if b { one } else { T::default() })
                .collect();
            primitive(to, values.into(), data.nulls().cloned())
        },
        unreachable!("checked above")
    )
}

/// Numbers as booleans: zero is `false`, anything else (NaN included) `true`.
pub(super) fn to_booleans(data: &ArrayData) -> Result<ArrayData, ComputeError> {
    let Some(p) = numeric_physical(data.data_type()) else {
        return Err(ComputeError::unsupported(
            "cast",
            format!("{} to Boolean", data.data_type()),
        ));
    };
    let bits: BooleanBuffer = with_number!(
        p,
        |S| {
            let values = native_values::<S>(data)?;
            crate::bits::collect_bits(data.len(), |i| values[i] != S::default())
        },
        unreachable!("checked above")
    );
    Ok(ArrayData::builder(DataType::Boolean)
        .len(data.len())
        .nulls(data.nulls().cloned())
        .buffers(vec![bits.inner().clone()])
        .build()?)
}

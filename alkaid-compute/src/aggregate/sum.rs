//! Sums and means: exact for integers and decimals (whatever the number of rows, the total
//! is computed without overflow, and only the result is checked against its type), in
//! eight lanes of `f64` for floats.

use alkaid_buffer::native::{f16, i256};
use alkaid_buffer::{BooleanBuffer, NativeType};
use alkaid_schema::{DataType, DecimalType, DecimalWidth, NativeKind, PhysicalType};

use super::lanes::lanes;
use super::rows::{Rows, natives};
use crate::bits::vectorized;
use crate::decimal::{DecimalNative, max_of_precision, with_decimal};
use crate::error::ComputeError;

/// What a sum adds, and what it gives.
#[derive(Debug, Clone)]
pub(crate) enum SumKind {
    /// Signed integers, summed into `Int64`.
    Signed(NativeKind),
    /// Unsigned integers, summed into `UInt64`.
    Unsigned(NativeKind),
    /// Floats, summed into `Float64`.
    Float(NativeKind),
    /// Decimals, summed into the same width and scale with 10 more digits of precision.
    Decimal(DecimalType),
    /// Durations, summed into the same type.
    Duration(DataType),
}

impl SumKind {
    /// The kind of sum of `data_type`, if it has one.
    pub fn of(data_type: &DataType) -> Option<Self> {
        let PhysicalType::Primitive(p) = data_type.to_physical() else {
            return None;
        };
        Some(match data_type {
            DataType::Decimal(d) => Self::Decimal(*d),
            DataType::Duration(_) => Self::Duration(data_type.clone()),
            _ if data_type.is_signed_integer() => Self::Signed(p),
            _ if data_type.is_integer() => Self::Unsigned(p),
            _ if data_type.is_floating() => Self::Float(p),
            _ => return None,
        })
    }

    /// The type of the sum.
    pub fn output(&self) -> DataType {
        match self {
            Self::Signed(_) => DataType::Int64,
            Self::Unsigned(_) => DataType::UInt64,
            Self::Float(_) => DataType::Float64,
            Self::Decimal(d) => {
                let precision = (d.precision() + 10).min(d.width().max_precision());
                DataType::Decimal(
                    DecimalType::try_new(d.width(), precision, d.scale())
                        .expect("a precision within the width's maximum"),
                )
            }
            Self::Duration(data_type) => data_type.clone(),
        }
    }
}

/// An exact total, before it is checked against the result type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Total {
    /// Integers, durations and decimals of up to 64 bits.
    Int(i128),
    /// Floats.
    Float(f64),
    /// Decimals of 128 and 256 bits.
    Wide(i256),
}

impl Total {
    /// The total as a float (for means): decimals scaled by their scale.
    pub fn to_f64(self, scale: i8) -> f64 {
        let raw = match self {
            Self::Int(v) => v as f64,
            Self::Float(v) => return v,
            Self::Wide(v) => i256_to_f64(v),
        };
        raw / 10f64.powi(i32::from(scale))
    }
}

/// A 256-bit integer as the nearest-enough float.
pub(crate) fn i256_to_f64(value: i256) -> f64 {
    let (low, high) = value.to_parts();
    high as f64 * 2f64.powi(128) + low as f64
}

/// The exact total of the rows that count.
pub(crate) fn total(rows: &Rows, kind: &SumKind) -> Result<Total, ComputeError> {
    let selection = rows.selection.as_ref();
    if let Some(weights) = &rows.weights {
        return weighted_total(rows, kind, weights);
    }
    Ok(match kind {
        SumKind::Signed(p) | SumKind::Unsigned(p) => alkaid_array::with_integer!(*p, |T| {
            let values = natives::<T>(rows)?;
            Total::Int(vectorized(|| integer_sum(&values, selection)))
        }),
        SumKind::Duration(_) => {
            let values = natives::<i64>(rows)?;
            Total::Int(vectorized(|| integer_sum(&values, selection)))
        }
        SumKind::Float(p) => alkaid_array::with_float!(*p, |T| {
            let values = natives::<T>(rows)?;
            Total::Float(vectorized(|| float_sum(&values, selection)))
        }),
        SumKind::Decimal(d) => match d.width() {
            DecimalWidth::W32 => {
                let values = natives::<i32>(rows)?;
                Total::Int(vectorized(|| integer_sum(&values, selection)))
            }
            DecimalWidth::W64 => {
                let values = natives::<i64>(rows)?;
                Total::Int(vectorized(|| integer_sum(&values, selection)))
            }
            DecimalWidth::W128 => Total::Wide(wide_sum(&natives::<i128>(rows)?, selection)),
            DecimalWidth::W256 => Total::Wide(checked_sum(&natives::<i256>(rows)?, selection)?),
        },
    })
}

/// An integer split so that its parts add up without overflow: `hi * 2^32 + lo` with
/// `lo < 2^32` and `|hi| <= 2^32`.
pub(crate) trait SplitInt: NativeType {
    /// Whether values may pass `i64`'s range (`u64`) or sums of a block of them may
    /// (`i64`): those are split; narrower ones add up in `i64` as they are.
    const WIDE: bool;
    /// Whether the type is unsigned.
    const UNSIGNED: bool;
    /// The two parts.
    fn split(self) -> (i64, u64);
    /// The value as an `i64` (meaningful for the narrow types only).
    fn narrow(self) -> i64;
}

macro_rules! split_signed {
    ($($t:ty => $wide:expr),*) => {$(
        impl SplitInt for $t {
            const WIDE: bool = $wide;
            const UNSIGNED: bool = false;
            #[inline(always)]
            fn split(self) -> (i64, u64) {
                let v = self as i64;
                (v >> 32, (v as u64) & 0xffff_ffff)
            }
            #[inline(always)]
            fn narrow(self) -> i64 {
                self as i64
            }
        }
    )*};
}
split_signed!(i8 => false, i16 => false, i32 => false, i64 => true);

macro_rules! split_unsigned {
    ($($t:ty => $wide:expr),*) => {$(
        impl SplitInt for $t {
            const WIDE: bool = $wide;
            const UNSIGNED: bool = true;
            #[inline(always)]
            fn split(self) -> (i64, u64) {
                let v = self as u64;
                ((v >> 32) as i64, v & 0xffff_ffff)
            }
            #[inline(always)]
            fn narrow(self) -> i64 {
                self as i64
            }
        }
    )*};
}
split_unsigned!(u8 => false, u16 => false, u32 => false, u64 => true);

/// Rows per block of [`integer_sum`]: few enough that no lane overflows (`2^30` values
/// of at most `2^32` in size sum to at most `2^62`).
const SUM_BLOCK: usize = 1 << 30;

/// The exact sum of integers, a block at a time in eight 64-bit lanes (which vectorise),
/// joined in 128 bits: values of up to 32 bits as they are, 64-bit ones split into two
/// parts that each add up without overflow.
#[inline(always)]
pub(crate) fn integer_sum<T: SplitInt>(values: &[T], selection: Option<&BooleanBuffer>) -> i128 {
    let mut total = 0i128;
    let mut start = 0;
    while start < values.len() {
        let end = (start + SUM_BLOCK).min(values.len());
        let block = &values[start..end];
        let bits = selection.map(|s| s.slice(start, end - start));
        total += if T::WIDE {
            wide_block(block, bits.as_ref())
        } else {
            let mut acc = [0i64; 8];
            lanes(block, bits.as_ref(), |lane, v: T, keep| {
                acc[lane] += v.narrow() & keep as i64
            });
            acc.iter().map(|&a| i128::from(a)).sum()
        };
        start = end;
    }
    total
}

/// The exact sum of a block of 64-bit integers: in eight wrapping lanes with a flag for
/// any addition that wrapped (add, xor, and, or: all vector instructions), and only if one
/// did, again with each value split into two parts that cannot overflow (whose arithmetic
/// shift AVX2 lacks, so it is the slower loop).
#[inline(always)]
fn wide_block<T: SplitInt>(block: &[T], bits: Option<&BooleanBuffer>) -> i128 {
    if !T::UNSIGNED {
        let (mut acc, mut wrapped) = ([0i64; 8], 0i64);
        lanes(block, bits, |lane, v: T, keep| {
            let v = v.narrow() & keep as i64;
            let sum = acc[lane].wrapping_add(v);
            // Signed overflow: both operands' signs differ from the sum's.
            wrapped |= (acc[lane] ^ sum) & (v ^ sum);
            acc[lane] = sum;
        });
        if wrapped >= 0 {
            return acc.iter().map(|&a| i128::from(a)).sum();
        }
    }
    let (mut hi, mut lo) = ([0i64; 8], [0u64; 8]);
    lanes(block, bits, |lane, v: T, keep| {
        let (h, l) = v.split();
        hi[lane] += h & keep as i64;
        lo[lane] += l & keep;
    });
    let high: i128 = hi.iter().map(|&h| i128::from(h)).sum();
    let low: i128 = lo.iter().map(|&l| i128::from(l)).sum();
    high * (1 << 32) + low
}

/// A float that sums in `f64`.
pub(crate) trait SumFloat: NativeType {
    /// The value as `f64`.
    fn to_f64(self) -> f64;
}

impl SumFloat for f16 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
}
impl SumFloat for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}
impl SumFloat for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

/// The sum of floats in eight lanes (so not in row order: the last bits may differ from a
/// sequential sum's).
#[inline(always)]
pub(crate) fn float_sum<T: SumFloat>(values: &[T], selection: Option<&BooleanBuffer>) -> f64 {
    let mut acc = [0f64; 8];
    lanes(values, selection, |lane, v: T, keep| {
        acc[lane] += if keep != 0 { v.to_f64() } else { 0.0 };
    });
    acc.iter().sum()
}

/// The exact sum of 128-bit values in 256 bits: a wrapping 128-bit sum and a count of the
/// times it wrapped.
fn wide_sum(values: &[i128], selection: Option<&BooleanBuffer>) -> i256 {
    let (mut low, mut high) = (0u128, 0i128);
    let mut add = |v: i128| {
        let (sum, carried) = low.overflowing_add(v as u128);
        low = sum;
        high += i128::from(carried) - i128::from(v < 0);
    };
    match selection {
        None => values.iter().for_each(|&v| add(v)),
        Some(selection) => selection.set_indices().for_each(|i| add(values[i])),
    }
    i256::from_parts(low, high)
}

/// The sum of 256-bit values, failing if it does not fit 256 bits.
fn checked_sum(values: &[i256], selection: Option<&BooleanBuffer>) -> Result<i256, ComputeError> {
    let overflow = || ComputeError::Overflow {
        row: None,
        message: "the sum of 256-bit decimals does not fit 256 bits".into(),
    };
    let mut total = i256::ZERO;
    let rows: Box<dyn Iterator<Item = usize>> = match selection {
        Some(selection) => Box::new(selection.set_indices()),
        None => Box::new(0..values.len()),
    };
    for i in rows {
        total = total.checked_add(values[i]).ok_or_else(overflow)?;
    }
    Ok(total)
}

/// The total of encoded values: each value times its weight.
fn weighted_total(rows: &Rows, kind: &SumKind, weights: &[u64]) -> Result<Total, ComputeError> {
    let overflow = || ComputeError::Overflow {
        row: None,
        message: format!("the sum of {} does not fit 256 bits", rows.data.data_type()),
    };
    let used = (0..weights.len()).filter(|&i| rows.selected(i));
    Ok(match kind {
        SumKind::Float(p) => alkaid_array::with_float!(*p, |T| {
            let values = natives::<T>(rows)?;
            Total::Float(used.map(|i| values[i].to_f64() * weights[i] as f64).sum())
        }),
        SumKind::Signed(p) | SumKind::Unsigned(p) => alkaid_array::with_integer!(*p, |T| {
            let values = natives::<T>(rows)?;
            let mut total = 0i128;
            for i in used {
                let (h, l) = values[i].split();
                let value = i128::from(h) * (1 << 32) + i128::from(l);
                total = value
                    .checked_mul(i128::from(weights[i]))
                    .and_then(|v| total.checked_add(v))
                    .ok_or_else(overflow)?;
            }
            Total::Int(total)
        }),
        SumKind::Duration(_) => {
            let values = natives::<i64>(rows)?;
            let mut total = 0i128;
            for i in used {
                total = i128::from(values[i])
                    .checked_mul(i128::from(weights[i]))
                    .and_then(|v| total.checked_add(v))
                    .ok_or_else(overflow)?;
            }
            Total::Int(total)
        }
        SumKind::Decimal(d) => with_decimal!(d.width(), |T| {
            let values = natives::<T>(rows)?;
            let mut total = i256::ZERO;
            for i in used {
                let weight = i256::from_i128(i128::from(weights[i]));
                total = values[i]
                    .widen()
                    .checked_mul(weight)
                    .and_then(|v| total.checked_add(v))
                    .ok_or_else(overflow)?;
            }
            Total::Wide(total)
        }),
    })
}

/// The total as a value of the sum's type, checked.
pub(crate) fn checked_total(total: Total, kind: &SumKind) -> Result<TotalValue, ComputeError> {
    let too_big = |shown: String| ComputeError::Overflow {
        row: None,
        message: format!("the sum {shown} does not fit {}", kind.output()),
    };
    Ok(match (kind, total) {
        (SumKind::Float(_), Total::Float(v)) => TotalValue::Float(v),
        (SumKind::Unsigned(_), Total::Int(v)) => {
            TotalValue::UInt(u64::try_from(v).map_err(|_| too_big(v.to_string()))?)
        }
        (SumKind::Signed(_) | SumKind::Duration(_), Total::Int(v)) => {
            TotalValue::Int(i64::try_from(v).map_err(|_| too_big(v.to_string()))?)
        }
        (SumKind::Decimal(_), total) => {
            let value = match total {
                Total::Int(v) => i256::from_i128(v),
                Total::Wide(v) => v,
                Total::Float(_) => unreachable!("decimals total as integers"),
            };
            let DataType::Decimal(out) = kind.output() else {
                unreachable!("a decimal sum is a decimal")
            };
            let max = max_of_precision(out.precision());
            if value > max || value < max.wrapping_neg() {
                return Err(too_big(value.to_string()));
            }
            TotalValue::Decimal(value)
        }
        (_, total) => unreachable!("{total:?} is not a total of {kind:?}"),
    })
}

/// A checked total, ready to become a scalar of the sum's type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TotalValue {
    Int(i64),
    UInt(u64),
    Float(f64),
    Decimal(i256),
}

//! Fixed-width values compared in their native type, a word of 64 answers at a time; and
//! decimals and timestamps of different scales or units, brought to a common one first.

use alkaid_buffer::BooleanBuffer;
use alkaid_buffer::native::i256;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, NativeKind, TimeUnit};

use super::op::CmpOp;
use crate::access::native_values;
use crate::bits::vectorized;
use crate::decimal::{decimal_to_i256, pow10};
use crate::error::ComputeError;
use crate::operand::Operand;
use crate::order::TotalOrder;
use crate::pack::{map_bits, zip_bits};
use alkaid_array::with_native;

/// Two operands of one fixed-width type (`physical`), compared as stored.
pub(super) fn compare(
    op: CmpOp,
    physical: NativeKind,
    left: &Operand,
    right: &Operand,
) -> Result<BooleanBuffer, ComputeError> {
    with_native!(physical, |T| {
        let (l, r) = (
            native_values::<T>(&left.data)?,
            native_values::<T>(&right.data)?,
        );
        Ok(compare_natives(op, &l, left.scalar, &r, right.scalar))
    })
}

/// `op` over two slices, either of which may be a scalar (one value for every row).
pub(crate) fn compare_natives<T: TotalOrder>(
    op: CmpOp,
    left: &[T],
    left_scalar: bool,
    right: &[T],
    right_scalar: bool,
) -> BooleanBuffer {
    match (left_scalar, right_scalar) {
        (false, false) => vectorized(|| compare_slices(op, left, right)),
        (false, true) => vectorized(|| compare_with(op, left, right[0])),
        (true, false) => vectorized(|| compare_with(op.flip(), right, left[0])),
        (true, true) => compare_with(op, left, right[0]),
    }
}

#[inline(always)]
fn compare_slices<T: TotalOrder>(op: CmpOp, left: &[T], right: &[T]) -> BooleanBuffer {
    match op {
        CmpOp::Eq => zip_bits(left, right, T::is_eq),
        CmpOp::Neq => zip_bits(left, right, |a, b| !T::is_eq(a, b)),
        CmpOp::Lt => zip_bits(left, right, T::is_lt),
        CmpOp::LtEq => zip_bits(left, right, T::is_le),
        CmpOp::Gt => zip_bits(left, right, |a, b| T::is_lt(b, a)),
        CmpOp::GtEq => zip_bits(left, right, |a, b| T::is_le(b, a)),
    }
}

#[inline(always)]
fn compare_with<T: TotalOrder>(op: CmpOp, values: &[T], scalar: T) -> BooleanBuffer {
    match op {
        CmpOp::Eq => map_bits(values, |v| T::is_eq(v, scalar)),
        CmpOp::Neq => map_bits(values, |v| !T::is_eq(v, scalar)),
        CmpOp::Lt => map_bits(values, |v| T::is_lt(v, scalar)),
        CmpOp::LtEq => map_bits(values, |v| T::is_le(v, scalar)),
        CmpOp::Gt => map_bits(values, |v| T::is_lt(scalar, v)),
        CmpOp::GtEq => map_bits(values, |v| T::is_le(scalar, v)),
    }
}

/// Decimals of different widths or scales, as numbers: both sides become 256-bit values
/// at the larger scale. A value too large for 256 bits at that scale is larger in size
/// than any 76-digit decimal, so it saturates without changing any answer.
pub(super) fn compare_decimals(
    op: CmpOp,
    left: &Operand,
    right: &Operand,
) -> Result<BooleanBuffer, ComputeError> {
    let scale = |data: &ArrayData| match data.data_type() {
        DataType::Decimal(d) => d.scale(),
        _ => 0,
    };
    let target = scale(&left.data).max(scale(&right.data));
    let widen = |data: &ArrayData| -> Result<Vec<i256>, ComputeError> {
        let factor = pow10(u32::try_from(i32::from(target) - i32::from(scale(data))).unwrap_or(0));
        let values = decimal_to_i256(data)?;
        Ok(values
            .into_iter()
            .map(|v| match factor.and_then(|f| v.checked_mul(f)) {
                Some(scaled) => scaled,
                None if v == i256::ZERO => i256::ZERO,
                None if v.is_negative() => i256::MIN,
                None => i256::MAX,
            })
            .collect())
    };
    let (l, r) = (widen(&left.data)?, widen(&right.data)?);
    Ok(compare_natives(op, &l, left.scalar, &r, right.scalar))
}

/// Timestamps of different units, as instants: both sides in nanoseconds, as `i128` (which
/// holds any `i64` count of seconds in nanoseconds).
pub(super) fn compare_timestamps(
    op: CmpOp,
    left: &Operand,
    right: &Operand,
) -> Result<BooleanBuffer, ComputeError> {
    let nanos = |data: &ArrayData| -> Result<Vec<i128>, ComputeError> {
        let factor: i128 = match data.data_type() {
            DataType::Timestamp(TimeUnit::Second, _) => 1_000_000_000,
            DataType::Timestamp(TimeUnit::Millisecond, _) => 1_000_000,
            DataType::Timestamp(TimeUnit::Microsecond, _) => 1_000,
            _ => 1,
        };
        let values = native_values::<i64>(data)?;
        Ok(values.iter().map(|&v| i128::from(v) * factor).collect())
    };
    let (l, r) = (nanos(&left.data)?, nanos(&right.data)?);
    Ok(compare_natives(op, &l, left.scalar, &r, right.scalar))
}

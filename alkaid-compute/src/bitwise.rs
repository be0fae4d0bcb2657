//! Bitwise operations on integers: [`bit_and`], [`bit_or`], [`bit_xor`], [`bit_not`],
//! [`shift_left`] and [`shift_right`].
//!
//! Both sides are integers of one type (or a [`Scalar`](alkaid_array::Scalar)), and so is
//! the result; a row is null where either side is. Shifts are checked: an amount below
//! zero or at least the type's width is an error naming the row (pyarrow's
//! `shift_left_checked`; arrow-rs wraps the amount instead). Bits shifted out are lost,
//! and `shift_right` of a signed integer copies its sign bit (an arithmetic shift).
//! Dictionary and run-end encoded inputs beside a scalar keep their encoding.

use alkaid_array::{Array, ArrayRef, Datum, make_array};
use alkaid_buffer::{NativeType, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use crate::access::native_values;
use crate::arith::kernel::{Side, map_binary, try_binary, try_unary};
use crate::arith::null_array;
use crate::error::ComputeError;
use crate::lift::{Lift, lift_binary, lift_unary};
use crate::operand::{Operand, binary_operands, operand_validity, result_len};

/// A bitwise operation of two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRight,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Self::And => "bit_and",
            Self::Or => "bit_or",
            Self::Xor => "bit_xor",
            Self::ShiftLeft => "shift_left",
            Self::ShiftRight => "shift_right",
        }
    }
}

/// An integer's bits.
trait Bits: NativeType + std::fmt::Display {
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    fn not(self) -> Self;
    /// `self << amount`, and whether the amount is out of range.
    fn shl(self, amount: Self) -> (Self, bool);
    /// `self >> amount`, and whether the amount is out of range.
    fn shr(self, amount: Self) -> (Self, bool);
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline(always)]
            fn and(self, other: Self) -> Self { self & other }
            #[inline(always)]
            fn or(self, other: Self) -> Self { self | other }
            #[inline(always)]
            fn xor(self, other: Self) -> Self { self ^ other }
            #[inline(always)]
            fn not(self) -> Self { !self }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shl(self, amount: Self) -> (Self, bool) {
                let bad = amount < 0 || amount as u64 >= u64::from(<$t>::BITS);
                (self.wrapping_shl(amount as u32), bad)
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shr(self, amount: Self) -> (Self, bool) {
                let bad = amount < 0 || amount as u64 >= u64::from(<$t>::BITS);
                (self.wrapping_shr(amount as u32), bad)
            }
        }
    )*};
}
bits!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! bitwise {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// If the sides are not integers of one type, two arrays differ in length, or (for
        /// shifts) an amount is out of range, naming the row.
        pub fn $name(left: &dyn Datum, right: &dyn Datum) -> Result<ArrayRef, ComputeError> {
            binary(Op::$op, left, right)
        }
    };
}

bitwise!(
    /// `left & right`, bit by bit.
    ///
    /// ```
    /// use alkaid_array::{AsArray, Int32Array, Scalar, types::Int32Type};
    /// let masked = alkaid_compute::bit_and(&Int32Array::from(vec![0b1100, 0b1010]), &Scalar::from(0b1000i32))?;
    /// assert_eq!(&masked.as_primitive::<Int32Type>().values()[..], &[0b1000, 0b1000]);
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    bit_and,
    And
);
bitwise!(
    /// `left | right`, bit by bit.
    bit_or,
    Or
);
bitwise!(
    /// `left ^ right`, bit by bit.
    bit_xor,
    Xor
);
bitwise!(
    /// `left << right`, checked: `right` must lie in `0..width`.
    ///
    /// ```
    /// use alkaid_array::{AsArray, UInt8Array, Scalar, types::UInt8Type};
    /// let shifted = alkaid_compute::shift_left(&UInt8Array::from(vec![1, 3]), &Scalar::from(7u8))?;
    /// assert_eq!(&shifted.as_primitive::<UInt8Type>().values()[..], &[128, 128]);
    /// assert!(alkaid_compute::shift_left(&UInt8Array::from(vec![1]), &Scalar::from(8u8)).is_err());
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    shift_left,
    ShiftLeft
);
bitwise!(
    /// `left >> right`, checked: `right` must lie in `0..width`; arithmetic for signed types.
    shift_right,
    ShiftRight
);

/// `!array`, bit by bit.
///
/// # Errors
/// If `array` is not an integer array.
///
/// ```
/// use alkaid_array::{AsArray, Int8Array, types::Int8Type};
/// let flipped = alkaid_compute::bit_not(&Int8Array::from(vec![0, -1, 5]))?;
/// assert_eq!(&flipped.as_primitive::<Int8Type>().values()[..], &[-1, 0, -6]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn bit_not(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let result = lift_unary(&array.to_data(), Lift::Keep, &|data| {
        let data_type = data.data_type();
        let values = match data_type.to_physical() {
            _ if data_type == &DataType::Null => return Ok(data.clone()),
            PhysicalType::Primitive(kind) if data_type.is_integer() => {
                alkaid_array::with_integer!(kind, |T| {
                    let values = native_values::<T>(data)?;
                    try_unary(&values, None, |v| (v.not(), false))
                        .unwrap_or_else(|_| unreachable!("bit_not never fails"))
                })
            }
            _ => {
                return Err(ComputeError::unsupported(
                    "bit_not",
                    format!("expected an integer, found {data_type}"),
                ));
            }
        };
        Ok(ArrayData::builder(data_type.clone())
            .len(data.len())
            .nulls(data.nulls().cloned())
            .buffers(vec![values])
            .build()?)
    })?;
    Ok(make_array(result))
}

fn binary(op: Op, left: &dyn Datum, right: &dyn Datum) -> Result<ArrayRef, ComputeError> {
    let (left, right, _) = binary_operands(left, right)?;
    let result = lift_binary(&left, &right, Lift::Keep, &|l, r| plain(op, l, r))?;
    Ok(make_array(result))
}

fn not_integers(op: Op, left: &DataType, right: &DataType) -> ComputeError {
    ComputeError::unsupported(
        op.name(),
        format!("expected integers of one type, found {left} and {right}"),
    )
}

fn plain(op: Op, left: &Operand, right: &Operand) -> Result<ArrayData, ComputeError> {
    let (lt, rt) = (left.data.data_type(), right.data.data_type());
    let len = result_len(left, right);
    let output = match (lt, rt) {
        (DataType::Null, DataType::Null) => DataType::Null,
        (DataType::Null, t) | (t, DataType::Null) if t.is_integer() => t.clone(),
        (l, r) if l == r && l.is_integer() => l.clone(),
        (l, r) => return Err(not_integers(op, l, r)),
    };
    if lt == &DataType::Null || rt == &DataType::Null {
        return null_array(&output, len);
    }
    let valid = NullBuffer::union(
        operand_validity(left, len)?.as_ref(),
        operand_validity(right, len)?.as_ref(),
    );
    let PhysicalType::Primitive(kind) = output.to_physical() else {
        unreachable!("integers are primitive")
    };
    let values = alkaid_array::with_integer!(kind, |T| {
        let (l, r) = (
            native_values::<T>(&left.data)?,
            native_values::<T>(&right.data)?,
        );
        let (ls, rs) = (Side::new(&l, left.scalar), Side::new(&r, right.scalar));
        match op {
            Op::And => map_binary(ls, rs, len, T::and),
            Op::Or => map_binary(ls, rs, len, T::or),
            Op::Xor => map_binary(ls, rs, len, T::xor),
            Op::ShiftLeft => shift(op, ls, rs, len, valid.as_ref(), T::shl)?,
            Op::ShiftRight => shift(op, ls, rs, len, valid.as_ref(), T::shr)?,
        }
    });
    Ok(ArrayData::builder(output)
        .len(len)
        .nulls(valid)
        .buffers(vec![values])
        .build()?)
}

/// A checked shift of every row (`f` is `Bits::shl` or `Bits::shr`, passed as its own
/// function item so that the loop inlines it).
fn shift<T: Bits>(
    op: Op,
    ls: Side<'_, T>,
    rs: Side<'_, T>,
    len: usize,
    valid: Option<&NullBuffer>,
    f: impl Fn(T, T) -> (T, bool) + Copy,
) -> Result<alkaid_buffer::Buffer, ComputeError> {
    // One amount for every row, in range: checked once, then shifted without the per-row
    // flags.
    if let Side::Scalar(amount) = rs
        && !f(T::default(), amount).1
    {
        return Ok(map_binary(ls, rs, len, move |a, b| f(a, b).0));
    }
    try_binary(ls, rs, len, valid, f).map_err(|row| {
        ComputeError::InvalidArgument(format!(
            "{}: the shift amount {} at row {row} is outside 0..{}",
            op.name(),
            rs.at(row),
            size_of::<T>() * 8
        ))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::types::{Int8Type, Int16Type, UInt16Type};
    use alkaid_array::{
        AsArray, DictionaryArray, Int8Array, Int16Array, Int32Array, NullArray, Scalar, UInt16Array,
    };

    use super::*;

    #[test]
    fn nulls_on_either_side_and_scalars() {
        let left = Int16Array::from(vec![Some(0b0110), None, Some(-1)]);
        let right = Int16Array::from(vec![Some(0b0011), Some(1), None]);
        let and = bit_and(&left, &right).unwrap();
        assert_eq!(
            and.as_primitive::<Int16Type>().iter().collect::<Vec<_>>(),
            [Some(0b0010), None, None]
        );
        let or = bit_or(&Scalar::from(1i16), &left).unwrap();
        assert_eq!(
            or.as_primitive::<Int16Type>().iter().collect::<Vec<_>>(),
            [Some(0b0111), None, Some(-1)]
        );
        let xor = bit_xor(&left.slice(2, 1).as_ref(), &Scalar::from(-1i16)).unwrap();
        assert_eq!(xor.as_primitive::<Int16Type>().value(0), 0);
        let nulls = bit_and(&left, &NullArray::new(3)).unwrap();
        assert_eq!(
            (nulls.data_type(), nulls.null_count()),
            (&DataType::Int16, 3)
        );
    }

    #[test]
    fn shifts_are_checked_where_the_row_is_valid() {
        let values = Int8Array::from(vec![Some(-128), Some(3), None]);
        let amounts = Int8Array::from(vec![Some(7), Some(1), Some(8)]);
        let right = shift_right(&values, &amounts).unwrap();
        assert_eq!(
            right.as_primitive::<Int8Type>().iter().collect::<Vec<_>>(),
            [Some(-1), Some(1), None]
        );
        let left = shift_left(&values, &Scalar::from(1i8)).unwrap();
        assert_eq!(left.as_primitive::<Int8Type>().value(1), 6);
        let error = shift_left(&values, &Int8Array::from(vec![0, -1, 0])).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("the shift amount -1 at row 1 is outside 0..8"),
            "{error}"
        );
        let error = shift_right(&UInt16Array::from(vec![1]), &Scalar::from(16u16)).unwrap_err();
        assert!(error.to_string().contains("outside 0..16"), "{error}");
        let wide = shift_left(&UInt16Array::from(vec![1]), &Scalar::from(15u16)).unwrap();
        assert_eq!(wide.as_primitive::<UInt16Type>().value(0), 1 << 15);
    }

    #[test]
    fn types_must_be_integers_of_one_type() {
        let error = bit_and(&Int32Array::from(vec![1]), &Int16Array::from(vec![1]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("bit_and: expected integers of one type, found Int32 and Int16"),
            "{error}"
        );
        let error = bit_not(&alkaid_array::Float64Array::from(vec![1.0]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("bit_not"), "{error}");
    }

    #[test]
    fn a_dictionary_beside_a_scalar_keeps_its_encoding() {
        let values: ArrayRef = Arc::new(Int8Array::from(vec![1, 2]));
        let keys = Int8Array::from(vec![Some(1), None, Some(0)]);
        let dictionary = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
        let shifted = shift_left(&dictionary, &Scalar::from(2i8)).unwrap();
        let shifted = shifted
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        assert_eq!(
            &shifted.values().as_primitive::<Int8Type>().values()[..],
            &[4, 8]
        );
        let flipped = bit_not(&dictionary).unwrap();
        assert!(flipped.data_type().is_dictionary());
    }
}

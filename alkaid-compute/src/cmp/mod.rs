//! Comparison: `eq`, `neq`, `lt`, `lt_eq`, `gt`, `gt_eq`, `distinct`, `not_distinct`, and
//! the null and NaN tests.
//!
//! Each compares two [`Datum`]s row by row into a [`BooleanArray`]. A row is null where
//! either side is null, except for `distinct` and `not_distinct` (SQL's `IS [NOT] DISTINCT
//! FROM`), which treat two nulls as equal and a null as different from any value, and are
//! never null.
//!
//! What compares with what:
//! - the same type on both sides (field names inside nested types may differ);
//! - timestamps of any units and zones: they compare as instants (a timestamp stores UTC);
//! - decimals of any widths and scales: they compare as numbers;
//! - text of any flavour with text (`Utf8`, `LargeUtf8`, `Utf8View`), and bytes of any
//!   flavour with bytes (`Binary`, `LargeBinary`, `BinaryView`, `FixedSizeBinary`), in the
//!   order of their bytes (for UTF-8, the order of code points);
//! - `Null` with anything (every row null);
//! - nested types (lists, structs, maps, unions) for equality only (`eq`, `neq`, `distinct`,
//!   `not_distinct`): two rows are equal when their values are, nulls inside included.
//!
//! Floats compare in the [total order](crate#floats) of the crate docs: `-0.0 = 0.0`,
//! `NaN = NaN`, and NaN above everything. Dictionary and run-end encoded inputs are compared
//! without expanding them beside a scalar: the dictionary's values are compared once and
//! the keys map the answers to the rows.

mod bytes;
mod nested;
mod nulls;
mod op;
mod primitive;

use alkaid_array::{Array, BooleanArray, Datum};
use alkaid_buffer::{BooleanBuffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use crate::access::is_binary_like;
use crate::error::ComputeError;
use crate::lift::{Lift, lift_binary};
use crate::operand::{Operand, binary_operands, operand_validity, result_len};

pub use nulls::{is_nan, is_not_null, is_null};
use op::CmpOp;

macro_rules! comparison {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// If the two inputs do not compare (see the [module docs](self)), or two arrays
        /// differ in length.
        pub fn $name(left: &dyn Datum, right: &dyn Datum) -> Result<BooleanArray, ComputeError> {
            compare(CmpOp::$op, left, right)
        }
    };
}

comparison!(
    /// `left = right`, row by row; null where either side is null.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::{Int32Array, Scalar};
    /// use alkaid_compute::eq;
    /// let values = Int32Array::from(vec![Some(1), None, Some(3)]);
    /// let result = eq(&values, &Scalar::from(3i32))?;
    /// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(false), None, Some(true)]);
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    eq, Eq
);
comparison!(
    /// `left <> right`, row by row; null where either side is null.
    neq, Neq
);
comparison!(
    /// `left < right`, row by row; null where either side is null.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::{Scalar, StringViewArray};
    /// use alkaid_compute::lt;
    /// let words = StringViewArray::from_iter_values(["apple", "pear", "a fig of some length"]);
    /// let result = lt(&words, &Scalar::from("b"))?;
    /// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(true), Some(false), Some(true)]);
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    lt, Lt
);
comparison!(
    /// `left <= right`, row by row; null where either side is null.
    lt_eq, LtEq
);
comparison!(
    /// `left > right`, row by row; null where either side is null.
    gt, Gt
);
comparison!(
    /// `left >= right`, row by row; null where either side is null.
    gt_eq, GtEq
);

/// `left IS DISTINCT FROM right`: like [`neq`], but two nulls are not distinct and a null
/// is distinct from every value; never null.
///
/// # Errors
/// As [`eq`].
///
/// # Examples
/// ```
/// use alkaid_array::Int32Array;
/// use alkaid_compute::distinct;
/// let left = Int32Array::from(vec![Some(1), None, None, Some(4)]);
/// let right = Int32Array::from(vec![Some(1), None, Some(3), Some(5)]);
/// let result = distinct(&left, &right)?;
/// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(false), Some(false), Some(true), Some(true)]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn distinct(left: &dyn Datum, right: &dyn Datum) -> Result<BooleanArray, ComputeError> {
    let same = not_distinct(left, right)?;
    Ok(BooleanArray::try_new(!same.values(), None)?)
}

/// `left IS NOT DISTINCT FROM right`: like [`eq`], but two nulls are equal and a null
/// differs from every value; never null.
///
/// # Errors
/// As [`eq`].
pub fn not_distinct(left: &dyn Datum, right: &dyn Datum) -> Result<BooleanArray, ComputeError> {
    let (left, right, len) = binary_operands(left, right)?;
    let equal = compare_operands(CmpOp::Eq, &left, &right)?;
    let (left_valid, right_valid) = (
        valid_bits(&operand_validity(&left, len)?, len),
        valid_bits(&operand_validity(&right, len)?, len),
    );
    // Equal where both are valid and equal, or both are null.
    let both_valid_and_equal = &(&left_valid & &right_valid) & equal.values();
    let both_null = &(!&left_valid) & &(!&right_valid);
    Ok(BooleanArray::try_new(
        &both_valid_and_equal | &both_null,
        None,
    )?)
}

fn compare(op: CmpOp, left: &dyn Datum, right: &dyn Datum) -> Result<BooleanArray, ComputeError> {
    let (left, right, _) = binary_operands(left, right)?;
    compare_operands(op, &left, &right)
}

/// The comparison of two operands, through their encodings.
pub(crate) fn compare_operands(
    op: CmpOp,
    left: &Operand,
    right: &Operand,
) -> Result<BooleanArray, ComputeError> {
    let data = lift_binary(left, right, Lift::Gather, &|l, r| compare_plain(op, l, r))?;
    Ok(BooleanArray::try_from(data)?)
}

fn valid_bits(nulls: &Option<NullBuffer>, len: usize) -> BooleanBuffer {
    match nulls {
        Some(nulls) => nulls.validity().clone(),
        None => BooleanBuffer::new_set(len),
    }
}

/// How two plain types compare.
enum Plan {
    /// Value by value, as stored.
    Direct,
    /// Decimals of different widths or scales: as numbers.
    Decimals,
    /// Timestamps of different units: as instants.
    Timestamps,
    /// One side is `Null`: every row is null.
    Null,
    /// Nested values, for equality.
    Nested,
}

fn plan(op: CmpOp, left: &DataType, right: &DataType) -> Result<Plan, ComputeError> {
    let (lp, rp) = (left.to_physical(), right.to_physical());
    let plan = match (left, right) {
        (DataType::Null, _) | (_, DataType::Null) => Plan::Null,
        (DataType::Decimal(l), DataType::Decimal(r)) => {
            if l.width() == r.width() && l.scale() == r.scale() {
                Plan::Direct
            } else {
                Plan::Decimals
            }
        }
        (DataType::Timestamp(lu, _), DataType::Timestamp(ru, _)) => {
            if lu == ru {
                Plan::Direct
            } else {
                Plan::Timestamps
            }
        }
        _ if is_binary_like(lp) && is_binary_like(rp) && left.is_string() == right.is_string() => {
            Plan::Direct
        }
        _ if left.is_nested()
            || matches!(lp, PhysicalType::SparseUnion | PhysicalType::DenseUnion) =>
        {
            if !left.eq_ignoring_names(right) {
                return Err(mismatch(op, left, right));
            }
            if !op.is_equality() {
                return Err(ComputeError::unsupported(
                    op.name(),
                    format!("{left} values have no order; only equality compares them"),
                ));
            }
            Plan::Nested
        }
        _ if left == right => Plan::Direct,
        _ => return Err(mismatch(op, left, right)),
    };
    Ok(plan)
}

fn mismatch(op: CmpOp, left: &DataType, right: &DataType) -> ComputeError {
    ComputeError::unsupported(op.name(), format!("cannot compare {left} with {right}"))
}

/// The comparison of two plain operands, as boolean array data.
fn compare_plain(op: CmpOp, left: &Operand, right: &Operand) -> Result<ArrayData, ComputeError> {
    let len = result_len(left, right);
    let (lt, rt) = (left.data.data_type(), right.data.data_type());
    let values = match plan(op, lt, rt)? {
        Plan::Null => BooleanBuffer::new_unset(len),
        Plan::Direct => match (lt.to_physical(), rt.to_physical()) {
            (PhysicalType::Boolean, PhysicalType::Boolean) => {
                compare_booleans(op, left, right, len)
            }
            (PhysicalType::Primitive(p), _) => primitive::compare(op, p, left, right)?,
            _ => bytes::compare(op, left, right, len)?,
        },
        Plan::Decimals => primitive::compare_decimals(op, left, right)?,
        Plan::Timestamps => primitive::compare_timestamps(op, left, right)?,
        Plan::Nested => nested::compare(op, left, right, len)?,
    };
    let nulls = if matches!(lt, DataType::Null) || matches!(rt, DataType::Null) {
        Some(NullBuffer::new_null(len))
    } else {
        NullBuffer::union(
            operand_validity(left, len)?.as_ref(),
            operand_validity(right, len)?.as_ref(),
        )
    };
    Ok(BooleanArray::try_new(values, nulls)?.to_data())
}

/// Booleans compared a word at a time (false < true).
fn compare_booleans(op: CmpOp, left: &Operand, right: &Operand, len: usize) -> BooleanBuffer {
    let bits = |operand: &Operand| {
        let data = &operand.data;
        let all = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
        match (operand.scalar, all.value(0)) {
            (false, _) => all,
            (true, true) => BooleanBuffer::new_set(len),
            (true, false) => BooleanBuffer::new_unset(len),
        }
    };
    if len == 0 {
        return BooleanBuffer::new_unset(0);
    }
    let (a, b) = (bits(left), bits(right));
    match op {
        CmpOp::Eq => !&(&a ^ &b),
        CmpOp::Neq => &a ^ &b,
        CmpOp::Lt => &(!&a) & &b,
        CmpOp::LtEq => &(!&a) | &b,
        CmpOp::Gt => a.and_not(&b),
        CmpOp::GtEq => &a | &(!&b),
    }
}

#[cfg(test)]
mod tests;

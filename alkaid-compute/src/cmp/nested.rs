//! Nested values (lists, structs, maps, unions) compared for equality, row by row through
//! the crate's row comparator.

use alkaid_buffer::BooleanBuffer;

use super::op::CmpOp;
use crate::bits::collect_bits;
use crate::error::ComputeError;
use crate::operand::Operand;
use crate::row_eq::row_eq;

/// `eq` or `neq` of two nested operands, into `len` answers (validity is the caller's).
pub(super) fn compare(
    op: CmpOp,
    left: &Operand,
    right: &Operand,
    len: usize,
) -> Result<BooleanBuffer, ComputeError> {
    let equal = row_eq(&left.data, &right.data)?;
    let (ls, rs) = (left.scalar, right.scalar);
    let row = |scalar: bool, i: usize| if scalar { 0 } else { i };
    let same = collect_bits(len, |i| equal(row(ls, i), row(rs, i)));
    Ok(match op {
        CmpOp::Neq => !&same,
        _ => same,
    })
}

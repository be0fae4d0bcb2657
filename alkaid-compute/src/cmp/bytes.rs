//! Binary and text values compared byte-wise (which, for UTF-8, is code point order),
//! whichever layouts the two sides use: each side's layout is resolved once, and the loop
//! is compiled for that pair.

use std::cmp::Ordering;

use alkaid_buffer::BooleanBuffer;

use super::op::CmpOp;
use crate::access::{ByteAccess, BytesVisitor, visit_bytes};
use crate::bits::collect_bits;
use crate::error::ComputeError;
use crate::operand::Operand;

/// Two binary-like operands compared value by value, into `len` answers.
pub(super) fn compare(
    op: CmpOp,
    left: &Operand,
    right: &Operand,
    len: usize,
) -> Result<BooleanBuffer, ComputeError> {
    let visitor = Left {
        op,
        right,
        left_scalar: left.scalar,
        len,
    };
    visit_bytes(&left.data, visitor)?.ok_or_else(|| not_bytes(left))?
}

fn not_bytes(operand: &Operand) -> ComputeError {
    ComputeError::unsupported(
        "compare",
        format!("{} is not binary or text", operand.data.data_type()),
    )
}

/// The visit of the left side: it visits the right side with the left's values in hand.
struct Left<'r> {
    op: CmpOp,
    right: &'r Operand,
    left_scalar: bool,
    len: usize,
}

impl<'a> BytesVisitor<'a> for Left<'_> {
    type Output = Result<BooleanBuffer, ComputeError>;

    fn visit<L: ByteAccess<'a>>(self, left: L) -> Self::Output {
        let visitor = Right {
            op: self.op,
            left,
            left_scalar: self.left_scalar,
            right_scalar: self.right.scalar,
            len: self.len,
        };
        visit_bytes(&self.right.data, visitor)?.ok_or_else(|| not_bytes(self.right))
    }
}

struct Right<L> {
    op: CmpOp,
    left: L,
    left_scalar: bool,
    right_scalar: bool,
    len: usize,
}

impl<'a, 'l, L: ByteAccess<'l>> BytesVisitor<'a> for Right<L> {
    type Output = BooleanBuffer;

    fn visit<R: ByteAccess<'a>>(self, right: R) -> BooleanBuffer {
        let (op, left, len) = (self.op, self.left, self.len);
        match (self.left_scalar, self.right_scalar) {
            (false, true) => {
                let scalar = right.value(0);
                by_row(op, len, |i| (left.value(i), scalar))
            }
            (true, false) => {
                let scalar = left.value(0);
                by_row(op, len, |i| (scalar, right.value(i)))
            }
            _ => by_row(op, len, |i| (left.value(i), right.value(i))),
        }
    }
}

/// `op` on the pair of values `pair(i)` gives, for each of `len` rows.
#[inline(always)]
fn by_row<'x, 'y>(
    op: CmpOp,
    len: usize,
    pair: impl Fn(usize) -> (&'x [u8], &'y [u8]),
) -> BooleanBuffer {
    match op {
        CmpOp::Eq => collect_bits(len, |i| {
            let (a, b) = pair(i);
            a == b
        }),
        CmpOp::Neq => collect_bits(len, |i| {
            let (a, b) = pair(i);
            a != b
        }),
        CmpOp::Lt => collect_bits(len, |i| {
            let (a, b) = pair(i);
            a.cmp(b) == Ordering::Less
        }),
        CmpOp::LtEq => collect_bits(len, |i| {
            let (a, b) = pair(i);
            a.cmp(b) != Ordering::Greater
        }),
        CmpOp::Gt => collect_bits(len, |i| {
            let (a, b) = pair(i);
            a.cmp(b) == Ordering::Greater
        }),
        CmpOp::GtEq => collect_bits(len, |i| {
            let (a, b) = pair(i);
            a.cmp(b) != Ordering::Less
        }),
    }
}

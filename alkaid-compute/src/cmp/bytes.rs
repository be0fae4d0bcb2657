//! Binary and text values compared byte-wise (which, for UTF-8, is code point order),
//! whichever layouts the two sides use: each side's layout is resolved once, and the loop
//! is compiled for that pair. Equality looks at lengths before bytes, and views compared
//! with a scalar for equality are compared sixteen bytes at a time without looking at
//! their data buffers unless the first eight bytes (length and prefix) agree.

use std::cmp::Ordering;

use alkaid_buffer::BooleanBuffer;
use alkaid_buffer::native::ByteView;
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;

use super::op::CmpOp;
use crate::access::{ByteAccess, BytesVisitor, visit_bytes};
use crate::bits::{collect_bits, vectorized};
use crate::error::ComputeError;
use crate::operand::Operand;
use crate::pack::map_bits;

/// Two binary-like operands compared value by value, into `len` answers.
pub(super) fn compare(
    op: CmpOp,
    left: &Operand,
    right: &Operand,
    len: usize,
) -> Result<BooleanBuffer, ComputeError> {
    if let Some(bits) = views_equal_scalar(op, left, right)? {
        return Ok(bits);
    }
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
        // `by_row` calls each closure with rows below `len`, the length of the array
        // side(s); a scalar side is read at its one slot, 0.
        match (self.left_scalar, self.right_scalar) {
            (false, true) => {
                let scalar = right.value(0);
                let same_len = |i| left.value_len(i) == scalar.len();
                // SAFETY: i < len, the left array's length (see above).
                let pair = |i| (unsafe { left.value_unchecked(i) }, scalar);
                by_row(op, len, same_len, pair)
            }
            (true, false) => {
                let scalar = left.value(0);
                let same_len = |i| right.value_len(i) == scalar.len();
                // SAFETY: i < len, the right array's length (see above).
                let pair = |i| (scalar, unsafe { right.value_unchecked(i) });
                by_row(op, len, same_len, pair)
            }
            _ => {
                let same_len = |i| left.value_len(i) == right.value_len(i);
                // SAFETY: i < len, the length of both arrays (or 1, of two scalars).
                let pair = |i| unsafe { (left.value_unchecked(i), right.value_unchecked(i)) };
                by_row(op, len, same_len, pair)
            }
        }
    }
}

/// `op` on the pair of values `pair(i)` gives, for each of `len` rows; `same_len(i)` tells
/// equality tests whether the bytes need reading at all.
#[inline(always)]
fn by_row<'x, 'y>(
    op: CmpOp,
    len: usize,
    same_len: impl Fn(usize) -> bool,
    pair: impl Fn(usize) -> (&'x [u8], &'y [u8]),
) -> BooleanBuffer {
    let ordered = |i: usize| {
        let (a, b) = pair(i);
        order(a, b)
    };
    let equal = |i: usize| {
        same_len(i) && {
            let (a, b) = pair(i);
            head(a) == head(b) && (a.len() <= 8 || a[8..] == b[8..])
        }
    };
    match op {
        CmpOp::Eq => collect_bits(len, equal),
        CmpOp::Neq => collect_bits(len, |i| !equal(i)),
        CmpOp::Lt => collect_bits(len, |i| ordered(i) == Ordering::Less),
        CmpOp::LtEq => collect_bits(len, |i| ordered(i) != Ordering::Greater),
        CmpOp::Gt => collect_bits(len, |i| ordered(i) == Ordering::Greater),
        CmpOp::GtEq => collect_bits(len, |i| ordered(i) != Ordering::Less),
    }
}

/// The first eight bytes of `bytes` as one big-endian number, zero-padded: two byte
/// strings whose heads differ are ordered as their heads are, and short or early-differing
/// strings (the usual case) are compared without a call to `memcmp`.
#[inline(always)]
fn head(bytes: &[u8]) -> u64 {
    match bytes.first_chunk::<8>() {
        Some(first) => u64::from_be_bytes(*first),
        None => bytes.iter().enumerate().fold(0u64, |word, (i, &byte)| {
            word | u64::from(byte) << (56 - 8 * i)
        }),
    }
}

/// The byte order of `a` and `b`: by their [`head`]s, then by the rest where those agree.
#[inline(always)]
fn order(a: &[u8], b: &[u8]) -> Ordering {
    match head(a).cmp(&head(b)) {
        // Equal heads and one string of at most eight bytes: it is a prefix of the other.
        Ordering::Equal if a.len() <= 8 || b.len() <= 8 => a.len().cmp(&b.len()),
        Ordering::Equal => a[8..].cmp(&b[8..]),
        decided => decided,
    }
}

/// The view's sixteen bytes as one number: the length in the low 32 bits, then the
/// inline bytes (zero-padded, which validation checks) or the prefix, buffer and offset.
#[inline(always)]
fn view_bits(view: &ByteView) -> u128 {
    let rest = view.raw_rest();
    let mut bytes = [0u8; 16];
    bytes[..4].copy_from_slice(&view.length().to_le_bytes());
    bytes[4..].copy_from_slice(rest);
    u128::from_le_bytes(bytes)
}

/// `eq` or `neq` of a view array with a scalar, sixteen bytes at a time, or `None` for
/// every other case. A short scalar is a whole view: equal views are equal numbers. A long
/// one is equal only where length and prefix (the low eight bytes) agree, and only those
/// rows read their data buffers.
fn views_equal_scalar(
    op: CmpOp,
    left: &Operand,
    right: &Operand,
) -> Result<Option<BooleanBuffer>, ComputeError> {
    let (array, scalar) = match (left.scalar, right.scalar) {
        (false, true) => (&left.data, &right.data),
        (true, false) => (&right.data, &left.data),
        _ => return Ok(None),
    };
    let is_views = |data: &ArrayData| data.data_type().to_physical() == PhysicalType::BinaryView;
    if !op.is_equality() || !is_views(array) {
        return Ok(None);
    }
    let Some(value) = visit_bytes(scalar, FirstValue)?.flatten() else {
        return Ok(None);
    };
    let views: &[ByteView] = array.buffers()[0]
        .typed()
        .map_err(|e| ComputeError::Data(e.into()))?;
    let views = &views[array.offset()..array.offset() + array.len()];
    let target = view_bits(&ByteView::new(&value, 0, 0));
    let equal = if value.len() <= ByteView::MAX_INLINE {
        vectorized(|| map_bits(views, |v| view_bits(&v) == target))
    } else {
        let head = target as u64;
        let rows = FullCompare {
            views: array,
            value: &value,
            head,
        };
        visit_bytes(array, rows)?.unwrap_or_else(|| BooleanBuffer::new_unset(views.len()))
    };
    Ok(Some(match op {
        CmpOp::Neq => !&equal,
        _ => equal,
    }))
}

/// The first value of a binary-like array, copied.
struct FirstValue;

impl<'a> BytesVisitor<'a> for FirstValue {
    type Output = Option<Vec<u8>>;

    fn visit<B: ByteAccess<'a>>(self, values: B) -> Option<Vec<u8>> {
        Some(values.value(0).to_vec())
    }
}

/// Rows of a view array equal to a long value: length and prefix first.
struct FullCompare<'v> {
    views: &'v ArrayData,
    value: &'v [u8],
    head: u64,
}

impl<'a> BytesVisitor<'a> for FullCompare<'_> {
    type Output = BooleanBuffer;

    fn visit<B: ByteAccess<'a>>(self, values: B) -> BooleanBuffer {
        let views: &[ByteView] = self.views.buffers()[0]
            .typed()
            .expect("visit_bytes read these views already");
        let views = &views[self.views.offset()..self.views.offset() + self.views.len()];
        collect_bits(views.len(), |i| {
            view_bits(&views[i]) as u64 == self.head
                // SAFETY: i < views.len(), the array's length.
                && unsafe { values.value_unchecked(i) } == self.value
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eight_byte_head_orders_as_the_bytes_do() {
        let words: Vec<&[u8]> = vec![
            b"",
            b"\0",
            b"\0\0",
            b"a",
            b"a\0",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
            b"abcdefgz",
            b"\xff",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\x01",
            b"word 1234",
            b"word 99",
        ];
        for a in &words {
            for b in &words {
                assert_eq!(order(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }
}

//! Bitwise kernels: combine bitmaps at any offsets into a new bitmap at offset 0.

use super::bytes_for;
use super::chunks::BitChunks;
use crate::{Buffer, MutableBuffer};

/// Applies `op` word by word to bits `[left_offset, +len)` of `left` and
/// `[right_offset, +len)` of `right`, returning a bitmap of `len` bits at offset 0.
///
/// The result is [`bytes_for`]`(len)` bytes long, and the bits of its last byte past `len`
/// are zero whatever `op` does.
///
/// # Panics
/// If either range does not fit in its bytes.
pub fn bitwise_binary(
    left: &[u8],
    left_offset: usize,
    right: &[u8],
    right_offset: usize,
    len: usize,
    op: impl Fn(u64, u64) -> u64,
) -> Buffer {
    let left = BitChunks::new(left, left_offset, len);
    let right = BitChunks::new(right, right_offset, len);
    let mut out = MutableBuffer::with_capacity(left.padded_count() * 8);
    out.extend_with(left.chunk_count(), |i| op(left.chunk(i), right.chunk(i)));
    if left.remainder_len() > 0 {
        out.push(op(left.remainder(), right.remainder()) & low_bits(left.remainder_len()));
    }
    out.truncate(bytes_for(len));
    out.into()
}

/// Applies `op` word by word to bits `[offset, offset + len)` of `bytes`, returning a bitmap of
/// `len` bits at offset 0, with the bits past `len` zero.
///
/// # Panics
/// If the range does not fit in `bytes`.
pub fn bitwise_unary(bytes: &[u8], offset: usize, len: usize, op: impl Fn(u64) -> u64) -> Buffer {
    let chunks = BitChunks::new(bytes, offset, len);
    let mut out = MutableBuffer::with_capacity(chunks.padded_count() * 8);
    out.extend_with(chunks.chunk_count(), |i| op(chunks.chunk(i)));
    if chunks.remainder_len() > 0 {
        out.push(op(chunks.remainder()) & low_bits(chunks.remainder_len()));
    }
    out.truncate(bytes_for(len));
    out.into()
}

macro_rules! binary_kernel {
    ($(#[$doc:meta])* $name:ident, |$a:ident, $b:ident| $body:expr) => {
        $(#[$doc])*
        ///
        /// # Panics
        /// If either range does not fit in its bytes.
        pub fn $name(
            left: &[u8],
            left_offset: usize,
            right: &[u8],
            right_offset: usize,
            len: usize,
        ) -> Buffer {
            bitwise_binary(left, left_offset, right, right_offset, len, |$a, $b| $body)
        }
    };
}

binary_kernel!(
    /// `left & right` over `len` bits at the given offsets; the result is at offset 0.
    ///
    /// # Examples
    /// ```
    /// use alkaid_buffer::bitmap::and;
    /// let result = and(&[0b1100], 0, &[0b0110_0000], 4, 4);
    /// assert_eq!(result.as_slice(), &[0b0100]);
    /// ```
    and, |a, b| a & b
);
binary_kernel!(
    /// `left | right` over `len` bits at the given offsets; the result is at offset 0.
    or, |a, b| a | b
);
binary_kernel!(
    /// `left ^ right` over `len` bits at the given offsets; the result is at offset 0.
    xor, |a, b| a ^ b
);
binary_kernel!(
    /// `left & !right` over `len` bits at the given offsets; the result is at offset 0.
    and_not, |a, b| a & !b
);

/// `!bits` over `len` bits at `offset`; the result is at offset 0.
///
/// # Panics
/// If the range does not fit in `bytes`.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::not;
/// assert_eq!(not(&[0b1010_0000], 4, 4).as_slice(), &[0b0101]);
/// ```
pub fn not(bytes: &[u8], offset: usize, len: usize) -> Buffer {
    bitwise_unary(bytes, offset, len, |w| !w)
}

/// A word with the low `n` (< 64) bits set.
#[inline]
fn low_bits(n: usize) -> u64 {
    (1u64 << n) - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitmap::get_bit;

    #[test]
    fn results_are_at_offset_zero_and_trimmed() {
        let left = [0xffu8; 20];
        let right = [0b0101_0101u8; 20];
        let result = and(&left, 3, &right, 5, 100);
        assert_eq!(result.len(), 13);
        for i in 0..100 {
            assert_eq!(get_bit(&result, i), i % 2 == 1, "bit {i}");
        }
        assert!(result.is_aligned_to(64));
    }

    #[test]
    fn not_clears_padding() {
        let result = not(&[0u8; 4], 2, 10);
        assert_eq!(result.as_slice(), &[0xff, 0b11]);
        assert_eq!(not(&[0u8; 4], 0, 0).len(), 0);
        assert_eq!(not(&[0u8; 8], 0, 64).as_slice(), &[0xff; 8]);
    }

    #[test]
    fn each_kernel_computes_its_operator() {
        let (a, b) = ([0b1100u8], [0b1010u8]);
        assert_eq!(or(&a, 0, &b, 0, 4).as_slice(), &[0b1110]);
        assert_eq!(xor(&a, 0, &b, 0, 4).as_slice(), &[0b0110]);
        assert_eq!(and_not(&a, 0, &b, 0, 4).as_slice(), &[0b0100]);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn short_input_panics() {
        and(&[0], 0, &[0, 0], 0, 9);
    }
}

//! Bitwise kernels: combine bitmaps at any offsets into a new bitmap at offset 0.

use super::bytes_for;
use super::chunks::{BitChunks, join, word};
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
    // Most words: one or two plain loads per input, no branches, vectorised.
    let ((left_low, left_high), (right_low, right_high)) = (left.fast_words(), right.fast_words());
    let fast = left_low.len().min(right_low.len()) / 8;
    let (left_low, right_low) = (&left_low[..fast * 8], &right_low[..fast * 8]);
    let (left_shift, right_shift) = (left.shift(), right.shift());
    if left_shift == 0 && right_shift == 0 {
        // Byte-aligned inputs, the common case: one load per input word.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { aligned_words_avx2(&mut out, left_low, right_low, &op) };
        } else {
            aligned_words(&mut out, left_low, right_low, &op);
        }
        #[cfg(not(target_arch = "x86_64"))]
        aligned_words(&mut out, left_low, right_low, &op);
    } else {
        // The AVX2 build of this loop measured slower than the baseline one (variable
        // shifts), so it has a single version.
        let left_words = left_low.chunks_exact(8).zip(left_high.chunks_exact(8));
        let right_words = right_low.chunks_exact(8).zip(right_high.chunks_exact(8));
        out.extend_counted(
            fast,
            left_words.zip(right_words).map(|((ll, lh), (rl, rh))| {
                op(
                    join(word(ll), word(lh), left_shift),
                    join(word(rl), word(rh), right_shift),
                )
            }),
        );
    }
    // The last full words (at most two), whose second load would run past the input.
    out.extend_with(left.chunk_count() - fast, |i| {
        op(left.chunk(fast + i), right.chunk(fast + i))
    });
    if left.remainder_len() > 0 {
        out.push(op(left.remainder(), right.remainder()) & low_bits(left.remainder_len()));
    }
    out.truncate(bytes_for(len));
    out.into()
}

/// Appends `op` of each pair of little-endian words of `left` and `right` (equal lengths).
#[inline(always)]
fn aligned_words<F: Fn(u64, u64) -> u64>(
    out: &mut MutableBuffer,
    left: &[u8],
    right: &[u8],
    op: &F,
) {
    let pairs = left.chunks_exact(8).zip(right.chunks_exact(8));
    out.extend_counted(left.len() / 8, pairs.map(|(l, r)| op(word(l), word(r))));
}

/// [`aligned_words`] compiled for AVX2: twice the vector width of the baseline build,
/// measured about 10% faster on 64 Mi-bit inputs.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn aligned_words_avx2<F: Fn(u64, u64) -> u64>(
    out: &mut MutableBuffer,
    left: &[u8],
    right: &[u8],
    op: &F,
) {
    aligned_words(out, left, right, op);
}

/// Applies `op` word by word to bits `[offset, offset + len)` of `bytes`, returning a bitmap of
/// `len` bits at offset 0, with the bits past `len` zero.
///
/// # Panics
/// If the range does not fit in `bytes`.
pub fn bitwise_unary(bytes: &[u8], offset: usize, len: usize, op: impl Fn(u64) -> u64) -> Buffer {
    let chunks = BitChunks::new(bytes, offset, len);
    let mut out = MutableBuffer::with_capacity(chunks.padded_count() * 8);
    let fast = if chunks.shift() == 0 {
        // Byte-aligned input, the common case: every full word is one plain load (measured
        // 1.4x faster than the shifting loop below on 4 Mi bits).
        let whole = &chunks.raw_parts().0[..chunks.chunk_count() * 8];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { aligned_unary_avx2(&mut out, whole, &op) };
        } else {
            aligned_unary(&mut out, whole, &op);
        }
        #[cfg(not(target_arch = "x86_64"))]
        aligned_unary(&mut out, whole, &op);
        chunks.chunk_count()
    } else {
        let (low, high) = chunks.fast_words();
        let (fast, shift) = (low.len() / 8, chunks.shift());
        let words = low.chunks_exact(8).zip(high.chunks_exact(8));
        out.extend_counted(fast, words.map(|(l, h)| op(join(word(l), word(h), shift))));
        fast
    };
    out.extend_with(chunks.chunk_count() - fast, |i| op(chunks.chunk(fast + i)));
    if chunks.remainder_len() > 0 {
        out.push(op(chunks.remainder()) & low_bits(chunks.remainder_len()));
    }
    out.truncate(bytes_for(len));
    out.into()
}

/// Appends `op` of each little-endian word of `bytes` (a whole number of words).
#[inline(always)]
fn aligned_unary<F: Fn(u64) -> u64>(out: &mut MutableBuffer, bytes: &[u8], op: &F) {
    out.extend_counted(bytes.len() / 8, bytes.chunks_exact(8).map(|w| op(word(w))));
}

/// [`aligned_unary`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn aligned_unary_avx2<F: Fn(u64) -> u64>(out: &mut MutableBuffer, bytes: &[u8], op: &F) {
    aligned_unary(out, bytes, op);
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
    fn byte_aligned_and_unaligned_paths_agree() {
        let left: Vec<u8> = (0..300u32).map(|i| (i * 29 + 3) as u8).collect();
        let right: Vec<u8> = (0..300u32).map(|i| (i * 53 + 7) as u8).collect();
        for (lo, ro) in [(0, 0), (8, 16), (64, 8), (1, 0), (0, 7), (13, 77)] {
            for len in [0, 1, 64, 65, 1000, 2000] {
                let result = xor(&left, lo, &right, ro, len);
                for i in 0..len {
                    let expected = get_bit(&left, lo + i) ^ get_bit(&right, ro + i);
                    assert_eq!(
                        get_bit(&result, i),
                        expected,
                        "({lo},{ro}) len {len} bit {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn both_builds_of_the_aligned_loop_agree() {
        let left: Vec<u8> = (0..1000u32).map(|i| (i * 29 + 3) as u8).collect();
        let right: Vec<u8> = (0..1000u32).map(|i| (i * 53 + 7) as u8).collect();
        for len in [0, 8, 64, 1000] {
            let mut baseline = MutableBuffer::new();
            aligned_words(&mut baseline, &left[..len], &right[..len], &|a, b| a & !b);
            let expected: Vec<u8> = left[..len]
                .iter()
                .zip(&right[..len])
                .map(|(a, b)| a & !b)
                .collect();
            assert_eq!(baseline.as_slice(), &expected[..]);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                let mut wide = MutableBuffer::new();
                // SAFETY: AVX2 support was checked just above.
                unsafe {
                    aligned_words_avx2(&mut wide, &left[..len], &right[..len], &|a, b| a & !b)
                };
                assert_eq!(wide.as_slice(), &expected[..]);
            }
        }
    }

    #[test]
    fn unary_paths_agree_at_every_offset() {
        let bytes: Vec<u8> = (0..200u32).map(|i| (i * 37 + 11) as u8).collect();
        for offset in [0, 1, 7, 8, 64, 65] {
            for len in [0, 1, 63, 64, 65, 640, 1000] {
                let result = not(&bytes, offset, len);
                for i in 0..len {
                    assert_eq!(
                        get_bit(&result, i),
                        !get_bit(&bytes, offset + i),
                        "{offset} {len} {i}"
                    );
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let (mut plain, mut wide) = (MutableBuffer::new(), MutableBuffer::new());
            aligned_unary(&mut plain, &bytes[..192], &|w| !w);
            // SAFETY: AVX2 support was checked just above.
            unsafe { aligned_unary_avx2(&mut wide, &bytes[..192], &|w| !w) };
            assert_eq!(plain.as_slice(), wide.as_slice());
        }
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

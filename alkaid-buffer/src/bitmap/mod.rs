//! Bit-level utilities over packed bitmaps, at any bit offset.
//!
//! The format numbers bits least-significant first: bit `i` of a bitmap is
//! `bytes[i / 8] >> (i % 8) & 1`. Everything here takes a byte slice plus a bit offset and a
//! bit length, so it works on sliced bitmaps without shifting them first.
//!
//! | piece | what it does |
//! | --- | --- |
//! | [`BitChunks`] | reads any bit range as little-endian `u64` words, the unit every kernel uses |
//! | [`BitIter`], [`SetIndices`], [`SetRuns`] | every bit, the indices of set bits, runs of set bits |
//! | [`count_set_bits`], [`count_set_runs`] | population count (instructions picked at run time), runs of set bits |
//! | [`compress`] | the bits of one bitmap where another is set, packed (a filter of bits) |
//! | [`and`], [`or`], [`xor`], [`and_not`], [`not`] | bitwise kernels producing a new bitmap at offset 0 |
//!
//! [`BooleanBuffer`](crate::BooleanBuffer) and [`NullBuffer`](crate::NullBuffer) wrap these
//! for owned bitmaps; the functions are public for engines that keep bitmaps of their own.

mod chunks;
mod compress;
mod count;
mod iter;
mod ops;

pub use chunks::BitChunks;
pub use compress::{compress, compress_portable};
pub use count::{count_set_bits, count_set_runs, count_set_runs_at_most};
pub use iter::{BitIter, SetIndices, SetRuns};
pub use ops::{and, and_not, bitwise_binary, bitwise_unary, not, or, xor};

/// Number of bytes needed to hold `bits` bits.
#[inline]
pub const fn bytes_for(bits: usize) -> usize {
    bits.div_ceil(8)
}

/// Whether bit `i` is set.
///
/// # Panics
/// If `i / 8 >= bytes.len()`.
#[inline]
pub fn get_bit(bytes: &[u8], i: usize) -> bool {
    bytes[i / 8] >> (i % 8) & 1 == 1
}

/// Sets bit `i`.
///
/// # Panics
/// If `i / 8 >= bytes.len()`.
#[inline]
pub fn set_bit(bytes: &mut [u8], i: usize) {
    bytes[i / 8] |= 1 << (i % 8);
}

/// Clears bit `i`.
///
/// # Panics
/// If `i / 8 >= bytes.len()`.
#[inline]
pub fn unset_bit(bytes: &mut [u8], i: usize) {
    bytes[i / 8] &= !(1 << (i % 8));
}

/// Checks that bits `[offset, offset + len)` lie within `bytes`.
///
/// # Panics
/// With a message naming the range, when they do not.
#[inline]
pub(crate) fn assert_bits_in(bytes: &[u8], offset: usize, len: usize) {
    if let Err(e) = crate::error::check_range("bits", offset, len, bytes.len().saturating_mul(8)) {
        panic!("{e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_numbered_least_significant_first() {
        let mut bytes = [0u8; 2];
        set_bit(&mut bytes, 0);
        set_bit(&mut bytes, 9);
        assert_eq!(bytes, [0b0000_0001, 0b0000_0010]);
        assert!(get_bit(&bytes, 9) && !get_bit(&bytes, 8));
        unset_bit(&mut bytes, 9);
        assert_eq!(bytes, [1, 0]);
        assert_eq!(bytes_for(0), 0);
        assert_eq!(bytes_for(9), 2);
    }

    #[test]
    #[should_panic(expected = "range of 9 bits at offset 0 is out of bounds for length 8")]
    fn ranges_past_the_bytes_are_rejected() {
        assert_bits_in(&[0], 0, 9);
    }
}

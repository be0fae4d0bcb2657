//! Fixed-width values as order-preserving 64-bit words: sorting pairs of (word, row) is
//! the fast path of every sort, and only values wider than a word need a second look.

use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano, f16, i256};

use crate::order::TotalOrder;

/// A value whose [`TotalOrder`] starts with the order of one unsigned 64-bit word.
pub(super) trait SortWord: TotalOrder {
    /// Whether equal words mean equal values (the word holds the whole value).
    const EXACT: bool;
    /// The word: `a < b` implies `a.word() <= b.word()`, and for [`EXACT`](Self::EXACT)
    /// types `a == b` exactly when the words are equal.
    fn word(self) -> u64;
}

/// Flips the sign bit, so that two's complement orders as unsigned.
#[inline(always)]
fn signed(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// [`signed`] for 32 bits, in the low half of the word.
#[inline(always)]
fn signed_half(v: i32) -> u64 {
    u64::from((v as u32) ^ (1 << 31))
}

macro_rules! unsigned_words {
    ($($t:ty),*) => {$(
        impl SortWord for $t {
            const EXACT: bool = true;
            #[inline(always)]
            fn word(self) -> u64 {
                u64::from(self)
            }
        }
    )*};
}
unsigned_words!(u8, u16, u32, u64);

macro_rules! signed_words {
    ($($t:ty),*) => {$(
        impl SortWord for $t {
            const EXACT: bool = true;
            #[inline(always)]
            fn word(self) -> u64 {
                signed(i64::from(self))
            }
        }
    )*};
}
signed_words!(i8, i16, i32, i64);

impl SortWord for f64 {
    const EXACT: bool = true;
    /// The crate's float order: every NaN is one value above infinity and `-0.0` is `0.0`,
    /// then the usual trick of flipping all bits of negatives and the sign bit of the rest.
    #[inline(always)]
    fn word(self) -> u64 {
        let canonical = if self.is_nan() {
            f64::NAN
        } else if self == 0.0 {
            0.0
        } else {
            self
        };
        let bits = canonical.to_bits();
        if bits >> 63 == 1 {
            !bits
        } else {
            bits | (1 << 63)
        }
    }
}

impl SortWord for f32 {
    const EXACT: bool = true;
    #[inline(always)]
    fn word(self) -> u64 {
        // Widening is exact and keeps the order (NaN stays NaN).
        f64::from(self).word()
    }
}

impl SortWord for f16 {
    const EXACT: bool = true;
    #[inline(always)]
    fn word(self) -> u64 {
        self.to_f64().word()
    }
}

impl SortWord for i128 {
    const EXACT: bool = false;
    #[inline(always)]
    fn word(self) -> u64 {
        signed((self >> 64) as i64)
    }
}

impl SortWord for i256 {
    const EXACT: bool = false;
    #[inline(always)]
    fn word(self) -> u64 {
        let bytes = self.to_le_bytes();
        let high = i64::from_le_bytes(bytes[24..32].try_into().expect("eight bytes"));
        signed(high)
    }
}

impl SortWord for IntervalDayTime {
    const EXACT: bool = true;
    #[inline(always)]
    fn word(self) -> u64 {
        (signed_half(self.days) << 32) | signed_half(self.milliseconds)
    }
}

impl SortWord for IntervalMonthDayNano {
    const EXACT: bool = false;
    #[inline(always)]
    fn word(self) -> u64 {
        (signed_half(self.months) << 32) | signed_half(self.days)
    }
}

/// The first eight bytes of `bytes`, zero-padded, as a big-endian word: byte strings that
/// differ there order as their words do.
#[inline(always)]
pub(super) fn head_word(bytes: &[u8]) -> u64 {
    let mut head = [0u8; 8];
    let n = bytes.len().min(8);
    head[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agrees<T: SortWord + std::fmt::Debug>(values: &[T]) {
        for &a in values {
            for &b in values {
                let (wa, wb) = (a.word(), b.word());
                if T::is_lt(a, b) {
                    assert!(wa <= wb, "{a:?} < {b:?} but words {wa:#x} > {wb:#x}");
                    if T::EXACT {
                        assert!(wa < wb, "{a:?} < {b:?} but words equal");
                    }
                }
                if T::EXACT && T::is_eq(a, b) {
                    assert_eq!(wa, wb, "{a:?} == {b:?}");
                }
            }
        }
    }

    #[test]
    fn words_keep_the_order_at_the_types_extremes() {
        agrees(&[i8::MIN, -1, 0, 1, i8::MAX]);
        agrees(&[i64::MIN, -1, 0, 1, i64::MAX]);
        agrees(&[0u64, 1, u64::MAX - 1, u64::MAX]);
        agrees(&[i128::MIN, -1, 0, 1 << 64, (1 << 64) - 1, i128::MAX]);
        agrees(&[i256::MIN, i256::from_i128(-1), i256::ZERO, i256::MAX]);
        agrees(&[
            IntervalDayTime::new(-1, i32::MAX),
            IntervalDayTime::new(0, i32::MIN),
            IntervalDayTime::new(0, -1),
            IntervalDayTime::new(0, 0),
            IntervalDayTime::new(1, i32::MIN),
        ]);
        agrees(&[
            IntervalMonthDayNano::new(-1, 5, 0),
            IntervalMonthDayNano::new(0, -3, i64::MAX),
            IntervalMonthDayNano::new(0, -3, i64::MIN),
            IntervalMonthDayNano::new(0, 0, 0),
        ]);
    }

    #[test]
    fn float_words_put_nan_last_and_zeros_together() {
        let values = [
            f64::NEG_INFINITY,
            f64::MIN,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        agrees(&values);
        assert_eq!((-0.0f64).word(), 0.0f64.word());
        assert_eq!(f64::NAN.word(), (-f64::NAN).word());
        assert!(f64::INFINITY.word() < f64::NAN.word());
        agrees(&[f32::NEG_INFINITY, -0.0, 0.0, 1.0, f32::NAN]);
        agrees(&[f16::NEG_INFINITY, f16::from_f32(-0.0), f16::ZERO, f16::NAN]);
    }

    #[test]
    fn head_words_order_byte_strings_by_their_first_eight_bytes() {
        assert!(head_word(b"") < head_word(b"\x01"));
        assert!(head_word(b"abc") < head_word(b"abd"));
        assert_eq!(head_word(b"abcdefgh"), head_word(b"abcdefghZ"));
        assert_eq!(head_word(b"ab"), head_word(b"ab\0"));
    }
}

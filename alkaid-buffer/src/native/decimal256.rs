//! [`i256`]: the 256-bit signed integer behind `Decimal256`.
//!
//! Stored as four little-endian `u64` words, so its alignment is 8: a decimal-256 column in an
//! 8-byte aligned IPC body can be viewed in place. Arithmetic works on the words; the
//! operations are those decimals need: comparison, conversion from and to `i128`, checked and
//! wrapping add, subtract and multiply, division with remainder, and decimal text.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use super::{NativeType, sealed};

/// A 256-bit two's-complement signed integer.
///
/// # Examples
/// ```
/// use alkaid_buffer::native::i256;
/// let big = i256::from_i128(i128::MAX).checked_mul(i256::from_i128(4)).unwrap();
/// assert_eq!(big.to_string(), "680564733841876926926749214863536422908");
/// assert_eq!(big.to_i128(), None);
/// assert_eq!("-42".parse::<i256>().unwrap().to_i128(), Some(-42));
/// assert!(i256::MIN < i256::ZERO && i256::ZERO < i256::MAX);
/// ```
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct i256 {
    /// Little-endian words: `words[0]` holds the least significant 64 bits.
    words: [u64; 4],
}

type Words = [u64; 4];

impl i256 {
    /// Zero.
    pub const ZERO: Self = Self { words: [0; 4] };
    /// One.
    pub const ONE: Self = Self {
        words: [1, 0, 0, 0],
    };
    /// Minus one.
    pub const MINUS_ONE: Self = Self {
        words: [u64::MAX; 4],
    };
    /// The largest value, 2^255 - 1.
    pub const MAX: Self = Self {
        words: [u64::MAX, u64::MAX, u64::MAX, u64::MAX >> 1],
    };
    /// The smallest value, -2^255.
    pub const MIN: Self = Self {
        words: [0, 0, 0, 1 << 63],
    };

    /// Builds a value from its low 128 bits (unsigned) and high 128 bits (signed).
    pub const fn from_parts(low: u128, high: i128) -> Self {
        let high = high as u128;
        Self {
            words: [
                low as u64,
                (low >> 64) as u64,
                high as u64,
                (high >> 64) as u64,
            ],
        }
    }

    /// Splits into the low 128 bits (unsigned) and high 128 bits (signed).
    pub const fn to_parts(self) -> (u128, i128) {
        let w = self.words;
        (
            w[0] as u128 | (w[1] as u128) << 64,
            (w[2] as u128 | (w[3] as u128) << 64) as i128,
        )
    }

    /// Sign-extends an `i128`.
    pub const fn from_i128(value: i128) -> Self {
        Self::from_parts(value as u128, if value < 0 { -1 } else { 0 })
    }

    /// The value as an `i128`, or `None` if it does not fit.
    pub const fn to_i128(self) -> Option<i128> {
        let (low, high) = self.to_parts();
        let low_signed = low as i128;
        // It fits when the high half is the sign extension of the low half.
        if (high == 0 && low_signed >= 0) || (high == -1 && low_signed < 0) {
            Some(low_signed)
        } else {
            None
        }
    }

    /// The value from 32 little-endian bytes.
    pub fn from_le_bytes(bytes: [u8; 32]) -> Self {
        let word = |i: usize| {
            u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8-byte window"))
        };
        Self {
            words: [word(0), word(1), word(2), word(3)],
        }
    }

    /// The value as 32 little-endian bytes.
    pub fn to_le_bytes(self) -> [u8; 32] {
        let mut bytes = [0; 32];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(self.words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// Whether the value is below zero.
    pub const fn is_negative(self) -> bool {
        (self.words[3] as i64) < 0
    }

    /// `self + other`, wrapping around at the bounds.
    pub fn wrapping_add(self, other: Self) -> Self {
        Self {
            words: add_words(self.words, other.words),
        }
    }

    /// `self + other`, or `None` on overflow.
    pub fn checked_add(self, other: Self) -> Option<Self> {
        let sum = self.wrapping_add(other);
        let overflow =
            self.is_negative() == other.is_negative() && sum.is_negative() != self.is_negative();
        (!overflow).then_some(sum)
    }

    /// `-self`, wrapping (`-MIN` is `MIN`).
    pub fn wrapping_neg(self) -> Self {
        Self {
            words: neg_words(self.words),
        }
    }

    /// `-self`, or `None` for `MIN`.
    pub fn checked_neg(self) -> Option<Self> {
        (self != Self::MIN).then(|| self.wrapping_neg())
    }

    /// `self - other`, wrapping around at the bounds.
    pub fn wrapping_sub(self, other: Self) -> Self {
        self.wrapping_add(other.wrapping_neg())
    }

    /// `self - other`, or `None` on overflow.
    pub fn checked_sub(self, other: Self) -> Option<Self> {
        let difference = self.wrapping_sub(other);
        let overflow = self.is_negative() != other.is_negative()
            && difference.is_negative() != self.is_negative();
        (!overflow).then_some(difference)
    }

    /// `self * other`, wrapping around at the bounds.
    pub fn wrapping_mul(self, other: Self) -> Self {
        let product = mul_words(self.words, other.words);
        Self {
            words: [product[0], product[1], product[2], product[3]],
        }
    }

    /// `self * other`, or `None` on overflow.
    pub fn checked_mul(self, other: Self) -> Option<Self> {
        let negative = self.is_negative() != other.is_negative();
        let product = mul_words(self.magnitude(), other.magnitude());
        if product[4..].iter().any(|&w| w != 0) {
            return None;
        }
        Self::from_magnitude([product[0], product[1], product[2], product[3]], negative)
    }

    /// Quotient and remainder of `self / other`, truncating toward zero (the remainder has the
    /// sign of `self`), or `None` when `other` is zero or the quotient overflows (`MIN / -1`).
    pub fn checked_div_rem(self, other: Self) -> Option<(Self, Self)> {
        if other == Self::ZERO || (self == Self::MIN && other == Self::MINUS_ONE) {
            return None;
        }
        let (quotient, remainder) = div_rem_words(self.magnitude(), other.magnitude());
        let quotient = Self::from_magnitude(quotient, self.is_negative() != other.is_negative())?;
        let remainder = Self::from_magnitude(remainder, self.is_negative())?;
        Some((quotient, remainder))
    }

    /// The absolute value as an unsigned 256-bit number (`|MIN|` = 2^255 fits).
    fn magnitude(self) -> Words {
        if self.is_negative() {
            neg_words(self.words)
        } else {
            self.words
        }
    }

    /// The signed value with magnitude `m`, or `None` if it does not fit.
    fn from_magnitude(m: Words, negative: bool) -> Option<Self> {
        let top_bit = m[3] >> 63 == 1;
        if !negative {
            return (!top_bit).then_some(Self { words: m });
        }
        let value = Self {
            words: neg_words(m),
        };
        // Only 2^255 itself may have its top bit set, and it negates to MIN.
        (!top_bit || value == Self::MIN).then_some(value)
    }
}

fn add_words(a: Words, b: Words) -> Words {
    let mut out = [0; 4];
    let mut carry = 0u64;
    for i in 0..4 {
        let (sum, c1) = a[i].overflowing_add(b[i]);
        let (sum, c2) = sum.overflowing_add(carry);
        out[i] = sum;
        carry = u64::from(c1 | c2);
    }
    out
}

fn neg_words(a: Words) -> Words {
    add_words(a.map(|w| !w), [1, 0, 0, 0])
}

/// The full 512-bit product of two unsigned 256-bit numbers.
fn mul_words(a: Words, b: Words) -> [u64; 8] {
    let mut out = [0u64; 8];
    for i in 0..4 {
        let mut carry = 0u128;
        for j in 0..4 {
            let t = u128::from(a[i]) * u128::from(b[j]) + u128::from(out[i + j]) + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
        out[i + 4] = carry as u64;
    }
    out
}

fn cmp_words(a: &Words, b: &Words) -> Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

/// Unsigned long division, one bit at a time: simple, and fast enough for decimal rescaling.
fn div_rem_words(dividend: Words, divisor: Words) -> (Words, Words) {
    let mut quotient = [0u64; 4];
    let mut remainder = [0u64; 4];
    for bit in (0..256).rev() {
        // remainder = remainder << 1 | next bit of the dividend
        for i in (1..4).rev() {
            remainder[i] = remainder[i] << 1 | remainder[i - 1] >> 63;
        }
        remainder[0] = remainder[0] << 1 | (dividend[bit / 64] >> (bit % 64)) & 1;
        if cmp_words(&remainder, &divisor) != Ordering::Less {
            remainder = add_words(remainder, neg_words(divisor));
            quotient[bit / 64] |= 1 << (bit % 64);
        }
    }
    (quotient, remainder)
}

/// Divides an unsigned 256-bit number by a small divisor in place, returning the remainder.
fn div_rem_small(value: &mut Words, divisor: u64) -> u64 {
    let mut remainder = 0u128;
    for word in value.iter_mut().rev() {
        let current = remainder << 64 | u128::from(*word);
        *word = (current / u128::from(divisor)) as u64;
        remainder = current % u128::from(divisor);
    }
    remainder as u64
}

impl Ord for i256 {
    fn cmp(&self, other: &Self) -> Ordering {
        let (self_low, self_high) = self.to_parts();
        let (other_low, other_high) = other.to_parts();
        self_high.cmp(&other_high).then(self_low.cmp(&other_low))
    }
}

impl PartialOrd for i256 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl From<i128> for i256 {
    fn from(value: i128) -> Self {
        Self::from_i128(value)
    }
}

impl From<i64> for i256 {
    fn from(value: i64) -> Self {
        Self::from_i128(value.into())
    }
}

impl TryFrom<i256> for i128 {
    type Error = i256;
    /// Fails with the original value when it does not fit.
    fn try_from(value: i256) -> Result<Self, i256> {
        value.to_i128().ok_or(value)
    }
}

impl fmt::Display for i256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const CHUNK: u64 = 10_000_000_000_000_000_000; // 10^19, the largest power in a u64
        let mut magnitude = self.magnitude();
        let mut chunks = Vec::with_capacity(5);
        loop {
            chunks.push(div_rem_small(&mut magnitude, CHUNK));
            if magnitude == [0; 4] {
                break;
            }
        }
        let mut text = String::with_capacity(80);
        let mut chunks = chunks.iter().rev();
        text.push_str(&chunks.next().expect("at least one chunk").to_string());
        for chunk in chunks {
            text.push_str(&format!("{chunk:019}"));
        }
        f.pad_integral(!self.is_negative(), "", &text)
    }
}

impl fmt::Debug for i256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a string is not an [`i256`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseI256Error {
    /// The string has no digits.
    Empty,
    /// A character other than a digit (after an optional sign), at this byte index.
    InvalidDigit(usize),
    /// The number is outside `i256::MIN ..= i256::MAX`.
    Overflow,
}

impl fmt::Display for ParseI256Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "expected decimal digits, found an empty string"),
            Self::InvalidDigit(at) => write!(f, "expected a decimal digit at byte {at}"),
            Self::Overflow => write!(f, "number does not fit in 256 bits"),
        }
    }
}

impl std::error::Error for ParseI256Error {}

impl FromStr for i256 {
    type Err = ParseI256Error;

    fn from_str(text: &str) -> Result<Self, ParseI256Error> {
        let (negative, digits, start) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..], 1),
            Some(b'+') => (false, &text[1..], 1),
            _ => (false, text, 0),
        };
        if digits.is_empty() {
            return Err(ParseI256Error::Empty);
        }
        let mut magnitude: Words = [0; 4];
        for (i, byte) in digits.bytes().enumerate() {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                return Err(ParseI256Error::InvalidDigit(start + i));
            }
            let product = mul_words(magnitude, [10, 0, 0, 0]);
            if product[4] != 0 {
                return Err(ParseI256Error::Overflow);
            }
            let (sum, carry) =
                add_with_carry([product[0], product[1], product[2], product[3]], digit);
            if carry {
                return Err(ParseI256Error::Overflow);
            }
            magnitude = sum;
        }
        Self::from_magnitude(magnitude, negative).ok_or(ParseI256Error::Overflow)
    }
}

fn add_with_carry(a: Words, small: u8) -> (Words, bool) {
    let sum = add_words(a, [u64::from(small), 0, 0, 0]);
    (sum, cmp_words(&sum, &a) == Ordering::Less)
}

impl sealed::Sealed for i256 {}
impl NativeType for i256 {
    fn swap_bytes(self) -> Self {
        let w = self.words;
        Self {
            words: [
                w[3].swap_bytes(),
                w[2].swap_bytes(),
                w[1].swap_bytes(),
                w[0].swap_bytes(),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(value: i128) -> i256 {
        i256::from_i128(value)
    }

    #[test]
    fn layout_is_32_bytes_aligned_to_8() {
        assert_eq!(size_of::<i256>(), 32);
        assert_eq!(align_of::<i256>(), 8);
    }

    #[test]
    fn i128_round_trips_and_range_is_checked() {
        for value in [0, 1, -1, i128::MAX, i128::MIN, 12_345_678_901_234_567_890] {
            assert_eq!(n(value).to_i128(), Some(value));
            assert_eq!(i128::try_from(n(value)), Ok(value));
        }
        let too_big = n(i128::MAX).wrapping_add(i256::ONE);
        assert_eq!(too_big.to_i128(), None);
        assert_eq!(n(i128::MIN).wrapping_sub(i256::ONE).to_i128(), None);
    }

    #[test]
    fn ordering_is_signed() {
        let mut values = vec![i256::MAX, n(-1), i256::MIN, n(5), i256::ZERO, n(i128::MIN)];
        values.sort();
        assert_eq!(
            values,
            vec![i256::MIN, n(i128::MIN), n(-1), i256::ZERO, n(5), i256::MAX]
        );
    }

    #[test]
    fn checked_arithmetic_detects_overflow() {
        assert_eq!(i256::MAX.checked_add(i256::ONE), None);
        assert_eq!(i256::MIN.checked_sub(i256::ONE), None);
        assert_eq!(i256::MIN.checked_neg(), None);
        assert_eq!(
            i256::MAX.checked_add(i256::MINUS_ONE),
            Some(i256::MAX.wrapping_sub(i256::ONE))
        );
        assert_eq!(i256::MAX.wrapping_add(i256::ONE), i256::MIN);
        assert_eq!(n(7).checked_sub(n(10)), Some(n(-3)));
        assert_eq!(n(-7).checked_mul(n(6)), Some(n(-42)));
        assert_eq!(i256::MAX.checked_mul(n(2)), None);
        assert_eq!(i256::MIN.checked_mul(n(-1)), None);
        assert_eq!(i256::MIN.checked_mul(i256::ONE), Some(i256::MIN));
        let half_min = i256::from_parts(0, i128::MIN / 2);
        assert_eq!(half_min.checked_mul(n(2)), Some(i256::MIN));
        assert_eq!(half_min.wrapping_neg().checked_mul(n(2)), None);
    }

    #[test]
    fn division_truncates_toward_zero() {
        assert_eq!(n(7).checked_div_rem(n(2)), Some((n(3), n(1))));
        assert_eq!(n(-7).checked_div_rem(n(2)), Some((n(-3), n(-1))));
        assert_eq!(n(7).checked_div_rem(n(-2)), Some((n(-3), n(1))));
        assert_eq!(n(1).checked_div_rem(i256::ZERO), None);
        assert_eq!(i256::MIN.checked_div_rem(i256::MINUS_ONE), None);
        assert_eq!(
            i256::MIN.checked_div_rem(i256::MIN),
            Some((i256::ONE, i256::ZERO))
        );
        let big = n(i128::MAX)
            .checked_mul(n(1000))
            .unwrap()
            .wrapping_add(n(17));
        assert_eq!(big.checked_div_rem(n(1000)), Some((n(i128::MAX), n(17))));
    }

    #[test]
    fn text_round_trips_at_the_extremes() {
        let min = "-57896044618658097711785492504343953926634992332820282019728792003956564819968";
        let max = "57896044618658097711785492504343953926634992332820282019728792003956564819967";
        assert_eq!(i256::MIN.to_string(), min);
        assert_eq!(i256::MAX.to_string(), max);
        assert_eq!(min.parse::<i256>(), Ok(i256::MIN));
        assert_eq!(max.parse::<i256>(), Ok(i256::MAX));
        assert_eq!("0".parse::<i256>(), Ok(i256::ZERO));
        assert_eq!(
            "+10000000000000000000".parse::<i256>().unwrap().to_string(),
            "10000000000000000000"
        );
        assert_eq!(format!("{:>6}", n(-42)), "   -42");
    }

    #[test]
    fn bad_text_is_an_error() {
        assert_eq!("".parse::<i256>(), Err(ParseI256Error::Empty));
        assert_eq!("-".parse::<i256>(), Err(ParseI256Error::Empty));
        assert_eq!("12x".parse::<i256>(), Err(ParseI256Error::InvalidDigit(2)));
        assert_eq!("-1 ".parse::<i256>(), Err(ParseI256Error::InvalidDigit(2)));
        let past_max =
            "57896044618658097711785492504343953926634992332820282019728792003956564819968";
        assert_eq!(past_max.parse::<i256>(), Err(ParseI256Error::Overflow));
        assert_eq!(
            "9".repeat(100).parse::<i256>(),
            Err(ParseI256Error::Overflow)
        );
    }

    #[test]
    fn bytes_round_trip_little_endian() {
        let value = n(-2);
        let bytes = value.to_le_bytes();
        assert_eq!(bytes[0], 0xfe);
        assert!(bytes[1..].iter().all(|&b| b == 0xff));
        assert_eq!(i256::from_le_bytes(bytes), value);
        let swapped = NativeType::swap_bytes(value).to_le_bytes();
        let mut reversed = bytes;
        reversed.reverse();
        assert_eq!(swapped, reversed);
    }
}

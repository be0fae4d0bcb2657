//! [`BitChunks`]: any bit range read as little-endian `u64` words.

use super::assert_bits_in;

/// A bit range viewed as `u64` words: `chunk_count()` full words, then a remainder of
/// `remainder_len()` (< 64) bits.
///
/// Word `i` holds bits `[64 i, 64 i + 64)` of the range, bit 0 of the range in its least
/// significant bit, whatever the bit offset of the range in its bytes. This is the unit every
/// bit kernel works in: with an offset that is not a multiple of 8, each word is one
/// unaligned 8-byte load and one byte load, combined with two shifts.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::BitChunks;
/// let bytes = [0b1111_0000u8; 10];
/// let chunks = BitChunks::new(&bytes, 4, 70); // starts in the middle of a byte
/// assert_eq!(chunks.chunk_count(), 1);
/// assert_eq!(chunks.iter().next(), Some(0x0f0f_0f0f_0f0f_0f0f));
/// assert_eq!(chunks.remainder_len(), 6);
/// assert_eq!(chunks.remainder(), 0b00_1111);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct BitChunks<'a> {
    /// The bytes from the one holding the first bit to the end of the input. Bytes past the
    /// range may be read (never used) so that most words are two plain 8-byte loads.
    bytes: &'a [u8],
    /// Bit offset of the range within `bytes[0]`, in `0..8`.
    shift: u32,
    chunk_count: usize,
    remainder_len: usize,
}

impl<'a> BitChunks<'a> {
    /// Views bits `[offset, offset + len)` of `bytes`.
    ///
    /// # Panics
    /// If the range does not fit in `bytes`.
    #[inline]
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Self {
        assert_bits_in(bytes, offset, len);
        let shift = (offset % 8) as u32;
        Self {
            bytes: &bytes[offset / 8..],
            shift,
            chunk_count: len / 64,
            remainder_len: len % 64,
        }
    }

    /// Number of full 64-bit words.
    #[inline]
    pub fn chunk_count(&self) -> usize {
        self.chunk_count
    }

    /// Number of bits after the full words, in `0..64`.
    #[inline]
    pub fn remainder_len(&self) -> usize {
        self.remainder_len
    }

    /// Number of bits in the range.
    #[inline]
    pub fn len(&self) -> usize {
        self.chunk_count * 64 + self.remainder_len
    }

    /// Whether the range is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Word `i` of the range.
    ///
    /// # Panics
    /// If `i >= self.chunk_count()`.
    #[inline]
    pub fn chunk(&self, i: usize) -> u64 {
        assert!(
            i < self.chunk_count,
            "chunk {i} out of range for {} chunks",
            self.chunk_count
        );
        match self.bytes.get(i * 8..i * 8 + 16) {
            Some(pair) => {
                let (low, high) = pair.split_at(8);
                join(word(low), word(high), self.shift)
            }
            None => self.tail_word(i * 8, 64),
        }
    }

    /// The bits after the full words, in the low `remainder_len()` bits; zero above.
    #[inline]
    pub fn remainder(&self) -> u64 {
        if self.remainder_len == 0 {
            return 0;
        }
        // Two 8-byte loads where the input continues far enough (a range in the middle of
        // a bitmap, as a filter's runs are); byte by byte at its end.
        let start = self.chunk_count * 8;
        match self.bytes.get(start..start + 16) {
            Some(pair) => {
                let (low, high) = pair.split_at(8);
                join(word(low), word(high), self.shift) & ((1u64 << self.remainder_len) - 1)
            }
            None => self.tail_word(start, self.remainder_len),
        }
    }

    /// `bits` (1..=64) bits starting at bit `shift` of byte `start`, read byte by byte: for
    /// the last words, where two 8-byte loads could run past the input.
    #[cold]
    fn tail_word(&self, start: usize, bits: usize) -> u64 {
        let needed = (self.shift as usize + bits).div_ceil(8);
        let mut raw = [0u8; 16];
        raw[..needed].copy_from_slice(&self.bytes[start..start + needed]);
        let word = (u128::from_le_bytes(raw) >> self.shift) as u64;
        if bits == 64 {
            word
        } else {
            word & ((1u64 << bits) - 1)
        }
    }

    /// The full words.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.chunk_count).map(|i| self.chunk(i))
    }

    /// The full words, then the remainder as one more word (zero-padded) if it is not empty.
    pub fn iter_padded(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.padded_count()).map(|i| self.padded_chunk(i))
    }

    /// Number of words [`iter_padded`](Self::iter_padded) yields.
    #[inline]
    pub fn padded_count(&self) -> usize {
        self.chunk_count + usize::from(self.remainder_len > 0)
    }

    /// Word `i` of [`iter_padded`](Self::iter_padded).
    #[inline]
    pub(crate) fn padded_chunk(&self, i: usize) -> u64 {
        if i < self.chunk_count {
            self.chunk(i)
        } else {
            self.remainder()
        }
    }

    /// The leading words that can be read with two full 8-byte loads each, as a pair of byte
    /// slices `(low, high)` of equal length: word `i` is
    /// `join(low[8i..8i+8], high[8i..8i+8], shift)`. Kernels zip these to get loops without
    /// branches or bounds checks, which LLVM vectorises; the remaining words (at most two)
    /// go through [`chunk`](Self::chunk).
    #[inline]
    pub(crate) fn fast_words(&self) -> (&'a [u8], &'a [u8]) {
        let count = self
            .chunk_count
            .min((self.bytes.len() / 8).saturating_sub(1));
        if count == 0 {
            return (&[], &[]);
        }
        (&self.bytes[..count * 8], &self.bytes[8..8 + count * 8])
    }

    /// The bytes from the one holding the range's first bit to the end of the input, past
    /// the range too: vector kernels read the bytes of [`fast_words`](Self::fast_words)
    /// from here (`fast_words().1` ends at byte `8 + fast_words().0.len()` of it).
    #[inline]
    pub(crate) fn input_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Bit offset of the range within its first byte, in `0..8`.
    #[inline]
    pub(crate) fn shift(&self) -> u32 {
        self.shift
    }

    /// The bytes holding the range (from the first bit's byte to the last bit's byte) and
    /// the bit offset of the range in the first of them.
    pub(crate) fn raw_parts(&self) -> (&'a [u8], u32) {
        let end = (self.shift as usize + self.len()).div_ceil(8);
        (&self.bytes[..end], self.shift)
    }
}

/// A little-endian `u64` from 8 bytes.
#[inline(always)]
pub(crate) fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
}

/// The 64 bits starting `shift` (0..8) bits into `low`, continuing into `high`.
///
/// Branch-free for every shift, including 0: `(high << 1) << (63 - shift)` is
/// `high << (64 - shift)` without the undefined shift by 64.
#[inline(always)]
pub(crate) fn join(low: u64, high: u64, shift: u32) -> u64 {
    low >> shift | (high << 1) << (63 - shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitmap::get_bit;

    fn naive_word(bytes: &[u8], offset: usize, len: usize) -> u64 {
        (0..len)
            .filter(|&i| get_bit(bytes, offset + i))
            .fold(0, |w, i| w | 1 << i)
    }

    #[test]
    fn words_match_bit_by_bit_reading_at_every_offset() {
        let bytes: Vec<u8> = (0..40u32).map(|i| (i * 37 + 11) as u8).collect();
        for offset in 0..20 {
            for len in [0, 1, 63, 64, 65, 128, 150, 200] {
                let chunks = BitChunks::new(&bytes, offset, len);
                for (i, word) in chunks.iter().enumerate() {
                    assert_eq!(
                        word,
                        naive_word(&bytes, offset + i * 64, 64),
                        "{offset} {len} {i}"
                    );
                }
                let tail = chunks.chunk_count() * 64;
                assert_eq!(
                    chunks.remainder(),
                    naive_word(&bytes, offset + tail, len % 64)
                );
                assert_eq!(chunks.iter_padded().count(), len.div_ceil(64));
            }
        }
    }

    #[test]
    fn fast_words_agree_with_chunk() {
        let bytes: Vec<u8> = (0..100u32).map(|i| (i * 91 + 5) as u8).collect();
        for offset in 0..16 {
            let chunks = BitChunks::new(&bytes, offset, 700);
            let (low, high) = chunks.fast_words();
            assert!(low.len() / 8 + 2 >= chunks.chunk_count());
            for (i, (l, h)) in low.chunks_exact(8).zip(high.chunks_exact(8)).enumerate() {
                assert_eq!(join(word(l), word(h), chunks.shift()), chunks.chunk(i));
            }
        }
    }

    #[test]
    fn range_ending_at_the_last_byte_is_readable() {
        let bytes = [0xffu8; 9];
        let chunks = BitChunks::new(&bytes, 7, 65);
        assert_eq!(chunks.chunk(0), u64::MAX);
        assert_eq!(chunks.remainder(), 1);
        let empty = BitChunks::new(&bytes, 72, 0);
        assert!(empty.is_empty());
        assert_eq!(empty.iter_padded().count(), 0);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn range_past_the_bytes_panics() {
        BitChunks::new(&[0u8; 8], 1, 64);
    }
}

//! Iterators over a bit range: every bit, the indices of set bits, and runs of set bits.
//!
//! All three read the range a word at a time through [`BitChunks`], so skipping a run of
//! zeros costs one comparison per 64 bits.

use super::chunks::BitChunks;

/// Every bit of a range, as `bool`s.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::BitIter;
/// let bits: Vec<bool> = BitIter::new(&[0b0000_0101], 0, 4).collect();
/// assert_eq!(bits, [true, false, true, false]);
/// ```
#[derive(Debug, Clone)]
pub struct BitIter<'a> {
    chunks: BitChunks<'a>,
    /// Bits of the current word not yet yielded, lowest first.
    current: u64,
    /// Index of the next bit to yield.
    position: usize,
    len: usize,
}

impl<'a> BitIter<'a> {
    /// Iterates bits `[offset, offset + len)` of `bytes`.
    ///
    /// # Panics
    /// If the range does not fit in `bytes`.
    #[inline]
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Self {
        Self {
            chunks: BitChunks::new(bytes, offset, len),
            current: 0,
            position: 0,
            len,
        }
    }
}

impl Iterator for BitIter<'_> {
    type Item = bool;

    #[inline]
    fn next(&mut self) -> Option<bool> {
        if self.position == self.len {
            return None;
        }
        if self.position.is_multiple_of(64) {
            self.current = self.chunks.padded_chunk(self.position / 64);
        }
        let bit = self.current & 1 == 1;
        self.current >>= 1;
        self.position += 1;
        Some(bit)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.len - self.position;
        (left, Some(left))
    }
}

impl ExactSizeIterator for BitIter<'_> {}

/// The words holding a bit range, read in place without shifting: word `k` holds bits
/// `[64 k - lead, 64 k + 64 - lead)` of the range, where `lead` is the range's bit offset in
/// its first byte, with the bits outside the range cleared.
///
/// Sequential scans (set indices, runs) only need to know where each set bit is, so they
/// subtract `lead` from positions instead of shifting every word into place. The first word
/// is handed out at construction; [`Words`] yields the rest: the middle words straight from
/// a `chunks_exact` iterator (no index checks), then the masked last word.
#[derive(Debug, Clone)]
struct Words<'a> {
    middle: std::slice::ChunksExact<'a, u8>,
    last: Option<u64>,
}

impl Iterator for Words<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self.middle.next() {
            Some(bytes) => Some(super::chunks::word(bytes)),
            None => self.last.take(),
        }
    }
}

/// Where a sequential scan stands: the bits of the current word not yet consumed, the
/// position of its bit 0, and the words still to come.
#[derive(Debug, Clone)]
struct Cursor<'a> {
    current: u64,
    /// Position of bit 0 of `current` (wrapping below zero for the first word, whose bits
    /// below the range are cleared, so no position below zero is ever produced).
    base: usize,
    words: Words<'a>,
}

impl<'a> Cursor<'a> {
    /// A cursor over bits `[offset, offset + len)` of `bytes`; the first word is loaded
    /// without shifting and with the bits outside the range cleared.
    #[inline]
    fn new(bytes: &'a [u8], offset: usize, len: usize) -> Self {
        super::assert_bits_in(bytes, offset, len);
        let lead = offset % 8;
        let bytes = &bytes[offset / 8..(offset + len).div_ceil(8)];
        let count = if len == 0 {
            0
        } else {
            (lead + len).div_ceil(64)
        };
        let last_mask = match (lead + len) % 64 {
            0 => u64::MAX,
            used => (1u64 << used) - 1,
        };
        let load = |k: usize| {
            let mut raw = [0u8; 8];
            let part = &bytes[k * 8..bytes.len().min(k * 8 + 8)];
            raw[..part.len()].copy_from_slice(part);
            u64::from_le_bytes(raw)
        };
        let base = 0usize.wrapping_sub(lead);
        let empty = Words {
            middle: [].chunks_exact(8),
            last: None,
        };
        let (current, words) = match count {
            0 => (0, empty),
            1 => (load(0) & u64::MAX << lead & last_mask, empty),
            _ => {
                let middle = bytes[8..(count - 1) * 8].chunks_exact(8);
                let last = load(count - 1) & last_mask;
                (
                    load(0) & u64::MAX << lead,
                    Words {
                        middle,
                        last: Some(last),
                    },
                )
            }
        };
        Self {
            current,
            base,
            words,
        }
    }

    /// Moves to the next word; false at the end (then `current` is 0).
    #[inline]
    fn advance(&mut self) -> bool {
        self.base = self.base.wrapping_add(64);
        match self.words.next() {
            Some(word) => {
                self.current = word;
                true
            }
            None => {
                self.current = 0;
                false
            }
        }
    }

    /// Skips words until `current` has a set bit; false if there is none left.
    #[inline]
    fn seek_set_bit(&mut self) -> bool {
        while self.current == 0 {
            if !self.advance() {
                return false;
            }
        }
        true
    }
}

/// The indices of the set bits of a range, ascending, relative to the start of the range.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::SetIndices;
/// let indices: Vec<usize> = SetIndices::new(&[0b1001_0010, 0b1], 1, 9).collect();
/// assert_eq!(indices, [0, 3, 6, 7]);
/// ```
#[derive(Debug, Clone)]
pub struct SetIndices<'a>(Cursor<'a>);

impl<'a> SetIndices<'a> {
    /// Iterates the set bits among bits `[offset, offset + len)` of `bytes`.
    ///
    /// # Panics
    /// If the range does not fit in `bytes`.
    #[inline]
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Self {
        Self(Cursor::new(bytes, offset, len))
    }
}

impl Iterator for SetIndices<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let cursor = &mut self.0;
        if !cursor.seek_set_bit() {
            return None;
        }
        let index = cursor
            .base
            .wrapping_add(cursor.current.trailing_zeros() as usize);
        cursor.current &= cursor.current - 1; // clear the lowest set bit
        Some(index)
    }

    /// Word by word: the inner loop only finds and clears the lowest set bit, with no
    /// per-index check for an exhausted word. `for_each` and `sum` come here, which makes
    /// them about twice as fast as calling `next` at 50% density.
    #[inline]
    fn fold<B, F: FnMut(B, usize) -> B>(self, init: B, mut f: F) -> B {
        let mut cursor = self.0;
        let mut acc = init;
        loop {
            let mut word = cursor.current;
            while word != 0 {
                acc = f(
                    acc,
                    cursor.base.wrapping_add(word.trailing_zeros() as usize),
                );
                word &= word - 1;
            }
            if !cursor.advance() {
                return acc;
            }
        }
    }
}

/// The runs of consecutive set bits of a range, as half-open `(start, end)` pairs relative to
/// the start of the range, ascending and never adjacent.
///
/// The natural unit of work for copying selected rows: one `memcpy` per run.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::SetRuns;
/// let runs: Vec<(usize, usize)> = SetRuns::new(&[0b1110_0110, 0b0000_0001], 0, 10).collect();
/// assert_eq!(runs, [(1, 3), (5, 9)]);
/// ```
#[derive(Debug, Clone)]
pub struct SetRuns<'a>(Cursor<'a>);

impl<'a> SetRuns<'a> {
    /// Iterates the runs of set bits among bits `[offset, offset + len)` of `bytes`.
    ///
    /// # Panics
    /// If the range does not fit in `bytes`.
    #[inline]
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Self {
        Self(Cursor::new(bytes, offset, len))
    }
}

impl Iterator for SetRuns<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        let cursor = &mut self.0;
        if !cursor.seek_set_bit() {
            return None;
        }
        let zeros = cursor.current.trailing_zeros();
        let start = cursor.base.wrapping_add(zeros as usize);
        // Fill the bits below the run, so that the run's end is the count of trailing ones.
        cursor.current |= (1u64 << zeros) - 1;
        while cursor.current == u64::MAX {
            // The run reaches the end of this word. The last word is masked to the range, so
            // a run that reaches the end of the last word ends exactly at the range's end.
            if !cursor.advance() {
                return Some((start, cursor.base));
            }
        }
        let ones = cursor.current.trailing_ones();
        cursor.current &= !((1u64 << ones) - 1);
        Some((start, cursor.base.wrapping_add(ones as usize)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cross_word_boundaries() {
        let mut bytes = vec![0u8; 40];
        // Bits 60..200 set, then 250..251.
        for i in (60..200).chain(250..251) {
            crate::bitmap::set_bit(&mut bytes, i);
        }
        let runs: Vec<_> = SetRuns::new(&bytes, 0, 320).collect();
        assert_eq!(runs, [(60, 200), (250, 251)]);
        let runs: Vec<_> = SetRuns::new(&bytes, 61, 139).collect();
        assert_eq!(runs, [(0, 139)]);
    }

    #[test]
    fn all_set_range_is_one_run_ending_at_the_length() {
        let bytes = [0xffu8; 17];
        assert_eq!(SetRuns::new(&bytes, 3, 130).collect::<Vec<_>>(), [(0, 130)]);
        assert_eq!(SetRuns::new(&bytes, 0, 128).collect::<Vec<_>>(), [(0, 128)]);
        assert_eq!(SetIndices::new(&bytes, 5, 100).count(), 100);
        assert_eq!(SetRuns::new(&bytes, 5, 0).count(), 0);
    }

    #[test]
    fn bit_iter_reports_its_length() {
        let iter = BitIter::new(&[0xff; 20], 3, 150);
        assert_eq!(iter.len(), 150);
        assert!(iter.clone().all(|b| b));
        assert_eq!(iter.skip(149).count(), 1);
    }
}

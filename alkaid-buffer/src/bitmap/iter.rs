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

/// The indices of the set bits of a range, ascending, relative to the start of the range.
///
/// # Examples
/// ```
/// use alkaid_buffer::bitmap::SetIndices;
/// let indices: Vec<usize> = SetIndices::new(&[0b1001_0010, 0b1], 1, 9).collect();
/// assert_eq!(indices, [0, 3, 6, 7]);
/// ```
#[derive(Debug, Clone)]
pub struct SetIndices<'a> {
    chunks: BitChunks<'a>,
    /// Set bits of the current word not yet yielded.
    current: u64,
    /// Index of the range bit in bit 0 of `current`.
    base: usize,
    /// Next word to load.
    next_word: usize,
}

impl<'a> SetIndices<'a> {
    /// Iterates the set bits among bits `[offset, offset + len)` of `bytes`.
    ///
    /// # Panics
    /// If the range does not fit in `bytes`.
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Self {
        Self {
            chunks: BitChunks::new(bytes, offset, len),
            current: 0,
            base: 0,
            next_word: 0,
        }
    }
}

impl Iterator for SetIndices<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.current == 0 {
            if self.next_word == self.chunks.padded_count() {
                return None;
            }
            self.current = self.chunks.padded_chunk(self.next_word);
            self.base = self.next_word * 64;
            self.next_word += 1;
        }
        let index = self.base + self.current.trailing_zeros() as usize;
        self.current &= self.current - 1; // clear the lowest set bit
        Some(index)
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
pub struct SetRuns<'a> {
    chunks: BitChunks<'a>,
    /// Bits of the current word not yet consumed (consumed runs are cleared).
    current: u64,
    /// Index of the range bit in bit 0 of `current`.
    base: usize,
    /// Next word to load.
    next_word: usize,
}

impl<'a> SetRuns<'a> {
    /// Iterates the runs of set bits among bits `[offset, offset + len)` of `bytes`.
    ///
    /// # Panics
    /// If the range does not fit in `bytes`.
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Self {
        Self {
            chunks: BitChunks::new(bytes, offset, len),
            current: 0,
            base: 0,
            next_word: 0,
        }
    }

    /// Loads the next word into `current`; false when there is none.
    #[inline]
    fn load_next(&mut self) -> bool {
        if self.next_word == self.chunks.padded_count() {
            return false;
        }
        self.current = self.chunks.padded_chunk(self.next_word);
        self.base = self.next_word * 64;
        self.next_word += 1;
        true
    }
}

impl Iterator for SetRuns<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        while self.current == 0 {
            if !self.load_next() {
                return None;
            }
        }
        let zeros = self.current.trailing_zeros();
        let start = self.base + zeros as usize;
        let ones = (self.current >> zeros).trailing_ones();
        if zeros + ones < 64 {
            // The run ends inside this word: clear it and report it.
            self.current &= !(((1u64 << ones) - 1) << zeros);
            return Some((start, self.base + (zeros + ones) as usize));
        }
        // The run reaches the end of this word and may continue through the next ones. The
        // padded last word has zeros above the range, so a run never ends past the range.
        let mut end = self.base + 64;
        self.current = 0;
        while self.load_next() {
            let ones = self.current.trailing_ones();
            if ones < 64 {
                end += ones as usize;
                self.current &= !((1u64 << ones) - 1);
                break;
            }
            end += 64;
            self.current = 0;
        }
        Some((start, end))
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

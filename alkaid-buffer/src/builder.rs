//! Builders for bitmaps: [`BooleanBufferBuilder`] and [`NullBufferBuilder`].

use crate::bitmap::{self, BitChunks};
use crate::{BooleanBuffer, MutableBuffer, NullBuffer};

/// Appends bits one at a time, in runs, or copied from another bitmap at any offset.
///
/// Invariant: the buffer holds exactly [`bytes_for`](bitmap::bytes_for)`(len)` bytes and the
/// bits past `len` in the last byte are zero, so appending only ever sets bits.
///
/// # Examples
/// ```
/// use alkaid_buffer::builder::BooleanBufferBuilder;
/// let mut builder = BooleanBufferBuilder::new(16);
/// builder.append(true);
/// builder.append_n(3, false);
/// builder.append_packed_range(&[0b1111_0000], 3, 3); // bits 3, 4, 5: 0, 1, 1
/// let bits = builder.finish();
/// assert_eq!(bits.iter().collect::<Vec<_>>(), [true, false, false, false, false, true, true]);
/// ```
#[derive(Debug, Default)]
pub struct BooleanBufferBuilder {
    buffer: MutableBuffer,
    len: usize,
}

impl BooleanBufferBuilder {
    /// An empty builder with room for `capacity` bits.
    pub fn new(capacity: usize) -> Self {
        Self {
            buffer: MutableBuffer::with_capacity(bitmap::bytes_for(capacity)),
            len: 0,
        }
    }

    /// Number of bits appended.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no bits were appended.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bits the builder can hold without reallocating.
    pub fn capacity(&self) -> usize {
        self.buffer.capacity() * 8
    }

    /// Makes room for `additional` more bits.
    pub fn reserve(&mut self, additional: usize) {
        let needed = bitmap::bytes_for(self.len + additional);
        self.buffer
            .reserve(needed.saturating_sub(self.buffer.len()));
    }

    /// Appends one bit.
    #[inline]
    pub fn append(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.buffer.push(0u8);
        }
        if bit {
            let last = self.buffer.len() - 1;
            self.buffer.as_mut_slice()[last] |= 1 << (self.len % 8);
        }
        self.len += 1;
    }

    /// Appends `n` copies of `bit`.
    pub fn append_n(&mut self, n: usize, bit: bool) {
        let new_len = self
            .len
            .checked_add(n)
            .expect("bitmap length overflows usize");
        let new_bytes = bitmap::bytes_for(new_len);
        if !bit {
            self.buffer.extend_zeros(new_bytes - self.buffer.len());
            self.len = new_len;
            return;
        }
        // Fill the partial last byte, append whole 0xff bytes, then clear the padding.
        if !self.len.is_multiple_of(8) {
            let last = self.buffer.len() - 1;
            self.buffer.as_mut_slice()[last] |= 0xff << (self.len % 8);
        }
        self.buffer.resize(new_bytes, 0xff);
        self.len = new_len;
        self.clear_padding();
    }

    /// Appends the bits of a slice of `bool`s.
    pub fn append_slice(&mut self, bits: &[bool]) {
        self.reserve(bits.len());
        let mut rest = bits;
        // Top up the partial byte, then pack eight at a time.
        while !self.len.is_multiple_of(8) && !rest.is_empty() {
            self.append(rest[0]);
            rest = &rest[1..];
        }
        let whole = rest.len() / 8;
        self.buffer.extend_with(whole, |i| {
            let chunk = &rest[i * 8..i * 8 + 8];
            chunk
                .iter()
                .enumerate()
                .fold(0u8, |byte, (j, &bit)| byte | u8::from(bit) << j)
        });
        self.len += whole * 8;
        for &bit in &rest[whole * 8..] {
            self.append(bit);
        }
    }

    /// Appends bits `[offset, offset + len)` of a packed bitmap.
    ///
    /// # Panics
    /// If the range does not fit in `bytes`.
    pub fn append_packed_range(&mut self, bytes: &[u8], offset: usize, len: usize) {
        if self.len.is_multiple_of(8) && offset.is_multiple_of(8) {
            // Byte-aligned on both sides: a copy. Bits past the range in the last byte are
            // cleared, as everywhere in a builder.
            bitmap::assert_bits_in(bytes, offset, len);
            let whole = &bytes[offset / 8..(offset + len).div_ceil(8)];
            self.buffer.extend_from_slice(whole);
            if !len.is_multiple_of(8) {
                let last = self.buffer.len() - 1;
                self.buffer.as_mut_slice()[last] &= (1u8 << (len % 8)) - 1;
            }
            self.len += len;
            return;
        }
        // Otherwise a word at a time, shifted past the bits already in the last byte
        // (which is taken off and written again as part of the first word): no bit-by-bit
        // head, which for the short ranges of a filter's runs cost more than the words.
        let chunks = BitChunks::new(bytes, offset, len);
        let shift = (self.len % 8) as u32;
        let mut carry = 0u64;
        if shift > 0 {
            let last = self.buffer.len() - 1;
            carry = u64::from(self.buffer.as_slice()[last]);
            self.buffer.truncate(last);
        }
        // `(w >> 1) >> (63 - shift)`: the bits of `w` shifted out, without a shift by 64.
        self.buffer.extend_with(chunks.chunk_count(), |i| {
            let word = chunks.chunk(i);
            let out = carry | word << shift;
            carry = (word >> 1) >> (63 - shift);
            out
        });
        let word = chunks.remainder();
        self.buffer.push(carry | word << shift);
        self.buffer.push((word >> 1) >> (63 - shift));
        // Sixteen bytes were written at the end; keep those that hold bits (the rest are
        // clear, so the last byte's unused bits are too).
        self.len += len;
        self.buffer.truncate(bitmap::bytes_for(self.len));
    }

    /// Sets bit `i` to `bit`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn set(&mut self, i: usize, bit: bool) {
        assert!(
            i < self.len,
            "bit index {i} out of bounds for length {}",
            self.len
        );
        if bit {
            bitmap::set_bit(self.buffer.as_mut_slice(), i);
        } else {
            bitmap::unset_bit(self.buffer.as_mut_slice(), i);
        }
    }

    /// Bit `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn get(&self, i: usize) -> bool {
        assert!(
            i < self.len,
            "bit index {i} out of bounds for length {}",
            self.len
        );
        bitmap::get_bit(self.buffer.as_slice(), i)
    }

    /// Shortens to `len` bits; does nothing if there are fewer.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.len = len;
            self.buffer.truncate(bitmap::bytes_for(len));
            self.clear_padding();
        }
    }

    /// The packed bytes so far (the bits past `len` are zero).
    pub fn as_slice(&self) -> &[u8] {
        self.buffer.as_slice()
    }

    /// Finishes the bitmap, leaving the builder empty.
    pub fn finish(&mut self) -> BooleanBuffer {
        let buffer = std::mem::take(&mut self.buffer);
        let len = std::mem::take(&mut self.len);
        BooleanBuffer::new(buffer.into(), 0, len)
    }

    fn clear_padding(&mut self) {
        if !self.len.is_multiple_of(8) {
            let last = self.buffer.len() - 1;
            self.buffer.as_mut_slice()[last] &= (1u8 << (self.len % 8)) - 1;
        }
    }
}

/// Builds an optional validity bitmap: nothing is allocated until the first null.
///
/// Most columns have no nulls; for them this builder only counts, and
/// [`finish`](Self::finish) returns `None`.
///
/// # Examples
/// ```
/// use alkaid_buffer::builder::NullBufferBuilder;
/// let mut builder = NullBufferBuilder::new(4);
/// builder.append_n_non_nulls(3);
/// assert!(builder.clone().finish().is_none());
/// builder.append_null();
/// let nulls = builder.finish().unwrap();
/// assert_eq!((nulls.len(), nulls.null_count()), (4, 1));
/// ```
#[derive(Debug, Default)]
pub struct NullBufferBuilder {
    /// Slots appended while `bits` is `None` (all valid).
    len: usize,
    bits: Option<BooleanBufferBuilder>,
    capacity: usize,
}

impl Clone for NullBufferBuilder {
    fn clone(&self) -> Self {
        let bits = self.bits.as_ref().map(|b| {
            let mut copy = BooleanBufferBuilder::new(b.len());
            copy.append_packed_range(b.as_slice(), 0, b.len());
            copy
        });
        Self {
            len: self.len,
            bits,
            capacity: self.capacity,
        }
    }
}

impl NullBufferBuilder {
    /// A builder expecting about `capacity` slots (used when the bitmap is materialised).
    pub fn new(capacity: usize) -> Self {
        Self {
            len: 0,
            bits: None,
            capacity,
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.bits
            .as_ref()
            .map_or(self.len, BooleanBufferBuilder::len)
    }

    /// Whether no slots were appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends one valid slot.
    #[inline]
    pub fn append_non_null(&mut self) {
        match &mut self.bits {
            Some(bits) => bits.append(true),
            None => self.len += 1,
        }
    }

    /// Appends one null slot.
    #[inline]
    pub fn append_null(&mut self) {
        self.materialize().append(false);
    }

    /// Appends one slot, valid if `valid`.
    #[inline]
    pub fn append(&mut self, valid: bool) {
        if valid {
            self.append_non_null()
        } else {
            self.append_null()
        }
    }

    /// Appends `n` valid slots.
    pub fn append_n_non_nulls(&mut self, n: usize) {
        match &mut self.bits {
            Some(bits) => bits.append_n(n, true),
            None => self.len += n,
        }
    }

    /// Appends `n` null slots.
    pub fn append_n_nulls(&mut self, n: usize) {
        if n > 0 {
            self.materialize().append_n(n, false);
        }
    }

    /// Appends one slot per `bool`, valid where it is true.
    pub fn append_slice(&mut self, validity: &[bool]) {
        if validity.iter().all(|&v| v) {
            self.append_n_non_nulls(validity.len());
        } else {
            self.materialize().append_slice(validity);
        }
    }

    /// Finishes: `None` if no slot was null, leaving the builder empty.
    pub fn finish(&mut self) -> Option<NullBuffer> {
        self.len = 0;
        self.bits
            .take()
            .map(|mut bits| NullBuffer::new(bits.finish()))
    }

    fn materialize(&mut self) -> &mut BooleanBufferBuilder {
        let (len, capacity) = (self.len, self.capacity);
        self.bits.get_or_insert_with(|| {
            let mut bits = BooleanBufferBuilder::new(capacity.max(len + 1));
            bits.append_n(len, true);
            bits
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_stays_clear_after_every_operation() {
        let mut builder = BooleanBufferBuilder::new(0);
        builder.append_n(3, true);
        assert_eq!(builder.as_slice(), &[0b111]);
        builder.append_n(10, true);
        assert_eq!(builder.as_slice(), &[0xff, 0b1_1111]);
        builder.truncate(9);
        assert_eq!(builder.as_slice(), &[0xff, 0b1]);
        builder.append_n(0, true);
        builder.append_n(2, false);
        assert_eq!(builder.len(), 11);
        assert_eq!(builder.as_slice(), &[0xff, 0b1]);
    }

    #[test]
    fn append_packed_range_at_unaligned_positions() {
        let source: Vec<u8> = (0..30u8).map(|i| i.wrapping_mul(73)).collect();
        for start in [0usize, 1, 5, 8] {
            for (offset, len) in [(0, 0), (3, 5), (7, 64), (9, 150), (1, 200)] {
                let mut builder = BooleanBufferBuilder::new(0);
                builder.append_n(start, true);
                builder.append_packed_range(&source, offset, len);
                let bits = builder.finish();
                assert_eq!(bits.len(), start + len);
                for i in 0..len {
                    assert_eq!(bits.value(start + i), bitmap::get_bit(&source, offset + i));
                }
                assert_eq!(
                    bits.count_set_bits(),
                    start + bitmap::count_set_bits(&source, offset, len)
                );
            }
        }
    }

    #[test]
    fn append_slice_packs_and_handles_partial_bytes() {
        let bits: Vec<bool> = (0..37).map(|i| i % 3 == 1).collect();
        let mut builder = BooleanBufferBuilder::new(0);
        builder.append(true);
        builder.append_slice(&bits);
        let result = builder.finish();
        assert_eq!(result.len(), 38);
        assert!(result.value(0));
        assert!(
            bits.iter()
                .enumerate()
                .all(|(i, &b)| result.value(i + 1) == b)
        );
    }

    #[test]
    fn set_and_get_check_bounds() {
        let mut builder = BooleanBufferBuilder::new(8);
        builder.append_n(4, false);
        builder.set(2, true);
        assert!(builder.get(2));
        builder.set(2, false);
        assert!(!builder.get(2));
        assert!(std::panic::catch_unwind(move || builder.get(4)).is_err());
    }

    #[test]
    fn null_builder_without_nulls_finishes_empty() {
        let mut builder = NullBufferBuilder::new(8);
        builder.append_non_null();
        builder.append_n_nulls(0);
        builder.append_slice(&[true, true]);
        assert_eq!(builder.len(), 3);
        assert_eq!(builder.finish(), None);
        let mut bits = BooleanBufferBuilder::new(100);
        assert!(bits.capacity() >= 100);
        bits.reserve(1000);
        assert!(bits.capacity() >= 1000 && bits.is_empty());
    }

    #[test]
    fn null_builder_materialises_on_first_null() {
        let mut builder = NullBufferBuilder::new(0);
        builder.append_n_non_nulls(70);
        builder.append(false);
        builder.append_slice(&[true, true]);
        builder.append_n_nulls(2);
        assert_eq!(builder.len(), 75);
        let nulls = builder.finish().unwrap();
        assert_eq!(nulls.null_count(), 3);
        assert!(nulls.is_valid(69) && nulls.is_null(70) && nulls.is_null(74));
        assert!(builder.is_empty());
        assert!(builder.finish().is_none());
    }
}

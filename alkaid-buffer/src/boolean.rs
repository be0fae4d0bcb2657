//! [`BooleanBuffer`]: an owned bitmap window (bit offset + bit length over a [`Buffer`]).

use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor, Not};

use crate::Buffer;
use crate::bitmap::{self, BitChunks, BitIter, SetIndices, SetRuns};
use crate::builder::BooleanBufferBuilder;
use crate::error::{BufferError, check_range};

/// A packed bitmap of `len` bits starting at bit `offset` of a [`Buffer`].
///
/// Slicing is O(1) and only moves the bit window, so a slice may start in the middle of a
/// byte; every operation here handles that. Bitwise operations produce a new bitmap at
/// offset 0. Equality compares the bits, not the bytes around them.
///
/// # Examples
/// ```
/// use alkaid_buffer::BooleanBuffer;
/// let bits = BooleanBuffer::from(&[true, false, true, true, false][..]);
/// let tail = bits.slice(2, 3); // starts at bit 2
/// assert_eq!(tail.iter().collect::<Vec<_>>(), [true, true, false]);
/// assert_eq!(tail.count_set_bits(), 2);
/// assert_eq!((&tail & &!&tail).count_set_bits(), 0);
/// ```
#[derive(Clone)]
pub struct BooleanBuffer {
    buffer: Buffer,
    offset: usize,
    len: usize,
}

impl BooleanBuffer {
    /// Views bits `[offset, offset + len)` of `buffer`.
    ///
    /// # Errors
    /// [`BufferError::OutOfBounds`] if the buffer has fewer than `offset + len` bits.
    pub fn try_new(buffer: Buffer, offset: usize, len: usize) -> Result<Self, BufferError> {
        check_range("bits", offset, len, buffer.len().saturating_mul(8))?;
        Ok(Self {
            buffer,
            offset,
            len,
        })
    }

    /// Views bits `[offset, offset + len)` of `buffer`.
    ///
    /// # Panics
    /// If the buffer has fewer than `offset + len` bits.
    pub fn new(buffer: Buffer, offset: usize, len: usize) -> Self {
        Self::try_new(buffer, offset, len).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `len` set bits.
    pub fn new_set(len: usize) -> Self {
        let mut builder = BooleanBufferBuilder::new(len);
        builder.append_n(len, true);
        builder.finish()
    }

    /// `len` unset bits; the memory comes zeroed from the allocator.
    pub fn new_unset(len: usize) -> Self {
        let buffer = crate::MutableBuffer::zeroed(bitmap::bytes_for(len)).into();
        Self {
            buffer,
            offset: 0,
            len,
        }
    }

    /// Number of bits.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit offset of the first bit in [`inner`](Self::inner).
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The underlying bytes (the bits live at [`offset`](Self::offset) within them).
    #[inline]
    pub fn inner(&self) -> &Buffer {
        &self.buffer
    }

    /// The underlying bytes, bit offset and length.
    pub fn into_parts(self) -> (Buffer, usize, usize) {
        (self.buffer, self.offset, self.len)
    }

    /// Bit `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn value(&self, i: usize) -> bool {
        assert!(
            i < self.len,
            "bit index {i} out of bounds for length {}",
            self.len
        );
        bitmap::get_bit(&self.buffer, self.offset + i)
    }

    /// Bit `i`, without the bounds check.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline]
    pub unsafe fn value_unchecked(&self, i: usize) -> bool {
        let bit = self.offset + i;
        // SAFETY: i < len (caller), and the constructor checked that offset + len bits fit
        // in the buffer, so byte bit / 8 is in bounds.
        let byte = unsafe { *self.buffer.as_slice().get_unchecked(bit / 8) };
        byte >> (bit % 8) & 1 == 1
    }

    /// Number of set bits.
    pub fn count_set_bits(&self) -> usize {
        bitmap::count_set_bits(&self.buffer, self.offset, self.len)
    }

    /// Number of runs of consecutive set bits (what [`set_runs`](Self::set_runs) yields).
    pub fn count_set_runs(&self) -> usize {
        bitmap::count_set_runs(&self.buffer, self.offset, self.len)
    }

    /// The number of runs of set bits if it is at most `limit`, else `None` (found without
    /// counting them all).
    pub fn count_set_runs_at_most(&self, limit: usize) -> Option<usize> {
        bitmap::count_set_runs_at_most(&self.buffer, self.offset, self.len, limit)
    }

    /// An O(1) view of `len` bits starting at bit `offset` of this bitmap.
    ///
    /// # Panics
    /// If `offset + len > self.len()`.
    pub fn slice(&self, offset: usize, len: usize) -> Self {
        check_range("bits", offset, len, self.len).unwrap_or_else(|e| panic!("{e}"));
        Self {
            buffer: self.buffer.clone(),
            offset: self.offset + offset,
            len,
        }
    }

    /// The bits as a buffer starting at bit 0: shares memory when the offset is a multiple
    /// of 8, copies otherwise.
    pub fn bit_aligned(&self) -> Buffer {
        let bytes = bitmap::bytes_for(self.len);
        if self.offset.is_multiple_of(8) {
            self.buffer.slice(self.offset / 8, bytes)
        } else {
            bitmap::bitwise_unary(&self.buffer, self.offset, self.len, |w| w)
        }
    }

    /// The bits as `u64` words.
    #[inline]
    pub fn chunks(&self) -> BitChunks<'_> {
        BitChunks::new(&self.buffer, self.offset, self.len)
    }

    /// Every bit as a `bool`.
    #[inline]
    pub fn iter(&self) -> BitIter<'_> {
        BitIter::new(&self.buffer, self.offset, self.len)
    }

    /// Indices of the set bits, ascending.
    #[inline]
    pub fn set_indices(&self) -> SetIndices<'_> {
        SetIndices::new(&self.buffer, self.offset, self.len)
    }

    /// Runs of set bits as half-open `(start, end)` ranges.
    #[inline]
    pub fn set_runs(&self) -> SetRuns<'_> {
        SetRuns::new(&self.buffer, self.offset, self.len)
    }

    fn binary(&self, other: &Self, op: impl Fn(u64, u64) -> u64) -> Self {
        assert_eq!(
            self.len, other.len,
            "bitwise operation on bitmaps of different lengths"
        );
        let buffer = bitmap::bitwise_binary(
            &self.buffer,
            self.offset,
            &other.buffer,
            other.offset,
            self.len,
            op,
        );
        Self {
            buffer,
            offset: 0,
            len: self.len,
        }
    }

    /// `self & !other`.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn and_not(&self, other: &Self) -> Self {
        self.binary(other, |a, b| a & !b)
    }
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:tt) => {
        impl $trait<&BooleanBuffer> for &BooleanBuffer {
            type Output = BooleanBuffer;
            /// # Panics
            /// If the lengths differ.
            fn $method(self, other: &BooleanBuffer) -> BooleanBuffer {
                self.binary(other, |a, b| a $op b)
            }
        }
    };
}
binary_operator!(BitAnd, bitand, &);
binary_operator!(BitOr, bitor, |);
binary_operator!(BitXor, bitxor, ^);

impl Not for &BooleanBuffer {
    type Output = BooleanBuffer;
    fn not(self) -> BooleanBuffer {
        let buffer = bitmap::not(&self.buffer, self.offset, self.len);
        BooleanBuffer {
            buffer,
            offset: 0,
            len: self.len,
        }
    }
}

impl PartialEq for BooleanBuffer {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.chunks().iter_padded().eq(other.chunks().iter_padded())
    }
}

impl Eq for BooleanBuffer {}

impl fmt::Debug for BooleanBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BooleanBuffer(")?;
        for bit in self.iter().take(128) {
            f.write_str(if bit { "1" } else { "0" })?;
        }
        if self.len > 128 {
            write!(f, "... {} bits", self.len)?;
        }
        write!(f, ")")
    }
}

impl FromIterator<bool> for BooleanBuffer {
    fn from_iter<I: IntoIterator<Item = bool>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut builder = BooleanBufferBuilder::new(iter.size_hint().0);
        for bit in iter {
            builder.append(bit);
        }
        builder.finish()
    }
}

impl From<&[bool]> for BooleanBuffer {
    fn from(bits: &[bool]) -> Self {
        let mut builder = BooleanBufferBuilder::new(bits.len());
        builder.append_slice(bits);
        builder.finish()
    }
}

impl From<Vec<bool>> for BooleanBuffer {
    fn from(bits: Vec<bool>) -> Self {
        bits.as_slice().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construction_checks_the_bit_range() {
        let buffer = Buffer::from_slice_ref(&[0xffu8, 0x0f]);
        assert!(BooleanBuffer::try_new(buffer.clone(), 4, 12).is_ok());
        assert_eq!(
            BooleanBuffer::try_new(buffer, 4, 13)
                .unwrap_err()
                .to_string(),
            "range of 13 bits at offset 4 is out of bounds for length 16"
        );
    }

    #[test]
    fn equality_ignores_offsets_and_padding() {
        let a = BooleanBuffer::new(Buffer::from_slice_ref(&[0b1111_0110u8]), 1, 3);
        let b = BooleanBuffer::new(Buffer::from_slice_ref(&[0b0000_0011u8]), 0, 3);
        assert_eq!(a, b);
        assert_ne!(a, b.slice(0, 2));
        assert_eq!(BooleanBuffer::new_set(0), BooleanBuffer::new_unset(0));
    }

    #[test]
    fn set_and_unset_constructors() {
        let set = BooleanBuffer::new_set(70);
        assert_eq!(set.count_set_bits(), 70);
        assert_eq!(set.inner().len(), 9);
        let unset = BooleanBuffer::new_unset(70);
        assert_eq!(unset.count_set_bits(), 0);
        assert_eq!((!&unset), set);
    }

    #[test]
    fn bit_aligned_shares_when_it_can() {
        let bits = BooleanBuffer::from((0..40).map(|i| i % 3 == 0).collect::<Vec<_>>());
        let byte_aligned = bits.slice(8, 20);
        assert!(
            byte_aligned
                .bit_aligned()
                .shares_allocation_with(bits.inner())
        );
        let odd = bits.slice(5, 20);
        let copied = BooleanBuffer::new(odd.bit_aligned(), 0, 20);
        assert_eq!(copied, odd);
    }

    #[test]
    fn value_checks_bounds_and_unchecked_agrees() {
        let bits = BooleanBuffer::from(vec![false, true, true]).slice(1, 2);
        assert!(bits.value(0) && bits.value(1));
        // SAFETY: 1 < len 2.
        assert!(unsafe { bits.value_unchecked(1) });
        let result = std::panic::catch_unwind(|| bits.value(2));
        assert!(result.is_err());
    }

    #[test]
    #[should_panic(expected = "different lengths")]
    fn operators_require_equal_lengths() {
        let _ = &BooleanBuffer::new_set(3) & &BooleanBuffer::new_set(4);
    }

    #[test]
    fn into_parts_returns_the_window() {
        let bits = BooleanBuffer::from(vec![true; 20]).slice(3, 10);
        let (buffer, offset, len) = bits.clone().into_parts();
        assert_eq!((offset, len), (3, 10));
        assert_eq!(BooleanBuffer::new(buffer, offset, len), bits);
    }

    #[test]
    fn debug_prints_bits() {
        let bits = BooleanBuffer::from(vec![true, false, true]);
        assert_eq!(format!("{bits:?}"), "BooleanBuffer(101)");
    }
}

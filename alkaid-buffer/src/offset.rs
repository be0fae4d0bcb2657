//! [`OffsetBuffer`]: the offsets of variable-size layouts, checked once.

use std::fmt;
use std::ops::Deref;

use crate::ScalarBuffer;
use crate::error::BufferError;
use crate::native::NativeType;

/// An offset type: `i32` for the regular variable-size layouts, `i64` for the large ones.
pub trait OffsetSize: NativeType + Ord + sealed::Sealed {
    /// Zero.
    const ZERO: Self;
    /// Whether this is the 64-bit (large) offset type.
    const IS_LARGE: bool;
    /// The offset as a `usize`, or `None` if it is negative or does not fit.
    fn to_usize(self) -> Option<usize>;
    /// The offset as a `usize` by a plain cast, for offsets already known to be
    /// non-negative (a negative one would wrap to a huge value, which any bounds check
    /// then rejects).
    fn as_usize(self) -> usize;
    /// `value` as an offset, or `None` if it does not fit.
    fn from_usize(value: usize) -> Option<Self>;
    /// `value` as an offset by a plain (truncating) cast, for loops that check the largest
    /// value once with [`from_usize`](Self::from_usize) instead of every one.
    fn usize_as(value: usize) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! offset_size {
    ($t:ty, $large:expr) => {
        impl sealed::Sealed for $t {}
        impl OffsetSize for $t {
            const ZERO: Self = 0;
            const IS_LARGE: bool = $large;
            #[inline]
            fn to_usize(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline]
            fn as_usize(self) -> usize {
                self as usize
            }
            #[inline]
            fn from_usize(value: usize) -> Option<Self> {
                Self::try_from(value).ok()
            }
            #[inline]
            fn usize_as(value: usize) -> Self {
                value as Self
            }
        }
    };
}
offset_size!(i32, false);
offset_size!(i64, true);

/// At least one offset, none negative, never decreasing.
///
/// For `n` values there are `n + 1` offsets; value `i` spans `offsets[i]..offsets[i + 1]`.
/// Whether the last offset fits the data it indexes is the business of the array that holds
/// both; this type checks what can be checked from the offsets alone.
///
/// # Examples
/// ```
/// use alkaid_buffer::{OffsetBuffer, ScalarBuffer};
/// let offsets = OffsetBuffer::<i32>::from_lengths([3, 0, 4]);
/// assert_eq!(&offsets[..], &[0, 3, 3, 7]);
/// assert_eq!(offsets.range(2), 3..7);
///
/// let bad = OffsetBuffer::try_new(ScalarBuffer::from(vec![0i32, 5, 2]));
/// assert_eq!(bad.unwrap_err().to_string(),
///            "invalid offsets at index 2: offset 2 is less than the previous offset 5");
/// ```
#[derive(Clone, PartialEq)]
pub struct OffsetBuffer<O: OffsetSize>(ScalarBuffer<O>);

impl<O: OffsetSize> OffsetBuffer<O> {
    /// Checks and wraps `offsets`.
    ///
    /// # Errors
    /// [`BufferError::InvalidOffsets`] if there are no offsets, the first is negative, or one
    /// is less than the one before it.
    pub fn try_new(offsets: ScalarBuffer<O>) -> Result<Self, BufferError> {
        let Some(&first) = offsets.first() else {
            return Err(BufferError::InvalidOffsets {
                index: 0,
                reason: "expected at least one offset, found none".to_string(),
            });
        };
        if first < O::ZERO {
            return Err(BufferError::InvalidOffsets {
                index: 0,
                reason: format!("offset {first:?} is negative"),
            });
        }
        // One pass with no early exit vectorises; the position is only searched on failure.
        let monotonic = offsets
            .windows(2)
            .fold(true, |ok, pair| ok & (pair[0] <= pair[1]));
        if !monotonic {
            let index = offsets
                .windows(2)
                .position(|pair| pair[0] > pair[1])
                .map_or(0, |i| i + 1);
            return Err(BufferError::InvalidOffsets {
                index,
                reason: format!(
                    "offset {:?} is less than the previous offset {:?}",
                    offsets[index],
                    offsets[index - 1]
                ),
            });
        }
        Ok(Self(offsets))
    }

    /// Wraps `offsets` without checking them.
    ///
    /// # Safety
    /// `offsets` must hold at least one value, the first non-negative, each at least the
    /// previous one: code that reads data through the offsets relies on it to stay in bounds.
    pub unsafe fn new_unchecked(offsets: ScalarBuffer<O>) -> Self {
        debug_assert!(Self::try_new(offsets.clone()).is_ok());
        Self(offsets)
    }

    /// Offsets for `len` empty values: `len + 1` zeros.
    pub fn new_zeroed(len: usize) -> Self {
        let bytes = len
            .checked_add(1)
            .and_then(|n| n.checked_mul(size_of::<O>()));
        let buffer = crate::Buffer::from(crate::MutableBuffer::zeroed(
            bytes.expect("too many offsets"),
        ));
        Self(ScalarBuffer::try_from(buffer).expect("an aligned allocation of whole offsets"))
    }

    /// Offsets for values of the given lengths, starting at zero.
    ///
    /// # Panics
    /// If the total length overflows `O`.
    pub fn from_lengths<I: IntoIterator<Item = usize>>(lengths: I) -> Self {
        let iter = lengths.into_iter();
        let mut offsets = Vec::with_capacity(iter.size_hint().0 + 1);
        let mut total = 0usize;
        offsets.push(O::ZERO);
        for length in iter {
            total = total.checked_add(length).expect("offset overflow");
            offsets.push(O::from_usize(total).expect("offset overflow"));
        }
        Self(ScalarBuffer::from(offsets))
    }

    /// Number of values the offsets delimit (one less than the number of offsets).
    pub fn value_count(&self) -> usize {
        self.0.len() - 1
    }

    /// The first offset.
    pub fn first(&self) -> O {
        self.0[0]
    }

    /// The last offset.
    pub fn last(&self) -> O {
        self.0[self.0.len() - 1]
    }

    /// The byte (or child) range of value `index`.
    ///
    /// # Panics
    /// If `index >= self.value_count()`.
    #[inline]
    pub fn range(&self, index: usize) -> std::ops::Range<usize> {
        // The constructor checked the offsets non-negative, so the casts are exact.
        self.0[index].as_usize()..self.0[index + 1].as_usize()
    }

    /// The offsets of `len` values starting at value `offset`: `len + 1` offsets, O(1).
    ///
    /// # Panics
    /// If `offset + len > self.value_count()`.
    pub fn slice(&self, offset: usize, len: usize) -> Self {
        Self(
            self.0
                .slice(offset, len.checked_add(1).expect("slice length overflows")),
        )
    }

    /// The offsets as a scalar buffer.
    pub fn inner(&self) -> &ScalarBuffer<O> {
        &self.0
    }

    /// The offsets as a scalar buffer, consuming this one.
    pub fn into_inner(self) -> ScalarBuffer<O> {
        self.0
    }
}

impl<O: OffsetSize> Deref for OffsetBuffer<O> {
    type Target = [O];
    #[inline]
    fn deref(&self) -> &[O] {
        &self.0
    }
}

impl<O: OffsetSize> Default for OffsetBuffer<O> {
    /// A single zero offset: zero values.
    fn default() -> Self {
        Self::new_zeroed(0)
    }
}

impl<O: OffsetSize> fmt::Debug for OffsetBuffer<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OffsetBuffer({:?})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(values: Vec<i64>) -> Result<OffsetBuffer<i64>, BufferError> {
        OffsetBuffer::try_new(ScalarBuffer::from(values))
    }

    #[test]
    fn valid_offsets_are_accepted() {
        assert!(check(vec![0]).is_ok());
        assert!(check(vec![0, 0, 0]).is_ok());
        let offsets = check(vec![3, 5, 5, 9]).unwrap();
        assert_eq!(offsets.value_count(), 3);
        assert_eq!((offsets.first(), offsets.last()), (3, 9));
        assert_eq!(offsets.range(0), 3..5);
    }

    #[test]
    fn bad_offsets_name_the_index() {
        assert_eq!(
            check(vec![]).unwrap_err().to_string(),
            "invalid offsets at index 0: expected at least one offset, found none"
        );
        assert_eq!(
            check(vec![-1, 3]).unwrap_err().to_string(),
            "invalid offsets at index 0: offset -1 is negative"
        );
        assert_eq!(
            check(vec![0, 4, 8, 7, 9]).unwrap_err(),
            BufferError::InvalidOffsets {
                index: 3,
                reason: "offset 7 is less than the previous offset 8".to_string()
            }
        );
    }

    #[test]
    fn zeroed_lengths_and_slices() {
        let zeroed = OffsetBuffer::<i32>::new_zeroed(3);
        assert_eq!(&zeroed[..], &[0, 0, 0, 0]);
        assert_eq!(OffsetBuffer::<i32>::default().value_count(), 0);
        let offsets = OffsetBuffer::<i32>::from_lengths([1, 2, 3]);
        let tail = offsets.slice(1, 2);
        assert_eq!(&tail[..], &[1, 3, 6]);
        assert_eq!(offsets.slice(3, 0).value_count(), 0);
    }

    #[test]
    fn unchecked_constructor_keeps_valid_offsets() {
        let values = ScalarBuffer::from(vec![0i32, 2, 2, 5]);
        // SAFETY: the offsets start at zero and never decrease.
        let offsets = unsafe { OffsetBuffer::new_unchecked(values.clone()) };
        assert_eq!(offsets.inner(), &values);
        assert_eq!(offsets.into_inner(), values);
    }

    #[test]
    #[should_panic(expected = "offset overflow")]
    fn lengths_that_overflow_i32_panic() {
        OffsetBuffer::<i32>::from_lengths([i32::MAX as usize, 1]);
    }
}

//! [`NullBuffer`]: a validity bitmap that knows its null count.

use crate::BooleanBuffer;
use crate::bitmap::SetIndices;

/// The validity of an array's slots: bit `i` set means slot `i` is valid (not null).
///
/// The null count is computed once and cached, since nearly every kernel asks for it first.
/// An array without nulls usually has no `NullBuffer` at all (`Option<NullBuffer>`), but one
/// with zero nulls is also fine.
///
/// # Examples
/// ```
/// use alkaid_buffer::NullBuffer;
/// let nulls = NullBuffer::from(vec![true, false, true, false]);
/// assert_eq!(nulls.null_count(), 2);
/// assert!(nulls.is_null(1));
/// let tail = nulls.slice(2, 2);
/// assert_eq!(tail.null_count(), 1);
/// assert_eq!(tail.valid_indices().collect::<Vec<_>>(), [0]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NullBuffer {
    validity: BooleanBuffer,
    null_count: usize,
}

impl NullBuffer {
    /// Wraps `validity`, counting its unset bits.
    pub fn new(validity: BooleanBuffer) -> Self {
        let null_count = validity.len() - validity.count_set_bits();
        Self {
            validity,
            null_count,
        }
    }

    /// Wraps `validity` with a null count the caller already knows.
    ///
    /// # Safety
    /// `null_count` must equal the number of unset bits of `validity`: kernels use it to pick
    /// paths that skip reading the bitmap.
    pub unsafe fn new_unchecked(validity: BooleanBuffer, null_count: usize) -> Self {
        debug_assert_eq!(validity.len() - validity.count_set_bits(), null_count);
        Self {
            validity,
            null_count,
        }
    }

    /// `len` slots, all null.
    pub fn new_null(len: usize) -> Self {
        Self {
            validity: BooleanBuffer::new_unset(len),
            null_count: len,
        }
    }

    /// `len` slots, all valid.
    pub fn new_valid(len: usize) -> Self {
        Self {
            validity: BooleanBuffer::new_set(len),
            null_count: 0,
        }
    }

    /// Number of slots.
    #[inline]
    pub fn len(&self) -> usize {
        self.validity.len()
    }

    /// Whether there are no slots.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.validity.is_empty()
    }

    /// Number of null slots.
    #[inline]
    pub fn null_count(&self) -> usize {
        self.null_count
    }

    /// Whether slot `i` is valid.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.value(i)
    }

    /// Whether slot `i` is null.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        !self.is_valid(i)
    }

    /// The validity bits.
    #[inline]
    pub fn validity(&self) -> &BooleanBuffer {
        &self.validity
    }

    /// The validity bits, consuming this buffer.
    pub fn into_inner(self) -> BooleanBuffer {
        self.validity
    }

    /// Slots `[offset, offset + len)`; counts the nulls of the slice (O(len / 64)).
    ///
    /// # Panics
    /// If `offset + len > self.len()`.
    pub fn slice(&self, offset: usize, len: usize) -> Self {
        let validity = self.validity.slice(offset, len);
        let null_count = if self.null_count == 0 {
            0
        } else if self.null_count == self.len() {
            len
        } else {
            len - validity.count_set_bits()
        };
        Self {
            validity,
            null_count,
        }
    }

    /// Indices of the valid slots, ascending.
    #[inline]
    pub fn valid_indices(&self) -> SetIndices<'_> {
        self.validity.set_indices()
    }

    /// The validity of slots that are valid in both: `None` stands for "no nulls".
    ///
    /// # Panics
    /// If both are present with different lengths.
    ///
    /// # Examples
    /// ```
    /// use alkaid_buffer::NullBuffer;
    /// let a = NullBuffer::from(vec![true, false, true]);
    /// let b = NullBuffer::from(vec![true, true, false]);
    /// let both = NullBuffer::union(Some(&a), Some(&b)).unwrap();
    /// assert_eq!(both.null_count(), 2);
    /// assert_eq!(NullBuffer::union(None, Some(&a)), Some(a));
    /// ```
    pub fn union(left: Option<&NullBuffer>, right: Option<&NullBuffer>) -> Option<NullBuffer> {
        match (left, right) {
            (Some(l), Some(r)) => Some(Self::new(l.validity() & r.validity())),
            (Some(only), None) | (None, Some(only)) => Some(only.clone()),
            (None, None) => None,
        }
    }
}

impl From<BooleanBuffer> for NullBuffer {
    fn from(validity: BooleanBuffer) -> Self {
        Self::new(validity)
    }
}

impl From<Vec<bool>> for NullBuffer {
    fn from(validity: Vec<bool>) -> Self {
        Self::new(validity.into())
    }
}

impl From<&[bool]> for NullBuffer {
    fn from(validity: &[bool]) -> Self {
        Self::new(validity.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_recount_their_nulls() {
        let nulls = NullBuffer::from((0..100).map(|i| i % 4 != 0).collect::<Vec<_>>());
        assert_eq!(nulls.null_count(), 25);
        assert_eq!(nulls.slice(1, 3).null_count(), 0);
        assert_eq!(nulls.slice(3, 10).null_count(), 3);
        assert_eq!(nulls.slice(100, 0).null_count(), 0);
        let all_null = NullBuffer::new_null(10);
        assert_eq!(all_null.slice(2, 5).null_count(), 5);
        assert_eq!(NullBuffer::new_valid(10).slice(2, 5).null_count(), 0);
    }

    #[test]
    fn union_combines_validity() {
        let a = NullBuffer::from(vec![true, true, false, false]);
        let b = NullBuffer::from(vec![true, false, true, false]).slice(0, 4);
        let u = NullBuffer::union(Some(&a.slice(1, 3)), Some(&b.slice(0, 3))).unwrap();
        assert_eq!(
            u.validity().iter().collect::<Vec<_>>(),
            [true, false, false]
        );
        assert_eq!(NullBuffer::union(None, None), None);
    }

    #[test]
    fn unchecked_constructor_keeps_the_given_count() {
        let validity = BooleanBuffer::from(vec![true, false]);
        // SAFETY: one of the two bits is unset.
        let nulls = unsafe { NullBuffer::new_unchecked(validity, 1) };
        assert_eq!(nulls.null_count(), 1);
        assert!(nulls.is_null(1) && nulls.is_valid(0));
    }
}

//! [`ScalarBuffer`]: a [`Buffer`] viewed as a slice of one native type.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use crate::error::{BufferError, check_range};
use crate::native::NativeType;
use crate::{Buffer, MutableBuffer};

/// An immutable, shared slice of `T`s.
///
/// The alignment and length of the bytes are checked once, at construction, so reading is a
/// plain slice access. Clone and [`slice`](Self::slice) are O(1).
///
/// # Examples
/// ```
/// use alkaid_buffer::ScalarBuffer;
/// let values = ScalarBuffer::from(vec![1i64, 2, 3, 4]);
/// let middle = values.slice(1, 2);
/// assert_eq!(&middle[..], &[2, 3]);
/// assert_eq!(middle.iter().sum::<i64>(), 5);
/// ```
#[derive(Clone)]
pub struct ScalarBuffer<T: NativeType> {
    /// Exactly the bytes of the values, aligned for `T`.
    buffer: Buffer,
    phantom: PhantomData<T>,
}

impl<T: NativeType> ScalarBuffer<T> {
    /// Views `len` values starting at value `offset` of `buffer`.
    ///
    /// # Errors
    /// If the range does not fit in the buffer or the bytes are not aligned for `T`.
    pub fn try_new(buffer: Buffer, offset: usize, len: usize) -> Result<Self, BufferError> {
        let size = size_of::<T>();
        let available = buffer.len() / size;
        check_range("elements", offset, len, available)?;
        Self::try_from(buffer.try_into_slice(offset * size, len * size)?)
    }

    /// Views `len` values starting at value `offset` of `buffer`, copying the bytes to an
    /// aligned allocation if they are misaligned for `T` (as foreign memory may be).
    ///
    /// # Errors
    /// If the range does not fit in the buffer.
    pub fn new_realigned(buffer: Buffer, offset: usize, len: usize) -> Result<Self, BufferError> {
        let size = size_of::<T>();
        check_range("elements", offset, len, buffer.len() / size)?;
        let bytes = buffer
            .try_into_slice(offset * size, len * size)?
            .realigned(align_of::<T>());
        Self::try_from(bytes)
    }

    /// Number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.buffer.len() / size_of::<T>()
    }

    /// Whether there are no values.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// The values.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: every constructor checked (through cast_slice) that the bytes are aligned
        // for T and a whole number of Ts, and slicing keeps both properties.
        unsafe { std::slice::from_raw_parts(self.buffer.as_ptr().cast(), self.len()) }
    }

    /// An O(1) view of `len` values starting at `offset`.
    ///
    /// # Panics
    /// If `offset + len > self.len()`.
    pub fn slice(&self, offset: usize, len: usize) -> Self {
        let size = size_of::<T>();
        check_range("elements", offset, len, self.len()).unwrap_or_else(|e| panic!("{e}"));
        Self {
            buffer: self.buffer.slice(offset * size, len * size),
            phantom: PhantomData,
        }
    }

    /// The underlying bytes.
    pub fn inner(&self) -> &Buffer {
        &self.buffer
    }

    /// The underlying bytes, consuming the view.
    pub fn into_inner(self) -> Buffer {
        self.buffer
    }
}

impl<T: NativeType> TryFrom<Buffer> for ScalarBuffer<T> {
    type Error = BufferError;
    /// Views the whole buffer as `T`s.
    fn try_from(buffer: Buffer) -> Result<Self, BufferError> {
        buffer.typed::<T>()?;
        Ok(Self {
            buffer,
            phantom: PhantomData,
        })
    }
}

impl<T: NativeType> Deref for ScalarBuffer<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: NativeType> AsRef<[T]> for ScalarBuffer<T> {
    #[inline]
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: NativeType> From<Vec<T>> for ScalarBuffer<T> {
    /// Wraps the vector without copying (its alignment is `T`'s).
    fn from(values: Vec<T>) -> Self {
        Self {
            buffer: Buffer::from_vec(values),
            phantom: PhantomData,
        }
    }
}

impl<T: NativeType> From<&[T]> for ScalarBuffer<T> {
    fn from(values: &[T]) -> Self {
        Self {
            buffer: Buffer::from_slice_ref(values),
            phantom: PhantomData,
        }
    }
}

impl<T: NativeType> FromIterator<T> for ScalarBuffer<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let buffer: Buffer = MutableBuffer::from_iter(iter).into();
        Self {
            buffer,
            phantom: PhantomData,
        }
    }
}

impl<T: NativeType> Default for ScalarBuffer<T> {
    fn default() -> Self {
        Self {
            buffer: Buffer::empty(),
            phantom: PhantomData,
        }
    }
}

impl<T: NativeType> PartialEq for ScalarBuffer<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: NativeType> fmt::Debug for ScalarBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T: NativeType> IntoIterator for &'a ScalarBuffer<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construction_checks_range_and_alignment() {
        let buffer = Buffer::from_slice_ref(&[1i32, 2, 3, 4]);
        let view = ScalarBuffer::<i32>::try_new(buffer.clone(), 1, 3).unwrap();
        assert_eq!(&view[..], &[2, 3, 4]);
        assert!(matches!(
            ScalarBuffer::<i32>::try_new(buffer.clone(), 2, 3),
            Err(BufferError::OutOfBounds {
                unit: "elements",
                ..
            })
        ));
        let misaligned = buffer.slice(2, 8);
        assert!(matches!(
            ScalarBuffer::<i32>::try_from(misaligned.clone()),
            Err(BufferError::Misaligned { .. })
        ));
        let fixed = ScalarBuffer::<i32>::new_realigned(misaligned, 0, 2).unwrap();
        // Bytes 2..10 of 1, 2, 3, 4 (little-endian) read as two i32s.
        assert_eq!(&fixed[..], &[2 << 16, 3 << 16]);
    }

    #[test]
    fn empty_and_sliced_views() {
        let empty = ScalarBuffer::<f64>::default();
        assert!(empty.is_empty());
        let values: ScalarBuffer<u16> = (0..10).collect();
        let slice = values.slice(10, 0);
        assert!(slice.is_empty());
        assert_eq!(values.slice(3, 2).as_slice(), &[3, 4]);
        assert_eq!(format!("{:?}", values.slice(0, 3)), "[0, 1, 2]");
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn slicing_past_the_end_panics() {
        ScalarBuffer::from(vec![1u8, 2]).slice(1, 2);
    }
}

//! [`GenericByteArray`]: variable-length binary and text with `i32` or `i64` offsets.
//!
//! One generic array serves the four types: [`BinaryArray`], [`LargeBinaryArray`],
//! [`StringArray`] and [`LargeStringArray`]; a sealed [`ByteArrayType`] says which.

mod builder;

pub use builder::GenericByteBuilder;

use std::fmt::{self, Debug};
use std::marker::PhantomData;

use alkaid_buffer::{Buffer, NullBuffer, OffsetBuffer, OffsetSize, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::{Array, ArrayError};

mod sealed {
    pub trait Sealed {}
}

/// Binary or text, with `i32` or `i64` offsets.
pub trait ByteArrayType: sealed::Sealed + Debug + Send + Sync + 'static {
    /// The offset type.
    type Offset: OffsetSize;
    /// What one value is: `[u8]` or `str`.
    type Native: ?Sized + AsRef<[u8]> + Debug + PartialEq;
    /// The data type of arrays of this type.
    const DATA_TYPE: DataType;

    /// [`DATA_TYPE`](Self::DATA_TYPE) as a reference that lives forever.
    fn data_type() -> &'static DataType;

    /// A value from its bytes.
    ///
    /// # Safety
    /// For text, `bytes` must be UTF-8. Every array of this crate guarantees it for the bytes
    /// between two of its offsets: full validation checked them (and that no offset splits a
    /// character), or its builder took them as `&str`.
    unsafe fn from_validated(bytes: &[u8]) -> &Self::Native;
}

/// Binary values with offsets of `O`.
#[derive(Debug)]
pub struct GenericBinaryType<O>(PhantomData<O>);

/// UTF-8 text with offsets of `O`.
#[derive(Debug)]
pub struct GenericStringType<O>(PhantomData<O>);

macro_rules! byte_types {
    ($offset:ty, $binary:expr, $string:expr) => {
        impl sealed::Sealed for GenericBinaryType<$offset> {}
        impl ByteArrayType for GenericBinaryType<$offset> {
            type Offset = $offset;
            type Native = [u8];
            const DATA_TYPE: DataType = $binary;
            fn data_type() -> &'static DataType {
                static TYPE: DataType = $binary;
                &TYPE
            }
            unsafe fn from_validated(bytes: &[u8]) -> &[u8] {
                bytes
            }
        }

        impl sealed::Sealed for GenericStringType<$offset> {}
        impl ByteArrayType for GenericStringType<$offset> {
            type Offset = $offset;
            type Native = str;
            const DATA_TYPE: DataType = $string;
            fn data_type() -> &'static DataType {
                static TYPE: DataType = $string;
                &TYPE
            }
            unsafe fn from_validated(bytes: &[u8]) -> &str {
                debug_assert!(
                    std::str::from_utf8(bytes).is_ok(),
                    "string array bytes are not UTF-8"
                );
                // SAFETY: the caller promises UTF-8 (see the trait method's contract). Checking
                // it again on every access made reading strings 16x slower than arrow-rs
                // (benches/array.rs, string_value).
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
        }
    };
}
byte_types!(i32, DataType::Binary, DataType::Utf8);
byte_types!(i64, DataType::LargeBinary, DataType::LargeUtf8);

/// Byte strings with `i32` offsets.
pub type BinaryArray = GenericByteArray<GenericBinaryType<i32>>;
/// Byte strings with `i64` offsets.
pub type LargeBinaryArray = GenericByteArray<GenericBinaryType<i64>>;
/// UTF-8 strings with `i32` offsets.
pub type StringArray = GenericByteArray<GenericStringType<i32>>;
/// UTF-8 strings with `i64` offsets.
pub type LargeStringArray = GenericByteArray<GenericStringType<i64>>;

/// Variable-length values: offsets into one data buffer, with optional validity.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, StringArray};
/// let array = StringArray::from(vec![Some("hello"), None, Some("wörld")]);
/// assert_eq!(array.value(2), "wörld");
/// assert_eq!(array.iter().collect::<Vec<_>>(), [Some("hello"), None, Some("wörld")]);
/// let tail = array.slice_typed(1, 2);
/// assert!(tail.is_null(0));
/// ```
pub struct GenericByteArray<T: ByteArrayType> {
    offsets: OffsetBuffer<T::Offset>,
    values: Buffer,
    nulls: Option<NullBuffer>,
    phantom: PhantomData<T>,
}

impl<T: ByteArrayType> GenericByteArray<T> {
    /// An array from its parts, checked fully (offsets within the values; UTF-8 for text).
    ///
    /// # Errors
    /// The validation error, or a validity of the wrong length.
    pub fn try_new(
        offsets: OffsetBuffer<T::Offset>,
        values: Buffer,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        let data = ArrayData::builder(T::DATA_TYPE)
            .len(offsets.value_count())
            .nulls(nulls)
            .buffers(vec![offsets.inner().inner().clone(), values])
            .build()?;
        Self::try_from(data)
    }

    /// The offsets.
    pub fn offsets(&self) -> &OffsetBuffer<T::Offset> {
        &self.offsets
    }

    /// The data the offsets point into.
    pub fn values(&self) -> &Buffer {
        &self.values
    }

    /// Value `i` (whatever is stored, if the slot is null).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn value(&self, i: usize) -> &T::Native {
        assert!(
            i < self.len(),
            "slot {i} out of bounds for length {}",
            self.len()
        );
        // SAFETY: i < len, checked just above.
        unsafe { self.value_unchecked(i) }
    }

    /// Value `i`, without the bounds check.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline]
    pub unsafe fn value_unchecked(&self, i: usize) -> &T::Native {
        let offsets: &[T::Offset] = self.offsets.inner().as_slice();
        // SAFETY: i < len (the caller's promise), so i and i + 1 index the len + 1 offsets.
        // Every array of this type holds offsets that are non-negative, non-decreasing and
        // within `values` (full validation checked them, or the builder wrote them), and the
        // bytes between two of them are UTF-8 for text (see `from_validated`).
        unsafe {
            let start = offsets.get_unchecked(i).as_usize();
            let end = offsets.get_unchecked(i + 1).as_usize();
            T::from_validated(self.values.as_slice().get_unchecked(start..end))
        }
    }

    /// Every slot, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<&T::Native>> + '_ {
        (0..self.len()).map(|i| self.is_valid(i).then(|| self.value(i)))
    }

    /// Slots `[offset, offset + len)`, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        Self {
            offsets: self.offsets.slice(offset, len),
            values: self.values.clone(),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
            phantom: PhantomData,
        }
    }

    /// A builder with room for `capacity` values and `data_capacity` bytes.
    pub fn builder(capacity: usize, data_capacity: usize) -> GenericByteBuilder<T> {
        GenericByteBuilder::with_capacity(capacity, data_capacity)
    }
}

impl<T: ByteArrayType> Clone for GenericByteArray<T> {
    fn clone(&self) -> Self {
        Self {
            offsets: self.offsets.clone(),
            values: self.values.clone(),
            nulls: self.nulls.clone(),
            phantom: PhantomData,
        }
    }
}

impl<T: ByteArrayType> Array for GenericByteArray<T> {
    array_basics!(self => data_type: T::data_type(), len: self.offsets.value_count(), nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(T::DATA_TYPE)
            .len(self.len())
            .nulls(self.nulls.clone())
            .buffers(vec![
                self.offsets.inner().inner().clone(),
                self.values.clone(),
            ]);
        // SAFETY: the array's parts passed full validation when it was made (or were built
        // monotonic by its builder), and slicing keeps them valid.
        unsafe { builder.build_unchecked() }
    }
}

impl<T: ByteArrayType> TryFrom<ArrayData> for GenericByteArray<T> {
    type Error = ArrayError;

    /// Takes the parts of valid byte array data, without copying.
    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        if data.data_type() != &T::DATA_TYPE {
            return Err(ArrayError::TypeMismatch {
                expected: T::DATA_TYPE.to_string(),
                found: data.data_type().clone(),
            });
        }
        let mut parts = data.into_parts();
        let values = parts.buffers.swap_remove(1);
        let offsets = parts.buffers.swap_remove(0);
        let offsets = if offsets.is_empty() {
            OffsetBuffer::new_zeroed(0)
        } else {
            let raw = ScalarBuffer::try_new(offsets, parts.offset, parts.len + 1)
                .map_err(alkaid_data::DataError::from)?;
            // SAFETY: ArrayData is valid (full validation, or an unsafe promise of it), so
            // its offsets for these slots are non-negative and non-decreasing.
            unsafe { OffsetBuffer::new_unchecked(raw) }
        };
        Ok(Self {
            offsets,
            values,
            nulls: parts.nulls,
            phantom: PhantomData,
        })
    }
}

impl<T: ByteArrayType, V: AsRef<T::Native>> FromIterator<Option<V>> for GenericByteArray<T> {
    fn from_iter<I: IntoIterator<Item = Option<V>>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut builder = GenericByteBuilder::<T>::with_capacity(iter.size_hint().0, 0);
        for value in iter {
            builder.append_option(value);
        }
        builder.finish()
    }
}

macro_rules! from_vecs {
    ($ty:ident, $($item:ty),*) => {$(
        impl<'a, O> From<Vec<$item>> for GenericByteArray<$ty<O>>
        where
            $ty<O>: ByteArrayType,
            $item: AsRef<<$ty<O> as ByteArrayType>::Native>,
        {
            fn from(values: Vec<$item>) -> Self {
                values.into_iter().map(Some).collect()
            }
        }

        impl<'a, O> From<Vec<Option<$item>>> for GenericByteArray<$ty<O>>
        where
            $ty<O>: ByteArrayType,
            $item: AsRef<<$ty<O> as ByteArrayType>::Native>,
        {
            fn from(values: Vec<Option<$item>>) -> Self {
                values.into_iter().collect()
            }
        }
    )*};
}
from_vecs!(GenericStringType, &'a str, String);
from_vecs!(GenericBinaryType, &'a [u8], Vec<u8>);

impl<T: ByteArrayType> Debug for GenericByteArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Array", T::DATA_TYPE)?;
        f.debug_list().entries(self.iter().take(64)).finish()
    }
}

impl<T: ByteArrayType> PartialEq for GenericByteArray<T> {
    fn eq(&self, other: &Self) -> bool {
        alkaid_data::equal(&self.to_data(), &other.to_data())
    }
}

//! [`PrimitiveArray`]: fixed-width values of one logical type.

mod builder;

pub use builder::PrimitiveBuilder;

use std::fmt;
use std::marker::PhantomData;

use alkaid_buffer::{Buffer, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::types::PrimitiveType;
use crate::{Array, ArrayError};

/// Fixed-width values of the logical type `T`, with optional validity.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, Int32Array};
/// let array = Int32Array::from(vec![Some(1), None, Some(3)]);
/// assert_eq!(array.len(), 3);
/// assert_eq!(array.null_count(), 1);
/// assert_eq!(array.iter().collect::<Vec<_>>(), [Some(1), None, Some(3)]);
/// let tail = array.slice_typed(1, 2);
/// assert_eq!(tail.value(1), 3);
/// ```
pub struct PrimitiveArray<T: PrimitiveType> {
    data_type: DataType,
    values: ScalarBuffer<T::Native>,
    nulls: Option<NullBuffer>,
    phantom: PhantomData<T>,
}

impl<T: PrimitiveType> PrimitiveArray<T> {
    /// An array of `values` with optional validity, of `T`'s default data type.
    ///
    /// # Errors
    /// If the validity's length differs from the values'.
    pub fn try_new(
        values: ScalarBuffer<T::Native>,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        if let Some(nulls) = &nulls
            && nulls.len() != values.len()
        {
            return Err(ArrayError::LengthMismatch {
                what: "validity".to_string(),
                expected: values.len(),
                found: nulls.len(),
            });
        }
        Ok(Self {
            data_type: T::default_data_type(),
            values,
            nulls,
            phantom: PhantomData,
        })
    }

    /// As [`try_new`](Self::try_new).
    ///
    /// # Panics
    /// If the validity's length differs from the values'.
    pub fn new(values: ScalarBuffer<T::Native>, nulls: Option<NullBuffer>) -> Self {
        Self::try_new(values, nulls).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `len` null slots (zeroed values).
    pub fn new_null(len: usize) -> Self {
        let values = ScalarBuffer::try_from(Buffer::from(alkaid_buffer::MutableBuffer::zeroed(
            len.checked_mul(size_of::<T::Native>())
                .expect("array size overflows usize"),
        )))
        .expect("an aligned, whole allocation");
        Self::new(values, Some(NullBuffer::new_null(len)))
    }

    /// The same values with another data type that `T` accepts: a timezone, or a decimal's
    /// precision and scale.
    ///
    /// # Errors
    /// If `T` does not accept `data_type`.
    pub fn with_data_type(mut self, data_type: DataType) -> Result<Self, ArrayError> {
        if !T::accepts(&data_type) {
            return Err(ArrayError::TypeMismatch {
                expected: T::NAME.to_string(),
                found: data_type,
            });
        }
        self.data_type = data_type;
        Ok(self)
    }

    /// The values (including the bytes under null slots).
    pub fn values(&self) -> &ScalarBuffer<T::Native> {
        &self.values
    }

    /// Value `i` (whatever is stored, if the slot is null).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn value(&self, i: usize) -> T::Native {
        self.values[i]
    }

    /// Value `i` without the bounds check.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline]
    pub unsafe fn value_unchecked(&self, i: usize) -> T::Native {
        // SAFETY: the caller promises i < len, and values has len elements.
        unsafe { *self.values.get_unchecked(i) }
    }

    /// Every slot, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<T::Native>> + '_ {
        (0..self.len()).map(|i| self.is_valid(i).then(|| self.values[i]))
    }

    /// Slots `[offset, offset + len)` as a typed array, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        Self {
            data_type: self.data_type.clone(),
            values: self.values.slice(offset, len),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
            phantom: PhantomData,
        }
    }

    /// The values and validity.
    pub fn into_parts(self) -> (DataType, ScalarBuffer<T::Native>, Option<NullBuffer>) {
        (self.data_type, self.values, self.nulls)
    }

    /// A builder with room for `capacity` values.
    pub fn builder(capacity: usize) -> PrimitiveBuilder<T> {
        PrimitiveBuilder::with_capacity(capacity)
    }
}

impl<T: PrimitiveType> Clone for PrimitiveArray<T> {
    fn clone(&self) -> Self {
        Self {
            data_type: self.data_type.clone(),
            values: self.values.clone(),
            nulls: self.nulls.clone(),
            phantom: PhantomData,
        }
    }
}

impl<T: PrimitiveType> Array for PrimitiveArray<T> {
    array_basics!(self => data_type: &self.data_type, len: self.values.len(), nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.values.len())
            .nulls(self.nulls.clone())
            .buffers(vec![self.values.inner().clone()]);
        // SAFETY: the values are an aligned ScalarBuffer of len elements of the type's width,
        // and the validity (if any) has len bits: all a primitive array needs.
        unsafe { builder.build_unchecked() }
    }
}

impl<T: PrimitiveType> TryFrom<ArrayData> for PrimitiveArray<T> {
    type Error = ArrayError;

    /// Takes the values of valid primitive array data, without copying.
    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        if !T::accepts(data.data_type()) {
            return Err(ArrayError::TypeMismatch {
                expected: T::NAME.to_string(),
                found: data.data_type().clone(),
            });
        }
        // Moved, not cloned: each clone of a buffer is an atomic count update, paid again
        // when the clone's original is dropped.
        let mut parts = data.into_parts();
        let values = ScalarBuffer::try_new(parts.buffers.swap_remove(0), parts.offset, parts.len)
            .map_err(alkaid_data::DataError::from)?;
        Ok(Self {
            data_type: parts.data_type,
            values,
            nulls: parts.nulls,
            phantom: PhantomData,
        })
    }
}

// One pair of conversions per native type: a blanket `From<Vec<T::Native>>` would overlap
// with `From<Vec<Option<_>>>` as far as the compiler can tell.
macro_rules! from_options {
    ($($native:ty),*) => {$(
        impl<T: PrimitiveType<Native = $native>> From<Vec<$native>> for PrimitiveArray<T> {
            /// Wraps the vector without copying; no nulls.
            fn from(values: Vec<$native>) -> Self {
                Self::new(ScalarBuffer::from(values), None)
            }
        }

        impl<T: PrimitiveType<Native = $native>> From<Vec<Option<$native>>> for PrimitiveArray<T> {
            fn from(values: Vec<Option<$native>>) -> Self {
                values.into_iter().collect()
            }
        }
    )*};
}
from_options!(
    i8,
    i16,
    i32,
    i64,
    i128,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    alkaid_buffer::native::f16,
    alkaid_buffer::native::i256,
    alkaid_buffer::native::IntervalDayTime,
    alkaid_buffer::native::IntervalMonthDayNano
);

impl<T: PrimitiveType> FromIterator<Option<T::Native>> for PrimitiveArray<T> {
    fn from_iter<I: IntoIterator<Item = Option<T::Native>>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut builder = PrimitiveBuilder::<T>::with_capacity(iter.size_hint().0);
        for value in iter {
            builder.append_option(value);
        }
        builder.finish()
    }
}

impl<T: PrimitiveType> fmt::Debug for PrimitiveArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PrimitiveArray<{}>", self.data_type)?;
        f.debug_list().entries(self.iter().take(64)).finish()?;
        if self.len() > 64 {
            write!(f, " ... {} values", self.len())?;
        }
        Ok(())
    }
}

impl<T: PrimitiveType> PartialEq for PrimitiveArray<T> {
    /// Logical equality: type, length, validity and the values of valid slots.
    fn eq(&self, other: &Self) -> bool {
        alkaid_data::equal(&self.to_data(), &other.to_data())
    }
}

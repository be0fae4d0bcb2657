//! [`PrimitiveBuilder`]: builds a [`PrimitiveArray`] value by value.

use std::marker::PhantomData;

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_buffer::{Buffer, MutableBuffer, ScalarBuffer};

use super::PrimitiveArray;
use crate::types::PrimitiveType;

/// Appends values and nulls, then [`finish`](Self::finish)es a [`PrimitiveArray`].
///
/// # Examples
/// ```
/// use alkaid_array::Int64Array;
/// let mut builder = Int64Array::builder(4);
/// builder.append_value(7);
/// builder.append_null();
/// builder.append_n(2, 9);
/// let array = builder.finish();
/// assert_eq!(array.iter().collect::<Vec<_>>(), [Some(7), None, Some(9), Some(9)]);
/// ```
#[derive(Debug)]
pub struct PrimitiveBuilder<T: PrimitiveType> {
    values: MutableBuffer,
    nulls: NullBufferBuilder,
    data_type: Option<alkaid_schema::DataType>,
    phantom: PhantomData<T>,
}

impl<T: PrimitiveType> PrimitiveBuilder<T> {
    /// A builder with room for `capacity` values.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            values: MutableBuffer::with_capacity(capacity.saturating_mul(size_of::<T::Native>())),
            nulls: NullBufferBuilder::new(capacity),
            data_type: None,
            phantom: PhantomData,
        }
    }

    /// Makes arrays of `data_type` (a timezone, a decimal's precision and scale) instead of
    /// `T`'s default.
    ///
    /// # Errors
    /// If `T` does not accept `data_type`.
    pub fn with_data_type(
        mut self,
        data_type: alkaid_schema::DataType,
    ) -> Result<Self, crate::ArrayError> {
        if !T::accepts(&data_type) {
            return Err(crate::ArrayError::TypeMismatch {
                expected: T::NAME.to_string(),
                found: data_type,
            });
        }
        self.data_type = Some(data_type);
        Ok(self)
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a value.
    #[inline]
    pub fn append_value(&mut self, value: T::Native) {
        self.values.push(value);
        self.nulls.append_non_null();
    }

    /// Appends a null (stored as zero).
    #[inline]
    pub fn append_null(&mut self) {
        self.values.push(T::Native::default());
        self.nulls.append_null();
    }

    /// Appends a value or a null.
    #[inline]
    pub fn append_option(&mut self, value: Option<T::Native>) {
        match value {
            Some(value) => self.append_value(value),
            None => self.append_null(),
        }
    }

    /// Appends `n` copies of `value`.
    pub fn append_n(&mut self, n: usize, value: T::Native) {
        self.values.extend_with(n, |_| value);
        self.nulls.append_n_non_nulls(n);
    }

    /// Appends `n` nulls.
    pub fn append_nulls(&mut self, n: usize) {
        self.values.extend_with(n, |_| T::Native::default());
        self.nulls.append_n_nulls(n);
    }

    /// Appends a slice of values.
    pub fn append_slice(&mut self, values: &[T::Native]) {
        self.values.extend_from_slice(values);
        self.nulls.append_n_non_nulls(values.len());
    }

    /// Replaces the value at slot `index` (used by run builders to extend the last run).
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub(crate) fn set_last(&mut self, value: T::Native, index: usize) {
        self.values.typed_mut::<T::Native>().expect("whole values")[index] = value;
    }

    /// Finishes the array, leaving the builder empty. No validation pass is needed: values
    /// and validity grow together.
    pub fn finish(&mut self) -> PrimitiveArray<T> {
        let values: Buffer = std::mem::take(&mut self.values).into();
        let values = ScalarBuffer::try_from(values).expect("whole values in an aligned allocation");
        let array = PrimitiveArray::new(values, self.nulls.finish());
        match &self.data_type {
            Some(data_type) => array
                .with_data_type(data_type.clone())
                .expect("checked when it was set"),
            None => array,
        }
    }
}

impl<T: PrimitiveType> Default for PrimitiveBuilder<T> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

//! [`BooleanArray`]: bit-packed booleans.

mod builder;

pub use builder::BooleanBuilder;

use std::fmt;

use alkaid_buffer::{BooleanBuffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::{Array, ArrayError};

/// Booleans, one bit per slot, with optional validity.
///
/// # Examples
/// ```
/// use alkaid_array::BooleanArray;
/// let array = BooleanArray::from(vec![Some(true), None, Some(false)]);
/// assert_eq!(array.true_count(), 1);
/// assert_eq!(array.iter().collect::<Vec<_>>(), [Some(true), None, Some(false)]);
/// ```
#[derive(Clone)]
pub struct BooleanArray {
    values: BooleanBuffer,
    nulls: Option<NullBuffer>,
}

impl BooleanArray {
    /// An array of `values` with optional validity.
    ///
    /// # Errors
    /// If the validity's length differs from the values'.
    pub fn try_new(values: BooleanBuffer, nulls: Option<NullBuffer>) -> Result<Self, ArrayError> {
        if let Some(nulls) = &nulls
            && nulls.len() != values.len()
        {
            return Err(ArrayError::LengthMismatch {
                what: "validity".to_string(),
                expected: values.len(),
                found: nulls.len(),
            });
        }
        Ok(Self { values, nulls })
    }

    /// The value bits (including those under null slots).
    pub fn values(&self) -> &BooleanBuffer {
        &self.values
    }

    /// Value `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> bool {
        self.values.value(i)
    }

    /// Number of valid slots holding `true`.
    pub fn true_count(&self) -> usize {
        match &self.nulls {
            None => self.values.count_set_bits(),
            Some(nulls) => (&self.values & nulls.validity()).count_set_bits(),
        }
    }

    /// Every slot, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<bool>> + '_ {
        (0..self.len()).map(|i| self.is_valid(i).then(|| self.values.value(i)))
    }

    /// Slots `[offset, offset + len)`, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        Self {
            values: self.values.slice(offset, len),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
        }
    }

    /// A builder with room for `capacity` values.
    pub fn builder(capacity: usize) -> BooleanBuilder {
        BooleanBuilder::with_capacity(capacity)
    }
}

impl Array for BooleanArray {
    array_basics!(self => data_type: { static TYPE: DataType = DataType::Boolean; &TYPE }, len: self.values.len(), nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let (buffer, offset, len) = self.values.clone().into_parts();
        let builder = ArrayData::builder(DataType::Boolean)
            .len(len)
            .offset(offset)
            .nulls(self.nulls.clone())
            .buffers(vec![buffer]);
        // SAFETY: a BooleanBuffer covers offset + len bits of its buffer, and the validity
        // (if any) has len bits: all a boolean array needs.
        unsafe { builder.build_unchecked() }
    }
}

impl TryFrom<ArrayData> for BooleanArray {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        if data.data_type() != &DataType::Boolean {
            return Err(ArrayError::TypeMismatch {
                expected: "Boolean".to_string(),
                found: data.data_type().clone(),
            });
        }
        let mut parts = data.into_parts();
        let values = BooleanBuffer::try_new(parts.buffers.swap_remove(0), parts.offset, parts.len)
            .map_err(alkaid_data::DataError::from)?;
        Ok(Self {
            values,
            nulls: parts.nulls,
        })
    }
}

impl From<Vec<bool>> for BooleanArray {
    fn from(values: Vec<bool>) -> Self {
        Self {
            values: values.into(),
            nulls: None,
        }
    }
}

impl From<Vec<Option<bool>>> for BooleanArray {
    fn from(values: Vec<Option<bool>>) -> Self {
        values.into_iter().collect()
    }
}

impl FromIterator<Option<bool>> for BooleanArray {
    fn from_iter<I: IntoIterator<Item = Option<bool>>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut builder = BooleanBuilder::with_capacity(iter.size_hint().0);
        for value in iter {
            builder.append_option(value);
        }
        builder.finish()
    }
}

impl fmt::Debug for BooleanArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BooleanArray")?;
        f.debug_list().entries(self.iter().take(64)).finish()
    }
}

impl PartialEq for BooleanArray {
    fn eq(&self, other: &Self) -> bool {
        alkaid_data::equal(&self.to_data(), &other.to_data())
    }
}

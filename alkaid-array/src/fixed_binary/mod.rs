//! [`FixedSizeBinaryArray`]: byte strings of one width, and its builder.

mod builder;

pub use builder::FixedSizeBinaryBuilder;

use std::fmt;

use alkaid_buffer::{Buffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::{Array, ArrayError};

/// Byte strings of one width.
///
/// # Examples
/// ```
/// use alkaid_array::FixedSizeBinaryArray;
/// let array = FixedSizeBinaryArray::try_from_iter(2, vec![Some(&b"ab"[..]), None, Some(b"cd")])?;
/// assert_eq!(array.value(2), b"cd");
/// assert!(FixedSizeBinaryArray::try_from_iter(2, vec![Some(&b"abc"[..])]).is_err());
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Clone)]
pub struct FixedSizeBinaryArray {
    data_type: DataType,
    width: usize,
    /// Exactly `len * width` bytes, positioned at slot 0.
    values: Buffer,
    len: usize,
    nulls: Option<NullBuffer>,
}

impl FixedSizeBinaryArray {
    /// An array of `width`-byte values from an iterator of options.
    ///
    /// # Errors
    /// If a value has another width, or `width` does not fit the format (`i32`).
    pub fn try_from_iter<V: AsRef<[u8]>>(
        width: usize,
        values: impl IntoIterator<Item = Option<V>>,
    ) -> Result<Self, ArrayError> {
        let mut builder = FixedSizeBinaryBuilder::try_new(width)?;
        for value in values {
            match value {
                Some(value) => builder.append_value(value)?,
                None => builder.append_null(),
            }
        }
        Ok(builder.finish())
    }

    /// The width of every value.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Value `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> &[u8] {
        assert!(
            i < self.len,
            "slot {i} out of bounds for length {}",
            self.len
        );
        &self.values[i * self.width..(i + 1) * self.width]
    }

    /// Every slot, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<&[u8]>> + '_ {
        (0..self.len).map(|i| self.is_valid(i).then(|| self.value(i)))
    }

    /// Slots `[offset, offset + len)`, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        assert!(
            offset.checked_add(len).is_some_and(|end| end <= self.len),
            "slice out of bounds"
        );
        Self {
            data_type: self.data_type.clone(),
            width: self.width,
            values: self.values.slice(offset * self.width, len * self.width),
            len,
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
        }
    }
}

impl Array for FixedSizeBinaryArray {
    array_basics!(self => data_type: &self.data_type, len: self.len, nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.len)
            .nulls(self.nulls.clone())
            .buffers(vec![self.values.clone()]);
        // SAFETY: values holds exactly len * width bytes; the validity has len bits.
        unsafe { builder.build_unchecked() }
    }
}

impl TryFrom<ArrayData> for FixedSizeBinaryArray {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        let DataType::FixedSizeBinary(width) = data.data_type() else {
            return Err(ArrayError::TypeMismatch {
                expected: "FixedSizeBinary".to_string(),
                found: data.data_type().clone(),
            });
        };
        let width = usize::try_from(*width).unwrap_or(0);
        let values = data.buffers()[0]
            .try_slice(data.offset() * width, data.len() * width)
            .map_err(alkaid_data::DataError::from)?;
        Ok(Self {
            data_type: data.data_type().clone(),
            width,
            values,
            len: data.len(),
            nulls: data.nulls().cloned(),
        })
    }
}

impl fmt::Debug for FixedSizeBinaryArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Array", self.data_type)?;
        f.debug_list().entries(self.iter().take(32)).finish()
    }
}

//! [`FixedSizeListArray`]: lists of one size, and its builder.

mod builder;

pub use builder::FixedSizeListBuilder;

use std::fmt;

use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, FieldRef};

use crate::{Array, ArrayError, ArrayRef, make_array};

/// Lists of one size: slot `i` is `values[i * size..(i + 1) * size]`.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{AsArray, FixedSizeListArray, Float32Array};
/// use alkaid_array::types::Float32Type;
/// use alkaid_schema::{DataType, Field};
///
/// let points = Arc::new(Float32Array::from(vec![0.0, 1.0, 2.0, 3.0]));
/// let field = Arc::new(Field::new("xy", DataType::Float32, false));
/// let array = FixedSizeListArray::try_new(field, 2, points, None)?;
/// assert_eq!(array.value(1).as_primitive::<Float32Type>().values().as_slice(), &[2.0, 3.0]);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Clone)]
pub struct FixedSizeListArray {
    data_type: DataType,
    size: usize,
    /// Exactly `len * size` values, positioned at slot 0.
    values: ArrayRef,
    len: usize,
    nulls: Option<NullBuffer>,
}

impl FixedSizeListArray {
    /// Lists of `size` values each, as many as `values` holds.
    ///
    /// # Errors
    /// If `values` is not a whole number of lists, its type is not the field's, the size does
    /// not fit the format, or the validity has another length.
    pub fn try_new(
        field: FieldRef,
        size: usize,
        values: ArrayRef,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        let size_i32 = i32::try_from(size).map_err(|_| ArrayError::ColumnMismatch {
            column: "FixedSizeList".to_string(),
            reason: format!("list size {size} does not fit in an i32"),
        })?;
        // Lists of size zero take their count from the validity (or are none at all).
        let len = values
            .len()
            .checked_div(size)
            .unwrap_or_else(|| nulls.as_ref().map_or(0, NullBuffer::len));
        if values.len() != len * size {
            return Err(ArrayError::LengthMismatch {
                what: "fixed-size list values".to_string(),
                expected: len * size,
                found: values.len(),
            });
        }
        let data = ArrayData::builder(DataType::FixedSizeList(field, size_i32))
            .len(len)
            .nulls(nulls)
            .children(vec![values.to_data()])
            .build()?;
        Self::try_from(data)
    }

    /// Values per list.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The child array.
    pub fn values(&self) -> &ArrayRef {
        &self.values
    }

    /// List `i` as an array.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> ArrayRef {
        assert!(
            i < self.len,
            "slot {i} out of bounds for length {}",
            self.len
        );
        self.values.slice(i * self.size, self.size)
    }

    /// Every slot, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<ArrayRef>> + '_ {
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
            size: self.size,
            values: self.values.slice(offset * self.size, len * self.size),
            len,
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
        }
    }
}

impl Array for FixedSizeListArray {
    array_basics!(self => data_type: &self.data_type, len: self.len, nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.len)
            .nulls(self.nulls.clone())
            .children(vec![self.values.to_data()]);
        // SAFETY: values holds exactly len * size valid slots of the field's type.
        unsafe { builder.build_unchecked() }
    }
}

impl TryFrom<ArrayData> for FixedSizeListArray {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        let DataType::FixedSizeList(_, size) = data.data_type() else {
            return Err(ArrayError::TypeMismatch {
                expected: "FixedSizeList".to_string(),
                found: data.data_type().clone(),
            });
        };
        let size = usize::try_from(*size).unwrap_or(0);
        let values = data.children()[0].slice(data.offset() * size, data.len() * size);
        Ok(Self {
            data_type: data.data_type().clone(),
            size,
            values: make_array(values),
            len: data.len(),
            nulls: data.nulls().cloned(),
        })
    }
}

impl fmt::Debug for FixedSizeListArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FixedSizeListArray({} slots of {})",
            self.len, self.data_type
        )
    }
}

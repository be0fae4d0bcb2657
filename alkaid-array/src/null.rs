//! [`NullArray`]: slots that are all null and have no buffers.

use std::any::Any;
use std::sync::Arc;

use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::{Array, ArrayError, ArrayRef};

/// `len` null slots of type `Null`.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, NullArray};
/// let array = NullArray::new(3);
/// assert_eq!((array.len(), array.null_count()), (3, 3));
/// assert!(array.is_null(2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NullArray {
    len: usize,
}

impl NullArray {
    /// `len` nulls.
    pub fn new(len: usize) -> Self {
        Self { len }
    }
}

impl Array for NullArray {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn to_data(&self) -> ArrayData {
        // SAFETY: a Null array has no buffers, validity or children; only a length.
        unsafe {
            ArrayData::builder(DataType::Null)
                .len(self.len)
                .build_unchecked()
        }
    }

    fn data_type(&self) -> &DataType {
        static TYPE: DataType = DataType::Null;
        &TYPE
    }

    fn len(&self) -> usize {
        self.len
    }

    fn nulls(&self) -> Option<&NullBuffer> {
        None
    }

    fn null_count(&self) -> usize {
        self.len
    }

    fn is_null(&self, i: usize) -> bool {
        assert!(
            i < self.len,
            "slot {i} out of bounds for length {}",
            self.len
        );
        true
    }

    fn slice(&self, offset: usize, len: usize) -> ArrayRef {
        assert!(
            offset.checked_add(len).is_some_and(|end| end <= self.len),
            "slice out of bounds"
        );
        Arc::new(Self { len })
    }
}

impl TryFrom<ArrayData> for NullArray {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        match data.data_type() {
            DataType::Null => Ok(Self { len: data.len() }),
            other => Err(ArrayError::TypeMismatch {
                expected: "Null".to_string(),
                found: other.clone(),
            }),
        }
    }
}

/// Builds a [`NullArray`]: every slot appended is null.
#[derive(Debug, Default)]
pub struct NullBuilder {
    len: usize,
}

impl NullBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a null.
    pub fn append_null(&mut self) {
        self.len += 1;
    }

    /// Appends `n` nulls.
    pub fn append_nulls(&mut self, n: usize) {
        self.len += n;
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Finishes the array, leaving the builder empty.
    pub fn finish(&mut self) -> NullArray {
        NullArray::new(std::mem::take(&mut self.len))
    }
}

impl crate::ArrayBuilder for NullBuilder {
    fn len(&self) -> usize {
        self.len
    }
    fn append_null(&mut self) {
        NullBuilder::append_null(self);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(NullBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

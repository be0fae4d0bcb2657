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

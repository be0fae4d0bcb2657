//! [`FixedSizeBinaryBuilder`].

use std::any::Any;
use std::sync::Arc;

use alkaid_buffer::MutableBuffer;
use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_schema::DataType;

use super::FixedSizeBinaryArray;
use crate::{ArrayBuilder, ArrayError, ArrayRef};

/// Builds a [`FixedSizeBinaryArray`].
#[derive(Debug)]
pub struct FixedSizeBinaryBuilder {
    width: usize,
    data_type: DataType,
    values: MutableBuffer,
    nulls: NullBufferBuilder,
}

impl FixedSizeBinaryBuilder {
    /// A builder of `width`-byte values.
    ///
    /// # Errors
    /// If `width` does not fit in an `i32`.
    pub fn try_new(width: usize) -> Result<Self, ArrayError> {
        let width_i32 = i32::try_from(width).map_err(|_| ArrayError::ColumnMismatch {
            column: "FixedSizeBinary".to_string(),
            reason: format!("width {width} does not fit in an i32"),
        })?;
        Ok(Self {
            width,
            data_type: DataType::FixedSizeBinary(width_i32),
            values: MutableBuffer::new(),
            nulls: NullBufferBuilder::new(0),
        })
    }

    /// Appends a value.
    ///
    /// # Errors
    /// If the value has another width (nothing is appended then).
    pub fn append_value(&mut self, value: impl AsRef<[u8]>) -> Result<(), ArrayError> {
        let value = value.as_ref();
        if value.len() != self.width {
            return Err(ArrayError::LengthMismatch {
                what: "fixed-size binary value".to_string(),
                expected: self.width,
                found: value.len(),
            });
        }
        self.values.extend_from_slice(value);
        self.nulls.append_non_null();
        Ok(())
    }

    /// Appends a null (zero bytes).
    pub fn append_null(&mut self) {
        self.values.extend_zeros(self.width);
        self.nulls.append_null();
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Finishes the array, leaving the builder empty.
    pub fn finish(&mut self) -> FixedSizeBinaryArray {
        let len = self.nulls.len();
        FixedSizeBinaryArray {
            data_type: self.data_type.clone(),
            width: self.width,
            values: std::mem::take(&mut self.values).into(),
            len,
            nulls: self.nulls.finish(),
        }
    }
}

impl ArrayBuilder for FixedSizeBinaryBuilder {
    fn len(&self) -> usize {
        FixedSizeBinaryBuilder::len(self)
    }
    fn append_null(&mut self) {
        FixedSizeBinaryBuilder::append_null(self);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(FixedSizeBinaryBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

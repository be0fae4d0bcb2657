//! [`FixedSizeListBuilder`].

use std::any::Any;
use std::sync::Arc;

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_schema::{DataType, Field, FieldRef};

use super::FixedSizeListArray;
use crate::{ArrayBuilder, ArrayError, ArrayRef};

/// Builds a [`FixedSizeListArray`]: append `size` items to [`values`](Self::values), then
/// [`append`](Self::append).
pub struct FixedSizeListBuilder<B: ArrayBuilder> {
    size: usize,
    values: B,
    nulls: NullBufferBuilder,
    field: Option<FieldRef>,
}

impl<B: ArrayBuilder> FixedSizeListBuilder<B> {
    /// A builder of lists of `size` items from `values`.
    pub fn new(values: B, size: usize) -> Self {
        Self {
            size,
            values,
            nulls: NullBufferBuilder::new(0),
            field: None,
        }
    }

    /// Uses `field` for the items.
    pub fn with_field(mut self, field: impl Into<FieldRef>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// The child builder.
    pub fn values(&mut self) -> &mut B {
        &mut self.values
    }

    /// Closes the current list: valid, or null. A null list's missing items are nulls.
    ///
    /// # Errors
    /// If the child holds more items than `size` per list so far.
    pub fn append(&mut self, valid: bool) -> Result<(), ArrayError> {
        let expected = (self.nulls.len() + 1) * self.size;
        if self.values.len() > expected {
            return Err(ArrayError::LengthMismatch {
                what: "fixed-size list items".to_string(),
                expected,
                found: self.values.len(),
            });
        }
        if valid && self.values.len() < expected {
            return Err(ArrayError::LengthMismatch {
                what: "fixed-size list items".to_string(),
                expected,
                found: self.values.len(),
            });
        }
        while self.values.len() < expected {
            self.values.append_null();
        }
        self.nulls.append(valid);
        Ok(())
    }

    /// Number of lists appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether no list was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Finishes the lists, leaving the builder empty.
    ///
    /// # Errors
    /// If the child builder's values do not make a valid array.
    pub fn finish(&mut self) -> Result<FixedSizeListArray, ArrayError> {
        let len = self.nulls.len();
        let values = self.values.try_finish()?;
        let field = match &self.field {
            Some(field) => Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(values.data_type().clone()),
            ),
            None => Arc::new(Field::new("item", values.data_type().clone(), true)),
        };
        let size = i32::try_from(self.size).expect("list sizes are checked against i32 when used");
        Ok(FixedSizeListArray {
            data_type: DataType::FixedSizeList(field, size),
            size: self.size,
            values,
            len,
            nulls: self.nulls.finish(),
        })
    }
}

impl<B: ArrayBuilder> ArrayBuilder for FixedSizeListBuilder<B> {
    fn len(&self) -> usize {
        FixedSizeListBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.append(false).expect("a null list pads its items");
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(FixedSizeListBuilder::finish(self)?))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

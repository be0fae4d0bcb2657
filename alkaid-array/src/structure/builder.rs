//! [`StructBuilder`]: builds struct arrays from one child builder per field.

use std::any::Any;
use std::sync::Arc;

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_schema::{DataType, Fields};

use super::StructArray;
use crate::{ArrayBuilder, ArrayError, ArrayRef};

/// Builds structs: append each field's value to its [`field_builder`](Self::field_builder),
/// then close the struct with [`append`](Self::append).
///
/// # Examples
/// ```
/// use alkaid_array::types::Int32Type;
/// use alkaid_array::{GenericByteBuilder, GenericStringType, Int32Array, PrimitiveBuilder, StringArray, StructBuilder};
/// use alkaid_schema::{DataType, Field};
///
/// let fields = vec![Field::new("id", DataType::Int32, false), Field::new("tag", DataType::Utf8, true)];
/// let mut builder = StructBuilder::new(fields.into(), vec![
///     Box::new(Int32Array::builder(0)),
///     Box::new(StringArray::builder(0, 0)),
/// ]);
/// builder.field_builder::<PrimitiveBuilder<Int32Type>>(0).unwrap().append_value(7);
/// builder.field_builder::<GenericByteBuilder<GenericStringType<i32>>>(1).unwrap().append_value("x");
/// builder.append(true);
/// builder.append(false); // a null struct: its fields get nulls
/// let structs = builder.finish()?;
/// assert_eq!(structs.column(1).null_count(), 1);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct StructBuilder {
    fields: Fields,
    builders: Vec<Box<dyn ArrayBuilder>>,
    nulls: NullBufferBuilder,
}

impl StructBuilder {
    /// A builder for `fields`, with one child builder per field, in order.
    ///
    /// # Panics
    /// If the counts differ.
    pub fn new(fields: Fields, builders: Vec<Box<dyn ArrayBuilder>>) -> Self {
        assert_eq!(fields.len(), builders.len(), "one builder per field");
        Self {
            fields,
            builders,
            nulls: NullBufferBuilder::new(0),
        }
    }

    /// The builder of field `i`, as its concrete type.
    pub fn field_builder<B: ArrayBuilder>(&mut self, i: usize) -> Option<&mut B> {
        self.builders.get_mut(i)?.as_any_mut().downcast_mut()
    }

    /// Closes the current struct: valid, or null. For a null struct, fields that got no
    /// value for it get a null.
    pub fn append(&mut self, valid: bool) {
        let len = self.nulls.len() + 1;
        for builder in &mut self.builders {
            while builder.len() < len {
                builder.append_null();
            }
        }
        self.nulls.append(valid);
    }

    /// Number of structs appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether no struct was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Finishes the array, leaving the builder empty.
    ///
    /// # Errors
    /// If a child builder's values do not make a valid array, or make one of another type
    /// than its field.
    pub fn finish(&mut self) -> Result<StructArray, ArrayError> {
        let len = self.nulls.len();
        let columns = self
            .builders
            .iter_mut()
            .map(|b| b.try_finish())
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        let nulls = self.nulls.finish();
        for (column, field) in columns.iter().zip(self.fields.iter()) {
            if column.data_type() != field.data_type() {
                return Err(ArrayError::ColumnMismatch {
                    column: format!("struct field {:?}", field.name()),
                    reason: format!(
                        "expected type {}, found {}",
                        field.data_type(),
                        column.data_type()
                    ),
                });
            }
        }
        Ok(StructArray {
            data_type: DataType::Struct(self.fields.clone()),
            len,
            columns,
            nulls,
        })
    }
}

impl ArrayBuilder for StructBuilder {
    fn len(&self) -> usize {
        StructBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.append(false);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(StructBuilder::finish(self)?))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

//! [`GenericListBuilder`]: builds lists whose items come from a child builder.

use std::any::Any;
use std::sync::Arc;

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_buffer::{Buffer, MutableBuffer, OffsetBuffer, OffsetSize, ScalarBuffer};
use alkaid_schema::{Field, FieldRef};

use super::GenericListArray;
use crate::{ArrayBuilder, ArrayError, ArrayRef};

/// Builds lists: append items to [`values`](Self::values), then close each list with
/// [`append`](Self::append).
///
/// # Examples
/// ```
/// use alkaid_array::{Array, ListArray, StringArray};
/// use alkaid_array::list::GenericListBuilder;
///
/// let mut builder = GenericListBuilder::<i32, _>::new(StringArray::builder(0, 0));
/// builder.values().append_value("a");
/// builder.values().append_value("b");
/// builder.append(true);  // ["a", "b"]
/// builder.append(false); // null
/// let lists: ListArray = builder.finish()?;
/// assert_eq!((lists.len(), lists.null_count()), (2, 1));
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct GenericListBuilder<O: OffsetSize, B: ArrayBuilder> {
    offsets: MutableBuffer,
    values: B,
    nulls: NullBufferBuilder,
    field: Option<FieldRef>,
    phantom: std::marker::PhantomData<O>,
}

impl<O: OffsetSize, B: ArrayBuilder> GenericListBuilder<O, B> {
    /// A builder of lists whose items come from `values`; the item field is a nullable
    /// "item" of the child's type unless [`with_field`](Self::with_field) says otherwise.
    pub fn new(values: B) -> Self {
        let mut offsets = MutableBuffer::new();
        offsets.push(O::ZERO);
        Self {
            offsets,
            values,
            nulls: NullBufferBuilder::new(0),
            field: None,
            phantom: std::marker::PhantomData,
        }
    }

    /// Uses `field` (name, nullability, metadata) for the items.
    pub fn with_field(mut self, field: impl Into<FieldRef>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// The child builder, to append the items of the current list.
    pub fn values(&mut self) -> &mut B {
        &mut self.values
    }

    /// Closes the current list: valid, or null.
    ///
    /// # Panics
    /// If the items exceed what the offset type can address.
    pub fn append(&mut self, valid: bool) {
        let end = O::from_usize(self.values.len()).expect("list items exceed the offset type");
        self.offsets.push(end);
        self.nulls.append(valid);
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
    pub fn finish(&mut self) -> Result<GenericListArray<O>, ArrayError> {
        let values = self.values.try_finish()?;
        let offsets: Buffer = std::mem::take(&mut self.offsets).into();
        self.offsets.push(O::ZERO);
        let offsets =
            ScalarBuffer::try_from(offsets).expect("whole offsets in an aligned allocation");
        // SAFETY: offsets start at zero and each is the child's length when its list closed,
        // which only grows; the last is the child's final length.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        let field = match &self.field {
            Some(field) if field.data_type() == values.data_type() => Arc::clone(field),
            Some(field) => Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(values.data_type().clone()),
            ),
            None => Arc::new(Field::new("item", values.data_type().clone(), true)),
        };
        Ok(GenericListArray {
            data_type: GenericListArray::<O>::list_type(field),
            offsets,
            values,
            nulls: self.nulls.finish(),
        })
    }
}

impl<O: OffsetSize, B: ArrayBuilder> ArrayBuilder for GenericListBuilder<O, B> {
    fn len(&self) -> usize {
        GenericListBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.append(false);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(GenericListBuilder::finish(self)?))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

//! [`GenericListViewArray`]: lists as (offset, size) pairs into a child, in any order.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_buffer::{Buffer, MutableBuffer, NullBuffer, OffsetSize, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Field, FieldRef};

use crate::{Array, ArrayBuilder, ArrayError, ArrayRef, make_array};

/// List views with `i32` offsets and sizes.
pub type ListViewArray = GenericListViewArray<i32>;
/// List views with `i64` offsets and sizes.
pub type LargeListViewArray = GenericListViewArray<i64>;

/// List views: slot `i` is `values[offsets[i]..offsets[i] + sizes[i]]`; lists may overlap
/// and come in any order.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{Int32Array, ListViewArray};
/// use alkaid_schema::{DataType, Field};
///
/// let values = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// let field = Arc::new(Field::new("item", DataType::Int32, true));
/// // [2, 3], [1, 2, 3], [] — overlapping, out of order.
/// let views = ListViewArray::try_new(field, vec![1, 0, 3].into(), vec![2, 3, 0].into(), values, None)?;
/// assert_eq!(views.value(1).len(), 3);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Clone)]
pub struct GenericListViewArray<O: OffsetSize> {
    data_type: DataType,
    offsets: ScalarBuffer<O>,
    sizes: ScalarBuffer<O>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
}

impl<O: OffsetSize> GenericListViewArray<O> {
    fn view_type(field: FieldRef) -> DataType {
        if O::IS_LARGE {
            DataType::LargeListView(field)
        } else {
            DataType::ListView(field)
        }
    }

    /// List views of `values`, checked fully (every view inside the child).
    ///
    /// # Errors
    /// If the counts differ, a view leaves the child, or the types do not match.
    pub fn try_new(
        field: FieldRef,
        offsets: ScalarBuffer<O>,
        sizes: ScalarBuffer<O>,
        values: ArrayRef,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        if offsets.len() != sizes.len() {
            return Err(ArrayError::LengthMismatch {
                what: "list view sizes".to_string(),
                expected: offsets.len(),
                found: sizes.len(),
            });
        }
        let data = ArrayData::builder(Self::view_type(field))
            .len(offsets.len())
            .nulls(nulls)
            .buffers(vec![offsets.inner().clone(), sizes.inner().clone()])
            .children(vec![values.to_data()])
            .build()?;
        Self::try_from(data)
    }

    /// The child array.
    pub fn values(&self) -> &ArrayRef {
        &self.values
    }

    /// The offsets.
    pub fn offsets(&self) -> &ScalarBuffer<O> {
        &self.offsets
    }

    /// The sizes.
    pub fn sizes(&self) -> &ScalarBuffer<O> {
        &self.sizes
    }

    /// List `i` as an array (a slice of the child).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> ArrayRef {
        let start = self.offsets[i]
            .to_usize()
            .expect("validated offsets are non-negative");
        let size = self.sizes[i]
            .to_usize()
            .expect("validated sizes are non-negative");
        self.values.slice(start, size)
    }

    /// Every slot, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<ArrayRef>> + '_ {
        (0..self.len()).map(|i| self.is_valid(i).then(|| self.value(i)))
    }

    /// Slots `[offset, offset + len)`, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        Self {
            data_type: self.data_type.clone(),
            offsets: self.offsets.slice(offset, len),
            sizes: self.sizes.slice(offset, len),
            values: Arc::clone(&self.values),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
        }
    }
}

impl<O: OffsetSize> Array for GenericListViewArray<O> {
    array_basics!(self => data_type: &self.data_type, len: self.offsets.len(), nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.offsets.len())
            .nulls(self.nulls.clone())
            .buffers(vec![
                self.offsets.inner().clone(),
                self.sizes.inner().clone(),
            ])
            .children(vec![self.values.to_data()]);
        // SAFETY: every view was checked inside the child when the array was made (or
        // recorded by the builder from the child's own length); slicing keeps them.
        unsafe { builder.build_unchecked() }
    }
}

impl<O: OffsetSize> TryFrom<ArrayData> for GenericListViewArray<O> {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        let expected = match data.data_type() {
            DataType::ListView(_) => !O::IS_LARGE,
            DataType::LargeListView(_) => O::IS_LARGE,
            _ => false,
        };
        if !expected {
            let name = if O::IS_LARGE {
                "LargeListView"
            } else {
                "ListView"
            };
            return Err(ArrayError::TypeMismatch {
                expected: name.to_string(),
                found: data.data_type().clone(),
            });
        }
        let typed = |i: usize| {
            ScalarBuffer::<O>::try_new(data.buffers()[i].clone(), data.offset(), data.len())
                .map_err(alkaid_data::DataError::from)
        };
        Ok(Self {
            data_type: data.data_type().clone(),
            offsets: typed(0)?,
            sizes: typed(1)?,
            values: make_array(data.children()[0].clone()),
            nulls: data.nulls().cloned(),
        })
    }
}

impl<O: OffsetSize> fmt::Debug for GenericListViewArray<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Array({} slots)", self.data_type, self.len())
    }
}

/// Builds list views in append order: each list is the child items appended since the
/// previous [`append`](Self::append).
pub struct GenericListViewBuilder<O: OffsetSize, B: ArrayBuilder> {
    offsets: MutableBuffer,
    sizes: MutableBuffer,
    start: usize,
    values: B,
    nulls: NullBufferBuilder,
    field: Option<FieldRef>,
    phantom: std::marker::PhantomData<O>,
}

impl<O: OffsetSize, B: ArrayBuilder> GenericListViewBuilder<O, B> {
    /// A builder of list views over the items of `values`.
    pub fn new(values: B) -> Self {
        Self {
            offsets: MutableBuffer::new(),
            sizes: MutableBuffer::new(),
            start: 0,
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

    /// The child builder.
    pub fn values(&mut self) -> &mut B {
        &mut self.values
    }

    /// Closes the current list: valid, or null.
    ///
    /// # Panics
    /// If the items exceed what the offset type can address.
    pub fn append(&mut self, valid: bool) {
        let end = self.values.len();
        self.offsets
            .push(O::from_usize(self.start).expect("list items exceed the offset type"));
        self.sizes
            .push(O::from_usize(end - self.start).expect("list items exceed the offset type"));
        self.start = end;
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

    /// Finishes the list views, leaving the builder empty.
    ///
    /// # Errors
    /// If the child builder's values do not make a valid array.
    pub fn finish(&mut self) -> Result<GenericListViewArray<O>, ArrayError> {
        let values = self.values.try_finish()?;
        let typed = |buffer: &mut MutableBuffer| {
            let buffer: Buffer = std::mem::take(buffer).into();
            ScalarBuffer::<O>::try_from(buffer).expect("whole offsets in an aligned allocation")
        };
        let field = match &self.field {
            Some(field) => Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(values.data_type().clone()),
            ),
            None => Arc::new(Field::new("item", values.data_type().clone(), true)),
        };
        self.start = 0;
        Ok(GenericListViewArray {
            data_type: GenericListViewArray::<O>::view_type(field),
            offsets: typed(&mut self.offsets),
            sizes: typed(&mut self.sizes),
            values,
            nulls: self.nulls.finish(),
        })
    }
}

impl<O: OffsetSize, B: ArrayBuilder> ArrayBuilder for GenericListViewBuilder<O, B> {
    fn len(&self) -> usize {
        GenericListViewBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.append(false);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(GenericListViewBuilder::finish(self)?))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

//! [`GenericListArray`]: variable-length lists of a child array, with `i32` or `i64` offsets.

mod builder;
mod view;

pub use builder::GenericListBuilder;
pub use view::{GenericListViewArray, GenericListViewBuilder, LargeListViewArray, ListViewArray};

use std::fmt;
use std::sync::Arc;

use alkaid_buffer::{NullBuffer, OffsetBuffer, OffsetSize, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, FieldRef};

use crate::{Array, ArrayError, ArrayRef, make_array};

/// Lists with `i32` offsets.
pub type ListArray = GenericListArray<i32>;
/// Lists with `i64` offsets.
pub type LargeListArray = GenericListArray<i64>;

/// Lists: slot `i` is `values[offsets[i]..offsets[i + 1]]`.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{AsArray, Int32Array, ListArray};
/// use alkaid_array::types::Int32Type;
/// use alkaid_buffer::OffsetBuffer;
/// use alkaid_schema::{DataType, Field};
///
/// let items = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// let field = Arc::new(Field::new("item", DataType::Int32, true));
/// let lists = ListArray::try_new(field, OffsetBuffer::from_lengths([2, 0, 1]), items, None)?;
/// assert_eq!(lists.value(0).as_primitive::<Int32Type>().values().as_slice(), &[1, 2]);
/// assert!(lists.value(1).is_empty());
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct GenericListArray<O: OffsetSize> {
    data_type: DataType,
    offsets: OffsetBuffer<O>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
}

impl<O: OffsetSize> GenericListArray<O> {
    fn list_type(field: FieldRef) -> DataType {
        if O::IS_LARGE {
            DataType::LargeList(field)
        } else {
            DataType::List(field)
        }
    }

    /// Lists of `values` delimited by `offsets`, checked fully.
    ///
    /// # Errors
    /// If the values' type is not the field's, an offset leaves the values, or the validity
    /// has another length.
    pub fn try_new(
        field: FieldRef,
        offsets: OffsetBuffer<O>,
        values: ArrayRef,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        let data = ArrayData::builder(Self::list_type(field))
            .len(offsets.value_count())
            .nulls(nulls)
            .buffers(vec![offsets.inner().inner().clone()])
            .children(vec![values.to_data()])
            .build()?;
        Self::try_from(data)
    }

    /// The offsets.
    pub fn offsets(&self) -> &OffsetBuffer<O> {
        &self.offsets
    }

    /// The child array (all of it, not only the part the lists use).
    pub fn values(&self) -> &ArrayRef {
        &self.values
    }

    /// List `i` as an array (a slice of the child).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> ArrayRef {
        let range = self.offsets.range(i);
        self.values.slice(range.start, range.len())
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
            values: Arc::clone(&self.values),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
        }
    }
}

impl<O: OffsetSize> Clone for GenericListArray<O> {
    fn clone(&self) -> Self {
        Self {
            data_type: self.data_type.clone(),
            offsets: self.offsets.clone(),
            values: Arc::clone(&self.values),
            nulls: self.nulls.clone(),
        }
    }
}

impl<O: OffsetSize> Array for GenericListArray<O> {
    array_basics!(self => data_type: &self.data_type, len: self.offsets.value_count(), nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.len())
            .nulls(self.nulls.clone())
            .buffers(vec![self.offsets.inner().inner().clone()])
            .children(vec![self.values.to_data()]);
        // SAFETY: the parts passed full validation when the array was made (or were built
        // consistent by its builder); slicing keeps the offsets inside the child.
        unsafe { builder.build_unchecked() }
    }
}

impl<O: OffsetSize> TryFrom<ArrayData> for GenericListArray<O> {
    type Error = ArrayError;

    /// Takes the parts of valid list data, without copying.
    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        let expected = match data.data_type() {
            DataType::List(_) => !O::IS_LARGE,
            DataType::LargeList(_) => O::IS_LARGE,
            _ => false,
        };
        if !expected {
            let name = if O::IS_LARGE { "LargeList" } else { "List" };
            return Err(ArrayError::TypeMismatch {
                expected: name.to_string(),
                found: data.data_type().clone(),
            });
        }
        let mut parts = data.into_parts();
        let offsets = parts.buffers.swap_remove(0);
        let offsets = if offsets.is_empty() {
            OffsetBuffer::new_zeroed(0)
        } else {
            let raw = ScalarBuffer::try_new(offsets, parts.offset, parts.len + 1)
                .map_err(alkaid_data::DataError::from)?;
            // SAFETY: ArrayData is valid, so these offsets are non-negative, non-decreasing and
            // within the child.
            unsafe { OffsetBuffer::new_unchecked(raw) }
        };
        Ok(Self {
            data_type: parts.data_type,
            offsets,
            values: make_array(parts.children.swap_remove(0)),
            nulls: parts.nulls,
        })
    }
}

impl<O: OffsetSize> fmt::Debug for GenericListArray<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Array", self.data_type)?;
        f.debug_list().entries(self.iter().take(16)).finish()
    }
}

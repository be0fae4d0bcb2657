//! [`StructArray`]: named child arrays of one length, with optional validity.

mod builder;

pub use builder::StructBuilder;

use std::fmt;

use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Fields};

use crate::{Array, ArrayError, ArrayRef, make_array};

/// A struct per slot: one child array per field, each as long as the struct array.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Float64Array, StringArray, StructArray};
/// use alkaid_schema::{DataType, Field};
///
/// let fields = vec![Field::new("name", DataType::Utf8, false), Field::new("score", DataType::Float64, true)];
/// let columns: Vec<ArrayRef> = vec![
///     Arc::new(StringArray::from(vec!["ann", "bob"])),
///     Arc::new(Float64Array::from(vec![Some(9.5), None])),
/// ];
/// let people = StructArray::try_new(fields.into(), columns, None)?;
/// assert_eq!(people.column_by_name("score")?.null_count(), 1);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Clone)]
pub struct StructArray {
    data_type: DataType,
    len: usize,
    /// Each exactly `len` long, already positioned at the struct's slot 0.
    columns: Vec<ArrayRef>,
    nulls: Option<NullBuffer>,
}

impl StructArray {
    /// A struct array of `columns` described by `fields`.
    ///
    /// # Errors
    /// If the counts, types or lengths of the columns do not match the fields, or the
    /// validity has another length.
    pub fn try_new(
        fields: Fields,
        columns: Vec<ArrayRef>,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        let len = columns.first().map_or(0, |c| c.len());
        Self::try_new_with_len(fields, columns, nulls, len)
    }

    /// As [`try_new`](Self::try_new) with an explicit length, needed when there are no fields.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new).
    pub fn try_new_with_len(
        fields: Fields,
        columns: Vec<ArrayRef>,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<Self, ArrayError> {
        for (i, column) in columns.iter().enumerate() {
            if column.len() != len {
                return Err(ArrayError::LengthMismatch {
                    what: format!("struct column {i}"),
                    expected: len,
                    found: column.len(),
                });
            }
        }
        let data = ArrayData::builder(DataType::Struct(fields))
            .len(len)
            .nulls(nulls)
            .children(columns.iter().map(|c| c.to_data()).collect())
            .build()?;
        Self::try_from(data)
    }

    /// The fields.
    pub fn fields(&self) -> &Fields {
        match &self.data_type {
            DataType::Struct(fields) => fields,
            _ => unreachable!("a struct array has a struct type"),
        }
    }

    /// The child arrays.
    pub fn columns(&self) -> &[ArrayRef] {
        &self.columns
    }

    /// Child `i`.
    ///
    /// # Panics
    /// If `i` is not a field index.
    pub fn column(&self, i: usize) -> &ArrayRef {
        &self.columns[i]
    }

    /// The one child named `name`.
    ///
    /// # Errors
    /// If no field or several have the name.
    pub fn column_by_name(&self, name: &str) -> Result<&ArrayRef, ArrayError> {
        Ok(&self.columns[self.fields().index_of(name)?])
    }

    /// Every slot as a one-row struct array, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<StructArray>> + '_ {
        (0..self.len).map(|i| self.is_valid(i).then(|| self.slice_typed(i, 1)))
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
            len,
            columns: self.columns.iter().map(|c| c.slice(offset, len)).collect(),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
        }
    }
}

impl Array for StructArray {
    array_basics!(self => data_type: &self.data_type, len: self.len, nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.len)
            .nulls(self.nulls.clone())
            .children(self.columns.iter().map(|c| c.to_data()).collect());
        // SAFETY: every column is a valid array of its field's type and exactly len long.
        unsafe { builder.build_unchecked() }
    }
}

impl TryFrom<ArrayData> for StructArray {
    type Error = ArrayError;

    /// Takes valid struct data; children are positioned at the struct's slots (O(1)).
    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        if !matches!(data.data_type(), DataType::Struct(_)) {
            return Err(ArrayError::TypeMismatch {
                expected: "Struct".to_string(),
                found: data.data_type().clone(),
            });
        }
        let parts = data.into_parts();
        let (offset, len) = (parts.offset, parts.len);
        let columns = parts
            .children
            .into_iter()
            .map(|child| match offset == 0 && child.len() == len {
                true => make_array(child),
                false => make_array(child.slice(offset, len)),
            })
            .collect();
        Ok(Self {
            data_type: parts.data_type,
            len,
            columns,
            nulls: parts.nulls,
        })
    }
}

impl fmt::Debug for StructArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StructArray({} slots of {})", self.len, self.data_type)
    }
}

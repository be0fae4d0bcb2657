//! [`ArrayData`]: the type-erased array every typed array, kernel and reader works with.

use std::sync::Arc;

use alkaid_buffer::{Buffer, NullBuffer};
use alkaid_schema::DataType;

use crate::validate::{self, ValidationLevel};
use crate::{DataError, DataErrorKind};

/// An array of any type: its data type, length, offset, validity, buffers, children and,
/// for dictionary arrays, the dictionary.
///
/// The slicing model: slot `i` of the array is slot `offset + i` of its buffers, and for
/// structs, sparse unions and fixed-size lists, slot `offset + i` of its children (scaled by
/// the list size); list offsets and dense union offsets point into children directly. The
/// validity bitmap is already positioned: bit `i` of [`nulls`](Self::nulls) is slot `i`.
/// Cloning and [`slice`](Self::slice) are O(1) and copy no data.
///
/// Arrays are built with [`ArrayData::builder`]: `build` validates fully, so every
/// `ArrayData` obtained without `unsafe` is valid and code reading it may rely on its
/// offsets, views, keys and type ids.
///
/// # Examples
/// ```
/// use alkaid_buffer::{Buffer, NullBuffer};
/// use alkaid_data::ArrayData;
/// use alkaid_schema::DataType;
///
/// let strings = ArrayData::builder(DataType::Utf8)
///     .len(3)
///     .nulls(Some(NullBuffer::from(vec![true, false, true])))
///     .buffers(vec![Buffer::from_slice_ref(&[0i32, 5, 5, 10]), Buffer::from(&b"helloworld"[..])])
///     .build()?;
/// assert_eq!(strings.null_count(), 1);
/// let tail = strings.slice(1, 2); // O(1): offset 1, same buffers
/// assert_eq!((tail.offset(), tail.len(), tail.null_count()), (1, 2, 1));
///
/// // Bad offsets are an error, never a panic.
/// let bad = ArrayData::builder(DataType::Utf8)
///     .len(1)
///     .buffers(vec![Buffer::from_slice_ref(&[0i32, 99]), Buffer::from(&b"short"[..])])
///     .build();
/// assert!(bad.unwrap_err().to_string().contains("past the end of the data"));
/// # Ok::<(), alkaid_data::DataError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ArrayData {
    pub(crate) data_type: DataType,
    pub(crate) len: usize,
    pub(crate) offset: usize,
    pub(crate) nulls: Option<NullBuffer>,
    pub(crate) buffers: Vec<Buffer>,
    pub(crate) children: Vec<ArrayData>,
    /// Shared: a stream's batches, slices and taken results all point at one dictionary.
    pub(crate) dictionary: Option<Arc<ArrayData>>,
}

/// The pieces of an [`ArrayData`], moved out by [`ArrayData::into_parts`]; each field is
/// the accessor of the same name.
#[derive(Debug)]
pub struct ArrayDataParts {
    /// The logical type.
    pub data_type: DataType,
    /// Number of slots.
    pub len: usize,
    /// Offset into the buffers, in slots.
    pub offset: usize,
    /// Validity, already positioned at the array's slots.
    pub nulls: Option<NullBuffer>,
    /// The layout's buffers.
    pub buffers: Vec<Buffer>,
    /// Child arrays.
    pub children: Vec<ArrayData>,
    /// The dictionary of a dictionary array, shared with every array that uses it.
    pub dictionary: Option<Arc<ArrayData>>,
}

impl ArrayData {
    /// Starts building an array of `data_type`.
    #[inline]
    pub fn builder(data_type: DataType) -> ArrayDataBuilder {
        ArrayDataBuilder {
            data: ArrayData {
                data_type,
                len: 0,
                offset: 0,
                nulls: None,
                buffers: Vec::new(),
                children: Vec::new(),
                dictionary: None,
            },
            declared_null_count: None,
        }
    }

    /// The data type.
    pub fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Offset of slot 0 in the buffers (and positional children).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The validity of the slots, positioned at slot 0.
    pub fn nulls(&self) -> Option<&NullBuffer> {
        self.nulls.as_ref()
    }

    /// Number of null slots: from the validity bitmap, or every slot of a `Null` array.
    /// Unions and run-end encoded arrays have no validity of their own and report 0.
    pub fn null_count(&self) -> usize {
        match (&self.nulls, &self.data_type) {
            (Some(nulls), _) => nulls.null_count(),
            (None, DataType::Null) => self.len,
            (None, _) => 0,
        }
    }

    /// Whether slot `i` is null in this array's own validity (see
    /// [`null_count`](Self::null_count) for unions and run-end encoded arrays).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        assert!(
            i < self.len,
            "slot {i} out of bounds for length {}",
            self.len
        );
        match &self.nulls {
            Some(nulls) => nulls.is_null(i),
            None => matches!(self.data_type, DataType::Null),
        }
    }

    /// Whether slot `i` is valid.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        !self.is_null(i)
    }

    /// The buffers after the validity bitmap, in layout order (see [`crate::layout`]).
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The children, in layout order.
    pub fn children(&self) -> &[ArrayData] {
        &self.children
    }

    /// The dictionary of a dictionary array.
    pub fn dictionary(&self) -> Option<&ArrayData> {
        self.dictionary.as_deref()
    }

    /// The dictionary as the shared pointer this array holds: passing it to another
    /// array's [`ArrayDataBuilder::dictionary`] shares it in O(1), where passing
    /// [`dictionary`](Self::dictionary)`.clone()` copies its tree of buffer handles.
    pub fn shared_dictionary(&self) -> Option<&Arc<ArrayData>> {
        self.dictionary.as_ref()
    }

    /// The array taken apart, for typed arrays that keep its pieces: moving them out costs
    /// nothing, where cloning a child or a dictionary clones its whole tree.
    pub fn into_parts(self) -> ArrayDataParts {
        ArrayDataParts {
            data_type: self.data_type,
            len: self.len,
            offset: self.offset,
            nulls: self.nulls,
            buffers: self.buffers,
            children: self.children,
            dictionary: self.dictionary,
        }
    }

    /// Slots `[offset, offset + len)` of this array, sharing its memory.
    ///
    /// # Panics
    /// If the range does not fit; see [`try_slice`](Self::try_slice).
    pub fn slice(&self, offset: usize, len: usize) -> ArrayData {
        self.try_slice(offset, len)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Slots `[offset, offset + len)` of this array, sharing its memory.
    ///
    /// # Errors
    /// [`DataErrorKind::OutOfBounds`] if the range does not fit.
    pub fn try_slice(&self, offset: usize, len: usize) -> Result<ArrayData, DataError> {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(DataError::new(
                DataErrorKind::OutOfBounds,
                format!(
                    "slice of {len} slots at {offset} is out of bounds for length {}",
                    self.len
                ),
            ));
        }
        Ok(ArrayData {
            len,
            offset: self.offset + offset,
            nulls: self.nulls.as_ref().map(|nulls| nulls.slice(offset, len)),
            ..self.clone()
        })
    }

    /// Checks the array at `level` (see [`ValidationLevel`]), recursively.
    ///
    /// # Errors
    /// The first problem found, with the path to the child it is in.
    pub fn validate(&self, level: ValidationLevel) -> Result<(), DataError> {
        validate::validate(self, level)
    }
}

/// Collects the parts of an [`ArrayData`]; [`build`](Self::build) validates them.
#[derive(Debug, Clone)]
pub struct ArrayDataBuilder {
    data: ArrayData,
    declared_null_count: Option<usize>,
}

impl ArrayDataBuilder {
    /// Number of slots.
    #[inline]
    pub fn len(mut self, len: usize) -> Self {
        self.data.len = len;
        self
    }

    /// Offset of slot 0 in the buffers and positional children.
    #[inline]
    pub fn offset(mut self, offset: usize) -> Self {
        self.data.offset = offset;
        self
    }

    /// The validity of slots `0..len` (not offset).
    #[inline]
    pub fn nulls(mut self, nulls: Option<NullBuffer>) -> Self {
        self.data.nulls = nulls;
        self
    }

    /// A null count that a producer declared (an IPC field node, a C array); `build`
    /// checks it against the validity bitmap.
    #[inline]
    pub fn declared_null_count(mut self, null_count: usize) -> Self {
        self.declared_null_count = Some(null_count);
        self
    }

    /// The buffers after the validity bitmap, in layout order.
    #[inline]
    pub fn buffers(mut self, buffers: Vec<Buffer>) -> Self {
        self.data.buffers = buffers;
        self
    }

    /// Appends one buffer.
    #[inline]
    pub fn add_buffer(mut self, buffer: Buffer) -> Self {
        self.data.buffers.push(buffer);
        self
    }

    /// The children, in layout order.
    #[inline]
    pub fn children(mut self, children: Vec<ArrayData>) -> Self {
        self.data.children = children;
        self
    }

    /// Appends one child.
    #[inline]
    pub fn add_child(mut self, child: ArrayData) -> Self {
        self.data.children.push(child);
        self
    }

    /// The dictionary of a dictionary array: an [`ArrayData`], or an `Arc` of one to share
    /// it with other arrays (see [`ArrayData::shared_dictionary`]).
    #[inline]
    pub fn dictionary(mut self, dictionary: impl Into<Arc<ArrayData>>) -> Self {
        self.data.dictionary = Some(dictionary.into());
        self
    }

    /// Builds the array after full validation.
    ///
    /// # Errors
    /// The first problem [`ValidationLevel::Full`] finds.
    pub fn build(self) -> Result<ArrayData, DataError> {
        self.build_at(ValidationLevel::Full)
    }

    /// Builds the array after full validation and the strict data-quality checks.
    ///
    /// # Errors
    /// The first problem [`ValidationLevel::Strict`] finds.
    pub fn build_strict(self) -> Result<ArrayData, DataError> {
        self.build_at(ValidationLevel::Strict)
    }

    /// Builds the array after structural validation only, for producers that are trusted
    /// with the values: counts, lengths, alignment and types are checked, values are not.
    ///
    /// # Errors
    /// The first problem [`ValidationLevel::Structural`] finds.
    ///
    /// # Safety
    /// The values must pass [`ValidationLevel::Full`]: offsets, UTF-8, views, keys, type
    /// ids and run ends, recursively. Every `ArrayData` made without `unsafe` is fully valid,
    /// and readers (typed arrays reading text without re-checking it, equality, kernels) rely
    /// on it.
    pub unsafe fn build_structural(self) -> Result<ArrayData, DataError> {
        self.build_at(ValidationLevel::Structural)
    }

    /// Like [`build_structural`](Self::build_structural), but checks only this array's own
    /// structure: for decoders that assemble a tree bottom up, where every child and the
    /// dictionary were checked when they were built, so that a tree is not re-checked once
    /// per level above each node.
    ///
    /// # Errors
    /// The first structural problem of this array itself.
    ///
    /// # Safety
    /// As [`build_structural`](Self::build_structural); in addition the children and the
    /// dictionary must already pass [`ValidationLevel::Structural`].
    #[inline]
    pub unsafe fn build_structural_shallow(self) -> Result<ArrayData, DataError> {
        self.check_declared_null_count()?;
        validate::check_structure_shallow(&self.data)?;
        Ok(self.data)
    }

    fn build_at(self, level: ValidationLevel) -> Result<ArrayData, DataError> {
        self.check_declared_null_count()?;
        self.data.validate(level)?;
        Ok(self.data)
    }

    /// Builds the array without validating it (only debug builds check it).
    ///
    /// # Safety
    /// The parts must pass [`ValidationLevel::Full`]: buffers long enough and aligned,
    /// offsets monotonic and within their data or child, UTF-8 where the type says so, views,
    /// list views, dictionary keys, union type ids and offsets, and run ends all in range,
    /// recursively. Code that reads the array relies on it and may read out of bounds
    /// otherwise.
    pub unsafe fn build_unchecked(self) -> ArrayData {
        #[cfg(debug_assertions)]
        if let Err(e) = self.data.validate(ValidationLevel::Full) {
            panic!("build_unchecked on invalid data: {e}");
        }
        self.data
    }

    fn check_declared_null_count(&self) -> Result<(), DataError> {
        let Some(declared) = self.declared_null_count else {
            return Ok(());
        };
        let actual = match &self.data.nulls {
            Some(nulls) => nulls.null_count(),
            None if matches!(self.data.data_type, DataType::Null) => self.data.len,
            None => 0,
        };
        if declared != actual {
            return Err(DataError::new(
                DataErrorKind::NullCount,
                format!(
                    "expected a null count of {actual} from the validity of {}, found {declared} declared",
                    self.data.data_type
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_schema::{Field, IntegerType};

    use super::*;

    #[test]
    fn parts_are_the_pieces_the_accessors_show() {
        let words = ArrayData::builder(DataType::Utf8)
            .len(2)
            .buffers(vec![
                Buffer::from_vec(vec![0i32, 1, 3]),
                Buffer::from_slice_ref(b"abc"),
            ])
            .build()
            .unwrap();
        let keys = ArrayData::builder(DataType::Dictionary {
            key: IntegerType::Int8,
            value: Box::new(DataType::Utf8),
            ordered: false,
        })
        .len(4)
        .buffers(vec![Buffer::from_vec(vec![1i8, 0, 1, 0])])
        .nulls(Some(NullBuffer::from(vec![true, false, true, true])))
        .dictionary(words.clone())
        .build()
        .unwrap()
        .slice(1, 3);
        // Clones and slices share the dictionary itself, not a copy of its tree.
        let shared = keys.shared_dictionary().unwrap();
        assert!(Arc::ptr_eq(
            shared,
            keys.clone().shared_dictionary().unwrap()
        ));
        assert!(Arc::ptr_eq(
            shared,
            keys.slice(1, 1).shared_dictionary().unwrap()
        ));
        let parts = keys.clone().into_parts();
        assert_eq!(&parts.data_type, keys.data_type());
        assert_eq!((parts.len, parts.offset), (3, 1));
        assert_eq!(parts.nulls.as_ref().map(NullBuffer::null_count), Some(1));
        assert!(parts.buffers[0].shares_allocation_with(&keys.buffers()[0]));
        assert!(crate::equal(&parts.dictionary.unwrap(), &words));

        let list = ArrayData::builder(DataType::List(Arc::new(Field::new(
            "item",
            DataType::Utf8,
            false,
        ))))
        .len(1)
        .buffers(vec![Buffer::from_vec(vec![0i32, 2])])
        .children(vec![words.clone()])
        .build()
        .unwrap();
        let parts = list.into_parts();
        assert_eq!(parts.children.len(), 1);
        assert!(parts.children[0].buffers()[1].shares_allocation_with(&words.buffers()[1]));
        assert!(parts.dictionary.is_none());
        // The parts are moved as often as the array itself: no larger than it.
        assert!(size_of::<ArrayDataParts>() <= size_of::<ArrayData>());
    }
}

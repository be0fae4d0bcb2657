//! [`GenericByteViewArray`]: binary and text as 16-byte views into shared data buffers.

mod builder;

pub use builder::GenericByteViewBuilder;

use std::fmt::{self, Debug};
use std::marker::PhantomData;
use std::sync::Arc;

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{Buffer, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::{Array, ArrayError};

mod sealed {
    pub trait Sealed {}
}

/// Binary or text views.
pub trait ByteViewType: sealed::Sealed + Debug + Send + Sync + 'static {
    /// What one value is: `[u8]` or `str`.
    type Native: ?Sized + AsRef<[u8]> + Debug + PartialEq;
    /// The data type of arrays of this type.
    fn data_type() -> &'static DataType;
    /// A value from its bytes.
    ///
    /// # Safety
    /// For text, `bytes` must be UTF-8. Every view array of this crate guarantees it for the
    /// bytes of each view: full validation checked them, or its builder took them as `&str`.
    unsafe fn from_validated(bytes: &[u8]) -> &Self::Native;
}

/// Binary views.
#[derive(Debug)]
pub struct BinaryViewType;

/// UTF-8 text views.
#[derive(Debug)]
pub struct StringViewType;

impl sealed::Sealed for BinaryViewType {}
impl ByteViewType for BinaryViewType {
    type Native = [u8];
    fn data_type() -> &'static DataType {
        static TYPE: DataType = DataType::BinaryView;
        &TYPE
    }
    unsafe fn from_validated(bytes: &[u8]) -> &[u8] {
        bytes
    }
}

impl sealed::Sealed for StringViewType {}
impl ByteViewType for StringViewType {
    type Native = str;
    fn data_type() -> &'static DataType {
        static TYPE: DataType = DataType::Utf8View;
        &TYPE
    }
    unsafe fn from_validated(bytes: &[u8]) -> &str {
        debug_assert!(
            std::str::from_utf8(bytes).is_ok(),
            "string view bytes are not UTF-8"
        );
        // SAFETY: the caller promises UTF-8 (see the trait method's contract).
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }
}

/// Binary views.
pub type BinaryViewArray = GenericByteViewArray<BinaryViewType>;
/// UTF-8 text views.
pub type StringViewArray = GenericByteViewArray<StringViewType>;

/// Values as 16-byte views: short values inline, longer ones in shared data buffers.
///
/// # Examples
/// ```
/// use alkaid_array::StringViewArray;
/// let array = StringViewArray::from_iter_values(["short", "a value longer than twelve bytes"]);
/// assert_eq!(array.value(1), "a value longer than twelve bytes");
/// assert_eq!(array.data_buffers().len(), 1);
/// ```
pub struct GenericByteViewArray<T: ByteViewType> {
    views: ScalarBuffer<ByteView>,
    buffers: Arc<[Buffer]>,
    nulls: Option<NullBuffer>,
    phantom: PhantomData<T>,
}

impl<T: ByteViewType> GenericByteViewArray<T> {
    /// An array from its parts, checked fully (every view; UTF-8 for text).
    ///
    /// # Errors
    /// The validation error, or a validity of the wrong length.
    pub fn try_new(
        views: ScalarBuffer<ByteView>,
        buffers: Vec<Buffer>,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        let mut all = vec![views.inner().clone()];
        all.extend(buffers);
        let data = ArrayData::builder(T::data_type().clone())
            .len(views.len())
            .nulls(nulls)
            .buffers(all)
            .build()?;
        Self::try_from(data)
    }

    /// An array of the given values, without nulls.
    pub fn from_iter_values<V: AsRef<T::Native>>(values: impl IntoIterator<Item = V>) -> Self {
        let mut builder = GenericByteViewBuilder::<T>::new();
        for value in values {
            builder.append_value(value);
        }
        builder.finish()
    }

    /// The views.
    pub fn views(&self) -> &ScalarBuffer<ByteView> {
        &self.views
    }

    /// The data buffers the views point into.
    pub fn data_buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// Value `i` (whatever is stored, if the slot is null).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> &T::Native {
        let view = &self.views[i];
        let bytes = match view.inline_bytes() {
            Some(bytes) => bytes,
            None => {
                let start = view.offset() as usize;
                &self.buffers[view.buffer_index() as usize][start..start + view.len()]
            }
        };
        // SAFETY: every view's bytes passed full validation (UTF-8 for text) when the array
        // was made from parts or ArrayData, or were appended as `&str` by its builder.
        unsafe { T::from_validated(bytes) }
    }

    /// Every slot, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<&T::Native>> + '_ {
        (0..self.len()).map(|i| self.is_valid(i).then(|| self.value(i)))
    }

    /// Slots `[offset, offset + len)`, sharing the views and data buffers.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        Self {
            views: self.views.slice(offset, len),
            buffers: Arc::clone(&self.buffers),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
            phantom: PhantomData,
        }
    }
}

impl<T: ByteViewType> Clone for GenericByteViewArray<T> {
    fn clone(&self) -> Self {
        self.slice_typed(0, self.len())
    }
}

impl<T: ByteViewType> Array for GenericByteViewArray<T> {
    array_basics!(self => data_type: T::data_type(), len: self.views.len(), nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let mut buffers = vec![self.views.inner().clone()];
        buffers.extend(self.buffers.iter().cloned());
        let builder = ArrayData::builder(T::data_type().clone())
            .len(self.len())
            .nulls(self.nulls.clone())
            .buffers(buffers);
        // SAFETY: the views passed full validation against these data buffers (or were
        // written by the builder for them); slicing keeps every view.
        unsafe { builder.build_unchecked() }
    }
}

impl<T: ByteViewType> TryFrom<ArrayData> for GenericByteViewArray<T> {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        if data.data_type() != T::data_type() {
            return Err(ArrayError::TypeMismatch {
                expected: T::data_type().to_string(),
                found: data.data_type().clone(),
            });
        }
        let views = ScalarBuffer::try_new(data.buffers()[0].clone(), data.offset(), data.len())
            .map_err(alkaid_data::DataError::from)?;
        Ok(Self {
            views,
            buffers: data.buffers()[1..].into(),
            nulls: data.nulls().cloned(),
            phantom: PhantomData,
        })
    }
}

impl<T: ByteViewType, V: AsRef<T::Native>> FromIterator<Option<V>> for GenericByteViewArray<T> {
    fn from_iter<I: IntoIterator<Item = Option<V>>>(iter: I) -> Self {
        let mut builder = GenericByteViewBuilder::<T>::new();
        for value in iter {
            match value {
                Some(value) => builder.append_value(value),
                None => builder.append_null(),
            }
        }
        builder.finish()
    }
}

impl<T: ByteViewType> Debug for GenericByteViewArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Array", T::data_type())?;
        f.debug_list().entries(self.iter().take(64)).finish()
    }
}

//! [`GenericByteBuilder`]: builds binary and string arrays.

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_buffer::{Buffer, MutableBuffer, OffsetBuffer, OffsetSize, ScalarBuffer};

use super::{ByteArrayType, GenericByteArray};

/// Appends values and nulls, then [`finish`](Self::finish)es a [`GenericByteArray`].
///
/// # Examples
/// ```
/// use alkaid_array::{Array, StringArray};
/// let mut builder = StringArray::builder(2, 16);
/// builder.append_value("one");
/// builder.append_null();
/// let array = builder.finish();
/// assert_eq!(array.value(0), "one");
/// assert!(array.is_null(1));
/// ```
#[derive(Debug)]
pub struct GenericByteBuilder<T: ByteArrayType> {
    offsets: MutableBuffer,
    values: MutableBuffer,
    nulls: NullBufferBuilder,
    phantom: std::marker::PhantomData<T>,
}

impl<T: ByteArrayType> GenericByteBuilder<T> {
    /// A builder with room for `capacity` values and `data_capacity` bytes of data.
    pub fn with_capacity(capacity: usize, data_capacity: usize) -> Self {
        let mut offsets = MutableBuffer::with_capacity(
            capacity
                .saturating_add(1)
                .saturating_mul(size_of::<T::Offset>()),
        );
        offsets.push(T::Offset::ZERO);
        Self {
            offsets,
            values: MutableBuffer::with_capacity(data_capacity),
            nulls: NullBufferBuilder::new(capacity),
            phantom: std::marker::PhantomData,
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push_offset(&mut self) {
        let end = T::Offset::from_usize(self.values.len()).unwrap_or_else(|| {
            panic!("{} data exceeds what its offsets can address", T::DATA_TYPE)
        });
        self.offsets.push(end);
    }

    /// Appends a value.
    ///
    /// # Panics
    /// If the data grows past what the offset type can address (2 GiB for `i32`).
    pub fn append_value(&mut self, value: impl AsRef<T::Native>) {
        self.append_native(value.as_ref());
    }

    /// Appends a value given as the array's own value type.
    pub(crate) fn append_native(&mut self, value: &T::Native) {
        self.values.extend_from_slice(value.as_ref());
        self.push_offset();
        self.nulls.append_non_null();
    }

    /// Appends `n` copies of `value`.
    ///
    /// # Panics
    /// As [`append_value`](Self::append_value).
    pub fn append_n(&mut self, n: usize, value: impl AsRef<T::Native>) {
        let value = value.as_ref();
        for _ in 0..n {
            self.append_native(value);
        }
    }

    /// Appends a null (an empty value).
    pub fn append_null(&mut self) {
        self.push_offset();
        self.nulls.append_null();
    }

    /// Appends a value or a null.
    ///
    /// # Panics
    /// As [`append_value`](Self::append_value).
    pub fn append_option(&mut self, value: Option<impl AsRef<T::Native>>) {
        match value {
            Some(value) => self.append_value(value),
            None => self.append_null(),
        }
    }

    /// Finishes the array, leaving the builder empty.
    pub fn finish(&mut self) -> GenericByteArray<T> {
        let offsets: Buffer = std::mem::take(&mut self.offsets).into();
        self.offsets.push(T::Offset::ZERO);
        let offsets =
            ScalarBuffer::try_from(offsets).expect("whole offsets in an aligned allocation");
        // SAFETY: the builder starts at zero and only ever pushes the growing data length.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        let values: Buffer = std::mem::take(&mut self.values).into();
        GenericByteArray {
            offsets,
            values,
            nulls: self.nulls.finish(),
            phantom: std::marker::PhantomData,
        }
    }
}

impl<T: ByteArrayType> Default for GenericByteBuilder<T> {
    fn default() -> Self {
        Self::with_capacity(0, 0)
    }
}

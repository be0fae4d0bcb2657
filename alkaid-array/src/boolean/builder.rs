//! [`BooleanBuilder`]: builds a [`BooleanArray`].

use alkaid_buffer::builder::{BooleanBufferBuilder, NullBufferBuilder};

use super::BooleanArray;

/// Appends booleans and nulls, then [`finish`](Self::finish)es a [`BooleanArray`].
///
/// # Examples
/// ```
/// use alkaid_array::{Array, BooleanArray};
/// let mut builder = BooleanArray::builder(3);
/// builder.append_value(true);
/// builder.append_null();
/// builder.append_n(1, false);
/// assert_eq!(builder.finish().null_count(), 1);
/// ```
#[derive(Debug, Default)]
pub struct BooleanBuilder {
    values: BooleanBufferBuilder,
    nulls: NullBufferBuilder,
}

impl BooleanBuilder {
    /// A builder with room for `capacity` values.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            values: BooleanBufferBuilder::new(capacity),
            nulls: NullBufferBuilder::new(capacity),
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Appends a value.
    pub fn append_value(&mut self, value: bool) {
        self.values.append(value);
        self.nulls.append_non_null();
    }

    /// Appends a null.
    pub fn append_null(&mut self) {
        self.values.append(false);
        self.nulls.append_null();
    }

    /// Appends a value or a null.
    pub fn append_option(&mut self, value: Option<bool>) {
        match value {
            Some(value) => self.append_value(value),
            None => self.append_null(),
        }
    }

    /// Appends `n` copies of `value`.
    pub fn append_n(&mut self, n: usize, value: bool) {
        self.values.append_n(n, value);
        self.nulls.append_n_non_nulls(n);
    }

    /// Appends `n` nulls.
    pub fn append_nulls(&mut self, n: usize) {
        self.values.append_n(n, false);
        self.nulls.append_n_nulls(n);
    }

    /// Finishes the array, leaving the builder empty.
    pub fn finish(&mut self) -> BooleanArray {
        BooleanArray::try_new(self.values.finish(), self.nulls.finish())
            .expect("values and validity grow together")
    }
}

//! [`GenericByteDictionaryBuilder`]: dictionary-encodes binary or text as it is appended.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use super::{DictionaryArray, DictionaryKey};
use crate::{
    ArrayBuilder, ArrayError, ArrayRef, ByteArrayType, GenericByteBuilder, PrimitiveBuilder,
};

/// Appends values, storing each distinct value once (found by hashing) and a key per slot.
///
/// # Examples
/// ```
/// use alkaid_array::{GenericByteDictionaryBuilder, GenericStringType};
/// use alkaid_array::types::UInt8Type;
///
/// let mut builder = GenericByteDictionaryBuilder::<UInt8Type, GenericStringType<i32>>::new();
/// for city in ["Oslo", "Lima", "Oslo", "Oslo"] {
///     builder.append(city)?;
/// }
/// builder.append_null();
/// let cities = builder.finish();
/// assert_eq!(cities.values().len(), 2); // Oslo, Lima
/// assert_eq!(cities.key(2), Some(0));
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct GenericByteDictionaryBuilder<K: DictionaryKey, T: ByteArrayType> {
    keys: PrimitiveBuilder<K>,
    values: GenericByteBuilder<T>,
    /// Each distinct value's bytes and its index in `values`.
    seen: HashMap<Box<[u8]>, usize>,
    ordered: bool,
}

impl<K: DictionaryKey, T: ByteArrayType> GenericByteDictionaryBuilder<K, T> {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            keys: PrimitiveBuilder::with_capacity(0),
            values: GenericByteBuilder::with_capacity(0, 0),
            seen: HashMap::new(),
            ordered: false,
        }
    }

    /// Declares the dictionary's order meaningful (the `ordered` flag of the type).
    pub fn with_ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// Appends a value, returning its key.
    ///
    /// # Errors
    /// If the value is new and the key type cannot index one more value (nothing is
    /// appended then).
    pub fn append(&mut self, value: impl AsRef<T::Native>) -> Result<K::Native, ArrayError> {
        let value: &T::Native = value.as_ref();
        let bytes: &[u8] = value.as_ref();
        let index = match self.seen.get(bytes) {
            Some(&index) => index,
            None => {
                let index = self.seen.len();
                if K::from_index(index).is_none() {
                    return Err(ArrayError::ColumnMismatch {
                        column: "dictionary".to_string(),
                        reason: format!(
                            "{} keys cannot index more than {index} distinct values",
                            K::KEY.to_data_type()
                        ),
                    });
                }
                self.values.append_native(value);
                self.seen.insert(bytes.into(), index);
                index
            }
        };
        let key = K::from_index(index).expect("checked when the value was added");
        self.keys.append_value(key);
        Ok(key)
    }

    /// Appends a null key.
    pub fn append_null(&mut self) {
        self.keys.append_null();
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Finishes the array, leaving the builder empty (with an empty dictionary).
    pub fn finish(&mut self) -> DictionaryArray<K> {
        let keys = self.keys.finish();
        let values: ArrayRef = Arc::new(self.values.finish());
        self.seen.clear();
        let data_type = alkaid_schema::DataType::Dictionary {
            key: K::KEY,
            value: Box::new(values.data_type().clone()),
            ordered: self.ordered,
        };
        // Every key was handed out for a value this builder stored, so no check is needed.
        DictionaryArray {
            data_type,
            keys,
            values,
        }
    }
}

impl<K: DictionaryKey, T: ByteArrayType> Default for GenericByteDictionaryBuilder<K, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: DictionaryKey, T: ByteArrayType> ArrayBuilder for GenericByteDictionaryBuilder<K, T> {
    fn len(&self) -> usize {
        GenericByteDictionaryBuilder::len(self)
    }
    fn append_null(&mut self) {
        GenericByteDictionaryBuilder::append_null(self);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(GenericByteDictionaryBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Appends fixed-width values, storing each distinct value once (found by hashing its
/// bytes, so floats are distinct by bit pattern) and a key per slot.
///
/// # Examples
/// ```
/// use alkaid_array::PrimitiveDictionaryBuilder;
/// use alkaid_array::types::{Float64Type, Int8Type};
/// let mut builder = PrimitiveDictionaryBuilder::<Int8Type, Float64Type>::new();
/// for v in [1.5, 2.5, 1.5] {
///     builder.append(v)?;
/// }
/// assert_eq!(builder.finish().values().len(), 2);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct PrimitiveDictionaryBuilder<K: DictionaryKey, V: crate::types::PrimitiveType> {
    keys: PrimitiveBuilder<K>,
    values: PrimitiveBuilder<V>,
    seen: HashMap<Box<[u8]>, usize>,
    ordered: bool,
}

impl<K: DictionaryKey, V: crate::types::PrimitiveType> PrimitiveDictionaryBuilder<K, V> {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            keys: PrimitiveBuilder::with_capacity(0),
            values: PrimitiveBuilder::with_capacity(0),
            seen: HashMap::new(),
            ordered: false,
        }
    }

    /// Makes a dictionary of `data_type` values (a timezone, a decimal's precision).
    ///
    /// # Errors
    /// If `V` does not accept `data_type`.
    pub fn with_value_type(
        mut self,
        data_type: alkaid_schema::DataType,
    ) -> Result<Self, ArrayError> {
        self.values = self.values.with_data_type(data_type)?;
        Ok(self)
    }

    /// Declares the dictionary's order meaningful (the `ordered` flag of the type).
    pub fn with_ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// Appends a value, returning its key.
    ///
    /// # Errors
    /// If the value is new and the key type cannot index one more value.
    pub fn append(&mut self, value: V::Native) -> Result<K::Native, ArrayError> {
        let bytes = alkaid_buffer::native::as_bytes(std::slice::from_ref(&value));
        let index = match self.seen.get(bytes) {
            Some(&index) => index,
            None => {
                let index = self.seen.len();
                if K::from_index(index).is_none() {
                    return Err(ArrayError::ColumnMismatch {
                        column: "dictionary".to_string(),
                        reason: format!(
                            "{} keys cannot index more than {index} distinct values",
                            K::KEY.to_data_type()
                        ),
                    });
                }
                self.values.append_value(value);
                self.seen.insert(bytes.into(), index);
                index
            }
        };
        let key = K::from_index(index).expect("checked when the value was added");
        self.keys.append_value(key);
        Ok(key)
    }

    /// Appends a null key.
    pub fn append_null(&mut self) {
        self.keys.append_null();
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Finishes the array, leaving the builder empty (with an empty dictionary).
    pub fn finish(&mut self) -> DictionaryArray<K> {
        let keys = self.keys.finish();
        let values: ArrayRef = Arc::new(self.values.finish());
        self.seen.clear();
        let data_type = alkaid_schema::DataType::Dictionary {
            key: K::KEY,
            value: Box::new(values.data_type().clone()),
            ordered: self.ordered,
        };
        // Every key was handed out for a value this builder stored.
        DictionaryArray {
            data_type,
            keys,
            values,
        }
    }
}

impl<K: DictionaryKey, V: crate::types::PrimitiveType> Default
    for PrimitiveDictionaryBuilder<K, V>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<K: DictionaryKey, V: crate::types::PrimitiveType> ArrayBuilder
    for PrimitiveDictionaryBuilder<K, V>
{
    fn len(&self) -> usize {
        PrimitiveDictionaryBuilder::len(self)
    }
    fn append_null(&mut self) {
        PrimitiveDictionaryBuilder::append_null(self);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(PrimitiveDictionaryBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

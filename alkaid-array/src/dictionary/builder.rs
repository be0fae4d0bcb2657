//! Dictionary builders: [`GenericByteDictionaryBuilder`] for binary and text,
//! [`PrimitiveDictionaryBuilder`] for fixed-width values. Both store each distinct value
//! once, found by hashing its bytes, and a key per slot.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use alkaid_schema::DataType;

use super::{DictionaryArray, DictionaryKey};
use crate::types::PrimitiveType;
use crate::{
    ArrayBuilder, ArrayError, ArrayRef, ByteArrayType, GenericByteBuilder, PrimitiveBuilder,
};

/// What both dictionary builders keep: the keys, the distinct values seen (by their bytes),
/// and whether the dictionary is ordered.
struct Keys<K: DictionaryKey> {
    keys: PrimitiveBuilder<K>,
    seen: HashMap<Box<[u8]>, usize>,
    ordered: bool,
}

impl<K: DictionaryKey> Keys<K> {
    fn new() -> Self {
        Self {
            keys: PrimitiveBuilder::with_capacity(0),
            seen: HashMap::new(),
            ordered: false,
        }
    }

    /// Appends the key of the value whose bytes are `bytes`, calling `store` to add the value
    /// to the dictionary first if it is new.
    fn append(&mut self, bytes: &[u8], store: impl FnOnce()) -> Result<K::Native, ArrayError> {
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
                store();
                self.seen.insert(bytes.into(), index);
                index
            }
        };
        let key = K::from_index(index).expect("checked when the value was added");
        self.keys.append_value(key);
        Ok(key)
    }

    /// The keys and `values` as a dictionary array; the builder starts again empty.
    fn finish(&mut self, values: ArrayRef) -> DictionaryArray<K> {
        let keys = self.keys.finish();
        self.seen.clear();
        let data_type = DataType::Dictionary {
            key: K::KEY,
            value: Box::new(values.data_type().clone()),
            ordered: self.ordered,
        };
        // Every key was handed out for a value the builder stored, so no check is needed.
        DictionaryArray {
            data_type,
            keys,
            values_data: Arc::new(values.to_data()),
            values,
        }
    }
}

/// Methods both builders have, over their `keys` field.
macro_rules! common_methods {
    () => {
        /// Declares the dictionary's order meaningful (the `ordered` flag of the type).
        pub fn with_ordered(mut self, ordered: bool) -> Self {
            self.keys.ordered = ordered;
            self
        }

        /// Appends a null key.
        pub fn append_null(&mut self) {
            self.keys.keys.append_null();
        }

        /// Number of slots appended.
        pub fn len(&self) -> usize {
            self.keys.keys.len()
        }

        /// Whether nothing was appended.
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }
    };
}

/// Dictionary-encodes binary or text as it is appended.
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
    keys: Keys<K>,
    values: GenericByteBuilder<T>,
}

impl<K: DictionaryKey, T: ByteArrayType> GenericByteDictionaryBuilder<K, T> {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            keys: Keys::new(),
            values: GenericByteBuilder::with_capacity(0, 0),
        }
    }

    common_methods!();

    /// Appends a value, returning its key.
    ///
    /// # Errors
    /// If the value is new and the key type cannot index one more value (nothing is
    /// appended then).
    pub fn append(&mut self, value: impl AsRef<T::Native>) -> Result<K::Native, ArrayError> {
        let value: &T::Native = value.as_ref();
        let values = &mut self.values;
        self.keys
            .append(value.as_ref(), || values.append_native(value))
    }

    /// Finishes the array, leaving the builder empty (with an empty dictionary).
    pub fn finish(&mut self) -> DictionaryArray<K> {
        let values = Arc::new(self.values.finish());
        self.keys.finish(values)
    }
}

/// Dictionary-encodes fixed-width values as they are appended (floats are distinct by bit
/// pattern).
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
pub struct PrimitiveDictionaryBuilder<K: DictionaryKey, V: PrimitiveType> {
    keys: Keys<K>,
    values: PrimitiveBuilder<V>,
}

impl<K: DictionaryKey, V: PrimitiveType> PrimitiveDictionaryBuilder<K, V> {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            keys: Keys::new(),
            values: PrimitiveBuilder::with_capacity(0),
        }
    }

    common_methods!();

    /// Makes a dictionary of `data_type` values (a timezone, a decimal's precision).
    ///
    /// # Errors
    /// If `V` does not accept `data_type`.
    pub fn with_value_type(mut self, data_type: DataType) -> Result<Self, ArrayError> {
        self.values = self.values.with_data_type(data_type)?;
        Ok(self)
    }

    /// Appends a value, returning its key.
    ///
    /// # Errors
    /// If the value is new and the key type cannot index one more value.
    pub fn append(&mut self, value: V::Native) -> Result<K::Native, ArrayError> {
        let values = &mut self.values;
        self.keys.append(
            alkaid_buffer::native::as_bytes(std::slice::from_ref(&value)),
            || values.append_value(value),
        )
    }

    /// Finishes the array, leaving the builder empty (with an empty dictionary).
    pub fn finish(&mut self) -> DictionaryArray<K> {
        let values = Arc::new(self.values.finish());
        self.keys.finish(values)
    }
}

macro_rules! builder_traits {
    ($builder:ident < $k:ident, $v:ident : $bound:path >) => {
        impl<$k: DictionaryKey, $v: $bound> Default for $builder<$k, $v> {
            fn default() -> Self {
                Self::new()
            }
        }

        impl<$k: DictionaryKey, $v: $bound> ArrayBuilder for $builder<$k, $v> {
            fn len(&self) -> usize {
                $builder::len(self)
            }
            fn append_null(&mut self) {
                $builder::append_null(self);
            }
            fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
                Ok(Arc::new($builder::finish(self)))
            }
            fn as_any_mut(&mut self) -> &mut dyn Any {
                self
            }
        }
    };
}
builder_traits!(GenericByteDictionaryBuilder<K, T: ByteArrayType>);
builder_traits!(PrimitiveDictionaryBuilder<K, V: PrimitiveType>);

/// A dictionary builder for any value type that does not deduplicate: each value appended to
/// [`values`](Self::values) becomes its own dictionary entry, keyed by
/// [`append_key`](Self::append_key). What [`make_builder`](crate::make_builder) gives for
/// dictionaries of views and nested values, whose values cannot be hashed as they arrive.
///
/// # Examples
/// ```
/// use alkaid_array::{make_builder, Array, ArrayBuilder, PlainDictionaryBuilder};
/// use alkaid_array::types::Int32Type;
/// use alkaid_schema::DataType;
///
/// let values = make_builder(&"List(item: Int8)".parse::<DataType>()?, 0)?;
/// let mut builder = PlainDictionaryBuilder::<Int32Type>::new(values);
/// builder.values().append_null();
/// builder.append_key()?;
/// builder.append_null();
/// let array = builder.finish()?;
/// assert_eq!((array.len(), array.values().len()), (2, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PlainDictionaryBuilder<K: DictionaryKey> {
    keys: PrimitiveBuilder<K>,
    values: Box<dyn ArrayBuilder>,
    ordered: bool,
}

impl<K: DictionaryKey> PlainDictionaryBuilder<K> {
    /// A builder whose dictionary entries come from `values`.
    pub fn new(values: Box<dyn ArrayBuilder>) -> Self {
        Self {
            keys: PrimitiveBuilder::with_capacity(0),
            values,
            ordered: false,
        }
    }

    /// Declares the dictionary's order meaningful (the `ordered` flag of the type).
    pub fn with_ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// The builder of dictionary entries.
    pub fn values(&mut self) -> &mut Box<dyn ArrayBuilder> {
        &mut self.values
    }

    /// Appends a slot keyed to the entry just appended to [`values`](Self::values).
    ///
    /// # Errors
    /// If there is no entry for it, or the key type cannot index it.
    pub fn append_key(&mut self) -> Result<K::Native, ArrayError> {
        let index = self
            .values
            .len()
            .checked_sub(1)
            .ok_or_else(|| ArrayError::ColumnMismatch {
                column: "dictionary".to_string(),
                reason: "no dictionary entry was appended for the key".to_string(),
            })?;
        let key = K::from_index(index).ok_or_else(|| ArrayError::ColumnMismatch {
            column: "dictionary".to_string(),
            reason: format!(
                "{} keys cannot index more than {index} values",
                K::KEY.to_data_type()
            ),
        })?;
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

    /// Finishes the array, leaving the builder empty.
    ///
    /// # Errors
    /// If the entries do not make a valid array.
    pub fn finish(&mut self) -> Result<DictionaryArray<K>, ArrayError> {
        let values = self.values.try_finish()?;
        let keys = self.keys.finish();
        let data_type = DataType::Dictionary {
            key: K::KEY,
            value: Box::new(values.data_type().clone()),
            ordered: self.ordered,
        };
        // Each key was the index of an entry appended just before it.
        Ok(DictionaryArray {
            data_type,
            keys,
            values_data: Arc::new(values.to_data()),
            values,
        })
    }
}

impl<K: DictionaryKey> ArrayBuilder for PlainDictionaryBuilder<K> {
    fn len(&self) -> usize {
        PlainDictionaryBuilder::len(self)
    }
    fn append_null(&mut self) {
        PlainDictionaryBuilder::append_null(self);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(PlainDictionaryBuilder::finish(self)?))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

//! [`DictionaryArray`]: integer keys into a dictionary of values.

mod builder;

pub use builder::{
    GenericByteDictionaryBuilder, PlainDictionaryBuilder, PrimitiveDictionaryBuilder,
};

use std::fmt;
use std::sync::Arc;

use alkaid_data::ArrayData;
use alkaid_schema::{DataType, IntegerType};

use crate::types::*;
use crate::{Array, ArrayError, ArrayRef, PrimitiveArray, make_array};

/// An integer type that can key a dictionary.
pub trait DictionaryKey: PrimitiveType {
    /// The key type as the schema names it.
    const KEY: IntegerType;

    /// The key as an index, if it is not negative.
    fn to_index(key: Self::Native) -> Option<usize>;

    /// The index as a key, if it fits.
    fn from_index(index: usize) -> Option<Self::Native>;
}

macro_rules! dictionary_key {
    ($($t:ty => $key:ident),*) => {$(
        impl DictionaryKey for $t {
            const KEY: IntegerType = IntegerType::$key;
            fn to_index(key: Self::Native) -> Option<usize> {
                usize::try_from(key).ok()
            }
            fn from_index(index: usize) -> Option<Self::Native> {
                Self::Native::try_from(index).ok()
            }
        }
    )*};
}
dictionary_key!(
    Int8Type => Int8, Int16Type => Int16, Int32Type => Int32, Int64Type => Int64,
    UInt8Type => UInt8, UInt16Type => UInt16, UInt32Type => UInt32, UInt64Type => UInt64
);

/// Dictionary-encoded values: slot `i` is `values[keys[i]]`, or null where the key is null.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{Array, DictionaryArray, Int8Array, StringArray};
/// use alkaid_array::types::Int8Type;
///
/// let values = Arc::new(StringArray::from(vec!["red", "green"]));
/// let colours = DictionaryArray::<Int8Type>::try_new(Int8Array::from(vec![Some(1), None, Some(0)]), values)?;
/// assert_eq!(colours.data_type().to_string(), "Dictionary(Int8, Utf8)");
/// assert_eq!(colours.key(0), Some(1));
/// // Keys must point into the dictionary.
/// let bad = DictionaryArray::<Int8Type>::try_new(Int8Array::from(vec![2]), Arc::new(StringArray::from(vec!["x"])));
/// assert!(bad.is_err());
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct DictionaryArray<K: DictionaryKey> {
    data_type: DataType,
    keys: PrimitiveArray<K>,
    values: ArrayRef,
    /// `values` as the shared data it came from, so that `to_data` hands the same
    /// dictionary on in O(1) (a stream's batches and every slice share one).
    values_data: Arc<ArrayData>,
}

impl<K: DictionaryKey> DictionaryArray<K> {
    /// Keys into `values`, checked (every valid key indexes the dictionary).
    ///
    /// # Errors
    /// If a valid key is outside the dictionary.
    pub fn try_new(keys: PrimitiveArray<K>, values: ArrayRef) -> Result<Self, ArrayError> {
        let data_type = DataType::Dictionary {
            key: K::KEY,
            value: Box::new(values.data_type().clone()),
            ordered: false,
        };
        let data = ArrayData::builder(data_type)
            .len(keys.len())
            .nulls(keys.nulls().cloned())
            .buffers(vec![keys.values().inner().clone()])
            .dictionary(values.to_data())
            .build()?;
        Self::try_from(data)
    }

    /// The keys.
    pub fn keys(&self) -> &PrimitiveArray<K> {
        &self.keys
    }

    /// The dictionary.
    pub fn values(&self) -> &ArrayRef {
        &self.values
    }

    /// The dictionary index of slot `i`, or `None` where the key is null.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn key(&self, i: usize) -> Option<usize> {
        self.keys
            .is_valid(i)
            .then(|| K::to_index(self.keys.value(i)).expect("validated keys are in range"))
    }

    /// Slot `i` as a one-value array of the dictionary's type, or `None` where the key is
    /// null.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> Option<ArrayRef> {
        self.key(i).map(|k| self.values.slice(k, 1))
    }

    /// Every slot's dictionary index, `None` for null keys.
    pub fn iter_keys(&self) -> impl ExactSizeIterator<Item = Option<usize>> + '_ {
        (0..self.len()).map(|i| self.key(i))
    }

    /// Slots `[offset, offset + len)`, sharing the keys and the whole dictionary.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        Self {
            data_type: self.data_type.clone(),
            keys: self.keys.slice_typed(offset, len),
            values: Arc::clone(&self.values),
            values_data: Arc::clone(&self.values_data),
        }
    }
}

impl<K: DictionaryKey> Clone for DictionaryArray<K> {
    fn clone(&self) -> Self {
        Self {
            data_type: self.data_type.clone(),
            keys: self.keys.clone(),
            values: Arc::clone(&self.values),
            values_data: Arc::clone(&self.values_data),
        }
    }
}

impl<K: DictionaryKey> Array for DictionaryArray<K> {
    array_basics!(self => data_type: &self.data_type, len: self.keys.len(), nulls: self.keys.nulls());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.keys.len())
            .nulls(self.keys.nulls().cloned())
            .buffers(vec![self.keys.values().inner().clone()])
            .dictionary(Arc::clone(&self.values_data));
        // SAFETY: the keys were checked against this dictionary when the array was made (or
        // were handed out by a builder that owns the dictionary); slicing keeps them.
        unsafe { builder.build_unchecked() }
    }
}

impl<K: DictionaryKey> TryFrom<ArrayData> for DictionaryArray<K> {
    type Error = ArrayError;

    /// Takes valid dictionary data keyed by `K`, without copying.
    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        match data.data_type() {
            DataType::Dictionary { key, .. } if *key == K::KEY => {}
            other => {
                return Err(ArrayError::TypeMismatch {
                    expected: format!("Dictionary({}, _)", K::KEY.to_data_type()),
                    found: other.clone(),
                });
            }
        }
        let parts = data.into_parts();
        let keys = ArrayData::builder(K::default_data_type())
            .len(parts.len)
            .offset(parts.offset)
            .nulls(parts.nulls)
            .buffers(parts.buffers);
        // SAFETY: valid dictionary data holds its keys exactly as a primitive array of the
        // key type does: one aligned buffer of offset + len keys, and the same validity.
        let keys = PrimitiveArray::<K>::try_from(unsafe { keys.build_unchecked() })?;
        let dictionary = parts.dictionary.ok_or_else(|| {
            ArrayError::Data(alkaid_data::DataError::new(
                alkaid_data::DataErrorKind::Dictionary,
                "dictionary array without a dictionary",
            ))
        })?;
        Ok(Self {
            data_type: parts.data_type,
            keys,
            values: make_array(ArrayData::clone(&dictionary)),
            values_data: dictionary,
        })
    }
}

impl<K: DictionaryKey> fmt::Debug for DictionaryArray<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DictionaryArray({} keys into {} values of {})",
            self.len(),
            self.values.len(),
            self.data_type
        )
    }
}

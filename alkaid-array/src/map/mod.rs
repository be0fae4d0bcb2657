//! [`MapArray`]: lists of key-value entries, and [`MapBuilder`].

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use alkaid_buffer::builder::NullBufferBuilder;
use alkaid_buffer::{Buffer, MutableBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Field, MapType};

use crate::{Array, ArrayBuilder, ArrayError, ArrayRef, StructArray};

/// Maps: slot `i` is the entries `entries[offsets[i]..offsets[i + 1]]`, each a key and a
/// value; keys are never null.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, AsArray, Int32Array, MapBuilder, StringArray};
/// let mut builder = MapBuilder::new(StringArray::builder(0, 0), Int32Array::builder(0));
/// builder.keys().append_value("a");
/// builder.values().append_value(1);
/// builder.append(true)?;
/// builder.append(false)?;
/// let maps = builder.finish()?;
/// assert_eq!(maps.keys().as_string::<i32>().value(0), "a");
/// assert_eq!(maps.value(0).len(), 1);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Clone)]
pub struct MapArray {
    data_type: DataType,
    offsets: OffsetBuffer<i32>,
    entries: StructArray,
    nulls: Option<NullBuffer>,
}

impl MapArray {
    /// Maps of `entries` delimited by `offsets`, checked fully (keys not null).
    ///
    /// # Errors
    /// If the entries do not make a map type, an offset leaves them, or a key is null.
    pub fn try_new(
        offsets: OffsetBuffer<i32>,
        entries: StructArray,
        nulls: Option<NullBuffer>,
        keys_sorted: bool,
    ) -> Result<Self, ArrayError> {
        let field = Field::new("entries", entries.data_type().clone(), false);
        let data_type = DataType::Map(MapType::try_new(field, keys_sorted)?);
        let data = ArrayData::builder(data_type)
            .len(offsets.value_count())
            .nulls(nulls)
            .buffers(vec![offsets.inner().inner().clone()])
            .children(vec![entries.to_data()])
            .build()?;
        Self::try_from(data)
    }

    /// Maps of `map_type` (its field names and sortedness), checked fully.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), and if the entries' type is not the map type's.
    pub fn try_new_with_type(
        map_type: MapType,
        offsets: OffsetBuffer<i32>,
        entries: StructArray,
        nulls: Option<NullBuffer>,
    ) -> Result<Self, ArrayError> {
        let data = ArrayData::builder(DataType::Map(map_type))
            .len(offsets.value_count())
            .nulls(nulls)
            .buffers(vec![offsets.inner().inner().clone()])
            .children(vec![entries.to_data()])
            .build()?;
        Self::try_from(data)
    }

    /// The offsets.
    pub fn offsets(&self) -> &OffsetBuffer<i32> {
        &self.offsets
    }

    /// All the entries.
    pub fn entries(&self) -> &StructArray {
        &self.entries
    }

    /// All the keys.
    pub fn keys(&self) -> &ArrayRef {
        self.entries.column(0)
    }

    /// All the values.
    pub fn values(&self) -> &ArrayRef {
        self.entries.column(1)
    }

    /// The entries of map `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> StructArray {
        let range = self.offsets.range(i);
        self.entries.slice_typed(range.start, range.len())
    }

    /// Every slot's entries, `None` for nulls.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<StructArray>> + '_ {
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
            entries: self.entries.clone(),
            nulls: self.nulls.as_ref().map(|n| n.slice(offset, len)),
        }
    }
}

impl Array for MapArray {
    array_basics!(self => data_type: &self.data_type, len: self.offsets.value_count(), nulls: self.nulls.as_ref());

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.len())
            .nulls(self.nulls.clone())
            .buffers(vec![self.offsets.inner().inner().clone()])
            .children(vec![self.entries.to_data()]);
        // SAFETY: offsets and entries passed full validation (keys included) when the array
        // was made; slicing keeps the offsets inside the entries.
        unsafe { builder.build_unchecked() }
    }
}

impl TryFrom<ArrayData> for MapArray {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        if !matches!(data.data_type(), DataType::Map(_)) {
            return Err(ArrayError::TypeMismatch {
                expected: "Map".to_string(),
                found: data.data_type().clone(),
            });
        }
        let offsets = if data.buffers()[0].is_empty() {
            OffsetBuffer::new_zeroed(0)
        } else {
            let raw =
                ScalarBuffer::try_new(data.buffers()[0].clone(), data.offset(), data.len() + 1)
                    .map_err(alkaid_data::DataError::from)?;
            // SAFETY: ArrayData is valid, so these offsets are non-negative, non-decreasing and
            // within the entries.
            unsafe { OffsetBuffer::new_unchecked(raw) }
        };
        Ok(Self {
            data_type: data.data_type().clone(),
            offsets,
            entries: StructArray::try_from(data.children()[0].clone())?,
            nulls: data.nulls().cloned(),
        })
    }
}

impl fmt::Debug for MapArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MapArray({} maps of {})", self.len(), self.data_type)
    }
}

/// Builds maps: append a key and a value per entry to [`keys`](Self::keys) and
/// [`values`](Self::values), then close each map with [`append`](Self::append).
pub struct MapBuilder<K: ArrayBuilder, V: ArrayBuilder> {
    offsets: MutableBuffer,
    keys: K,
    values: V,
    nulls: NullBufferBuilder,
    keys_sorted: bool,
    map_type: Option<MapType>,
}

impl<K: ArrayBuilder, V: ArrayBuilder> MapBuilder<K, V> {
    /// A builder of maps from key and value builders.
    pub fn new(keys: K, values: V) -> Self {
        let mut offsets = MutableBuffer::new();
        offsets.push(0i32);
        Self {
            offsets,
            keys,
            values,
            nulls: NullBufferBuilder::new(0),
            keys_sorted: false,
            map_type: None,
        }
    }

    /// Declares the keys of each map sorted.
    pub fn with_keys_sorted(mut self, sorted: bool) -> Self {
        self.keys_sorted = sorted;
        self
    }

    /// Makes maps of exactly `map_type`: its entry, key and value field names, value
    /// nullability and sortedness.
    pub fn with_type(mut self, map_type: MapType) -> Self {
        self.keys_sorted = map_type.keys_sorted();
        self.map_type = Some(map_type);
        self
    }

    /// The key builder.
    pub fn keys(&mut self) -> &mut K {
        &mut self.keys
    }

    /// The value builder.
    pub fn values(&mut self) -> &mut V {
        &mut self.values
    }

    /// Closes the current map: valid, or null.
    ///
    /// # Errors
    /// If keys and values were appended in different numbers, or the entries no longer fit
    /// `i32` offsets.
    pub fn append(&mut self, valid: bool) -> Result<(), ArrayError> {
        if self.keys.len() != self.values.len() {
            return Err(ArrayError::LengthMismatch {
                what: "map values".to_string(),
                expected: self.keys.len(),
                found: self.values.len(),
            });
        }
        let end = i32::try_from(self.keys.len()).map_err(|_| ArrayError::LengthMismatch {
            what: "map entries".to_string(),
            expected: i32::MAX as usize,
            found: self.keys.len(),
        })?;
        self.offsets.push(end);
        self.nulls.append(valid);
        Ok(())
    }

    /// Number of maps appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether no map was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Finishes the maps, leaving the builder empty.
    ///
    /// # Errors
    /// If a key is null (the one thing the builder cannot rule out as values arrive).
    pub fn finish(&mut self) -> Result<MapArray, ArrayError> {
        let keys = self.keys.try_finish()?;
        let values = self.values.try_finish()?;
        // The entry fields: exactly the given map type's (the builders were made from its
        // types), or the conventional names.
        let fields = match &self.map_type {
            Some(map) => match map.entries().data_type() {
                DataType::Struct(fields) => fields.clone(),
                _ => unreachable!("a map's entries are a struct"),
            },
            None => vec![
                Field::new("key", keys.data_type().clone(), false),
                Field::new("value", values.data_type().clone(), true),
            ]
            .into(),
        };
        let entries = StructArray::try_new(fields, vec![keys, values], None)?;
        let map_type = match &self.map_type {
            Some(map) => map.clone(),
            None => MapType::try_new(
                Field::new("entries", entries.data_type().clone(), false),
                self.keys_sorted,
            )?,
        };
        let offsets: Buffer = std::mem::take(&mut self.offsets).into();
        self.offsets.push(0i32);
        let offsets =
            ScalarBuffer::try_from(offsets).expect("whole offsets in an aligned allocation");
        // SAFETY: offsets start at zero and each is the entry count when its map closed.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        MapArray::try_new_with_type(map_type, offsets, entries, self.nulls.finish())
    }
}

impl<K: ArrayBuilder, V: ArrayBuilder> ArrayBuilder for MapBuilder<K, V> {
    fn len(&self) -> usize {
        MapBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.append(false)
            .expect("a null map adds no entries, so keys and values stay even");
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(MapBuilder::finish(self)?))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

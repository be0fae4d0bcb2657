//! [`VariantArray`]: a column of Variants, shredded or not, read value by value.

use std::borrow::Cow;
use std::cell::Cell;
use std::sync::Arc;

use alkaid_schema::extension::{ExtensionType, ParquetVariant};

use super::path::locate_bytes;
use super::unshred::{Bytes, Group};
use super::{EMPTY_METADATA, ValueEncoder, Variant, VariantError, VariantMetadata, VariantPath};
use crate::{Array, ArrayError, ArrayRef, GenericBinaryType, GenericByteBuilder, StructArray};

/// The values of an `arrow.parquet.variant` column: its storage struct, with the
/// `metadata`, `value` and `typed_value` children resolved once.
///
/// [`value`](Self::value) gives a row's metadata and value bytes: borrowed when the row
/// is not shredded, put back together from the typed columns when it is.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, BinaryArray, StructArray};
/// use alkaid_array::variant::{json_to_variant, VariantArray, Variant};
/// use alkaid_schema::extension::ParquetVariant;
///
/// let (metadata, value) = json_to_variant(r#"{"a": 1}"#)?;
/// let storage = StructArray::try_new(
///     ParquetVariant::storage_fields(),
///     vec![
///         Arc::new(BinaryArray::from(vec![Some(&metadata[..]), Some(&[1, 0, 0][..])])) as ArrayRef,
///         Arc::new(BinaryArray::from(vec![Some(&value[..]), Some(&[0x0c, 7][..])])),
///     ],
///     None,
/// )?;
/// let variants = VariantArray::try_new(&storage)?;
/// let (metadata, value) = variants.value(1)?.expect("row 1 is valid");
/// assert_eq!(variants.variant(&metadata, &value)?, Variant::Int8(7));
/// assert_eq!(variants.to_json(0)?.as_deref(), Some(r#"{"a":1}"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct VariantArray {
    storage: StructArray,
}

/// One row: its metadata and value bytes.
pub type VariantBytes<'a> = (Cow<'a, [u8]>, Cow<'a, [u8]>);

/// One row: its metadata, read, and its value's bytes (not yet read).
pub type VariantRow<'a> = (VariantMetadata<'a>, Cow<'a, [u8]>);

impl VariantArray {
    /// Reads `storage` as Variants: checks its type against the extension's storage rules.
    ///
    /// # Errors
    /// When the storage's type does not fit `arrow.parquet.variant`.
    pub fn try_new(storage: &StructArray) -> Result<Self, ArrayError> {
        ParquetVariant.check_storage(storage.data_type())?;
        Ok(Self {
            storage: storage.clone(),
        })
    }

    /// A column of the Variants of JSON texts (`None` a null row), unshredded.
    ///
    /// ```
    /// use alkaid_array::variant::VariantArray;
    ///
    /// let column = VariantArray::from_json([Some(r#"{"a": [1, 2]}"#), None, Some("3.5")])?;
    /// assert_eq!(column.to_json(0)?.as_deref(), Some(r#"{"a":[1,2]}"#));
    /// assert!(column.is_null(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The first text that is not JSON, with its row.
    pub fn from_json<'a>(
        rows: impl IntoIterator<Item = Option<&'a str>>,
    ) -> Result<Self, ArrayError> {
        let rows = rows.into_iter();
        let mut column = VariantColumnBuilder::with_capacity(rows.size_hint().0);
        for (i, row) in rows.enumerate() {
            match row {
                Some(text) => {
                    let (m, v) =
                        super::json_to_variant(text).map_err(|e| e.at(&format!("row {i}")))?;
                    column.append(&m, &v);
                }
                None => column.append_null(),
            }
        }
        Ok(Self {
            storage: column.finish()?,
        })
    }

    /// The storage struct.
    pub fn storage(&self) -> &StructArray {
        &self.storage
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.storage.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.storage.is_empty()
    }

    /// Whether row `i` is null (the storage struct's slot; a valid row may hold Variant null).
    pub fn is_null(&self, i: usize) -> bool {
        self.storage.is_null(i)
    }

    /// The columns resolved for reading rows; done once per call that reads many.
    fn rows(&self) -> Result<Rows<'_>, VariantError> {
        let column = |name: &str| self.storage.column_by_name(name).ok();
        let metadata = column("metadata")
            .ok_or_else(|| VariantError::metadata("no metadata column".into()))?;
        let shredded = column("typed_value").is_some();
        Ok(Rows {
            storage: &self.storage,
            metadata: MetadataColumn::of(metadata.as_ref())?,
            value: column("value")
                .map(|v| Bytes::of(v.as_ref(), "value"))
                .transpose()?,
            shredded: if shredded {
                Some(Group::resolve(&self.storage, "$")?)
            } else {
                None
            },
            last: Cell::new(None),
        })
    }

    /// Row `i`'s metadata and value bytes, `None` for a null row. A valid row whose value
    /// and typed value are both null reads as Variant null (the spec's rule).
    ///
    /// # Errors
    /// When a column's layout is not one this reader takes, or shredded parts conflict
    /// (both `value` and a primitive `typed_value`; a shredded object whose `value` is not
    /// an object), with the spec's words.
    pub fn value(&self, i: usize) -> Result<Option<VariantBytes<'_>>, VariantError> {
        Ok(self.rows()?.row(i)?.map(as_bytes))
    }

    /// Row `i`'s value at `path` (metadata and value bytes), `None` for a null row or a
    /// path that finds nothing. Shredded columns are followed while they hold the path,
    /// so a shredded field is read without putting the rest of its row together.
    ///
    /// # Errors
    /// As [`value`](Self::value).
    pub fn value_at(
        &self,
        i: usize,
        path: &VariantPath,
    ) -> Result<Option<VariantBytes<'_>>, VariantError> {
        Ok(self.rows()?.at(i, path)?.map(as_bytes))
    }

    /// Calls `each` with every row's value at `path`: its metadata (read and checked)
    /// and its value's bytes (as [`value_at`](Self::value_at) gives them), `None` for a
    /// null row or a path that finds nothing. The columns are resolved once, and a
    /// metadata equal to the previous row's is not checked again.
    ///
    /// # Errors
    /// The first error of a row or of `each`.
    pub fn for_each_at<E: From<VariantError>>(
        &self,
        path: &VariantPath,
        mut each: impl FnMut(usize, Option<VariantRow<'_>>) -> Result<(), E>,
    ) -> Result<(), E> {
        for (i, row) in self.iter_at(path)?.enumerate() {
            each(i, row?)?;
        }
        Ok(())
    }

    /// Every row's value at `path`, as [`for_each_at`](Self::for_each_at) hands them
    /// over (the columns resolved once), for callers that keep their own errors.
    ///
    /// # Errors
    /// When a column's layout is not one this reader takes; each row's own errors
    /// come with it.
    pub fn iter_at<'s>(
        &'s self,
        path: &'s VariantPath,
    ) -> Result<impl Iterator<Item = Result<Option<VariantRow<'s>>, VariantError>> + 's, VariantError>
    {
        let rows = self.rows()?;
        Ok((0..self.len()).map(move |i| rows.at(i, path)))
    }

    /// Reads (and checks whole) a row's bytes as [`value`](Self::value) gave them.
    ///
    /// # Errors
    /// When the metadata or the value is not valid.
    pub fn variant<'v>(
        &self,
        metadata: &'v [u8],
        value: &'v [u8],
    ) -> Result<Variant<'v, 'v>, VariantError> {
        Variant::try_new(VariantMetadata::try_new(metadata)?, value)
    }

    /// Row `i` as JSON text, `None` for a null row.
    ///
    /// # Errors
    /// As [`value`](Self::value), and when the value is not valid.
    pub fn to_json(&self, i: usize) -> Result<Option<String>, VariantError> {
        let Some((metadata, value)) = self.value(i)? else {
            return Ok(None);
        };
        super::variant_to_json(self.variant(&metadata, &value)?).map(Some)
    }

    /// Every row's bytes as an unshredded storage struct (`metadata`, `value`), nulls kept.
    ///
    /// # Errors
    /// As [`value`](Self::value).
    pub fn unshred(&self) -> Result<StructArray, ArrayError> {
        let rows = self.rows()?;
        let mut column = VariantColumnBuilder::with_capacity(self.len());
        for i in 0..self.len() {
            match rows.row(i)? {
                Some((m, v)) => column.append(m.as_bytes(), &v),
                None => column.append_null(),
            }
        }
        column.finish()
    }
}

/// An unshredded Variant column (its storage struct) being built row by row.
///
/// ```
/// use alkaid_array::variant::{json_to_variant, VariantArray, VariantColumnBuilder};
///
/// let (metadata, value) = json_to_variant("[1, 2]")?;
/// let mut column = VariantColumnBuilder::with_capacity(2);
/// column.append(&metadata, &value);
/// column.append_null();
/// let column = VariantArray::try_new(&column.finish()?)?;
/// assert_eq!(column.to_json(0)?.as_deref(), Some("[1,2]"));
/// assert!(column.is_null(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct VariantColumnBuilder {
    metadata: GenericByteBuilder<GenericBinaryType<i32>>,
    values: GenericByteBuilder<GenericBinaryType<i32>>,
    valid: Vec<bool>,
}

impl VariantColumnBuilder {
    /// A builder with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> Self {
        Self {
            metadata: GenericByteBuilder::with_capacity(rows, 0),
            values: GenericByteBuilder::with_capacity(rows, 0),
            valid: Vec::with_capacity(rows),
        }
    }

    /// Appends a row of `metadata` and `value` bytes (not checked here).
    pub fn append(&mut self, metadata: &[u8], value: &[u8]) {
        self.metadata.append_value(metadata);
        self.values.append_value(value);
        self.valid.push(true);
    }

    /// Appends a null row.
    pub fn append_null(&mut self) {
        self.metadata.append_value(EMPTY_METADATA);
        self.values.append_null();
        self.valid.push(false);
    }

    /// The column: `Struct(metadata, value)`, null where a null row was appended.
    ///
    /// # Errors
    /// Never for the rows appended; the struct's checks.
    pub fn finish(mut self) -> Result<StructArray, ArrayError> {
        let nulls = alkaid_buffer::NullBuffer::from(self.valid);
        StructArray::try_new(
            ParquetVariant::storage_fields(),
            vec![
                Arc::new(self.metadata.finish()) as ArrayRef,
                Arc::new(self.values.finish()),
            ],
            (nulls.null_count() > 0).then_some(nulls),
        )
    }
}

impl std::fmt::Debug for VariantArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut list = f.debug_list();
        for i in 0..self.len() {
            match self.to_json(i) {
                Ok(text) => list.entry(&text),
                Err(e) => list.entry(&e.to_string()),
            };
        }
        list.finish()
    }
}

/// The metadata column: plain binary, or binary behind dictionary keys or runs (which
/// the storage rules allow: rows sharing one dictionary of names store it once).
enum MetadataColumn<'a> {
    Plain(Bytes<'a>),
    /// The index of row `i`'s value, and the values.
    Keyed(Box<dyn Fn(usize) -> Option<usize> + 'a>, Bytes<'a>),
}

impl<'a> MetadataColumn<'a> {
    fn of(array: &'a dyn Array) -> Result<Self, VariantError> {
        use crate::types::{
            Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
            UInt64Type,
        };
        use crate::{AsArray, DictionaryArray, RunArray};
        macro_rules! keyed {
            ($($key:ty),*) => {$(
                if let Some(d) = array.as_typed::<DictionaryArray<$key>>() {
                    let values = Bytes::of(d.values().as_ref(), "the metadata's dictionary")?;
                    return Ok(Self::Keyed(Box::new(move |i| d.key(i)), values));
                }
            )*};
        }
        keyed!(
            Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
            UInt64Type
        );
        macro_rules! runs {
            ($($run_end:ty),*) => {$(
                if let Some(r) = array.as_typed::<RunArray<$run_end>>() {
                    let values = Bytes::of(r.values().as_ref(), "the metadata's runs")?;
                    return Ok(Self::Keyed(Box::new(move |i| Some(r.physical_index(i))), values));
                }
            )*};
        }
        runs!(Int16Type, Int32Type, Int64Type);
        Ok(Self::Plain(Bytes::of(array, "metadata")?))
    }

    /// Row `i`'s metadata bytes, `None` when null.
    fn get(&self, i: usize) -> Option<&'a [u8]> {
        match self {
            Self::Plain(bytes) => bytes.get(i),
            Self::Keyed(index, values) => index(i).and_then(|k| values.get(k)),
        }
    }
}

/// A variant array's columns, resolved.
struct Rows<'a> {
    storage: &'a StructArray,
    metadata: MetadataColumn<'a>,
    value: Option<Bytes<'a>>,
    shredded: Option<Group<'a>>,
    /// The last metadata read: rows of one column usually repeat one, and comparing its
    /// bytes is cheaper than checking them again.
    last: Cell<Option<VariantMetadata<'a>>>,
}

impl<'a> Rows<'a> {
    /// Row `i`'s metadata, read and checked (or the last one's, when the bytes are equal);
    /// `None` for a null row.
    fn metadata_at(&self, i: usize) -> Result<Option<VariantMetadata<'a>>, VariantError> {
        if self.storage.is_null(i) {
            return Ok(None);
        }
        let bytes = self
            .metadata
            .get(i)
            .ok_or_else(|| VariantError::metadata(format!("null in valid row {i}")))?;
        if let Some(last) = self.last.get()
            && last.as_bytes() == bytes
        {
            return Ok(Some(last));
        }
        let parsed = VariantMetadata::try_new(bytes)?;
        self.last.set(Some(parsed));
        Ok(Some(parsed))
    }

    fn at(&self, i: usize, path: &VariantPath) -> Result<Option<VariantRow<'a>>, VariantError> {
        if path.is_empty() {
            return self.row(i);
        }
        let Some(metadata) = self.metadata_at(i)? else {
            return Ok(None);
        };
        let found = match &self.shredded {
            Some(group) => group.locate(i, path.segments(), metadata)?,
            None => match self.value.and_then(|v| v.get(i)) {
                Some(bytes) => locate_bytes(metadata, bytes, path.segments())?.map(Cow::Borrowed),
                None => None,
            },
        };
        Ok(found.map(|value| (metadata, value)))
    }

    fn row(&self, i: usize) -> Result<Option<VariantRow<'a>>, VariantError> {
        let Some(metadata) = self.metadata_at(i)? else {
            return Ok(None);
        };
        let Some(group) = &self.shredded else {
            let value = self.value.and_then(|v| v.get(i)).unwrap_or(&[0]);
            return Ok(Some((metadata, Cow::Borrowed(value))));
        };
        let mut out = Vec::new();
        let mut names = metadata;
        group.write(i, metadata, ValueEncoder::new(&mut names, &mut out))?;
        Ok(Some((metadata, Cow::Owned(out))))
    }
}

/// `row` as bytes.
fn as_bytes((metadata, value): VariantRow<'_>) -> VariantBytes<'_> {
    (Cow::Borrowed(metadata.as_bytes()), value)
}

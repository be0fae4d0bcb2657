//! Objects and arrays inside a Variant value, read in place.

use super::metadata::{VariantMetadata, read_unsigned};
use super::value::{encoded_len, truncated};
use super::{Variant, VariantError};

/// Where the parts of an object or array lie in its bytes (which start at its header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Layout {
    pub(super) count: usize,
    pub(super) id_size: usize,
    pub(super) offset_size: usize,
    pub(super) ids_start: usize,
    pub(super) offsets_start: usize,
    pub(super) values_start: usize,
    /// One past the last byte of the values (the last offset, from `values_start`).
    pub(super) end: usize,
}

impl Layout {
    /// `id_size` is 0 for arrays.
    fn read(
        bytes: &[u8],
        large: bool,
        id_size: usize,
        offset_size: usize,
        what: &str,
    ) -> Result<Self, VariantError> {
        let count_size = if large { 4 } else { 1 };
        let count = read_unsigned(bytes, 1, count_size).ok_or_else(|| truncated(what))?;
        let ids_start = 1 + count_size;
        // A count past the bytes cannot be real: checked before anything is sized by it.
        let offsets_start = count
            .checked_mul(id_size)
            .and_then(|n| n.checked_add(ids_start))
            .filter(|&n| n <= bytes.len());
        let values_start = offsets_start.and_then(|start| {
            count
                .checked_add(1)?
                .checked_mul(offset_size)?
                .checked_add(start)
                .filter(|&n| n <= bytes.len())
        });
        let (Some(offsets_start), Some(values_start)) = (offsets_start, values_start) else {
            return Err(VariantError::value(format!(
                "{what} of {count} elements does not fit in {} bytes",
                bytes.len()
            )));
        };
        let last = read_unsigned(bytes, offsets_start + count * offset_size, offset_size)
            .ok_or_else(|| truncated(what))?;
        let end = values_start
            .checked_add(last)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| truncated(what))?;
        Ok(Self {
            count,
            id_size,
            offset_size,
            ids_start,
            offsets_start,
            values_start,
            end,
        })
    }

    pub(super) fn offset(&self, bytes: &[u8], i: usize) -> usize {
        // Inside the bytes: checked by `read`.
        read_unsigned(
            bytes,
            self.offsets_start + i * self.offset_size,
            self.offset_size,
        )
        .unwrap_or(0)
    }

    /// The bytes of element `i`: from its offset, as long as its own headers say.
    pub(super) fn element<'v>(&self, bytes: &'v [u8], i: usize) -> Result<&'v [u8], VariantError> {
        let start = self.values_start + self.offset(bytes, i);
        let rest = bytes.get(start..self.end).ok_or_else(|| {
            VariantError::value(format!(
                "element {i} starts at offset {}, past the values' end",
                start - self.values_start
            ))
        })?;
        let len = encoded_len(rest)?;
        Ok(&rest[..len])
    }
}

/// A Variant object: fields sorted by name, each a Variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VariantObject<'m, 'v> {
    metadata: VariantMetadata<'m>,
    bytes: &'v [u8],
    layout: Layout,
}

impl<'m, 'v> VariantObject<'m, 'v> {
    pub(super) fn parse_layout(bytes: &[u8]) -> Result<Layout, VariantError> {
        let header = bytes.first().map_or(0, |b| b >> 2);
        Layout::read(
            bytes,
            header & 0x10 != 0,
            usize::from((header >> 2) & 3) + 1,
            usize::from(header & 3) + 1,
            "object",
        )
    }

    pub(super) fn parse(
        metadata: VariantMetadata<'m>,
        bytes: &'v [u8],
    ) -> Result<Self, VariantError> {
        let layout = Self::parse_layout(bytes)?;
        Ok(Self {
            metadata,
            bytes: &bytes[..layout.end],
            layout,
        })
    }

    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The metadata the field names come from.
    pub fn metadata(&self) -> VariantMetadata<'m> {
        self.metadata
    }

    /// The object's bytes, header included.
    pub fn as_bytes(&self) -> &'v [u8] {
        self.bytes
    }

    /// How many fields it has.
    pub fn len(&self) -> usize {
        self.layout.count
    }

    /// Whether it has no fields.
    pub fn is_empty(&self) -> bool {
        self.layout.count == 0
    }

    /// The metadata id of field `i`'s name.
    pub fn field_id(&self, i: usize) -> usize {
        let at = self.layout.ids_start + i * self.layout.id_size;
        read_unsigned(self.bytes, at, self.layout.id_size).unwrap_or(usize::MAX)
    }

    /// The name of field `i` (fields are in the order of their names).
    ///
    /// # Errors
    /// When its id is outside the metadata.
    pub fn field_name(&self, i: usize) -> Result<&'m str, VariantError> {
        self.metadata.name(self.field_id(i))
    }

    /// The encoded bytes of field `i`'s value.
    ///
    /// # Errors
    /// When they do not fit inside the object.
    pub fn field_bytes(&self, i: usize) -> Result<&'v [u8], VariantError> {
        self.layout.element(self.bytes, i)
    }

    /// The value of field `i`.
    ///
    /// # Errors
    /// When its outer layer does not read.
    pub fn field(&self, i: usize) -> Result<Variant<'m, 'v>, VariantError> {
        Variant::parse(self.metadata, self.field_bytes(i)?)
    }

    /// The field named `name`, found by binary search on the sorted names.
    ///
    /// # Errors
    /// When a name or the value found does not read.
    pub fn get(&self, name: &str) -> Result<Option<Variant<'m, 'v>>, VariantError> {
        match self.position(name)? {
            Some(i) => self.field(i).map(Some),
            None => Ok(None),
        }
    }

    /// The index of the field named `name`.
    ///
    /// # Errors
    /// When a name looked at does not read.
    pub fn position(&self, name: &str) -> Result<Option<usize>, VariantError> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            match self.field_name(middle)?.cmp(name) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Ok(Some(middle)),
            }
        }
        Ok(None)
    }

    /// The fields, name and value, in order.
    pub fn iter(
        &self,
    ) -> impl Iterator<Item = Result<(&'m str, Variant<'m, 'v>), VariantError>> + '_ {
        (0..self.len()).map(|i| Ok((self.field_name(i)?, self.field(i)?)))
    }
}

/// A Variant array: elements in order, each a Variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VariantList<'m, 'v> {
    metadata: VariantMetadata<'m>,
    bytes: &'v [u8],
    layout: Layout,
}

impl<'m, 'v> VariantList<'m, 'v> {
    pub(super) fn parse_layout(bytes: &[u8]) -> Result<Layout, VariantError> {
        let header = bytes.first().map_or(0, |b| b >> 2);
        Layout::read(
            bytes,
            header & 0x04 != 0,
            0,
            usize::from(header & 3) + 1,
            "array",
        )
    }

    pub(super) fn parse(
        metadata: VariantMetadata<'m>,
        bytes: &'v [u8],
    ) -> Result<Self, VariantError> {
        let layout = Self::parse_layout(bytes)?;
        Ok(Self {
            metadata,
            bytes: &bytes[..layout.end],
            layout,
        })
    }

    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The array's bytes, header included.
    pub fn as_bytes(&self) -> &'v [u8] {
        self.bytes
    }

    /// How many elements it has.
    pub fn len(&self) -> usize {
        self.layout.count
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.layout.count == 0
    }

    /// The encoded bytes of element `i`.
    ///
    /// # Errors
    /// When they do not fit inside the array.
    pub fn element_bytes(&self, i: usize) -> Result<&'v [u8], VariantError> {
        self.layout.element(self.bytes, i)
    }

    /// Element `i`.
    ///
    /// # Errors
    /// When its outer layer does not read.
    pub fn get(&self, i: usize) -> Result<Variant<'m, 'v>, VariantError> {
        Variant::parse(self.metadata, self.element_bytes(i)?)
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl Iterator<Item = Result<Variant<'m, 'v>, VariantError>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

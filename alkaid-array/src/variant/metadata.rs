//! The metadata of a Variant: the dictionary of the field names its objects use.

use super::VariantError;

/// A Variant's metadata: a header byte, then a dictionary of UTF-8 field names that
/// objects name by index. Checked whole when made: the version, every offset, every
/// name's UTF-8, and (when the header says so) that the names are sorted and unique.
///
/// ```
/// use alkaid_array::variant::VariantMetadata;
///
/// // version 1, sorted, 1-byte offsets; two names, "a" and "bc".
/// let bytes = [0x11, 2, 0, 1, 3, b'a', b'b', b'c'];
/// let metadata = VariantMetadata::try_new(&bytes)?;
/// assert_eq!(metadata.len(), 2);
/// assert_eq!(metadata.name(1)?, "bc");
/// assert_eq!(metadata.find("bc"), Some(1));
/// assert!(VariantMetadata::try_new(&[0x12, 0]).is_err()); // version 2
/// # Ok::<(), alkaid_array::variant::VariantError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariantMetadata<'m> {
    bytes: &'m [u8],
    sorted: bool,
    offset_size: usize,
    len: usize,
    /// Where the names' bytes start.
    names_start: usize,
}

/// The header's version bits must say this.
const VERSION: u8 = 1;

/// The metadata of a Variant without fields: version 1, no names.
pub const EMPTY_METADATA: [u8; 3] = [0x01, 0, 0];

impl<'m> VariantMetadata<'m> {
    /// Reads and checks `bytes`, which must be exactly one metadata.
    ///
    /// # Errors
    /// When the version is not 1, an offset or size runs past the bytes or goes backwards,
    /// a name is not UTF-8, names said to be sorted are not strictly increasing, or bytes
    /// follow the last name.
    pub fn try_new(bytes: &'m [u8]) -> Result<Self, VariantError> {
        let metadata = Self::read_prefix(bytes)?;
        let end = metadata.encoded_len();
        if end != bytes.len() {
            return Err(VariantError::metadata(format!(
                "{} bytes after the dictionary's last name",
                bytes.len() - end
            )));
        }
        Ok(metadata)
    }

    /// Reads the metadata at the start of `bytes`, which may go on after it (the
    /// Parquet project's `.variant.bin` files hold a metadata and a value back to back);
    /// [`encoded_len`](Self::encoded_len) says where it ends.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), but for bytes after the dictionary.
    pub fn read_prefix(bytes: &'m [u8]) -> Result<Self, VariantError> {
        let Some(&header) = bytes.first() else {
            return Err(VariantError::metadata("empty".into()));
        };
        if header & 0x0f != VERSION {
            return Err(VariantError::metadata(format!(
                "version {} (only version 1 is defined)",
                header & 0x0f
            )));
        }
        let sorted = header & 0x10 != 0;
        let offset_size = usize::from(header >> 6) + 1;
        let read = |at: usize| -> Result<usize, VariantError> {
            read_unsigned(bytes, at, offset_size).ok_or_else(|| {
                VariantError::metadata(format!("ends inside the dictionary (at byte {at})"))
            })
        };
        let len = read(1)?;
        // Each name needs an offset: a count beyond the bytes cannot be real, and checking
        // it first bounds the work below by the input's size.
        let offsets_start = 1 + offset_size;
        let names_start = len
            .checked_add(1)
            .and_then(|n| n.checked_mul(offset_size))
            .and_then(|n| n.checked_add(offsets_start))
            .filter(|&n| n <= bytes.len())
            .ok_or_else(|| {
                VariantError::metadata(format!(
                    "dictionary of {len} names does not fit in {} bytes",
                    bytes.len()
                ))
            })?;
        let metadata = Self {
            bytes,
            sorted,
            offset_size,
            len,
            names_start,
        };
        let mut previous: Option<&str> = None;
        let mut start = read(offsets_start)?;
        if start != 0 {
            return Err(VariantError::metadata(format!(
                "first offset is {start}, not 0"
            )));
        }
        for i in 0..len {
            let end = read(offsets_start + (i + 1) * offset_size)?;
            let name = names_start
                .checked_add(end)
                .filter(|_| end >= start)
                .and_then(|stop| bytes.get(names_start + start..stop))
                .ok_or_else(|| {
                    VariantError::metadata(format!(
                        "name {i} spans {start}..{end}, outside the {} bytes of names",
                        bytes.len() - names_start
                    ))
                })?;
            let name = std::str::from_utf8(name)
                .map_err(|_| VariantError::metadata(format!("name {i} is not UTF-8")))?;
            if sorted && previous.is_some_and(|p| p >= name) {
                return Err(VariantError::metadata(format!(
                    "said to be sorted, but name {i} ({name:?}) does not follow {:?}",
                    previous.unwrap_or_default()
                )));
            }
            previous = Some(name);
            start = end;
        }
        Ok(metadata)
    }

    /// How many bytes the metadata takes.
    pub fn encoded_len(&self) -> usize {
        // Checked when made: the last offset lies inside the bytes.
        let last = read_unsigned(
            self.bytes,
            1 + self.offset_size * (self.len + 1),
            self.offset_size,
        )
        .unwrap_or(0);
        self.names_start + last
    }

    /// The metadata's bytes.
    pub fn as_bytes(&self) -> &'m [u8] {
        &self.bytes[..self.encoded_len()]
    }

    /// How many names the dictionary holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the dictionary is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the header says the names are sorted and unique (checked when made).
    pub fn is_sorted(&self) -> bool {
        self.sorted
    }

    /// Name `id`.
    ///
    /// # Errors
    /// When `id` is not below [`len`](Self::len).
    pub fn name(&self, id: usize) -> Result<&'m str, VariantError> {
        if id >= self.len {
            return Err(VariantError::value(format!(
                "field id {id} is outside the metadata's {} names",
                self.len
            )));
        }
        let offset = |i: usize| {
            read_unsigned(self.bytes, 1 + self.offset_size * (i + 1), self.offset_size).unwrap_or(0)
        };
        let range = self.names_start + offset(id)..self.names_start + offset(id + 1);
        // Checked when made: the range lies inside the bytes and is UTF-8.
        Ok(std::str::from_utf8(&self.bytes[range]).unwrap_or_default())
    }

    /// The id of `name`, the first one if the dictionary repeats it (binary search when
    /// sorted, a scan otherwise).
    pub fn find(&self, name: &str) -> Option<usize> {
        let at = |i: usize| self.name(i).unwrap_or_default();
        if self.sorted {
            let (mut low, mut high) = (0, self.len);
            while low < high {
                let middle = low + (high - low) / 2;
                match at(middle).cmp(name) {
                    std::cmp::Ordering::Less => low = middle + 1,
                    std::cmp::Ordering::Greater => high = middle,
                    std::cmp::Ordering::Equal => return Some(middle),
                }
            }
            None
        } else {
            (0..self.len).find(|&i| at(i) == name)
        }
    }

    /// The names, by id.
    pub fn names(&self) -> impl Iterator<Item = &'m str> + '_ {
        (0..self.len).map(|i| self.name(i).unwrap_or_default())
    }
}

/// The `size`-byte little-endian unsigned number at `at`, if the bytes hold it.
pub(super) fn read_unsigned(bytes: &[u8], at: usize, size: usize) -> Option<usize> {
    let slice = bytes.get(at..at.checked_add(size)?)?;
    let mut value = 0usize;
    for (i, &byte) in slice.iter().enumerate() {
        value |= usize::from(byte) << (8 * i);
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsorted_dictionaries_may_repeat_names() {
        let bytes = [0x01, 2, 0, 1, 2, b'a', b'a'];
        let metadata = VariantMetadata::try_new(&bytes).unwrap();
        assert!(!metadata.is_sorted());
        assert_eq!(metadata.find("a"), Some(0));
        assert_eq!(metadata.names().collect::<Vec<_>>(), ["a", "a"]);
        let sorted = [0x11, 2, 0, 1, 2, b'a', b'a'];
        let error = VariantMetadata::try_new(&sorted).unwrap_err().to_string();
        assert!(
            error.contains("name 1 (\"a\") does not follow \"a\""),
            "{error}"
        );
    }

    #[test]
    fn every_broken_part_is_named() {
        for (bytes, expected) in [
            (&[][..], "empty"),
            (&[0x01][..], "ends inside the dictionary"),
            (&[0x01, 200, 0][..], "dictionary of 200 names does not fit"),
            (&[0x01, 1, 1, 1, b'a'][..], "first offset is 1"),
            (&[0x01, 1, 0, 5, b'a'][..], "name 0 spans 0..5"),
            (&[0x01, 1, 0, 1, 0xff][..], "name 0 is not UTF-8"),
            (&[0x01, 0, 0, 9][..], "1 bytes after"),
            (&[0xc1, 0xff, 0xff, 0xff, 0x7f][..], "does not fit"),
        ] {
            let error = VariantMetadata::try_new(bytes).unwrap_err().to_string();
            assert!(error.contains(expected), "{bytes:?}: {error}");
        }
    }

    #[test]
    fn wide_offsets_and_the_reserved_bit() {
        // 2-byte offsets, the reserved bit 5 set (readers ignore it).
        let bytes = [0x71, 1, 0, 0, 0, 2, 0, b'h', b'i'];
        let metadata = VariantMetadata::try_new(&bytes).unwrap();
        assert_eq!(metadata.name(0).unwrap(), "hi");
        assert!(metadata.name(1).is_err());
        assert_eq!(metadata.encoded_len(), bytes.len());
        let longer = [&bytes[..], &[0x0c]].concat();
        assert_eq!(
            VariantMetadata::read_prefix(&longer).unwrap().encoded_len(),
            9
        );
    }
}

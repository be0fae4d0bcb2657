//! [`ByteView`]: the 16-byte view struct of the binary-view and utf8-view layouts.

use std::fmt;

use super::{NativeType, sealed};

/// One value of a binary-view or utf8-view array.
///
/// The first four bytes are the length (a signed 32-bit integer). Values of at most
/// [`MAX_INLINE`](Self::MAX_INLINE) bytes are stored inline in the remaining twelve bytes,
/// zero-padded; longer ones store a four-byte prefix of the value, the index of the data
/// buffer holding it and the offset of the value in that buffer.
///
/// The struct is four-byte aligned, so a views buffer can be used wherever the format puts
/// it. Nothing here trusts the fields: a view read from bytes may be negative or point
/// anywhere, and the layers above validate it.
///
/// # Examples
/// ```
/// use alkaid_buffer::native::ByteView;
/// let short = ByteView::new_inline(b"hello");
/// assert_eq!(short.inline_bytes(), Some(&b"hello"[..]));
///
/// let long = ByteView::new_reference(b"a long value!", 2, 100);
/// assert_eq!((long.len(), long.prefix(), long.buffer_index(), long.offset()),
///            (13, *b"a lo", 2, 100));
/// assert_eq!(long.inline_bytes(), None);
/// ```
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct ByteView {
    length: i32,
    rest: [u8; 12],
}

impl ByteView {
    /// The longest value stored inside the view itself.
    pub const MAX_INLINE: usize = 12;

    /// A view holding `value` inline.
    ///
    /// # Panics
    /// If `value` is longer than [`MAX_INLINE`](Self::MAX_INLINE).
    pub fn new_inline(value: &[u8]) -> Self {
        assert!(
            value.len() <= Self::MAX_INLINE,
            "{} bytes do not fit inline",
            value.len()
        );
        let mut rest = [0; 12];
        rest[..value.len()].copy_from_slice(value);
        Self {
            length: value.len() as i32,
            rest,
        }
    }

    /// A view of `value`, which is stored at `offset` in data buffer `buffer_index`.
    ///
    /// # Panics
    /// If `value` is not longer than [`MAX_INLINE`](Self::MAX_INLINE) (it must be inline) or
    /// longer than `i32::MAX`.
    pub fn new_reference(value: &[u8], buffer_index: i32, offset: i32) -> Self {
        assert!(
            value.len() > Self::MAX_INLINE,
            "values of up to 12 bytes are stored inline"
        );
        let length = i32::try_from(value.len()).expect("view length exceeds i32::MAX");
        let mut rest = [0; 12];
        rest[..4].copy_from_slice(&value[..4]);
        rest[4..8].copy_from_slice(&buffer_index.to_le_bytes());
        rest[8..].copy_from_slice(&offset.to_le_bytes());
        Self { length, rest }
    }

    /// A view of `value`: inline if it is short enough, otherwise referring to `offset` in
    /// data buffer `buffer_index`.
    pub fn new(value: &[u8], buffer_index: i32, offset: i32) -> Self {
        if value.len() <= Self::MAX_INLINE {
            Self::new_inline(value)
        } else {
            Self::new_reference(value, buffer_index, offset)
        }
    }

    /// The length field as stored (may be negative in untrusted data).
    pub fn length(&self) -> i32 {
        self.length
    }

    /// The length of the value in bytes, treating a negative length as zero.
    pub fn len(&self) -> usize {
        usize::try_from(self.length).unwrap_or(0)
    }

    /// Whether the value is empty.
    pub fn is_empty(&self) -> bool {
        self.length <= 0
    }

    /// Whether the value is stored inline.
    pub fn is_inline(&self) -> bool {
        self.length <= Self::MAX_INLINE as i32
    }

    /// The first four bytes of the value (zero-padded for shorter values).
    pub fn prefix(&self) -> [u8; 4] {
        [self.rest[0], self.rest[1], self.rest[2], self.rest[3]]
    }

    /// The inline value, or `None` if the value is stored in a data buffer.
    pub fn inline_bytes(&self) -> Option<&[u8]> {
        self.is_inline().then(|| &self.rest[..self.len()])
    }

    /// The twelve bytes after the length: inline data and padding, or prefix, buffer index
    /// and offset.
    pub fn raw_rest(&self) -> &[u8; 12] {
        &self.rest
    }

    /// The data buffer index of a referenced value (meaningless for inline values).
    pub fn buffer_index(&self) -> i32 {
        i32::from_le_bytes([self.rest[4], self.rest[5], self.rest[6], self.rest[7]])
    }

    /// The offset of a referenced value in its data buffer (meaningless for inline values).
    pub fn offset(&self) -> i32 {
        i32::from_le_bytes([self.rest[8], self.rest[9], self.rest[10], self.rest[11]])
    }

    /// The same view with another buffer index and offset; the value must be referenced.
    pub fn with_location(mut self, buffer_index: i32, offset: i32) -> Self {
        debug_assert!(!self.is_inline());
        self.rest[4..8].copy_from_slice(&buffer_index.to_le_bytes());
        self.rest[8..].copy_from_slice(&offset.to_le_bytes());
        self
    }
}

impl fmt::Debug for ByteView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inline_bytes() {
            Some(bytes) => write!(f, "ByteView(inline {bytes:?})"),
            None => write!(
                f,
                "ByteView(len {}, prefix {:?}, buffer {}, offset {})",
                self.length,
                self.prefix(),
                self.buffer_index(),
                self.offset()
            ),
        }
    }
}

impl sealed::Sealed for ByteView {}
impl NativeType for ByteView {
    /// Converts a view read in the other byte order: swaps the length, and for a referenced
    /// value the buffer index and offset; inline data and the prefix are bytes and keep their
    /// order. Whether the value is inline is decided from the converted length.
    fn swap_bytes(self) -> Self {
        let length = self.length.swap_bytes();
        let swapped = Self {
            length,
            rest: self.rest,
        };
        if swapped.is_inline() {
            swapped
        } else {
            swapped.with_location(self.buffer_index().swap_bytes(), self.offset().swap_bytes())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_spec() {
        assert_eq!(size_of::<ByteView>(), 16);
        let view = ByteView::new_reference(b"0123456789abcdef", 3, 7);
        let bytes = crate::native::as_bytes(&[view]).to_vec();
        assert_eq!(&bytes[0..4], &16i32.to_le_bytes());
        assert_eq!(&bytes[4..8], b"0123");
        assert_eq!(&bytes[8..12], &3i32.to_le_bytes());
        assert_eq!(&bytes[12..16], &7i32.to_le_bytes());
    }

    #[test]
    fn inline_values_are_zero_padded() {
        let view = ByteView::new(b"abc", 9, 9);
        assert_eq!(view.raw_rest(), b"abc\0\0\0\0\0\0\0\0\0");
        assert_eq!(ByteView::new(b"", 0, 0).inline_bytes(), Some(&b""[..]));
        assert!(ByteView::new(&[1; 12], 0, 0).is_inline());
        assert!(!ByteView::new(&[1; 13], 0, 0).is_inline());
    }

    #[test]
    fn negative_lengths_read_as_empty() {
        let view = ByteView {
            length: -5,
            rest: [0; 12],
        };
        assert_eq!(view.len(), 0);
        assert!(view.is_empty());
        assert_eq!(view.length(), -5);
    }

    #[test]
    fn swap_bytes_keeps_data_bytes() {
        let long = ByteView::new_reference(b"0123456789abcdef", 1, 2);
        let swapped = long.swap_bytes();
        assert_eq!(swapped.length(), 16i32.swap_bytes());
        assert_eq!(swapped.swap_bytes(), long);
        // A big-endian inline view: the length is swapped, the bytes are not.
        let big_endian = ByteView {
            length: 3i32.swap_bytes(),
            rest: *b"abc\0\0\0\0\0\0\0\0\0",
        };
        assert_eq!(big_endian.swap_bytes(), ByteView::new_inline(b"abc"));
    }

    #[test]
    fn with_location_moves_a_referenced_value() {
        let view = ByteView::new_reference(b"a value longer than 12", 0, 0).with_location(4, 96);
        assert_eq!((view.buffer_index(), view.offset()), (4, 96));
        assert_eq!(view.prefix(), *b"a va");
        assert_eq!(view.len(), 22);
    }

    #[test]
    #[should_panic(expected = "do not fit inline")]
    fn long_inline_value_panics() {
        ByteView::new_inline(&[0; 13]);
    }
}

//! The one error type of this crate.
//!
//! Allocation failure aborts (as `Vec` does) and programmer misuse panics with a documented
//! `# Panics` section; what is left here are the failures that depend on data from outside:
//! foreign bytes that are misaligned or short, offsets that are out of order, ranges that do
//! not fit.

use std::fmt;

/// What went wrong when viewing or slicing bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BufferError {
    /// The bytes do not start at an address that is a multiple of the type's alignment.
    Misaligned {
        /// The type the bytes were to be viewed as.
        type_name: &'static str,
        /// The alignment that type requires, in bytes.
        required: usize,
        /// The address of the first byte.
        address: usize,
    },
    /// The byte length is not a whole number of elements.
    PartialElement {
        /// The type the bytes were to be viewed as.
        type_name: &'static str,
        /// The size of one element, in bytes.
        element_size: usize,
        /// The byte length that was given.
        byte_len: usize,
    },
    /// A range `[offset, offset + len)` does not fit inside something of length `available`.
    OutOfBounds {
        /// What was being sliced: "bytes", "bits", "elements".
        unit: &'static str,
        /// Start of the range.
        offset: usize,
        /// Length of the range.
        len: usize,
        /// Length of what was sliced.
        available: usize,
    },
    /// An offsets buffer is malformed.
    InvalidOffsets {
        /// Index of the first offending offset (0 when the buffer is empty).
        index: usize,
        /// Why it is invalid, e.g. "offset -3 is negative".
        reason: String,
    },
}

impl fmt::Display for BufferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Misaligned {
                type_name,
                required,
                address,
            } => write!(
                f,
                "expected {type_name} data aligned to {required} bytes, found address {address:#x}"
            ),
            Self::PartialElement {
                type_name,
                element_size,
                byte_len,
            } => write!(
                f,
                "expected a multiple of {element_size} bytes for {type_name}, found {byte_len} bytes"
            ),
            Self::OutOfBounds {
                unit,
                offset,
                len,
                available,
            } => write!(
                f,
                "range of {len} {unit} at offset {offset} is out of bounds for length {available}"
            ),
            Self::InvalidOffsets { index, reason } => {
                write!(f, "invalid offsets at index {index}: {reason}")
            }
        }
    }
}

impl std::error::Error for BufferError {}

/// Checks that `[offset, offset + len)` fits within `available`, without overflowing.
pub(crate) fn check_range(
    unit: &'static str,
    offset: usize,
    len: usize,
    available: usize,
) -> Result<(), BufferError> {
    match offset.checked_add(len) {
        Some(end) if end <= available => Ok(()),
        _ => Err(BufferError::OutOfBounds {
            unit,
            offset,
            len,
            available,
        }),
    }
}

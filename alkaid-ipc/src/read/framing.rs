//! The length prefix in front of every message.
//!
//! Since format 0.15 a message starts with the continuation marker `0xFFFFFFFF` and a
//! little-endian `i32` metadata length; before that, with the length alone. A length of 0
//! ends the stream either way.

use crate::error::{IpcError, Result};
use crate::read::options::ReadOptions;

/// The magics a file may start and end with.
pub(crate) const MAGICS: [&[u8]; 2] = [b"ALKAID1", b"ARROW1"];

/// What the first bytes of a message say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prefix {
    /// End of stream.
    End,
    /// A message whose metadata is `metadata` bytes and starts `header` bytes in.
    Message { header: usize, metadata: usize },
}

/// Reads a prefix from the start of `bytes`; `None` if more bytes are needed. A lone
/// continuation marker at the very end of the input is an old end-of-stream form (4 bytes)
/// that some writers emit; callers treat end of input after it as the end.
pub(crate) fn parse_prefix(bytes: &[u8], options: &ReadOptions) -> Result<Option<Prefix>> {
    let Some(first) = bytes.get(..4) else {
        return Ok(None);
    };
    let first = i32::from_le_bytes(first.try_into().expect("4 bytes"));
    let (header, length) = if first == -1 {
        let Some(second) = bytes.get(4..8) else {
            return Ok(None);
        };
        (8, i32::from_le_bytes(second.try_into().expect("4 bytes")))
    } else {
        (4, first)
    };
    if length == 0 {
        return Ok(Some(Prefix::End));
    }
    let metadata = usize::try_from(length).map_err(|_| {
        IpcError::malformed(format!("a message declares {length} bytes of metadata"))
    })?;
    if metadata > options.max_metadata_bytes {
        return Err(IpcError::limit(format!(
            "a message declares {metadata} bytes of metadata, more than the limit of {}",
            options.max_metadata_bytes
        )));
    }
    Ok(Some(Prefix::Message { header, metadata }))
}

/// A body length read from a message, checked to be a non-negative `usize`.
pub(crate) fn body_length(declared: i64) -> Result<usize> {
    usize::try_from(declared)
        .map_err(|_| IpcError::malformed(format!("a message declares a body of {declared} bytes")))
}

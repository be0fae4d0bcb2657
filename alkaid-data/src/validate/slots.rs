//! Helpers every value check shares: the end of an array's slots, typed slots of a buffer,
//! and UTF-8 checks. A leaf: it imports nothing from its siblings.

use alkaid_schema::DataType;

use crate::{ArrayData, DataError, DataErrorKind};

/// `offset + len` of an array; structure::check has verified that it does not overflow.
pub(super) fn end(data: &ArrayData) -> usize {
    data.offset + data.len
}

/// The typed values of buffer `index` for slots `[from, to)`; structure::check made sure
/// they exist and are aligned, so a failure here is reported rather than assumed away.
pub(super) fn typed_slots<T: alkaid_buffer::NativeType>(
    data: &ArrayData,
    index: usize,
    from: usize,
    to: usize,
) -> Result<&[T], DataError> {
    let all = data.buffers[index].typed::<T>()?;
    all.get(from..to).ok_or_else(|| {
        DataError::new(
            DataErrorKind::BufferTooShort,
            format!(
                "buffer {index} of {} has {} values, fewer than {to}",
                data.data_type,
                all.len()
            ),
        )
    })
}

/// Checks that `bytes` are UTF-8: SIMD validation (several times std's speed on non-ASCII
/// text), and std's validator again only on failure, for the position of the first error.
pub(super) fn utf8(bytes: &[u8]) -> Result<(), std::str::Utf8Error> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(_) => Ok(()),
        Err(_) => std::str::from_utf8(bytes).map(|_| ()),
    }
}

/// Checks UTF-8 of one value (views, which have no offsets to share).
pub(super) fn check_utf8(data_type: &DataType, bytes: &[u8], slot: usize) -> Result<(), DataError> {
    utf8(bytes).map_err(|e| {
        DataError::new(
            DataErrorKind::Utf8,
            format!(
                "invalid UTF-8 in slot {slot} of {data_type} at byte {}",
                e.valid_up_to()
            ),
        )
    })
}

//! Full validation of binary and utf8 views.

use alkaid_buffer::native::ByteView;

use super::slots::{check_utf8, end, typed_slots};
use crate::{ArrayData, DataError, DataErrorKind};

/// Every view, null slots included (readers may look at any view): a non-negative length;
/// inline values padded with zeros; referenced values in an existing data buffer, inside
/// it, with the prefix equal to their first four bytes; UTF-8 for `Utf8View`.
pub(super) fn check(data: &ArrayData) -> Result<(), DataError> {
    let views = typed_slots::<ByteView>(data, 0, data.offset, end(data))?;
    let variadic = &data.buffers[1..];
    let data_type = &data.data_type;
    let is_string = data_type.is_string();
    let error = |slot: usize, reason: String| {
        DataError::new(
            DataErrorKind::View,
            format!("view at slot {slot} of {data_type}: {reason}"),
        )
    };
    for (slot, view) in views.iter().enumerate() {
        let length = view.length();
        if length < 0 {
            return Err(error(
                slot,
                format!("expected a non-negative length, found {length}"),
            ));
        }
        let len = length as usize;
        let bytes = if let Some(inline) = view.inline_bytes() {
            if view.raw_rest()[len..].iter().any(|&b| b != 0) {
                return Err(error(
                    slot,
                    "expected zero padding after the inline bytes".to_string(),
                ));
            }
            inline
        } else {
            let (index, offset) = (view.buffer_index(), view.offset());
            let Some(buffer) = usize::try_from(index).ok().and_then(|i| variadic.get(i)) else {
                return Err(error(
                    slot,
                    format!(
                        "expected a data buffer index below {}, found {index}",
                        variadic.len()
                    ),
                ));
            };
            let range = usize::try_from(offset)
                .ok()
                .and_then(|o| Some(o..o.checked_add(len)?));
            let Some(bytes) = range.and_then(|r| buffer.get(r)) else {
                return Err(error(
                    slot,
                    format!(
                        "{len} bytes at offset {offset} leave data buffer {index} of {} bytes",
                        buffer.len()
                    ),
                ));
            };
            if bytes[..4] != view.prefix() {
                return Err(error(
                    slot,
                    "expected the prefix to equal the first four bytes".to_string(),
                ));
            }
            bytes
        };
        if is_string {
            check_utf8(data_type, bytes, slot)?;
        }
    }
    Ok(())
}

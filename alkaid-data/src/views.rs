//! Compacting view arrays: the bytes their views reference, copied into new data buffers.
//!
//! Views keep sharing the data buffers of the array they came from, so a slice, a filter or
//! a take of a few views can hold on to (and an IPC writer could send) far more bytes than
//! it uses. The IPC writer compacts whenever the views reference fewer bytes than the
//! buffers hold; selection kernels below a threshold of their own.

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{Buffer, MutableBuffer};

use crate::{DataError, DataErrorKind};

/// Bytes the views that are not inline reference in their data buffers (a byte referenced
/// twice counts twice).
///
/// # Examples
/// ```
/// use alkaid_buffer::native::ByteView;
/// use alkaid_data::referenced_view_bytes;
/// let views = [ByteView::new(b"short", 0, 0), ByteView::new(b"a value of 20 bytes!", 0, 0)];
/// assert_eq!(referenced_view_bytes(&views), 20);
/// ```
pub fn referenced_view_bytes(views: &[ByteView]) -> usize {
    // Branch-free over the lengths alone (a length above the inline limit is a reference),
    // so that the loop vectorises.
    views
        .iter()
        .map(|view| {
            let length = view.length() as u32 as u64;
            length * u64::from(length > ByteView::MAX_INLINE as u64)
        })
        .sum::<u64>() as usize
}

/// `views` rewritten to point into new data buffers that hold only the bytes they
/// reference, in view order: one buffer per 2 GiB - 1 bytes, as view offsets are `i32`.
/// Inline views are kept as they are.
///
/// # Errors
/// If a view names a data buffer that `data` does not have, or points past its end.
///
/// # Examples
/// ```
/// use alkaid_buffer::Buffer;
/// use alkaid_buffer::native::ByteView;
/// use alkaid_data::compact_views;
/// let data = Buffer::from(b"unused bytes, then a value of 20 bytes!".to_vec());
/// let view = ByteView::new(b"a value of 20 bytes!", 0, 19);
/// let (views, buffers) = compact_views(&[view], &[data])?;
/// assert_eq!(buffers.len(), 1);
/// assert_eq!(buffers[0].as_slice(), b"a value of 20 bytes!");
/// assert_eq!(views.typed::<ByteView>()?[0].offset(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compact_views(
    views: &[ByteView],
    data: &[Buffer],
) -> Result<(Buffer, Vec<Buffer>), DataError> {
    const LIMIT: usize = i32::MAX as usize;
    let referenced = referenced_view_bytes(views);
    let mut new_views = MutableBuffer::with_capacity(views.len() * 16);
    let mut new_data: Vec<Buffer> = Vec::new();
    let mut current = MutableBuffer::with_capacity(referenced.min(LIMIT));
    for (i, view) in views.iter().enumerate() {
        if view.is_inline() {
            new_views.push(*view);
            continue;
        }
        let bad = |what: &str| {
            DataError::new(
                DataErrorKind::View,
                format!(
                    "view {i} {what} (buffer {}, offset {})",
                    view.buffer_index(),
                    view.offset()
                ),
            )
        };
        let source = usize::try_from(view.buffer_index())
            .ok()
            .and_then(|b| data.get(b))
            .ok_or_else(|| bad("names a missing data buffer"))?;
        let start = view.offset() as usize;
        let bytes = source
            .get(start..start + view.len())
            .ok_or_else(|| bad("points past its data buffer"))?;
        if current.len() + bytes.len() > LIMIT {
            let full = std::mem::replace(&mut current, MutableBuffer::new());
            new_data.push(full.into_buffer());
        }
        // Both fit an `i32`: there are fewer buffers than bytes, and `current` stays
        // within `LIMIT`.
        let location = view.with_location(new_data.len() as i32, current.len() as i32);
        current.extend_from_slice(bytes);
        new_views.push(location);
    }
    if !current.is_empty() {
        new_data.push(current.into_buffer());
    }
    Ok((new_views.into_buffer(), new_data))
}

//! The physical runs of a run-end encoded array that cover a range of its logical slots:
//! what slicing, concatenating and writing such arrays all need.

use std::ops::Range;

use alkaid_buffer::Buffer;

use crate::{ArrayData, DataError, DataErrorKind};

/// Run end `k` of `run_ends` (an `Int16`, `Int32` or `Int64` array), sign-extended.
pub(crate) fn run_end_at(run_ends: &ArrayData, width: usize, k: usize) -> i64 {
    int_at(&run_ends.buffers()[0], width, run_ends.offset() + k)
}

fn int_at(buffer: &Buffer, width: usize, index: usize) -> i64 {
    let mut raw = [0u8; 8];
    raw[..width].copy_from_slice(&buffer[index * width..(index + 1) * width]);
    let shift = 64 - 8 * width as u32;
    (i64::from_le_bytes(raw) << shift) >> shift
}

/// The runs, as indices into `run_ends`, that cover logical slots `offset..offset + len`:
/// from the first run ending after `offset` to the first ending at or after `offset + len`.
/// Empty when `len` is 0. Run ends are sorted, so both ends are found by binary search.
///
/// # Errors
/// If the run ends stop before `offset + len`, or are not an integer array.
///
/// # Examples
/// ```
/// use alkaid_buffer::Buffer;
/// use alkaid_data::{ArrayData, run_span};
/// use alkaid_schema::DataType;
/// let ends = ArrayData::builder(DataType::Int32)
///     .len(3)
///     .buffers(vec![Buffer::from_slice_ref(&[2i32, 5, 9])])
///     .build()?;
/// assert_eq!(run_span(&ends, 3, 4)?, 1..3); // slots 3..7 lie in runs 1 and 2
/// assert!(run_span(&ends, 8, 5).is_err());
/// # Ok::<(), alkaid_data::DataError>(())
/// ```
pub fn run_span(
    run_ends: &ArrayData,
    offset: usize,
    len: usize,
) -> Result<Range<usize>, DataError> {
    let width = run_ends
        .data_type()
        .primitive_byte_width()
        .filter(|w| [2, 4, 8].contains(w))
        .ok_or_else(|| {
            DataError::new(
                DataErrorKind::RunEnds,
                format!(
                    "expected Int16, Int32 or Int64 run ends, found {}",
                    run_ends.data_type()
                ),
            )
        })?;
    if len == 0 {
        return Ok(0..0);
    }
    let end_at = |k| run_end_at(run_ends, width, k);
    let first = partition(run_ends.len(), |k| end_at(k) <= offset as i64);
    let last = partition(run_ends.len(), |k| end_at(k) < (offset + len) as i64);
    if last >= run_ends.len() {
        return Err(DataError::new(
            DataErrorKind::RunEnds,
            format!(
                "run ends stop before slot {} of the array",
                offset + len - 1
            ),
        ));
    }
    Ok(first..last + 1)
}

/// The first `k` in `0..n` for which `before(k)` is false (`before` holds on a prefix).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, n);
    while low < high {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

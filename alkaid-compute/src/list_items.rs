//! Building lists from pieces: the items of some rows gathered into one child, and
//! positions written as a list's `i32` or `i64` offsets (or view sizes). Casts between
//! list kinds and the row format's lists and their decoding share them.

use alkaid_array::{UInt64Array, make_array};
use alkaid_buffer::{Buffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::error::ComputeError;

/// The items of each row's `(start, length)` of `child`, one row after another; a row
/// whose `keep` is `false` gives as many null items instead (a length of 0 gives none).
pub(crate) fn gather_items(
    child: &ArrayData,
    rows: impl Iterator<Item = (usize, usize, bool)>,
) -> Result<ArrayData, ComputeError> {
    let mut positions: Vec<Option<u64>> = Vec::new();
    for (start, len, keep) in rows {
        if keep {
            positions.extend((start..start + len).map(|i| Some(i as u64)));
        } else {
            positions.extend(std::iter::repeat_n(None, len));
        }
    }
    let indices = UInt64Array::from(positions);
    let items = alkaid_select::take(make_array(child.clone()).as_ref(), &indices)?;
    Ok(items.to_data())
}

/// `values` as a buffer of `i64`s (`large`) or `i32`s, for a list of type `to`.
///
/// # Errors
/// If a value does not fit 32 bits.
pub(crate) fn offsets_buffer(
    values: &[usize],
    large: bool,
    to: &DataType,
) -> Result<Buffer, ComputeError> {
    if large {
        let wide: Vec<i64> = values.iter().map(|&v| v as i64).collect();
        return Ok(ScalarBuffer::from(wide).into_inner());
    }
    let narrow: Vec<i32> = values
        .iter()
        .map(|&v| i32::try_from(v))
        .collect::<Result<_, _>>()
        .map_err(|_| ComputeError::Overflow {
            row: None,
            message: format!("the items do not fit {to}'s 32-bit offsets"),
        })?;
    Ok(ScalarBuffer::from(narrow).into_inner())
}

/// 0, then each length added on.
pub(crate) fn running_ends(lengths: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut total = 0;
    std::iter::once(0)
        .chain(lengths.map(|l| {
            total += l;
            total
        }))
        .collect()
}

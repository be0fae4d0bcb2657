//! Sorting and ordering: [`sort_to_indices`], [`sort`], [`lexsort_to_indices`],
//! [`top_k`], [`rank`], and [`lower_bound`] / [`upper_bound`] in a sorted array.
//!
//! # Order
//! Every orderable type sorts in the order the comparison kernels use ([`crate::cmp`]):
//! numbers as numbers, floats in the crate's total order (`-0.0` equals `0.0`, NaN after
//! infinity, every NaN equal), text and bytes in byte order, booleans `false` first,
//! intervals field by field. Dictionaries sort by their values (ranked once, then the keys
//! look the rank up) and run-end encoded arrays by their runs' values. Structs sort field
//! by field and lists element by element, a list that is a prefix of another first; the
//! direction and null placement apply at every level. Maps and unions have no order.
//!
//! Every sort is **stable**: rows that compare equal keep their input order, in both
//! directions. Null rows go first or last as [`SortOptions::nulls_first`] says, in input
//! order among themselves (sorted by the next column, in a lexicographic sort).
//!
//! Row numbers are `u32`s, as in arrow-rs: an array of more than `u32::MAX` rows is an
//! error.
//!
//! # How
//! Each column becomes one 64-bit word per row whose unsigned order is the order asked
//! for; (word, row) pairs then sort as plain integers. Values wider than a word (strings
//! longer than eight bytes, 128- and 256-bit decimals) compare in full only where their
//! words are equal. With a limit, the pairs are partitioned around the limit first and
//! only the rows before it are sorted.

mod key;
mod options;
mod radix;
mod rows;
mod search;
#[cfg(test)]
mod tests;
mod word;

use alkaid_array::{Array, ArrayRef, UInt32Array};
use alkaid_data::ArrayData;
use alkaid_select::take;

use crate::error::ComputeError;
use key::{SortKey, all_rows};
pub use options::SortOptions;
use rows::{Column, sort_rows};
pub use search::{lower_bound, upper_bound};

/// One column of a [`lexsort_to_indices`], with its own direction.
#[derive(Clone, Copy)]
pub struct SortColumn<'a> {
    /// The column.
    pub values: &'a dyn Array,
    /// How it is ordered.
    pub options: SortOptions,
}

/// The row numbers of `array` in sorted order (stable); with `limit`, only the first
/// `limit` of them, found without sorting the rest.
///
/// # Errors
/// If the type has no order (maps, unions) or the array has more than `u32::MAX` rows.
///
/// # Examples
/// ```
/// use alkaid_array::Int32Array;
/// use alkaid_compute::sort::{SortOptions, sort_to_indices};
///
/// let values = Int32Array::from(vec![Some(3), None, Some(1), Some(3)]);
/// let order = sort_to_indices(&values, SortOptions::ASCENDING, None)?;
/// assert_eq!(order.values()[..], [2, 0, 3, 1]);
/// let top = sort_to_indices(&values, SortOptions::DESCENDING, Some(2))?;
/// assert_eq!(top.values()[..], [1, 0]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn sort_to_indices(
    array: &dyn Array,
    options: SortOptions,
    limit: Option<usize>,
) -> Result<UInt32Array, ComputeError> {
    let data = array.to_data();
    let key = SortKey::of(&data, options)?;
    let rows = all_rows(data.len())?;
    let limit = limit.unwrap_or(data.len());
    Ok(UInt32Array::from(sort_rows(
        std::slice::from_ref(&key),
        rows,
        limit,
    )))
}

/// `array` sorted (stable).
///
/// # Errors
/// As [`sort_to_indices`].
pub fn sort(array: &dyn Array, options: SortOptions) -> Result<ArrayRef, ComputeError> {
    let order = sort_to_indices(array, options, None)?;
    Ok(take(array, &order)?)
}

/// The `k` first values of `array` in the order of `options`: the `k` smallest when
/// ascending, the `k` largest when descending (with nulls where `options` puts them),
/// sorted; the rest of the array is never sorted.
///
/// # Errors
/// As [`sort_to_indices`].
pub fn top_k(array: &dyn Array, k: usize, options: SortOptions) -> Result<ArrayRef, ComputeError> {
    let order = sort_to_indices(array, options, Some(k))?;
    Ok(take(array, &order)?)
}

/// The row numbers in the order of several columns: by the first, rows equal there by the
/// second, and so on, each column with its own options; ties keep their input order.
/// With `limit`, only the first `limit` rows.
///
/// # Errors
/// If the columns differ in length, a type has no order, or there are more than
/// `u32::MAX` rows.
///
/// # Examples
/// ```
/// use alkaid_array::{Int64Array, StringArray};
/// use alkaid_compute::sort::{SortColumn, SortOptions, lexsort_to_indices};
///
/// let city = StringArray::from(vec!["Oslo", "Lima", "Oslo", "Lima"]);
/// let year = Int64Array::from(vec![2020, 2021, 2024, 2019]);
/// let order = lexsort_to_indices(
///     &[
///         SortColumn { values: &city, options: SortOptions::ASCENDING },
///         SortColumn { values: &year, options: SortOptions::DESCENDING },
///     ],
///     None,
/// )?;
/// assert_eq!(order.values()[..], [1, 3, 2, 0]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn lexsort_to_indices(
    columns: &[SortColumn<'_>],
    limit: Option<usize>,
) -> Result<UInt32Array, ComputeError> {
    let data = column_data(columns)?;
    let len = data.first().map_or(0, ArrayData::len);
    let keys = data
        .iter()
        .zip(columns)
        .map(|(d, c)| SortKey::of(d, c.options))
        .collect::<Result<Vec<_>, _>>()?;
    let limit = limit.unwrap_or(len);
    Ok(UInt32Array::from(sort_rows(&keys, all_rows(len)?, limit)))
}

/// The columns sorted together by [`lexsort_to_indices`].
///
/// # Errors
/// As [`lexsort_to_indices`].
pub fn lexsort(
    columns: &[SortColumn<'_>],
    limit: Option<usize>,
) -> Result<Vec<ArrayRef>, ComputeError> {
    let order = lexsort_to_indices(columns, limit)?;
    columns
        .iter()
        .map(|c| Ok(take(c.values, &order)?))
        .collect()
}

/// Each row's rank in the order of `options`, as SQL's `RANK()` gives it: one more than
/// the number of rows before it, so equal values share the lowest rank of their group and
/// the next rank skips ahead (1, 2, 2, 4). Null rows rank together.
///
/// arrow-rs's `rank` gives equal values the highest rank of their group (1, 3, 3, 4).
///
/// # Errors
/// As [`sort_to_indices`].
///
/// # Examples
/// ```
/// use alkaid_array::Float64Array;
/// use alkaid_compute::sort::{SortOptions, rank};
///
/// let scores = Float64Array::from(vec![Some(2.5), Some(9.0), None, Some(2.5)]);
/// let ranks = rank(&scores, SortOptions::DESCENDING)?;
/// assert_eq!(ranks.values()[..], [3, 2, 1, 3]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn rank(array: &dyn Array, options: SortOptions) -> Result<UInt32Array, ComputeError> {
    let data = array.to_data();
    let key = SortKey::of(&data, options)?;
    let order = sort_rows(
        std::slice::from_ref(&key),
        all_rows(data.len())?,
        data.len(),
    );
    let mut ranks = vec![0u32; data.len()];
    let mut group_rank = 1u32;
    for (position, &row) in order.iter().enumerate() {
        let row = row as usize;
        if position > 0 && key.compare(order[position - 1] as usize, row).is_ne() {
            // Fits: the row count was checked against u32 above.
            group_rank = position as u32 + 1;
        }
        ranks[row] = group_rank;
    }
    Ok(UInt32Array::from(ranks))
}

/// The data of each column, checked to be of one length.
fn column_data(columns: &[SortColumn<'_>]) -> Result<Vec<ArrayData>, ComputeError> {
    let data: Vec<ArrayData> = columns.iter().map(|c| c.values.to_data()).collect();
    if let Some(first) = data.first() {
        for d in &data[1..] {
            if d.len() != first.len() {
                return Err(ComputeError::LengthMismatch {
                    what: "sort column",
                    expected: first.len(),
                    found: d.len(),
                });
            }
        }
    }
    Ok(data)
}

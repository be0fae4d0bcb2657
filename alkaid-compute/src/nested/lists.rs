//! List shapes: length, one element, a slice, and all items flattened.

use alkaid_array::{Array, ArrayRef, Int32Array, Int64Array, UInt64Array, make_array};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use alkaid_select::take;

use super::Lists;
use crate::error::ComputeError;
use crate::list_items::{gather_items, offsets_buffer, running_ends};

/// The number of items of each list: `Int32`, or `Int64` for the large kinds.
///
/// # Errors
/// If the input is not a list.
///
/// ```
/// // [1, null], null, []
/// use std::sync::Arc;
/// use alkaid_array::{Int32Array, ListArray};
/// use alkaid_buffer::{NullBuffer, OffsetBuffer};
/// use alkaid_schema::{DataType, Field};
/// let items = Arc::new(Int32Array::from(vec![Some(1), None]));
/// let field = Arc::new(Field::new("item", DataType::Int32, true));
/// let nulls = NullBuffer::from(vec![true, false, true]);
/// let lists = ListArray::try_new(field, OffsetBuffer::from_lengths([2, 0, 0]), items, Some(nulls))?;
/// let lengths = alkaid_compute::list_length(&lists)?;
/// assert_eq!(alkaid_array::AsArray::as_primitive::<alkaid_array::types::Int32Type>(lengths.as_ref()), &Int32Array::from(vec![Some(2), None, Some(0)]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn list_length(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let lists = Lists::of("list_length", array)?;
    let lengths = (0..lists.len()).map(|row| lists.is_valid(row).then(|| lists.ranges[row].1));
    Ok(if lists.large {
        std::sync::Arc::new(Int64Array::from(
            lengths.map(|l| l.map(|l| l as i64)).collect::<Vec<_>>(),
        ))
    } else {
        let lengths: Vec<Option<i32>> = lengths
            .map(|l| l.map(|l| i32::try_from(l).unwrap_or(i32::MAX)))
            .collect();
        std::sync::Arc::new(Int32Array::from(lengths))
    })
}

/// The item at position `index` of each list, counted from 0, or from the end if
/// negative (−1 is the last); null where the list is null or too short (Arrow C++'s
/// `list_element` counts from 0 too, and refuses positions past the end).
///
/// # Errors
/// If the input is not a list.
///
/// ```
/// // [1, 2], []
/// use std::sync::Arc;
/// use alkaid_array::{Int32Array, ListArray};
/// use alkaid_buffer::{NullBuffer, OffsetBuffer};
/// use alkaid_schema::{DataType, Field};
/// let items = Arc::new(Int32Array::from(vec![1, 2]));
/// let field = Arc::new(Field::new("item", DataType::Int32, true));
/// let nulls = NullBuffer::from(vec![true, true]);
/// let lists = ListArray::try_new(field, OffsetBuffer::from_lengths([2, 0]), items, Some(nulls))?;
/// let last = alkaid_compute::list_element(&lists, -1)?;
/// assert_eq!(alkaid_array::AsArray::as_primitive::<alkaid_array::types::Int32Type>(last.as_ref()), &Int32Array::from(vec![Some(2), None]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn list_element(array: &dyn Array, index: i64) -> Result<ArrayRef, ComputeError> {
    let lists = Lists::of("list_element", array)?;
    let positions: Vec<Option<u64>> = (0..lists.len())
        .map(|row| {
            let (start, len) = lists.ranges[row];
            let at = if index >= 0 {
                usize::try_from(index).ok().filter(|&i| i < len)
            } else {
                usize::try_from(index.unsigned_abs())
                    .ok()
                    .and_then(|k| len.checked_sub(k))
            };
            at.filter(|_| lists.is_valid(row))
                .map(|i| (start + i) as u64)
        })
        .collect();
    Ok(take(
        make_array(lists.child).as_ref(),
        &UInt64Array::from(positions),
    )?)
}

/// The items of each list from position `start` up to `stop` (not included; the end if
/// `None`), both counted from 0 and cut to the list; a `List`, or `LargeList` for the large
/// kinds (a fixed-size list's slices differ in length).
///
/// # Errors
/// If the input is not a list, or `stop` is before `start`.
pub fn list_slice(
    array: &dyn Array,
    start: usize,
    stop: Option<usize>,
) -> Result<ArrayRef, ComputeError> {
    if stop.is_some_and(|stop| stop < start) {
        return Err(ComputeError::InvalidArgument(format!(
            "list_slice: stop {stop:?} is before start {start}"
        )));
    }
    let lists = Lists::of("list_slice", array)?;
    let cut: Vec<(usize, usize, bool)> = (0..lists.len())
        .map(|row| {
            let (first, len) = lists.ranges[row];
            let from = start.min(len);
            let to = stop.map_or(len, |s| s.min(len));
            let keep = lists.is_valid(row);
            (first + from, if keep { to - from } else { 0 }, true)
        })
        .collect();
    let items = gather_items(&lists.child, cut.iter().copied())?;
    let ends = running_ends(cut.iter().map(|&(_, len, _)| len));
    let output = match lists.large {
        true => DataType::LargeList(lists.item.clone()),
        false => DataType::List(lists.item.clone()),
    };
    let offsets = offsets_buffer(&ends, lists.large, &output)?;
    let data = ArrayData::builder(output)
        .len(lists.len())
        .nulls(lists.nulls.clone())
        .buffers(vec![offsets])
        .children(vec![items])
        .build()?;
    Ok(make_array(data))
}

/// Every item of every list that is not null, in order (the items' type).
///
/// # Errors
/// If the input is not a list.
pub fn list_flatten(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let lists = Lists::of("list_flatten", array)?;
    let rows = (0..lists.len()).map(|row| {
        let (start, len) = lists.ranges[row];
        (start, if lists.is_valid(row) { len } else { 0 }, true)
    });
    Ok(make_array(gather_items(&lists.child, rows)?))
}

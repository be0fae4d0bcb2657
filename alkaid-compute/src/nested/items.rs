//! Looking into each list's items: membership and aggregates.

use alkaid_array::{Array, ArrayRef, BooleanArray, Scalar, make_array};
use alkaid_buffer::builder::BooleanBufferBuilder;

use super::Lists;
use crate::aggregate::Aggregate;
use crate::error::ComputeError;
use crate::list_items::gather_items;
use crate::row_eq::row_eq;
use crate::validity::logical_nulls;

/// Whether each list holds `value` (SQL's `list_contains`, DuckDB's rules): null where the
/// list is null or `value` is; a null item never matches.
///
/// # Errors
/// If the input is not a list, or `value` does not compare with its items.
///
/// ```
/// // [1, null], [2], null
/// use std::sync::Arc;
/// use alkaid_array::{Int32Array, ListArray};
/// use alkaid_buffer::{NullBuffer, OffsetBuffer};
/// use alkaid_schema::{DataType, Field};
/// let items = Arc::new(Int32Array::from(vec![Some(1), None, Some(2)]));
/// let field = Arc::new(Field::new("item", DataType::Int32, true));
/// let nulls = NullBuffer::from(vec![true, true, false]);
/// let lists = ListArray::try_new(field, OffsetBuffer::from_lengths([2, 1, 0]), items, Some(nulls))?;
/// let found = alkaid_compute::list_contains(&lists, &alkaid_array::Scalar::from(2i32))?;
/// assert_eq!(found, alkaid_array::BooleanArray::from(vec![Some(false), Some(true), None]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn list_contains(array: &dyn Array, value: &Scalar) -> Result<BooleanArray, ComputeError> {
    let lists = Lists::of("list_contains", array)?;
    let needle = value.array().to_data();
    if needle.is_null(0) || logical_nulls(&needle)?.is_some() {
        return Ok(BooleanArray::from(vec![None::<bool>; lists.len()]));
    }
    let equal = row_eq(&lists.child, &needle).map_err(|_| {
        ComputeError::unsupported(
            "list_contains",
            format!(
                "cannot look for {} in lists of {}",
                needle.data_type(),
                lists.child.data_type()
            ),
        )
    })?;
    let item_nulls = logical_nulls(&lists.child)?;
    let mut found = BooleanBufferBuilder::new(lists.len());
    for &(start, len) in &lists.ranges {
        let hit = (start..start + len)
            .any(|i| item_nulls.as_ref().is_none_or(|n| n.is_valid(i)) && equal(i, 0));
        found.append(hit);
    }
    Ok(BooleanArray::try_new(found.finish(), lists.nulls.clone())?)
}

/// `aggregate` of each list's items, one row per list: null where the list is null, and
/// as the aggregate says of no rows where it is empty (null, or 0 for counts).
///
/// # Errors
/// If the input is not a list, the aggregate does not take the items' type, or there are
/// more than `u32::MAX` lists.
///
/// ```
/// // [1, 2], [], null
/// use std::sync::Arc;
/// use alkaid_array::{Int32Array, ListArray};
/// use alkaid_buffer::{NullBuffer, OffsetBuffer};
/// use alkaid_schema::{DataType, Field};
/// let items = Arc::new(Int32Array::from(vec![1, 2]));
/// let field = Arc::new(Field::new("item", DataType::Int32, true));
/// let nulls = NullBuffer::from(vec![true, true, false]);
/// let lists = ListArray::try_new(field, OffsetBuffer::from_lengths([2, 0, 0]), items, Some(nulls))?;
/// let sums = alkaid_compute::list_aggregate(&lists, alkaid_compute::Aggregate::Sum)?;
/// let sums = alkaid_array::AsArray::as_primitive::<alkaid_array::types::Int64Type>(sums.as_ref());
/// assert_eq!(sums.iter().collect::<Vec<_>>(), [Some(3), None, None]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn list_aggregate(array: &dyn Array, aggregate: Aggregate) -> Result<ArrayRef, ComputeError> {
    let lists = Lists::of("list_aggregate", array)?;
    if u32::try_from(lists.len()).is_err() {
        return Err(ComputeError::InvalidArgument(format!(
            "list_aggregate: {} lists are more groups than 32 bits number",
            lists.len()
        )));
    }
    let rows: Vec<(usize, usize, bool)> = (0..lists.len())
        .map(|row| {
            let (start, len) = lists.ranges[row];
            (start, if lists.is_valid(row) { len } else { 0 }, true)
        })
        .collect();
    let items = make_array(gather_items(&lists.child, rows.iter().copied())?);
    let groups: Vec<u32> = rows
        .iter()
        .enumerate()
        .flat_map(|(row, &(_, len, _))| std::iter::repeat_n(row as u32, len))
        .collect();
    let result = aggregate.evaluate_grouped(items.as_ref(), &groups, lists.len(), None)?;
    match &lists.nulls {
        None => Ok(result),
        Some(nulls) => {
            let null_rows = BooleanArray::try_new(!nulls.validity(), None)?;
            Ok(alkaid_select::nullif(result.as_ref(), &null_rows)?)
        }
    }
}

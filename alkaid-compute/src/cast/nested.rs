//! Lists and structs: a list of any kind (`List`, `LargeList`, their views,
//! `FixedSizeList`) as a list of any kind, its items cast; a struct as another struct
//! field by field, matched by name, each field cast.

use alkaid_array::{UInt64Array, make_array};
use alkaid_buffer::{NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::access::list_ranges;
use crate::error::ComputeError;

/// How a child is cast: the cast itself, handed down (this file is below the dispatcher).
pub(super) type CastChild<'a> =
    dyn Fn(&ArrayData, &DataType) -> Result<ArrayData, ComputeError> + 'a;

/// A list as a list of `to`'s kind and item type. Items are cast once each, in a window
/// of the source's child when the rows' items lie in order (any list but a view whose
/// rows overlap or jump), gathered otherwise. A row whose length differs from a
/// `FixedSizeList` target's size fails (strict) or becomes null (`safe`).
pub(super) fn lists(
    data: &ArrayData,
    to: &DataType,
    safe: bool,
    cast_data: &CastChild<'_>,
) -> Result<ArrayData, ComputeError> {
    let ranges = list_ranges(data)?;
    let child = &data.children()[0];
    let item_type = to.children()[0].data_type().clone();
    let mut nulls = data.nulls().cloned();
    let (items, buffers) = match to {
        DataType::List(_) | DataType::LargeList(_) => {
            let large = matches!(to, DataType::LargeList(_));
            let (items, ends) = match in_order(&ranges) {
                Some(first) => {
                    let used = ranges.iter().map(|r| r.1).sum();
                    let ends = running_ends(ranges.iter().map(|r| r.1));
                    (child.slice(first, used), ends)
                }
                None => {
                    // Null rows are left empty: their items need not lie anywhere.
                    let valid = |row: usize| nulls.as_ref().is_none_or(|n| n.is_valid(row));
                    let kept = |row: usize| if valid(row) { ranges[row] } else { (0, 0) };
                    let items = gather(child, (0..ranges.len()).map(kept), |_| true)?;
                    (items, running_ends((0..ranges.len()).map(|r| kept(r).1)))
                }
            };
            (items, vec![offsets(&ends, large, to)?])
        }
        DataType::ListView(_) | DataType::LargeListView(_) => {
            let large = matches!(to, DataType::LargeListView(_));
            // Only the items some row uses, starts counted from the first of them.
            let used = ranges.iter().filter(|r| r.1 > 0);
            let first = used.clone().map(|r| r.0).min().unwrap_or(0);
            let end = used.map(|r| r.0 + r.1).max().unwrap_or(0);
            let starts: Vec<usize> = ranges
                .iter()
                .map(|r| if r.1 > 0 { r.0 - first } else { 0 })
                .collect();
            let sizes: Vec<usize> = ranges.iter().map(|r| r.1).collect();
            let buffers = vec![offsets(&starts, large, to)?, offsets(&sizes, large, to)?];
            (child.slice(first, end - first), buffers)
        }
        DataType::FixedSizeList(_, size) => {
            let size = usize::try_from(*size).unwrap_or(0);
            let valid = |row: usize| nulls.as_ref().is_none_or(|n| n.is_valid(row));
            let mut fits = Vec::with_capacity(ranges.len());
            for (row, &(_, len)) in ranges.iter().enumerate() {
                let fit = len == size || !valid(row);
                if !fit && !safe {
                    return Err(ComputeError::Cast {
                        row,
                        message: format!("a list of {len} items is not a {to}"),
                    });
                }
                fits.push(fit);
            }
            let all_fit = fits.iter().all(|&f| f);
            let items = match in_order(&ranges) {
                Some(first) if all_fit && ranges.iter().all(|r| r.1 == size) => {
                    child.slice(first, size * ranges.len())
                }
                _ => {
                    let rows = (0..ranges.len()).map(|row| (ranges[row].0, size));
                    // A null or misfit row's slots are null items.
                    let keep = |row: usize| fits[row] && valid(row);
                    gather(child, rows, keep)?
                }
            };
            if !all_fit {
                let misfits = NullBuffer::from(fits);
                nulls = NullBuffer::union(nulls.as_ref(), Some(&misfits));
            }
            (items, vec![])
        }
        _ => {
            return Err(ComputeError::unsupported(
                "cast",
                format!("{} to {to}", data.data_type()),
            ));
        }
    };
    let items = cast_data(&items, &item_type)?;
    Ok(ArrayData::builder(to.clone())
        .len(data.len())
        .nulls(nulls)
        .buffers(buffers)
        .children(vec![items])
        .build()?)
}

/// The first item if the rows' items follow one another in row order (each row starts
/// where the one before it ends), the first row's start; `None` otherwise.
fn in_order(ranges: &[(usize, usize)]) -> Option<usize> {
    let first = ranges.first().map_or(0, |r| r.0);
    let mut next = first;
    for &(start, len) in ranges {
        if start != next {
            return None;
        }
        next = start + len;
    }
    Some(first)
}

/// 0, then each length added on.
fn running_ends(lengths: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut total = 0;
    std::iter::once(0)
        .chain(lengths.map(|l| {
            total += l;
            total
        }))
        .collect()
}

/// `values` as a buffer of `i64`s (`large`) or `i32`s, for `to`.
fn offsets(
    values: &[usize],
    large: bool,
    to: &DataType,
) -> Result<alkaid_buffer::Buffer, ComputeError> {
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

/// The items of each row's (start, length) of `child`, one row after another; a row
/// that `keep` refuses gives as many null items instead.
fn gather(
    child: &ArrayData,
    rows: impl Iterator<Item = (usize, usize)>,
    keep: impl Fn(usize) -> bool,
) -> Result<ArrayData, ComputeError> {
    let mut positions: Vec<Option<u64>> = Vec::new();
    for (row, (start, len)) in rows.enumerate() {
        if keep(row) {
            positions.extend((start..start + len).map(|i| Some(i as u64)));
        } else {
            positions.extend(std::iter::repeat_n(None, len));
        }
    }
    let indices = UInt64Array::from(positions);
    let items = alkaid_select::take(make_array(child.clone()).as_ref(), &indices)?;
    Ok(items.to_data())
}

/// A struct as another struct: each target field from the source field of its name.
pub(super) fn structs(
    data: &ArrayData,
    to: &DataType,
    cast_data: &CastChild<'_>,
) -> Result<ArrayData, ComputeError> {
    let (DataType::Struct(from_fields), DataType::Struct(to_fields)) = (data.data_type(), to)
    else {
        return Err(ComputeError::unsupported(
            "cast",
            format!("{} to {to}", data.data_type()),
        ));
    };
    let children = to_fields
        .iter()
        .map(|field| {
            let index = from_fields
                .iter()
                .position(|f| f.name() == field.name())
                .ok_or_else(|| {
                    ComputeError::unsupported(
                        "cast",
                        format!("{} has no field {:?}", data.data_type(), field.name()),
                    )
                })?;
            let child = data.children()[index].slice(data.offset(), data.len());
            cast_data(&child, field.data_type())
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ArrayData::builder(to.clone())
        .len(data.len())
        .nulls(data.nulls().cloned())
        .children(children)
        .build()?)
}

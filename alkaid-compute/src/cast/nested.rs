//! Lists and structs: a list of any kind (`List`, `LargeList`, their views,
//! `FixedSizeList`) as a list of any kind, its items cast; a struct as another struct
//! field by field, matched by name, each field cast.

use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::access::list_ranges;
use crate::error::ComputeError;
use crate::list_items::{gather_items, offsets_buffer, running_ends};

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
                    let rows = (0..ranges.len()).map(|r| {
                        let (start, len) = kept(r);
                        (start, len, true)
                    });
                    let items = gather_items(child, rows)?;
                    (items, running_ends((0..ranges.len()).map(|r| kept(r).1)))
                }
            };
            (items, vec![offsets_buffer(&ends, large, to)?])
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
            let buffers = vec![
                offsets_buffer(&starts, large, to)?,
                offsets_buffer(&sizes, large, to)?,
            ];
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
                    // A null or misfit row's slots are null items.
                    let rows =
                        (0..ranges.len()).map(|row| (ranges[row].0, size, fits[row] && valid(row)));
                    gather_items(child, rows)?
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

//! Lists and structs: a list of one kind or item type as another (`List`, `LargeList`,
//! and `FixedSizeList` as either), its items cast; a struct as another struct field by
//! field, matched by name, each field cast.

use alkaid_buffer::{OffsetBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::access::list_ranges;
use crate::error::ComputeError;

/// The window of the items `data` (a list of any kind but views) uses, and each row's
/// (start, length) within it.
fn item_window(data: &ArrayData) -> Result<(usize, Vec<(usize, usize)>), ComputeError> {
    let ranges = list_ranges(data)?;
    let first = ranges.first().map_or(0, |r| r.0);
    Ok((
        first,
        ranges.into_iter().map(|(s, l)| (s - first, l)).collect(),
    ))
}

/// How a child is cast: the cast itself, handed down (this file is below the dispatcher).
pub(super) type CastChild<'a> =
    dyn Fn(&ArrayData, &DataType) -> Result<ArrayData, ComputeError> + 'a;

/// A list as a `List` or `LargeList` of the target's item type.
pub(super) fn lists(
    data: &ArrayData,
    to: &DataType,
    cast_data: &CastChild<'_>,
) -> Result<ArrayData, ComputeError> {
    let (first, ranges) = item_window(data)?;
    let used: usize = ranges.last().map_or(0, |&(s, l)| s + l);
    let items = data.children()[0].slice(first, used);
    let item_type = to.children()[0].data_type().clone();
    let items = cast_data(&items, &item_type)?;
    let ends = ranges.iter().map(|&(s, l)| s + l);
    let offsets = match to {
        DataType::LargeList(_) => {
            let offsets: Vec<i64> = std::iter::once(0).chain(ends.map(|e| e as i64)).collect();
            ScalarBuffer::from(offsets).into_inner()
        }
        _ => {
            let offsets: Vec<i32> = std::iter::once(Ok(0))
                .chain(ends.map(i32::try_from))
                .collect::<Result<_, _>>()
                .map_err(|_| ComputeError::Overflow {
                    row: None,
                    message: format!("{} items do not fit {to}'s 32-bit offsets", used),
                })?;
            OffsetBuffer::try_new(ScalarBuffer::from(offsets))
                .map_err(|e| ComputeError::Data(e.into()))?
                .into_inner()
                .into_inner()
        }
    };
    Ok(ArrayData::builder(to.clone())
        .len(data.len())
        .nulls(data.nulls().cloned())
        .buffers(vec![offsets])
        .children(vec![items])
        .build()?)
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

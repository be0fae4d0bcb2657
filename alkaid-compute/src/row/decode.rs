//! Rows back into columns. A column is read from a set of slots, each a row and a cursor
//! into it: the rows' own values at the top, a list's items further down (found by
//! [`skip`]ping over each item's bytes). Every byte is checked: rows that were not made
//! by the same converter are an error, never a panic.

use alkaid_array::{Array, FixedSizeBinaryArray};
use alkaid_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use super::bytes;
use super::fixed::RowBytes;
use super::layout::{Rows, VALID, is_list, list_marks, marks_items, null_marker};
use crate::error::ComputeError;
use crate::list_items::{offsets_buffer, running_ends};
use crate::sort::SortOptions;
use crate::text::TextWriter;
use alkaid_array::with_native;

/// Where a value is: its row, and the cursor into that row's bytes.
pub(super) type Slot = (usize, usize);

fn malformed(row: usize) -> ComputeError {
    ComputeError::InvalidArgument(format!("row {row} is not in this converter's row format"))
}

/// The bytes of `row` from `at` to its end.
fn rest(rows: &Rows, row: usize, at: usize) -> Result<&[u8], ComputeError> {
    rows.data
        .get(at..rows.offsets[row + 1])
        .ok_or_else(|| malformed(row))
}

/// The marker at a slot: whether the value is valid. Advances the slot's cursor.
fn read_marker(rows: &Rows, slot: &mut Slot, options: SortOptions) -> Result<bool, ComputeError> {
    let marker = *rest(rows, slot.0, slot.1)?
        .first()
        .ok_or_else(|| malformed(slot.0))?;
    slot.1 += 1;
    match marker {
        VALID => Ok(true),
        m if m == null_marker(options) => Ok(false),
        _ => Err(malformed(slot.0)),
    }
}

/// The next `width` bytes at a slot, bytes inverted back if descending; advances it.
fn read_fixed(
    rows: &Rows,
    slot: &mut Slot,
    width: usize,
    flip: u8,
) -> Result<Vec<u8>, ComputeError> {
    let bytes = rest(rows, slot.0, slot.1)?
        .get(..width)
        .ok_or_else(|| malformed(slot.0))?;
    slot.1 += width;
    Ok(bytes.iter().map(|b| b ^ flip).collect())
}

/// The cursor just past the value of `data_type` at `slot`, without building it.
fn skip(
    data_type: &DataType,
    options: SortOptions,
    rows: &Rows,
    mut slot: Slot,
) -> Result<usize, ComputeError> {
    let valid = read_marker(rows, &mut slot, options)?;
    let row = slot.0;
    let width = match data_type.to_physical() {
        PhysicalType::Null if valid => return Err(malformed(row)),
        PhysicalType::Null => 0,
        PhysicalType::Boolean => 1,
        PhysicalType::Primitive(p) => with_native!(p, |T| <T as RowBytes>::WIDTH),
        PhysicalType::Struct => {
            for field in data_type.children() {
                slot.1 = skip(field.data_type(), options, rows, slot)?;
            }
            0
        }
        PhysicalType::FixedSizeList(size) => {
            let item = data_type.children()[0].data_type();
            for _ in 0..size {
                slot.1 = skip(item, options, rows, slot)?;
            }
            0
        }
        PhysicalType::List
        | PhysicalType::LargeList
        | PhysicalType::ListView
        | PhysicalType::LargeListView => {
            if valid {
                let item = data_type.children()[0].data_type();
                while let Some(at) = next_item(rows, &mut slot, options)? {
                    slot.1 = skip(item, options, rows, (row, at))?;
                }
            }
            0
        }
        _ if valid => bytes::skip(rest(rows, row, slot.1)?, options.descending)
            .ok_or_else(|| malformed(row))?,
        _ => 0,
    };
    let end = slot.1 + width;
    rest(rows, row, end)?;
    Ok(end)
}

/// At a list's item mark: the cursor of the item after it. At its end mark: `None`. Either
/// way the mark is passed.
fn next_item(
    rows: &Rows,
    slot: &mut Slot,
    options: SortOptions,
) -> Result<Option<usize>, ComputeError> {
    let (item_mark, end_mark) = list_marks(options);
    let mark = *rest(rows, slot.0, slot.1)?
        .first()
        .ok_or_else(|| malformed(slot.0))?;
    slot.1 += 1;
    match mark {
        m if m == item_mark => Ok(Some(slot.1)),
        m if m == end_mark => Ok(None),
        _ => Err(malformed(slot.0)),
    }
}

/// The validity of values read, as a buffer (none if all are valid).
fn nulls(valid: Vec<bool>) -> Option<NullBuffer> {
    Some(NullBuffer::from(valid)).filter(|n| n.null_count() > 0)
}

/// Reads a column of `data_type` (plain: no dictionary or runs anywhere in it) from
/// `slots`, advancing each slot past its value.
pub(super) fn read_column(
    data_type: &DataType,
    options: SortOptions,
    rows: &Rows,
    slots: &mut [Slot],
) -> Result<ArrayData, ComputeError> {
    let len = slots.len();
    let flip = if options.descending { 0xFF } else { 0 };
    let mut valid = Vec::with_capacity(len);
    for slot in slots.iter_mut() {
        valid.push(read_marker(rows, slot, options)?);
    }
    let builder = ArrayData::builder(data_type.clone()).len(len);
    let data = match data_type.to_physical() {
        PhysicalType::Null => {
            if let Some(at) = valid.iter().position(|&v| v) {
                return Err(malformed(slots[at].0));
            }
            return Ok(alkaid_array::NullArray::new(len).to_data());
        }
        PhysicalType::Boolean => {
            let mut bits = Vec::with_capacity(len);
            for slot in slots.iter_mut() {
                bits.push(read_fixed(rows, slot, 1, flip)?[0] == 1);
            }
            builder
                .nulls(nulls(valid))
                .buffers(vec![BooleanBuffer::from(bits).inner().clone()])
                .build()?
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let width = <T as RowBytes>::WIDTH;
            let mut values: Vec<T> = Vec::with_capacity(len);
            for (slot, &is_valid) in slots.iter_mut().zip(&valid) {
                // A null's bytes are there too, as zeros.
                let bytes = read_fixed(rows, slot, width, flip)?;
                values.push(if is_valid {
                    T::decode(&bytes)
                } else {
                    T::default()
                });
            }
            builder
                .nulls(nulls(valid))
                .buffers(vec![ScalarBuffer::from(values).into_inner()])
                .build()?
        }),
        PhysicalType::Struct => {
            let children = data_type
                .children()
                .iter()
                .map(|field| read_column(field.data_type(), options, rows, slots))
                .collect::<Result<Vec<_>, _>>()?;
            builder.nulls(nulls(valid)).children(children).build()?
        }
        physical if is_list(physical) => {
            return read_lists(data_type, options, rows, slots, valid);
        }
        physical => {
            let mut values: Vec<Option<Vec<u8>>> = Vec::with_capacity(len);
            for (slot, &is_valid) in slots.iter_mut().zip(&valid) {
                if !is_valid {
                    values.push(None);
                    continue;
                }
                let mut value = Vec::new();
                let taken =
                    bytes::decode(rest(rows, slot.0, slot.1)?, options.descending, &mut value)
                        .ok_or_else(|| malformed(slot.0))?;
                slot.1 += taken;
                values.push(Some(value));
            }
            if let PhysicalType::FixedSizeBinary(width) = physical {
                let width = usize::try_from(width).unwrap_or(0);
                if values.iter().flatten().any(|v| v.len() != width) {
                    return Err(ComputeError::InvalidArgument(format!(
                        "a {data_type} value of another width in the rows"
                    )));
                }
                return Ok(FixedSizeBinaryArray::try_from_iter(width, values)?.to_data());
            }
            let mut writer = TextWriter::like(data_type, len, 0);
            for (row, value) in values.iter().enumerate() {
                writer.push(row, value.as_deref())?;
            }
            return writer.finish(data_type.clone());
        }
    };
    Ok(data)
}

/// [`read_column`] for the list kinds, once the markers are read (`valid`).
fn read_lists(
    data_type: &DataType,
    options: SortOptions,
    rows: &Rows,
    slots: &mut [Slot],
    valid: Vec<bool>,
) -> Result<ArrayData, ComputeError> {
    let item_type = data_type.children()[0].data_type();
    let mut item_slots = Vec::new();
    let mut counts = Vec::with_capacity(slots.len());
    for (slot, &is_valid) in slots.iter_mut().zip(&valid) {
        let before = item_slots.len();
        if let DataType::FixedSizeList(_, size) = data_type {
            // Null rows too hold their size in (null) items.
            for _ in 0..*size {
                item_slots.push(*slot);
                slot.1 = skip(item_type, options, rows, *slot)?;
            }
        } else if is_valid {
            while let Some(at) = next_item(rows, slot, options)? {
                item_slots.push((slot.0, at));
                slot.1 = skip(item_type, options, rows, (slot.0, at))?;
            }
        }
        counts.push(item_slots.len() - before);
    }
    debug_assert!(marks_items(data_type.to_physical()) || counts.iter().all(|&c| c == counts[0]));
    let items = read_column(item_type, options, rows, &mut item_slots)?;
    let builder = ArrayData::builder(data_type.clone())
        .len(slots.len())
        .nulls(nulls(valid))
        .children(vec![items]);
    // Each row's items start where the last row's end.
    let ends = running_ends(counts.iter().copied());
    let large = matches!(
        data_type,
        DataType::LargeList(_) | DataType::LargeListView(_)
    );
    let buffers = match data_type {
        DataType::FixedSizeList(..) => vec![],
        DataType::ListView(_) | DataType::LargeListView(_) => vec![
            offsets_buffer(&ends[..counts.len()], large, data_type)?,
            offsets_buffer(&counts, large, data_type)?,
        ],
        _ => vec![offsets_buffer(&ends, large, data_type)?],
    };
    Ok(builder.buffers(buffers).build()?)
}

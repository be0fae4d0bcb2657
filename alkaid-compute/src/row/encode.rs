//! Columns into rows: each row's length first ([`add_lengths`]), then each column's values
//! written at each row's cursor ([`write_column`]). Both walk the same types the same way;
//! nested values recurse into their children (see the module docs of [`super`] for the
//! bytes).

use alkaid_buffer::{BooleanBuffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;

use super::bytes;
use super::fixed::RowBytes;
use super::layout::{VALID, is_list, list_marks, marks_items, no_encoding, null_marker};
use crate::access::{ByteAccess, BytesVisitor, list_ranges, native_values, visit_bytes};
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::list_items::gather_items;
use crate::sort::SortOptions;
use alkaid_array::with_native;

/// The nulls of `data` with the rows `mask` makes null (a parent's nulls, pushed down so
/// that a null struct's fields encode as nulls: two null rows are the same bytes).
fn nulls_of(data: &ArrayData, mask: Option<&NullBuffer>) -> Option<NullBuffer> {
    if data.data_type().to_physical() == PhysicalType::Null {
        return Some(NullBuffer::new_null(data.len()));
    }
    NullBuffer::union(data.nulls(), mask)
}

/// A struct's fields, each cut to the struct's window and decoded.
fn fields_of(data: &ArrayData) -> Result<Vec<ArrayData>, ComputeError> {
    data.children()
        .iter()
        .map(|child| decoded(&child.slice(data.offset(), data.len())))
        .collect()
}

/// A list's items, one row after another, and each row's count of them: a null row has
/// none, except in a fixed-size list, where it has its size in null items (so that every
/// row of one has the same shape).
fn items_of(
    data: &ArrayData,
    nulls: Option<&NullBuffer>,
) -> Result<(ArrayData, Vec<usize>), ComputeError> {
    let ranges = list_ranges(data)?;
    let fixed = !marks_items(data.data_type().to_physical());
    let rows = ranges.iter().enumerate().map(|(row, &(start, len))| {
        let valid = nulls.is_none_or(|n| n.is_valid(row));
        (start, if valid || fixed { len } else { 0 }, valid)
    });
    let rows: Vec<(usize, usize, bool)> = rows.collect();
    let counts = rows.iter().map(|r| r.1).collect();
    let items = gather_items(&data.children()[0], rows.into_iter())?;
    Ok((decoded(&items)?, counts))
}

/// [`items_of`], and each item's length in the rows.
fn measured_items(
    data: &ArrayData,
    nulls: Option<&NullBuffer>,
) -> Result<(ArrayData, Vec<usize>, Vec<usize>), ComputeError> {
    let (items, counts) = items_of(data, nulls)?;
    let mut lengths = vec![0; items.len()];
    add_lengths(&items, None, &mut lengths)?;
    Ok((items, counts, lengths))
}

/// The bytes every row of `data` takes, if that is one number (`Null`, booleans and
/// fixed-width values: a marker and the value).
pub(super) fn fixed_width(data: &ArrayData) -> Option<usize> {
    match data.data_type().to_physical() {
        PhysicalType::Null => Some(1),
        PhysicalType::Boolean => Some(2),
        PhysicalType::Primitive(p) => Some(with_native!(p, |T| 1 + <T as RowBytes>::WIDTH)),
        _ => None,
    }
}

/// Adds each row's bytes for one column (plain: no dictionary or runs at its top) to
/// `lengths`, with the rows of `mask` null.
pub(super) fn add_lengths(
    data: &ArrayData,
    mask: Option<&NullBuffer>,
    lengths: &mut [usize],
) -> Result<(), ComputeError> {
    let physical = data.data_type().to_physical();
    let nulls = nulls_of(data, mask);
    let valid = |row: usize| nulls.as_ref().is_none_or(|n| n.is_valid(row));
    if let Some(width) = fixed_width(data) {
        lengths.iter_mut().for_each(|l| *l += width);
        return Ok(());
    }
    match physical {
        PhysicalType::Struct => {
            lengths.iter_mut().for_each(|l| *l += 1);
            for field in fields_of(data)? {
                add_lengths(&field, nulls.as_ref(), lengths)?;
            }
        }
        physical if is_list(physical) => {
            let (_, counts, item_lengths) = measured_items(data, nulls.as_ref())?;
            let marks = usize::from(marks_items(physical));
            let mut next = 0;
            for (row, (length, count)) in lengths.iter_mut().zip(counts).enumerate() {
                let items: usize = item_lengths[next..next + count].iter().sum();
                next += count;
                *length += 1;
                if valid(row) || !marks_items(physical) {
                    *length += items + marks * (count + 1);
                }
            }
        }
        _ => {
            struct Lengths<'l, 'n>(&'l mut [usize], Option<&'n NullBuffer>);
            impl<'a> BytesVisitor<'a> for Lengths<'_, '_> {
                type Output = ();
                fn visit<B: ByteAccess<'a>>(self, values: B) {
                    let valid = |row: usize| self.1.is_none_or(|n| n.is_valid(row));
                    if zero_free(&values) {
                        // No escapes anywhere: a value's length is enough.
                        for (row, length) in self.0.iter_mut().enumerate() {
                            *length += if valid(row) {
                                values.value_len(row) + 3
                            } else {
                                1
                            };
                        }
                        return;
                    }
                    for (row, length) in self.0.iter_mut().enumerate() {
                        *length += 1;
                        if valid(row) {
                            *length += bytes::encoded_len(values.value(row));
                        }
                    }
                }
            }
            visit_bytes(data, Lengths(lengths, nulls.as_ref()))?
                .ok_or_else(|| no_encoding(data.data_type()))?;
        }
    }
    Ok(())
}

/// Whether no value of `values` holds a zero byte, known from one scan of the bytes of
/// layouts that keep them together (`false` for views: unknown).
fn zero_free<'a>(values: &impl ByteAccess<'a>) -> bool {
    values
        .all_values()
        .is_some_and(|all| memchr::memchr(0, all).is_none())
}

/// Writes one column's values (plain, as for [`add_lengths`]) at each row's cursor,
/// advancing it, with the rows of `mask` null.
pub(super) fn write_column(
    data: &ArrayData,
    options: SortOptions,
    mask: Option<&NullBuffer>,
    out: &mut [u8],
    cursors: &mut [usize],
) -> Result<(), ComputeError> {
    let null = null_marker(options);
    let flip = if options.descending { 0xFF } else { 0 };
    let physical = data.data_type().to_physical();
    let nulls = nulls_of(data, mask);
    let valid = |row: usize| nulls.as_ref().is_none_or(|n| n.is_valid(row));
    let marker = |row: usize| if valid(row) { VALID } else { null };
    match physical {
        PhysicalType::Null => {
            for cursor in cursors.iter_mut() {
                out[*cursor] = null;
                *cursor += 1;
            }
        }
        PhysicalType::Boolean => {
            let bits = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
            for (row, cursor) in cursors.iter_mut().enumerate() {
                let at = *cursor;
                out[at] = marker(row);
                out[at + 1] = if valid(row) {
                    u8::from(bits.value(row)) ^ flip
                } else {
                    0
                };
                *cursor += 2;
            }
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let values = native_values::<T>(data)?;
            let width = <T as RowBytes>::WIDTH;
            let rows = cursors.iter_mut().zip(values.iter()).enumerate();
            for (row, (cursor, &value)) in rows {
                let at = *cursor;
                let slot = &mut out[at..at + 1 + width];
                if valid(row) {
                    slot[0] = VALID;
                    value.encode(&mut slot[1..]);
                    if flip != 0 {
                        slot[1..].iter_mut().for_each(|b| *b = !*b);
                    }
                } else {
                    // A null's value bytes stay zero.
                    slot[0] = null;
                }
                *cursor = at + 1 + width;
            }
        }),
        PhysicalType::Struct => {
            for (row, cursor) in cursors.iter_mut().enumerate() {
                out[*cursor] = marker(row);
                *cursor += 1;
            }
            for field in fields_of(data)? {
                write_column(&field, options, nulls.as_ref(), out, cursors)?;
            }
        }
        physical if is_list(physical) => {
            let (items, counts, item_lengths) = measured_items(data, nulls.as_ref())?;
            let (item_mark, end_mark) = list_marks(options);
            let marks = marks_items(physical);
            // Each item's cursor, with its mark written before it.
            let mut item_cursors = Vec::with_capacity(items.len());
            let mut next = 0;
            for (row, (cursor, count)) in cursors.iter_mut().zip(&counts).enumerate() {
                out[*cursor] = marker(row);
                *cursor += 1;
                if !valid(row) && marks {
                    continue;
                }
                for length in &item_lengths[next..next + count] {
                    if marks {
                        out[*cursor] = item_mark;
                        *cursor += 1;
                    }
                    item_cursors.push(*cursor);
                    *cursor += length;
                }
                next += count;
                if marks {
                    out[*cursor] = end_mark;
                    *cursor += 1;
                }
            }
            write_column(&items, options, None, out, &mut item_cursors)?;
        }
        _ => {
            struct Write<'o, 'c, 'n> {
                out: &'o mut [u8],
                cursors: &'c mut [usize],
                nulls: Option<&'n NullBuffer>,
                null: u8,
                flip: u8,
            }
            impl<'a> BytesVisitor<'a> for Write<'_, '_, '_> {
                type Output = ();
                fn visit<B: ByteAccess<'a>>(self, values: B) {
                    let escape = !zero_free(&values);
                    for (row, cursor) in self.cursors.iter_mut().enumerate() {
                        let at = *cursor;
                        if self.nulls.is_some_and(|n| n.is_null(row)) {
                            self.out[at] = self.null;
                            *cursor += 1;
                            continue;
                        }
                        self.out[at] = VALID;
                        let value = values.value(row);
                        let taken = bytes::encode_into(value, escape, &mut self.out[at + 1..]);
                        if self.flip != 0 {
                            self.out[at + 1..at + 1 + taken]
                                .iter_mut()
                                .for_each(|b| *b = !*b);
                        }
                        *cursor += 1 + taken;
                    }
                }
            }
            let write = Write {
                out,
                cursors,
                nulls: nulls.as_ref(),
                null,
                flip,
            };
            visit_bytes(data, write)?.ok_or_else(|| no_encoding(data.data_type()))?;
        }
    }
    Ok(())
}

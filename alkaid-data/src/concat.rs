//! Concatenation of arrays of one type, for every layout: the generic "extend from slices"
//! copying that IPC dictionary deltas and selection kernels build on.
//!
//! Driven by [`layout`](crate::layout): each buffer kind is appended one way, so no type
//! has code of its own. Offsets are shifted by what came before, views and dense-union
//! offsets point past the earlier parts' data, run ends are shifted, and children are cut
//! to the range each part references. Dictionary arrays must share one dictionary (equal
//! values); merging different dictionaries is a selection kernel's job.

use std::collections::HashMap;

use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::native::ByteView;
use alkaid_buffer::{Buffer, MutableBuffer, NullBuffer, OffsetSize};
use alkaid_schema::{DataType, PhysicalType};

use crate::layout::{BufferSpec, ChildSpec, layout};
use crate::runs::{run_end_at, run_span};
use crate::{ArrayData, DataError, DataErrorKind, equal};

/// `arrays`, one after another, as one array of their common type.
///
/// # Errors
/// If the arrays are not all of one type, dictionary arrays do not share equal
/// dictionaries, or the result would overflow its offsets.
///
/// # Examples
/// ```
/// use alkaid_buffer::Buffer;
/// use alkaid_data::{ArrayData, concat};
/// use alkaid_schema::DataType;
/// let words = |offsets: &[i32], bytes: &'static [u8]| {
///     ArrayData::builder(DataType::Utf8)
///         .len(offsets.len() - 1)
///         .buffers(vec![Buffer::from_slice_ref(offsets), Buffer::from(bytes)])
///         .build()
/// };
/// let first = words(&[0, 3, 6], b"ant bee")?;
/// let second = words(&[0, 3], b"cat")?.slice(0, 1);
/// let all = concat(&[&first.slice(1, 1), &second])?;
/// assert_eq!(all.buffers()[0].typed::<i32>()?, &[0, 3, 6]);
/// assert_eq!(all.buffers()[1].as_slice(), b" becat");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn concat(arrays: &[&ArrayData]) -> Result<ArrayData, DataError> {
    concat_with(arrays, &mut |children| concat(children))
}

/// Like [`concat()`](fn@concat), with `join_children` joining the parts of each child (and of
/// the values of run-end encoded arrays) in its place: a selection kernel passes its own
/// concatenation, which merges dictionaries, so that dictionaries nested below the top
/// merge too.
///
/// # Errors
/// As [`concat()`](fn@concat), and whatever `join_children` returns.
pub fn concat_with<E: From<DataError>>(
    arrays: &[&ArrayData],
    join_children: &mut dyn FnMut(&[&ArrayData]) -> Result<ArrayData, E>,
) -> Result<ArrayData, E> {
    let Some(first) = arrays.first() else {
        return Err(DataError::new(
            DataErrorKind::InvalidType,
            "expected at least one array to concatenate, found none",
        )
        .into());
    };
    let data_type = first.data_type();
    if let Some(other) = arrays.iter().find(|a| a.data_type() != data_type) {
        return Err(DataError::new(
            DataErrorKind::InvalidType,
            format!(
                "expected arrays of type {data_type}, found one of type {}",
                other.data_type()
            ),
        )
        .into());
    }
    let len: usize = arrays.iter().map(|a| a.len()).sum();
    let spec = layout(data_type);
    let mut builder = ArrayData::builder(data_type.clone()).len(len);
    if spec.has_validity && arrays.iter().any(|a| a.null_count() > 0) {
        let mut bits = BooleanBufferBuilder::new(len);
        for array in arrays {
            match array.nulls() {
                Some(nulls) => {
                    let v = nulls.validity();
                    bits.append_packed_range(v.inner(), v.offset(), v.len());
                }
                None => bits.append_n(array.len(), true),
            }
        }
        builder = builder.nulls(Some(NullBuffer::new(bits.finish())));
    }
    // The child range each part references, filled in by its offsets (or whole children).
    let mut child_ranges: Vec<(usize, usize)> = arrays.iter().map(|a| (0, a.len())).collect();
    let mut buffers = Vec::with_capacity(spec.buffers.len());
    for (i, buffer_spec) in spec.buffers.iter().enumerate() {
        let buffer = match *buffer_spec {
            BufferSpec::Fixed { width, .. } => fixed(arrays, i, width),
            BufferSpec::TypeIds => fixed(arrays, i, 1),
            BufferSpec::Bitmap => {
                let mut bits = BooleanBufferBuilder::new(len);
                for array in arrays {
                    bits.append_packed_range(&array.buffers()[i], array.offset(), array.len());
                }
                bits.finish().inner().clone()
            }
            BufferSpec::Offsets { width: 4 } => offsets::<i32>(arrays, i, &mut child_ranges)?,
            BufferSpec::Offsets { .. } => offsets::<i64>(arrays, i, &mut child_ranges)?,
            BufferSpec::Data => {
                let total = child_ranges.iter().map(|(start, end)| end - start).sum();
                let mut out = MutableBuffer::with_capacity(total);
                for (array, &(start, end)) in arrays.iter().zip(&child_ranges) {
                    out.extend_from_slice(&array.buffers()[i][start..end]);
                }
                out.into_buffer()
            }
            BufferSpec::ViewOffsets { width: 4 } => view_offsets::<i32>(arrays, i)?,
            BufferSpec::ViewOffsets { .. } => view_offsets::<i64>(arrays, i)?,
            BufferSpec::Sizes { width } => fixed(arrays, i, width),
            BufferSpec::UnionOffsets => union_offsets(arrays, i)?,
            BufferSpec::Views => {
                let (views, data) = views(arrays)?;
                buffers.push(views);
                buffers.extend(data);
                continue;
            }
        };
        buffers.push(buffer);
    }
    builder = builder.buffers(buffers);
    let children = match spec.children {
        ChildSpec::None => Vec::new(),
        ChildSpec::RunEndsAndValues => run_end_encoded(arrays, join_children)?,
        ChildSpec::One | ChildSpec::PerField => {
            let count = first.children().len();
            let physical = data_type.to_physical();
            (0..count)
                .map(|c| {
                    let parts = arrays
                        .iter()
                        .zip(&child_ranges)
                        .map(|(a, &range)| child_part(a, c, physical, range))
                        .collect::<Result<Vec<_>, _>>()?;
                    join_children(&parts.iter().collect::<Vec<_>>())
                })
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    builder = builder.children(children);
    if spec.dictionary {
        let dictionary = first.shared_dictionary().ok_or_else(|| {
            DataError::new(
                DataErrorKind::Dictionary,
                "a dictionary array has no dictionary",
            )
        })?;
        for array in &arrays[1..] {
            let other = array.shared_dictionary().ok_or_else(|| {
                DataError::new(
                    DataErrorKind::Dictionary,
                    "a dictionary array has no dictionary",
                )
            })?;
            // One shared dictionary (a stream's batches) needs no comparison.
            if !std::sync::Arc::ptr_eq(dictionary, other) && !equal(dictionary, other) {
                return Err(DataError::new(
                    DataErrorKind::Dictionary,
                    "expected dictionary arrays sharing one dictionary, found different dictionaries (merge them first)",
                ).into());
            }
        }
        builder = builder.dictionary(dictionary.clone());
    }
    // SAFETY: every input is fully valid (every `ArrayData` made without `unsafe` is), and
    // joining valid arrays keeps them valid: values and bitmaps are copied whole, offsets,
    // view offsets, union offsets and run ends are shifted by what came before (each shift
    // checked against its type above), views point into the data buffers appended after
    // the earlier parts', children are cut to what each part references, and dictionary
    // arrays share one equal dictionary. The structural checks still run; the full ones
    // would re-read every value (UTF-8 above all).
    Ok(unsafe { builder.build_structural() }?)
}

/// The part of child `c` of `array` that its slots reference.
fn child_part(
    array: &ArrayData,
    c: usize,
    physical: PhysicalType,
    (start, end): (usize, usize),
) -> Result<ArrayData, DataError> {
    let child = &array.children()[c];
    let (offset, len) = (array.offset(), array.len());
    match physical {
        // Offsets said where the part's values are.
        PhysicalType::List | PhysicalType::LargeList => child.try_slice(start, end - start),
        PhysicalType::FixedSizeList(size) => {
            let size = usize::try_from(size).unwrap_or(0);
            child.try_slice(offset * size, len * size)
        }
        PhysicalType::Struct | PhysicalType::SparseUnion => child.try_slice(offset, len),
        // List views and dense unions point anywhere in their children: take them whole,
        // and shift the part's offsets past the children before it.
        _ => Ok(child.clone()),
    }
}

/// Slots `offset..offset + len` of buffer `i` of each array, `width` bytes a slot.
fn fixed(arrays: &[&ArrayData], i: usize, width: usize) -> Buffer {
    let len: usize = arrays.iter().map(|a| a.len()).sum();
    let mut out = MutableBuffer::with_capacity(len * width);
    for array in arrays {
        out.extend_from_slice(
            &array.buffers()[i][array.offset() * width..(array.offset() + array.len()) * width],
        );
    }
    out.into_buffer()
}

fn overflow(what: &str) -> DataError {
    DataError::new(
        DataErrorKind::Offsets,
        format!("the concatenated {what} do not fit the offset type"),
    )
}

/// Offsets shifted by the values before each part; records each part's value range.
fn offsets<O: OffsetSize>(
    arrays: &[&ArrayData],
    i: usize,
    ranges: &mut [(usize, usize)],
) -> Result<Buffer, DataError> {
    let len: usize = arrays.iter().map(|a| a.len()).sum();
    let mut out = MutableBuffer::with_capacity((len + 1) * size_of::<O>());
    out.push(O::ZERO);
    let mut base = 0usize;
    for (array, range) in arrays.iter().zip(ranges.iter_mut()) {
        let all: &[O] = array.buffers()[i].typed()?;
        let window = &all[array.offset()..=array.offset() + array.len()];
        let (start, end) = (window[0].as_usize(), window[array.len()].as_usize());
        // Offsets rise, so if the last shifted one fits the offset type, all of them do:
        // one check, then a loop without branches.
        O::from_usize(end - start + base).ok_or_else(|| overflow("offsets"))?;
        out.extend_counted(
            array.len(),
            window[1..]
                .iter()
                .map(|o| O::usize_as(o.as_usize() - start + base)),
        );
        *range = (start, end);
        base += end - start;
    }
    Ok(out.into_buffer())
}

/// List-view offsets shifted past the whole children of the parts before.
fn view_offsets<O: OffsetSize>(arrays: &[&ArrayData], i: usize) -> Result<Buffer, DataError> {
    let len: usize = arrays.iter().map(|a| a.len()).sum();
    let mut out = MutableBuffer::with_capacity(len * size_of::<O>());
    let mut base = 0usize;
    for array in arrays {
        let all: &[O] = array.buffers()[i].typed()?;
        for o in &all[array.offset()..array.offset() + array.len()] {
            out.push(
                O::from_usize(o.as_usize() + base).ok_or_else(|| overflow("list view offsets"))?,
            );
        }
        base += array.children()[0].len();
    }
    Ok(out.into_buffer())
}

/// Dense-union offsets shifted past the whole children of the parts before, child by child.
fn union_offsets(arrays: &[&ArrayData], i: usize) -> Result<Buffer, DataError> {
    let DataType::Union(union) = arrays[0].data_type() else {
        return Err(DataError::new(
            DataErrorKind::InvalidType,
            "union offsets outside a union",
        ));
    };
    let len: usize = arrays.iter().map(|a| a.len()).sum();
    let mut out = MutableBuffer::with_capacity(len * 4);
    let mut base = vec![0i64; union.fields().len()];
    for array in arrays {
        let ids: &[i8] = array.buffers()[0].typed()?;
        let offsets: &[i32] = array.buffers()[i].typed()?;
        let range = array.offset()..array.offset() + array.len();
        for (&id, &o) in ids[range.clone()].iter().zip(&offsets[range]) {
            let child = union.child_index(id).ok_or_else(|| {
                DataError::new(
                    DataErrorKind::UnionTypeId,
                    format!("type id {id} is not one of the union's"),
                )
            })?;
            let shifted =
                i32::try_from(i64::from(o) + base[child]).map_err(|_| overflow("union offsets"))?;
            out.push(shifted);
        }
        for (b, child) in base.iter_mut().zip(array.children()) {
            *b += child.len() as i64;
        }
    }
    Ok(out.into_buffer())
}

/// Views pointing into the data buffers of every part. A data buffer that several parts
/// hold (slices of one array, say) is kept once; the others' indices are renumbered.
fn views(arrays: &[&ArrayData]) -> Result<(Buffer, Vec<Buffer>), DataError> {
    let len: usize = arrays.iter().map(|a| a.len()).sum();
    let mut out = MutableBuffer::with_capacity(len * 16);
    let mut data: Vec<Buffer> = Vec::new();
    // Each buffer's place in `data`, by the memory it covers.
    let mut places: HashMap<(usize, usize), i32> = HashMap::new();
    for array in arrays {
        // Where each of this part's data buffers sits in the result.
        let mut renumbered = Vec::with_capacity(array.buffers().len() - 1);
        for buffer in &array.buffers()[1..] {
            let key = (buffer.as_ptr() as usize, buffer.len());
            let index = match places.get(&key) {
                Some(&index) => index,
                None => {
                    let index =
                        i32::try_from(data.len()).map_err(|_| overflow("view buffer indices"))?;
                    data.push(buffer.clone());
                    places.insert(key, index);
                    index
                }
            };
            renumbered.push(index);
        }
        let all: &[ByteView] = array.buffers()[0].typed()?;
        let window = &all[array.offset()..array.offset() + array.len()];
        if renumbered
            .iter()
            .enumerate()
            .all(|(b, &index)| index as usize == b)
        {
            // The part's buffers keep their places (the first part, or parts sharing
            // buffers): its views are copied as they are.
            out.extend_from_slice(alkaid_buffer::native::as_bytes(window));
            continue;
        }
        for view in window {
            out.push(if view.is_inline() {
                *view
            } else {
                // A valid view names one of its array's buffers.
                view.with_location(renumbered[view.buffer_index() as usize], view.offset())
            });
        }
    }
    Ok((out.into_buffer(), data))
}

/// The runs covering each part's slots, run ends shifted past earlier parts, and their values.
fn run_end_encoded<E: From<DataError>>(
    arrays: &[&ArrayData],
    join_children: &mut dyn FnMut(&[&ArrayData]) -> Result<ArrayData, E>,
) -> Result<Vec<ArrayData>, E> {
    let mut ends = MutableBuffer::new();
    let mut runs = 0usize;
    let mut values = Vec::with_capacity(arrays.len());
    let mut base = 0i64;
    let width = arrays[0].children()[0]
        .data_type()
        .primitive_byte_width()
        .unwrap_or(8);
    for array in arrays {
        let run_ends = &array.children()[0];
        let (offset, len) = (array.offset(), array.len());
        let span = run_span(run_ends, offset, len)?;
        for k in span.clone() {
            let end =
                run_end_at(run_ends, width, k).min((offset + len) as i64) - offset as i64 + base;
            if width < 8 && end >= 1i64 << (8 * width - 1) {
                return Err(overflow("run ends").into());
            }
            ends.extend_from_slice(&end.to_le_bytes()[..width]);
        }
        if !span.is_empty() {
            values.push(array.children()[1].try_slice(span.start, span.len())?);
            runs += span.len();
        }
        base += len as i64;
    }
    let run_ends_type = arrays[0].children()[0].data_type().clone();
    let run_ends = ArrayData::builder(run_ends_type)
        .len(runs)
        .buffers(vec![ends.into_buffer()])
        .build()?;
    let values = if values.is_empty() {
        arrays[0].children()[1].try_slice(0, 0)?
    } else {
        join_children(&values.iter().collect::<Vec<_>>())?
    };
    Ok(vec![run_ends, values])
}

//! Take: the slots at given indices, in their order, repeats allowed.
//!
//! Indices are any integer array; a null index gives a null slot, and an index outside the
//! array is an error naming it (the unchecked variant trusts the caller instead).
//! Fixed-width values, booleans, dictionary keys, binary and string values and views are
//! gathered directly (views keep sharing their data buffers); lists take their children
//! at the positions they cover and structs take each child; every other layout joins one-slot slices with alkaid-data's
//! `concat`, correct for every type and the part to speed up next.

use alkaid_array::{Array, ArrayRef, make_array, make_builder};
use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::{MutableBuffer, NullBuffer, OffsetSize};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};
use alkaid_schema::{DataType, PhysicalType};

use crate::error::SelectError;
use crate::gather::{self, Positions, Present};

/// The slots of `array` at `indices` (any integer type; a null index gives a null slot).
///
/// # Errors
/// If `indices` is not an integer array, or an index is negative or not below the length.
///
/// ```
/// use alkaid_array::{Array, AsArray, Int64Array, StringArray};
/// use alkaid_select::take;
/// let words = StringArray::from(vec!["a", "b", "c"]);
/// let picked = take(&words, &Int64Array::from(vec![Some(2), None, Some(0), Some(2)]))?;
/// let picked = picked.as_string::<i32>();
/// assert_eq!((picked.value(0), picked.is_null(1), picked.value(3)), ("c", true, "c"));
/// assert!(take(&words, &Int64Array::from(vec![3])).is_err());
/// # Ok::<(), alkaid_select::SelectError>(())
/// ```
pub fn take(array: &dyn Array, indices: &dyn Array) -> Result<ArrayRef, SelectError> {
    let data = array.to_data();
    let indices = indices.to_data();
    let taken = match indices.data_type() {
        DataType::Int8 => take_typed::<i8>(&data, &indices)?,
        DataType::Int16 => take_typed::<i16>(&data, &indices)?,
        DataType::Int32 => take_typed::<i32>(&data, &indices)?,
        DataType::Int64 => take_typed::<i64>(&data, &indices)?,
        DataType::UInt8 => take_typed::<u8>(&data, &indices)?,
        DataType::UInt16 => take_typed::<u16>(&data, &indices)?,
        DataType::UInt32 => take_typed::<u32>(&data, &indices)?,
        DataType::UInt64 => take_typed::<u64>(&data, &indices)?,
        other => {
            return Err(SelectError::Mismatch(format!(
                "expected integer indices, found {other}"
            )));
        }
    };
    Ok(make_array(taken))
}

/// Takes with indices read in place from their buffer, after checking every valid one.
fn take_typed<T>(data: &ArrayData, indices: &ArrayData) -> Result<ArrayData, SelectError>
where
    T: gather::Index + alkaid_buffer::NativeType + std::fmt::Display,
{
    let all: &[T] = indices.buffers()[0]
        .typed()
        .map_err(|e| SelectError::Data(e.into()))?;
    let values = &all[indices.offset()..indices.offset() + indices.len()];
    let len = data.len();
    let in_range = |v: T| v.position().is_some_and(|p| p < len);
    // One pass without an early exit vectorises; the culprit is searched only on failure.
    let all_in_range = match indices.nulls() {
        None => values.iter().fold(true, |ok, &v| ok & in_range(v)),
        Some(nulls) => nulls.valid_indices().all(|k| in_range(values[k])),
    };
    if !all_in_range {
        let k = (0..values.len())
            .find(|&k| indices.is_valid(k) && !in_range(values[k]))
            .unwrap_or(0);
        return Err(SelectError::Mismatch(format!(
            "index {} at position {k} is out of range for an array of length {len}",
            values[k]
        )));
    }
    take_data(
        data,
        &gather::Typed {
            values,
            nulls: indices.nulls(),
        },
    )
}

/// The slots of `data` at `indices`, which must be below `data.len()`.
///
/// # Errors
/// If an index is out of range, or a null index meets a type whose nulls live in its
/// children (unions, run-end encoded) or a nested dictionary.
pub(crate) fn take_data<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    if let Some(bad) = (0..indices.len())
        .filter_map(|k| indices.get(k))
        .find(|&i| i >= data.len())
    {
        return Err(SelectError::Mismatch(format!(
            "index {bad} is out of range for an array of length {}",
            data.len()
        )));
    }
    let spec = layout(data.data_type());
    let byte_array = matches!(
        spec.buffers[..],
        [BufferSpec::Offsets { .. }, BufferSpec::Data]
    );
    let direct = spec.children == ChildSpec::None
        && (byte_array
            || spec.buffers.iter().all(|b| {
                matches!(
                    b,
                    BufferSpec::Fixed { .. } | BufferSpec::Bitmap | BufferSpec::Views
                )
            }));
    if !direct {
        return match data.data_type().to_physical() {
            PhysicalType::List => take_list::<i32, P>(data, indices),
            PhysicalType::LargeList => take_list::<i64, P>(data, indices),
            PhysicalType::Struct => take_struct(data, indices),
            _ => by_slices(data, indices),
        };
    }
    let len = indices.len();
    let mut builder = ArrayData::builder(data.data_type().clone()).len(len);
    if spec.has_validity {
        builder = builder.nulls(taken_nulls(data, indices));
    }
    let mut buffers = Vec::with_capacity(data.buffers().len());
    if byte_array {
        let (offsets, values) = (&data.buffers()[0], &data.buffers()[1]);
        let gathered = match spec.buffers[0] {
            BufferSpec::Offsets { width: 4 } => {
                gather::bytes::<i32, P>(offsets, values, data.offset(), indices)
            }
            _ => gather::bytes::<i64, P>(offsets, values, data.offset(), indices),
        };
        let (offsets, values) = gathered.ok_or_else(|| {
            SelectError::Overflow(format!(
                "the taken values of {} overflow its offsets",
                data.data_type()
            ))
        })?;
        buffers.extend([offsets, values]);
    } else {
        for (b, buffer_spec) in spec.buffers.iter().enumerate() {
            let buffer = &data.buffers()[b];
            buffers.push(match *buffer_spec {
                BufferSpec::Fixed { width, .. } => {
                    gather::fixed(buffer, data.offset(), width, indices)
                }
                BufferSpec::Views => gather::fixed(buffer, data.offset(), 16, indices),
                _ => gather::bits(buffer, data.offset(), indices),
            });
        }
    }
    if spec.variadic {
        buffers.extend(data.buffers()[1..].iter().cloned());
    }
    builder = builder.buffers(buffers);
    if let Some(dictionary) = data.dictionary() {
        builder = builder.dictionary(dictionary.clone());
    }
    Ok(builder.build()?)
}

/// The validity of the taken slots: null where the index is null or the slot was; `None`
/// when nothing is null.
fn taken_nulls<P: Positions + ?Sized>(data: &ArrayData, indices: &P) -> Option<NullBuffer> {
    let len = indices.len();
    let any_null = data.null_count() > 0 || (0..len).any(|k| indices.get(k).is_none());
    any_null.then(|| {
        let mut validity = BooleanBufferBuilder::new(len);
        for k in 0..len {
            validity.append(indices.get(k).is_some_and(|i| data.is_valid(i)));
        }
        NullBuffer::new(validity.finish())
    })
}

/// Lists (and maps): offsets from the taken lengths, and the child taken at every position
/// the taken lists cover, recursively.
fn take_list<O: OffsetSize, P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let all: &[O] = data.buffers()[0]
        .typed()
        .map_err(|e| SelectError::Data(e.into()))?;
    let offsets = &all[data.offset()..];
    let len = indices.len();
    let mut new_offsets = MutableBuffer::with_capacity((len + 1) * size_of::<O>());
    let mut child_positions: Vec<usize> = Vec::new();
    new_offsets.push(O::ZERO);
    for k in 0..len {
        let position = indices.get(k);
        if let Some(i) = position {
            child_positions.extend(offsets[i].as_usize()..offsets[i + 1].as_usize());
        }
        let end = O::from_usize(child_positions.len()).ok_or_else(|| {
            SelectError::Overflow(format!(
                "the taken lists of {} overflow its offsets",
                data.data_type()
            ))
        })?;
        new_offsets.push(end);
    }
    let child = take_data(&data.children()[0], &Present(&child_positions))?;
    Ok(ArrayData::builder(data.data_type().clone())
        .len(len)
        .nulls(taken_nulls(data, indices))
        .buffers(vec![new_offsets.into_buffer()])
        .children(vec![child])
        .build()?)
}

/// Structs: every child taken at the same positions.
fn take_struct<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let len = indices.len();
    let children = data
        .children()
        .iter()
        .map(|child| take_data(&child.slice(data.offset(), data.len()), indices))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ArrayData::builder(data.data_type().clone())
        .len(len)
        .nulls(taken_nulls(data, indices))
        .children(children)
        .build()?)
}

/// Every other layout: one-slot slices (and one-slot null arrays for null indices), joined.
fn by_slices<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    if indices.len() == 0 {
        return Ok(data.slice(0, 0));
    }
    let mut null = None;
    let mut parts = Vec::with_capacity(indices.len());
    for k in 0..indices.len() {
        parts.push(match indices.get(k) {
            Some(i) => data.slice(i, 1),
            None => match &null {
                Some(null) => ArrayData::clone(null),
                None => null.insert(null_slot(data.data_type())?).clone(),
            },
        });
    }
    Ok(alkaid_data::concat(&parts.iter().collect::<Vec<_>>())?)
}

/// One null slot of `data_type`.
fn null_slot(data_type: &DataType) -> Result<ArrayData, SelectError> {
    let mut builder = make_builder(data_type, 1)?;
    builder.append_null();
    Ok(builder.try_finish()?.to_data())
}

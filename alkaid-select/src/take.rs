//! Take: the slots at given indices, in their order, repeats allowed.
//!
//! Indices are any integer array; a null index gives a null slot, and an index outside the
//! array is an error naming it (the unchecked variant trusts the caller instead).
//! Fixed-width values, booleans, dictionary keys, binary and string values and views are
//! gathered directly (views keep sharing their data buffers); every other layout joins one-slot slices with
//! alkaid-data's `concat`, correct for every type and the part to speed up next.

use alkaid_array::{Array, ArrayRef, make_array, make_builder};
use alkaid_buffer::NullBuffer;
use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};
use alkaid_schema::DataType;

use crate::error::SelectError;
use crate::gather;

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
    let indices = read_indices(&indices.to_data(), array.len())?;
    Ok(make_array(take_data(&array.to_data(), &indices)?))
}

/// The indices as positions, each checked against `len`.
fn read_indices(indices: &ArrayData, len: usize) -> Result<Vec<Option<usize>>, SelectError> {
    let data_type = indices.data_type();
    if !data_type.is_integer() {
        return Err(SelectError::Mismatch(format!(
            "expected integer indices, found {data_type}"
        )));
    }
    let width = data_type.primitive_byte_width().unwrap_or(8);
    let signed = data_type.is_signed_integer();
    let raw = &indices.buffers()[0];
    (0..indices.len())
        .map(|i| {
            if indices.is_null(i) {
                return Ok(None);
            }
            let at = (indices.offset() + i) * width;
            let mut bytes = [0u8; 8];
            bytes[..width].copy_from_slice(&raw[at..at + width]);
            let shift = 64 - 8 * width as u32;
            let value = if signed {
                i128::from((i64::from_le_bytes(bytes) << shift) >> shift)
            } else {
                i128::from(u64::from_le_bytes(bytes))
            };
            usize::try_from(value)
                .ok()
                .filter(|&v| v < len)
                .map(Some)
                .ok_or_else(|| {
                    SelectError::Mismatch(format!(
                        "index {value} at position {i} is out of range for an array of length {len}"
                    ))
                })
        })
        .collect()
}

/// The slots of `data` at `indices`, which must be below `data.len()`.
///
/// # Errors
/// If an index is out of range, or a null index meets a type whose nulls live in its
/// children (unions, run-end encoded) or a nested dictionary.
pub fn take_data(data: &ArrayData, indices: &[Option<usize>]) -> Result<ArrayData, SelectError> {
    if let Some(bad) = indices.iter().flatten().find(|&&i| i >= data.len()) {
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
        return by_slices(data, indices);
    }
    let len = indices.len();
    let mut builder = ArrayData::builder(data.data_type().clone()).len(len);
    let any_null = indices.iter().any(Option::is_none) || data.null_count() > 0;
    if spec.has_validity && any_null {
        let mut bits = BooleanBufferBuilder::new(len);
        for index in indices {
            bits.append(index.is_some_and(|i| data.is_valid(i)));
        }
        builder = builder.nulls(Some(NullBuffer::new(bits.finish())));
    }
    let mut buffers = Vec::with_capacity(data.buffers().len());
    if byte_array {
        let (offsets, values) = (&data.buffers()[0], &data.buffers()[1]);
        let gathered = match spec.buffers[0] {
            BufferSpec::Offsets { width: 4 } => {
                gather::bytes::<i32>(offsets, values, data.offset(), indices)
            }
            _ => gather::bytes::<i64>(offsets, values, data.offset(), indices),
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

/// Every other layout: one-slot slices (and one-slot null arrays for null indices), joined.
fn by_slices(data: &ArrayData, indices: &[Option<usize>]) -> Result<ArrayData, SelectError> {
    if indices.is_empty() {
        return Ok(data.slice(0, 0));
    }
    let mut null = None;
    let mut parts = Vec::with_capacity(indices.len());
    for index in indices {
        parts.push(match index {
            Some(i) => data.slice(*i, 1),
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

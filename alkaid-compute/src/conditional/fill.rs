//! `fill_null_forward` and `fill_null_backward`: nulls filled from their neighbours.

use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, UInt32Array, UInt64Array, make_array};
use alkaid_buffer::{Buffer, NativeType, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;
use alkaid_select::take;

use crate::access::native_values;
use crate::error::ComputeError;
use crate::validity::logical_nulls;

/// `array` with each null replaced by the nearest value before it that is not null
/// (leading nulls stay null; Arrow C++'s `fill_null_forward`, pandas' `ffill`).
///
/// # Errors
/// If `array` is not valid.
///
/// ```
/// use alkaid_array::{AsArray, Float64Array};
/// use alkaid_array::types::Float64Type;
/// use alkaid_compute::fill_null_forward;
/// let readings = Float64Array::from(vec![None, Some(1.5), None, None, Some(2.0)]);
/// let filled = fill_null_forward(&readings)?;
/// let filled: Vec<_> = filled.as_primitive::<Float64Type>().iter().collect();
/// assert_eq!(filled, [None, Some(1.5), Some(1.5), Some(1.5), Some(2.0)]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn fill_null_forward(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    fill_from_neighbours(array, false)
}

/// `array` with each null replaced by the nearest value after it that is not null
/// (trailing nulls stay null; Arrow C++'s `fill_null_backward`, pandas' `bfill`).
///
/// # Errors
/// If `array` is not valid.
///
/// ```
/// use alkaid_array::{AsArray, Int32Array};
/// use alkaid_array::types::Int32Type;
/// use alkaid_compute::fill_null_backward;
/// let filled = fill_null_backward(&Int32Array::from(vec![None, Some(1), None]))?;
/// let filled: Vec<_> = filled.as_primitive::<Int32Type>().iter().collect();
/// assert_eq!(filled, [Some(1), Some(1), None]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn fill_null_backward(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    fill_from_neighbours(array, true)
}

/// Each row taken from itself, or, where it is null, from the nearest valid row before it
/// (after it, `backward`); a null index where there is none.
fn fill_from_neighbours(array: &dyn Array, backward: bool) -> Result<ArrayRef, ComputeError> {
    let data = array.to_data();
    let Some(nulls) = logical_nulls(&data)? else {
        return Ok(make_array(data));
    };
    let len = data.len();
    // Flat fixed-width values: each valid value carried on to the nulls after it, with
    // no indices in between (a gather by 32-bit indices took 15.6 ms for 4 Mi `i32`s,
    // against pyarrow's 7.7).
    if let PhysicalType::Primitive(kind) = data.data_type().to_physical() {
        let values = alkaid_array::with_native!(kind, |T| {
            let values = native_values::<T>(&data)?;
            Buffer::from_vec(carried(&values, &nulls, backward))
        });
        let filled = ArrayData::builder(data.data_type().clone())
            .len(len)
            .nulls(leading_nulls(&nulls, backward))
            .buffers(vec![values])
            .build()?;
        return Ok(make_array(filled));
    }
    // 32-bit indices where they reach every row: half the memory for `take` to read.
    let indices: ArrayRef = match u32::try_from(len) {
        Ok(_) => Arc::new(UInt32Array::try_new(
            nearest_valid(&nulls, backward, |row| row as u32).into(),
            leading_nulls(&nulls, backward),
        )?),
        Err(_) => Arc::new(UInt64Array::try_new(
            nearest_valid(&nulls, backward, |row| row as u64).into(),
            leading_nulls(&nulls, backward),
        )?),
    };
    Ok(take(array, indices.as_ref())?)
}

/// For each row, the nearest valid row at or before it (after it, `backward`), as `index`
/// gives it; rows with none get 0 (made null by [`leading_nulls`]).
fn nearest_valid<I: Copy + Default>(
    nulls: &NullBuffer,
    backward: bool,
    index: impl Fn(usize) -> I,
) -> Vec<I> {
    let len = nulls.len();
    let mut indices = vec![I::default(); len];
    let mut nearest = I::default();
    let mut visit = |row: usize| {
        if nulls.is_valid(row) {
            nearest = index(row);
        }
        indices[row] = nearest;
    };
    if backward {
        (0..len).rev().for_each(&mut visit);
    } else {
        (0..len).for_each(&mut visit);
    }
    indices
}

/// Each row's value, or where it is null the nearest valid value before it (after it,
/// `backward`); the default before the first (made null by [`leading_nulls`]).
fn carried<T: NativeType>(values: &[T], nulls: &NullBuffer, backward: bool) -> Vec<T> {
    let mut last = T::default();
    if backward {
        let mut out = vec![T::default(); values.len()];
        for row in (0..values.len()).rev() {
            if nulls.is_valid(row) {
                last = values[row];
            }
            out[row] = last;
        }
        return out;
    }
    // Forward, a word of validity bits at a time: the choice per row is a select.
    let mut out = Vec::with_capacity(values.len());
    let words = nulls.validity().chunks();
    for (word, chunk) in words.iter_padded().zip(values.chunks(64)) {
        out.extend(chunk.iter().enumerate().map(|(bit, &value)| {
            if word >> bit & 1 == 1 {
                last = value;
            }
            last
        }));
    }
    out
}

/// The indices' validity: null before the first valid row (after the last, `backward`).
fn leading_nulls(nulls: &NullBuffer, backward: bool) -> Option<NullBuffer> {
    let len = nulls.len();
    let edge = if backward {
        (0..len)
            .rev()
            .find(|&row| nulls.is_valid(row))
            .map_or(0, |last| last + 1)
    } else {
        nulls.valid_indices().next().unwrap_or(len)
    };
    let valid = |row: usize| if backward { row < edge } else { row >= edge };
    let open = if backward { edge < len } else { edge > 0 };
    open.then(|| NullBuffer::from((0..len).map(valid).collect::<Vec<bool>>()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::types::{Int8Type, Int32Type};
    use alkaid_array::{AsArray, Int8Array, Int32Array, RunArray, StringArray};

    use super::*;

    fn ints(array: &ArrayRef) -> Vec<Option<i32>> {
        array.as_primitive::<Int32Type>().iter().collect()
    }

    #[test]
    fn both_directions_on_a_sliced_array() {
        let array =
            Int32Array::from(vec![Some(9), None, Some(1), None, None, Some(4), None]).slice(1, 6);
        assert_eq!(
            ints(&fill_null_forward(array.as_ref()).unwrap()),
            [None, Some(1), Some(1), Some(1), Some(4), Some(4)]
        );
        assert_eq!(
            ints(&fill_null_backward(array.as_ref()).unwrap()),
            [Some(1), Some(1), Some(4), Some(4), Some(4), None]
        );
    }

    #[test]
    fn all_null_empty_and_no_null_arrays() {
        let all = Int32Array::from(vec![None, None]);
        assert_eq!(ints(&fill_null_forward(&all).unwrap()), [None, None]);
        let empty = Int32Array::from(Vec::<i32>::new());
        assert_eq!(fill_null_backward(&empty).unwrap().len(), 0);
        let full = Int32Array::from(vec![1, 2]);
        assert_eq!(
            fill_null_forward(&full).unwrap().to_data().buffers()[0].as_ptr(),
            full.to_data().buffers()[0].as_ptr()
        );
    }

    #[test]
    fn runs_whose_value_is_null_are_filled() {
        let values: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None, Some("b")]));
        let runs = RunArray::<Int32Type>::try_new(Int32Array::from(vec![1, 3, 4]), values).unwrap();
        let filled = fill_null_forward(&runs).unwrap();
        let filled = text(&filled);
        assert_eq!(
            filled,
            [Some("a"), Some("a"), Some("a"), Some("b")].map(|s| s.map(String::from))
        );
        let keys = Int8Array::from(vec![None, Some(0)]);
        let words: ArrayRef = Arc::new(StringArray::from(vec!["w"]));
        let dictionary = alkaid_array::DictionaryArray::<Int8Type>::try_new(keys, words).unwrap();
        let filled = fill_null_backward(&dictionary).unwrap();
        assert_eq!(filled.null_count(), 0);
    }

    fn text(array: &ArrayRef) -> Vec<Option<String>> {
        let plain = crate::encoding::decoded(&array.to_data()).unwrap();
        let plain = make_array(plain);
        plain
            .as_string::<i32>()
            .iter()
            .map(|s| s.map(str::to_string))
            .collect()
    }
}

//! The one loop every fallible value conversion runs: convert each valid row, and on a
//! failure either make the row null (safe casts) or stop with an error naming the row
//! (strict casts).

use alkaid_buffer::{NativeType, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use super::options::CastOptions;
use crate::error::ComputeError;

/// What a conversion of one value gives: the value, or why it failed (for the error).
pub(super) type Converted<T> = Result<T, String>;

/// The array of `to` made of `convert(row)` for each valid row of an input of `len` rows
/// with validity `nulls`.
///
/// # Errors
/// In a strict cast, the first row whose conversion fails.
pub(super) fn convert_rows<T: NativeType>(
    to: &DataType,
    len: usize,
    nulls: Option<&NullBuffer>,
    options: CastOptions,
    convert: impl FnMut(usize) -> Converted<T>,
) -> Result<ArrayData, ComputeError> {
    let (values, nulls) = convert_values(len, nulls, options, convert)?;
    primitive(to, ScalarBuffer::from(values), nulls)
}

/// [`convert_rows`]'s values and validity, before they become an array.
pub(super) fn convert_values<T: Default + Copy>(
    len: usize,
    nulls: Option<&NullBuffer>,
    options: CastOptions,
    mut convert: impl FnMut(usize) -> Converted<T>,
) -> Result<(Vec<T>, Option<NullBuffer>), ComputeError> {
    let mut values = Vec::with_capacity(len);
    let mut failed: Option<Vec<bool>> = None;
    for row in 0..len {
        if nulls.is_some_and(|n| n.is_null(row)) {
            values.push(T::default());
            continue;
        }
        match convert(row) {
            Ok(value) => values.push(value),
            Err(_) if options.safe => {
                values.push(T::default());
                failed.get_or_insert_with(|| vec![false; len])[row] = true;
            }
            Err(message) => return Err(ComputeError::Cast { row, message }),
        }
    }
    let nulls = match failed {
        None => nulls.cloned(),
        Some(failed) => {
            let valid: Vec<bool> = (0..len)
                .map(|row| !failed[row] && nulls.is_none_or(|n| n.is_valid(row)))
                .collect();
            Some(NullBuffer::from(valid))
        }
    };
    Ok((values, nulls))
}

/// A fixed-width array of `to` holding `values`.
pub(super) fn primitive<T: NativeType>(
    to: &DataType,
    values: ScalarBuffer<T>,
    nulls: Option<NullBuffer>,
) -> Result<ArrayData, ComputeError> {
    let nulls = nulls.filter(|n| n.null_count() > 0);
    Ok(ArrayData::builder(to.clone())
        .len(values.len())
        .nulls(nulls)
        .buffers(vec![values.into_inner()])
        .build()?)
}

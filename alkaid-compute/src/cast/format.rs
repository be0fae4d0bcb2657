//! Anything with a text form to text (or bytes): numbers, booleans, decimals and temporal
//! values as `alkaid-array`'s display writes them (ISO 8601 for dates and times, zones
//! as offsets), integers by a faster path of their own.

use alkaid_array::make_array;
use alkaid_buffer::{OffsetSize, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use super::numeric::{Number, numeric_physical, with_number};
use crate::access::native_values;
use crate::error::ComputeError;
use crate::text::TextWriter;

/// Each valid row of `data` as text, written as `to` (a text or binary type).
pub(super) fn to_text(data: &ArrayData, to: &DataType) -> Result<ArrayData, ComputeError> {
    let len = data.len();
    if let Some(p) = numeric_physical(data.data_type()).filter(|_| data.data_type().is_integer()) {
        return with_number!(
            p,
            |T| {
                let values = native_values::<T>(data)?;
                match to.to_physical() {
                    PhysicalType::Binary => integers_to_offsets::<T, i32>(data, &values, to),
                    PhysicalType::LargeBinary => integers_to_offsets::<T, i64>(data, &values, to),
                    _ => {
                        let mut writer = TextWriter::like(to, len, 0);
                        for (row, value) in values.iter().enumerate() {
                            let mut digits = [0u8; 40];
                            let text = decimal_digits(value.as_integer(), &mut digits);
                            writer.push(row, data.is_valid(row).then_some(text))?;
                        }
                        writer.finish(to.clone())
                    }
                }
            },
            unreachable!("an integer")
        );
    }
    let mut writer = TextWriter::like(to, len, len * 8);
    let array = make_array(data.clone());
    let nulls = crate::validity::logical_nulls(data)?;
    for row in 0..len {
        if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            writer.push(row, None)?;
        } else {
            let value = alkaid_array::display::format_value(array.as_ref(), row);
            writer.push(row, Some(value.as_bytes()))?;
        }
    }
    writer.finish(to.clone())
}

/// Integers in decimal as a layout with offsets of `O`: the exact size of the digits
/// found first, then offsets and digits written straight into their buffers.
fn integers_to_offsets<T: Number, O: OffsetSize>(
    data: &ArrayData,
    values: &[T],
    to: &DataType,
) -> Result<ArrayData, ComputeError> {
    let nulls = data.nulls();
    let valid = |row: usize| nulls.is_none_or(|n| n.is_valid(row));
    let total: usize = values
        .iter()
        .enumerate()
        .map(|(row, v)| {
            if valid(row) {
                digit_count(v.as_integer())
            } else {
                0
            }
        })
        .sum();
    if O::from_usize(total).is_none() {
        return Err(ComputeError::Overflow {
            row: None,
            message: format!("{total} bytes of digits exceed what {to}'s offsets address"),
        });
    }
    let mut text: Vec<u8> = Vec::with_capacity(total);
    let mut offsets: Vec<O> = Vec::with_capacity(values.len() + 1);
    offsets.push(O::ZERO);
    for (row, value) in values.iter().enumerate() {
        if valid(row) {
            let mut digits = [0u8; 40];
            text.extend_from_slice(decimal_digits(value.as_integer(), &mut digits));
        }
        // Below `total`, which fits.
        offsets.push(O::usize_as(text.len()));
    }
    let builder = ArrayData::builder(to.clone())
        .len(values.len())
        .nulls(nulls.cloned())
        .buffers(vec![ScalarBuffer::from(offsets).into_inner(), text.into()]);
    // SAFETY: the offsets were written above, one per slot plus one, from 0, never
    // decreasing, the last the length of the digits; the digits are ASCII, so valid UTF-8
    // between any two offsets. (Validating them again cost a sixth of the cast.) Debug
    // builds check it all.
    Ok(unsafe { builder.build_unchecked() })
}

/// The length of `value` in decimal, its sign included.
fn digit_count(value: i128) -> usize {
    let sign = usize::from(value < 0);
    let digits = match u64::try_from(value.unsigned_abs()) {
        Ok(small) => small.checked_ilog10(),
        Err(_) => value.unsigned_abs().checked_ilog10(),
    };
    sign + digits.map_or(1, |d| d as usize + 1)
}

/// The two-digit numbers 00 to 99, back to back: [`decimal_digits`] writes two digits per
/// division.
const DIGIT_PAIRS: [u8; 200] = {
    let mut pairs = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        pairs[2 * i] = b'0' + (i / 10) as u8;
        pairs[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    pairs
};

/// `value` in decimal, written at the end of `out`; the digits written.
fn decimal_digits(value: i128, out: &mut [u8; 40]) -> &[u8] {
    let mut at = out.len();
    let magnitude = value.unsigned_abs();
    // 64-bit division where the value allows it (128-bit division is a library call).
    match u64::try_from(magnitude) {
        Ok(mut rest) => {
            while rest >= 100 {
                let pair = (rest % 100) as usize * 2;
                rest /= 100;
                at -= 2;
                out[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
            }
            if rest >= 10 {
                let pair = rest as usize * 2;
                at -= 2;
                out[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
            } else {
                at -= 1;
                out[at] = b'0' + rest as u8;
            }
        }
        Err(_) => {
            let mut rest = magnitude;
            loop {
                at -= 1;
                out[at] = b'0' + (rest % 10) as u8;
                rest /= 10;
                if rest == 0 {
                    break;
                }
            }
        }
    }
    if value < 0 {
        at -= 1;
        out[at] = b'-';
    }
    &out[at..]
}

/// Whether [`to_text`] can write `data_type`: every type whose values have one line of
/// text (not nested ones, whose text form is for people, not for parsing back).
pub(super) fn has_text_form(data_type: &DataType) -> bool {
    !matches!(
        data_type.to_physical(),
        PhysicalType::Struct
            | PhysicalType::List
            | PhysicalType::LargeList
            | PhysicalType::ListView
            | PhysicalType::LargeListView
            | PhysicalType::FixedSizeList(_)
            | PhysicalType::SparseUnion
            | PhysicalType::DenseUnion
            | PhysicalType::Null
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_write_in_decimal_at_the_extremes() {
        let mut out = [0u8; 40];
        for value in [
            0,
            -1,
            7,
            9,
            10,
            -99,
            100,
            12_345,
            -1_000_000_007,
            i128::from(i64::MIN),
            i128::from(u64::MAX),
            i128::MIN,
            i128::MAX,
        ] {
            assert_eq!(
                decimal_digits(value, &mut out),
                value.to_string().as_bytes()
            );
            assert_eq!(digit_count(value), value.to_string().len());
        }
    }
}

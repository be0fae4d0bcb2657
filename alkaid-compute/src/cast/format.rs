//! Anything with a text form to text (or bytes): numbers, booleans, decimals and temporal
//! values as `alkaid-array`'s display writes them (ISO 8601 for dates and times, zones
//! as offsets), integers by a faster path of their own.

use alkaid_array::make_array;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use super::numeric::{Number, numeric_physical, with_number};
use crate::access::native_values;
use crate::error::ComputeError;
use crate::string::text::TextWriter;

/// Each valid row of `data` as text, written as `to` (a text or binary type).
pub(super) fn to_text(data: &ArrayData, to: &DataType) -> Result<ArrayData, ComputeError> {
    let len = data.len();
    let mut writer = TextWriter::like(to, len, len * 8);
    let integers = data.data_type().is_integer() && numeric_physical(data.data_type()).is_some();
    if integers {
        let p = numeric_physical(data.data_type()).expect("checked");
        with_number!(
            p,
            |T| {
                let values = native_values::<T>(data)?;
                for row in 0..len {
                    if data.is_null(row) {
                        writer.push(row, None)?;
                        continue;
                    }
                    let mut digits = [0u8; 40];
                    let written = decimal_digits(values[row].as_integer(), &mut digits);
                    writer.push(row, Some(written))?;
                }
            },
            unreachable!("an integer")
        );
    } else {
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
    }
    writer.finish(to.clone())
}

/// `value` in decimal, written at the end of `out`; the digits written.
fn decimal_digits(value: i128, out: &mut [u8; 40]) -> &[u8] {
    let mut at = out.len();
    let magnitude = value.unsigned_abs();
    // 64-bit division where the value allows it (128-bit division is a library call).
    match u64::try_from(magnitude) {
        Ok(mut rest) => loop {
            at -= 1;
            out[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        },
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
            i128::from(i64::MIN),
            i128::from(u64::MAX),
            i128::MIN,
            i128::MAX,
        ] {
            assert_eq!(
                decimal_digits(value, &mut out),
                value.to_string().as_bytes()
            );
        }
    }
}

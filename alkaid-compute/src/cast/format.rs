//! Anything with a text form to text (or bytes): numbers, booleans, decimals and temporal
//! values as `alkaid-array`'s display writes them (ISO 8601 for dates and times, zones
//! as offsets), integers by a faster path of their own.

use std::fmt::Write;

use alkaid_array::make_array;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use super::numeric::{numeric_physical, with_number};
use crate::access::native_values;
use crate::error::ComputeError;
use crate::string::text::TextWriter;

/// Each valid row of `data` as text, written as `to` (a text or binary type).
pub(super) fn to_text(data: &ArrayData, to: &DataType) -> Result<ArrayData, ComputeError> {
    let len = data.len();
    let mut writer = TextWriter::like(to, len, len * 8);
    let mut text = String::new();
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
                    text.clear();
                    write!(text, "{}", values[row]).expect("writing to a String");
                    writer.push(row, Some(text.as_bytes()))?;
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

//! [`SlotText`] for every typed array: the notation of [`super`], written once per array
//! type. Children's values (of lists, structs, maps, unions and encodings) go back through
//! [`super`]'s dispatch, which writes their nulls.

use std::fmt::{self, Write};

use alkaid_buffer::{NativeType, OffsetSize};
use alkaid_schema::{DataType, IntervalUnit, TimeUnit};

use super::write_value;
use crate::calendar::{write_date, write_time, write_timestamp};
use crate::types::PrimitiveType;
use crate::visit::SlotText;
use crate::{
    Array, BooleanArray, ByteArrayType, ByteViewType, DictionaryArray, DictionaryKey,
    FixedSizeBinaryArray, FixedSizeListArray, GenericByteArray, GenericByteViewArray,
    GenericListArray, GenericListViewArray, MapArray, NullArray, PrimitiveArray, RunArray,
    RunEndIndex, StructArray, UnionArray,
};

impl SlotText for NullArray {
    fn write_slot(&self, _: usize, out: &mut String) -> fmt::Result {
        out.write_str("null")
    }
}

impl SlotText for BooleanArray {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write!(out, "{}", self.value(i))
    }
}

impl<T: PrimitiveType> SlotText for PrimitiveArray<T> {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        let value = self.value(i);
        // Dates, times, timestamps and durations are all `i32` or `i64`.
        let raw = || value.to_i64().unwrap_or_default();
        match self.data_type() {
            DataType::Decimal(decimal) => {
                out.write_str(&with_scale(&value.to_string(), decimal.scale()))
            }
            DataType::Date32 => write_date(out, raw() * 86_400, "days"),
            DataType::Date64 => write_date(out, raw().div_euclid(1000), "ms"),
            DataType::Time(unit) => write_time(out, raw(), *unit),
            DataType::Timestamp(unit, timezone) => {
                write_timestamp(out, raw(), *unit, timezone.as_deref())
            }
            DataType::Duration(unit) => {
                let duration = match unit {
                    TimeUnit::Second => jiff::SignedDuration::from_secs(raw()),
                    TimeUnit::Millisecond => jiff::SignedDuration::from_millis(raw()),
                    TimeUnit::Microsecond => jiff::SignedDuration::from_micros(raw()),
                    TimeUnit::Nanosecond => jiff::SignedDuration::from_nanos(raw()),
                };
                write!(out, "{duration}")
            }
            DataType::Interval(IntervalUnit::YearMonth) => write!(out, "{value} months"),
            _ => write!(out, "{value}"),
        }
    }
}

impl<T: ByteArrayType> SlotText for GenericByteArray<T> {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write_bytes(out, self.value(i).as_ref(), T::data_type())
    }
}

impl<T: ByteViewType> SlotText for GenericByteViewArray<T> {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write_bytes(out, self.value(i).as_ref(), T::data_type())
    }
}

impl SlotText for FixedSizeBinaryArray {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write_hex(out, self.value(i))
    }
}

impl<O: OffsetSize> SlotText for GenericListArray<O> {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write_list(out, self.value(i).as_ref())
    }
}

impl<O: OffsetSize> SlotText for GenericListViewArray<O> {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write_list(out, self.value(i).as_ref())
    }
}

impl SlotText for FixedSizeListArray {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write_list(out, self.value(i).as_ref())
    }
}

impl SlotText for StructArray {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        out.push('{');
        for (k, (field, column)) in self.fields().iter().zip(self.columns()).enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            write!(out, "{}: ", field.name())?;
            write_value(out, column.as_ref(), i)?;
        }
        out.push('}');
        Ok(())
    }
}

impl SlotText for MapArray {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        let entries = self.value(i);
        out.push('{');
        for k in 0..entries.len() {
            if k > 0 {
                out.push_str(", ");
            }
            write_value(out, entries.column(0).as_ref(), k)?;
            out.push_str(": ");
            write_value(out, entries.column(1).as_ref(), k)?;
        }
        out.push('}');
        Ok(())
    }
}

impl SlotText for UnionArray {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        let DataType::Union(union) = self.data_type() else {
            return write!(out, "<{}>", self.data_type());
        };
        let (child, slot) = self.locate(i);
        write!(out, "{{{}=", union.fields()[child].name())?;
        write_value(out, self.children()[child].as_ref(), slot)?;
        out.push('}');
        Ok(())
    }
}

impl<K: DictionaryKey> SlotText for DictionaryArray<K> {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        match self.key(i) {
            Some(key) => write_value(out, self.values().as_ref(), key),
            None => out.write_str("null"),
        }
    }
}

impl<R: RunEndIndex> SlotText for RunArray<R> {
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result {
        write_value(out, self.values().as_ref(), self.physical_index(i))
    }
}

fn write_list(out: &mut String, items: &dyn Array) -> fmt::Result {
    out.push('[');
    for k in 0..items.len() {
        if k > 0 {
            out.push_str(", ");
        }
        write_value(out, items, k)?;
    }
    out.push(']');
    Ok(())
}

/// Text as it is, binary as hex.
fn write_bytes(out: &mut String, bytes: &[u8], data_type: &DataType) -> fmt::Result {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            // Valid UTF-8 (the arrays hold only that), so this borrows.
            out.write_str(&String::from_utf8_lossy(bytes))
        }
        _ => write_hex(out, bytes),
    }
}

fn write_hex(out: &mut String, bytes: &[u8]) -> fmt::Result {
    bytes.iter().try_for_each(|b| write!(out, "{b:02x}"))
}

/// `digits` (an integer, maybe negative) with a decimal point `scale` digits from the right.
fn with_scale(digits: &str, scale: i8) -> String {
    let (sign, digits) = digits.strip_prefix('-').map_or(("", digits), |d| ("-", d));
    if scale <= 0 {
        let zeros = if digits == "0" {
            0
        } else {
            usize::from(scale.unsigned_abs())
        };
        return format!("{sign}{digits}{}", "0".repeat(zeros));
    }
    let scale = usize::from(scale.unsigned_abs());
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    format!("{sign}{whole}.{fraction}")
}

#[cfg(test)]
mod tests {
    use alkaid_buffer::native::i256;

    use super::*;

    #[test]
    fn scales_place_the_decimal_point() {
        assert_eq!(with_scale("12345", 2), "123.45");
        assert_eq!(with_scale("-5", 3), "-0.005");
        assert_eq!(with_scale("0", 2), "0.00");
        assert_eq!(with_scale("7", 0), "7");
        assert_eq!(with_scale("7", -2), "700");
        assert_eq!(
            with_scale(&i256::MIN.to_string(), 76),
            "-5.7896044618658097711785492504343953926634992332820282019728792003956564819968"
        );
    }
}

//! Readable text for every array: `Display` for `dyn Array`, [`format_value`] for one slot,
//! and [`pretty_format_batches`] for tables.
//!
//! The notation: `null` for nulls; numbers as Rust prints them; decimals with their scale
//! (`123.45`); dates `2024-02-29`; times `13:45:00.5`; timestamps in ISO-8601, in their
//! timezone with its offset (`2024-02-29T13:45:00+01:00`) or without one when the type has
//! no timezone; durations in ISO-8601 (`PT1.5S`); intervals spelled out; binary as hex; text
//! as is; lists `[1, 2]`; structs and maps `{a: 1, b: x}`; unions `{tag=value}`. Values the
//! calendar cannot hold (a timestamp past year 9999, a time beyond midnight) print as their
//! raw number with the unit, never a panic.
//!
//! Each typed array writes its own slots ([`SlotText`](crate::SlotText), in `slots.rs`),
//! reached through [`visit_array`]; dates, times and zones are in `calendar.rs`, tables in
//! `table.rs`.

mod slots;
mod table;

use std::fmt::{self, Write};

use alkaid_schema::DataType;

pub use crate::calendar::resolve_timezone;

use crate::calendar;
pub use table::pretty_format_batches;

use crate::Array;
use crate::visit::{ArrayVisitor, TypedArray, visit_array};

impl fmt::Display for dyn Array + '_ {
    /// `[v0, v1, …]`, at most 100 values (then `… and N more`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 100;
        let mut text = String::from("[");
        for i in 0..self.len().min(SHOWN) {
            if i > 0 {
                text.push_str(", ");
            }
            write_value(&mut text, self, i)?;
        }
        if self.len() > SHOWN {
            write!(text, ", … and {} more", self.len() - SHOWN)?;
        }
        text.push(']');
        f.write_str(&text)
    }
}

/// Slot `i` of `array`, the values of `field`, as text: a column of a canonical
/// extension type shown as its values are meant (`arrow.parquet.variant` as JSON,
/// `arrow.timestamp_with_offset` in each value's own offset), any other as
/// [`format_value`] shows it. Tables ([`pretty_format_batches`]) use it.
///
/// ```
/// use alkaid_array::display::format_field_value;
/// use alkaid_array::variant::VariantArray;
/// use alkaid_schema::Field;
/// use alkaid_schema::extension::{Namespace, ParquetVariant};
///
/// let column = VariantArray::from_json([Some(r#"{"a": [1, true]}"#)])?;
/// let field = Field::new("v", ParquetVariant::storage_type(), true)
///     .with_extension_type(&ParquetVariant, Namespace::Arrow)?;
/// assert_eq!(format_field_value(&field, column.storage(), 0), r#"{"a":[1,true]}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn format_field_value(field: &alkaid_schema::Field, array: &dyn Array, i: usize) -> String {
    use alkaid_schema::extension::CanonicalExtension;
    if array.is_null(i) {
        return format_value(array, i);
    }
    let shown = match CanonicalExtension::of(field) {
        Ok(Some(CanonicalExtension::ParquetVariant)) => array
            .as_any()
            .downcast_ref::<crate::StructArray>()
            .and_then(|s| crate::variant::VariantArray::try_new(s).ok())
            .and_then(|v| v.to_json(i).ok().flatten()),
        Ok(Some(CanonicalExtension::TimestampWithOffset)) => with_offset(array, i),
        _ => None,
    };
    shown.unwrap_or_else(|| format_value(array, i))
}

/// Slot `i` of `arrow.timestamp_with_offset` storage with plain `Int16` offsets.
fn with_offset(array: &dyn Array, i: usize) -> Option<String> {
    use crate::AsArray;
    let storage = array.as_any().downcast_ref::<crate::StructArray>()?;
    let DataType::Timestamp(unit, _) = storage.column(0).data_type() else {
        return None;
    };
    let instants = storage.column(0).to_data();
    let raw = *instants
        .buffers()
        .first()?
        .typed::<i64>()
        .ok()?
        .get(instants.offset() + i)?;
    let minutes = storage
        .column(1)
        .as_primitive_opt::<crate::types::Int16Type>()?
        .value(i);
    let mut out = String::new();
    calendar::write_with_offset(&mut out, raw, *unit, minutes).ok()?;
    Some(out)
}

/// The instant `raw` (in `unit` since the epoch) as ISO 8601 in the fixed offset of
/// `minutes` east of UTC, with the fraction `unit` holds
/// (`2024-05-01T12:30:00.250+02:00`): how `arrow.timestamp_with_offset` values show.
///
/// ```
/// use alkaid_array::display::format_with_offset;
/// use alkaid_schema::TimeUnit;
/// assert_eq!(format_with_offset(0, TimeUnit::Millisecond, 330), "1970-01-01T05:30:00.000+05:30");
/// ```
pub fn format_with_offset(raw: i64, unit: alkaid_schema::TimeUnit, minutes: i16) -> String {
    let mut out = String::new();
    // Writing to a String does not fail.
    let _ = calendar::write_with_offset(&mut out, raw, unit, minutes);
    out
}

/// Slot `i` of `array` as text.
///
/// # Panics
/// If `i >= array.len()`.
///
/// # Examples
/// ```
/// use alkaid_array::{display::format_value, Decimal128Array, TimestampSecondArray};
/// use alkaid_schema::{DataType, TimeUnit};
/// let decimals = Decimal128Array::from(vec![Some(-12345), None])
///     .with_data_type(DataType::decimal(128, 10, 2).unwrap()).unwrap();
/// assert_eq!(format_value(&decimals, 0), "-123.45");
/// assert_eq!(format_value(&decimals, 1), "null");
/// let paris = DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into()));
/// let times = TimestampSecondArray::from(vec![1_700_000_000]).with_data_type(paris).unwrap();
/// assert_eq!(format_value(&times, 0), "2023-11-14T23:13:20+01:00");
/// ```
pub fn format_value(array: &dyn Array, i: usize) -> String {
    let mut text = String::new();
    write_value(&mut text, array, i).expect("writing to a String cannot fail");
    text
}

/// Appends slot `i` of `array` to `out`: `null` for a null slot, else the value as its typed
/// array writes it.
fn write_value(out: &mut String, array: &dyn Array, i: usize) -> fmt::Result {
    let data_type = array.data_type();
    // Unions and encodings have no validity of their own: their children say.
    let has_own_validity = !matches!(
        data_type,
        DataType::Union(_) | DataType::RunEndEncoded(_) | DataType::Dictionary { .. }
    );
    if has_own_validity && array.is_null(i) {
        return out.write_str("null");
    }
    visit_array(data_type, WriteSlot { out, array, i })
}

/// Writes one slot through the typed array of the visited type.
struct WriteSlot<'a> {
    out: &'a mut String,
    array: &'a dyn Array,
    i: usize,
}

impl ArrayVisitor for WriteSlot<'_> {
    type Output = fmt::Result;

    fn visit<A: TypedArray>(self) -> fmt::Result {
        let WriteSlot { out, array, i } = self;
        if let Some(typed) = array.as_any().downcast_ref::<A>() {
            return typed.write_slot(i, out);
        }
        // An `Array` of another crate's making: read through this crate's array of its type.
        match A::try_from(array.to_data()) {
            Ok(typed) => typed.write_slot(i, out),
            Err(_) => write!(out, "<{}>", array.data_type()),
        }
    }
}

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

use std::fmt::{self, Write};

use alkaid_buffer::NativeType;
use alkaid_schema::{DataType, IntervalUnit, TimeUnit};

use crate::types::*;
use crate::{
    Array, AsArray, BooleanArray, FixedSizeBinaryArray, FixedSizeListArray, GenericListViewArray,
    MapArray, RecordBatch, StructArray, UnionArray,
};

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

/// Appends slot `i` of `array` to `out`: the one dispatch on the data type.
fn write_value(out: &mut String, array: &dyn Array, i: usize) -> fmt::Result {
    let data_type = array.data_type();
    let has_own_validity = !matches!(
        data_type,
        DataType::Union(_) | DataType::RunEndEncoded(_) | DataType::Dictionary { .. }
    );
    if has_own_validity && array.is_null(i) || matches!(data_type, DataType::Null) {
        return out.write_str("null");
    }
    match data_type {
        DataType::Null => out.write_str("null"),
        DataType::Boolean => write!(
            out,
            "{}",
            array
                .as_any()
                .downcast_ref::<BooleanArray>()
                .expect("typed")
                .value(i)
        ),
        DataType::FixedSizeBinary(_) => write_hex(out, fixed_binary(array).value(i)),
        DataType::Binary => write_hex(
            out,
            array.as_bytes::<crate::GenericBinaryType<i32>>().value(i),
        ),
        DataType::LargeBinary => write_hex(
            out,
            array.as_bytes::<crate::GenericBinaryType<i64>>().value(i),
        ),
        DataType::BinaryView => write_hex(out, view::<crate::BinaryViewType>(array).value(i)),
        DataType::Utf8 => out.write_str(array.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => out.write_str(array.as_string::<i64>().value(i)),
        DataType::Utf8View => out.write_str(view::<crate::StringViewType>(array).value(i)),
        DataType::List(_) => write_list(out, downcast::<crate::ListArray>(array).value(i).as_ref()),
        DataType::LargeList(_) => write_list(
            out,
            downcast::<crate::LargeListArray>(array).value(i).as_ref(),
        ),
        DataType::ListView(_) => write_list(
            out,
            downcast::<GenericListViewArray<i32>>(array)
                .value(i)
                .as_ref(),
        ),
        DataType::LargeListView(_) => write_list(
            out,
            downcast::<GenericListViewArray<i64>>(array)
                .value(i)
                .as_ref(),
        ),
        DataType::FixedSizeList(..) => {
            write_list(out, downcast::<FixedSizeListArray>(array).value(i).as_ref())
        }
        DataType::Struct(_) => {
            let structs = downcast::<StructArray>(array);
            out.push('{');
            for (k, (field, column)) in structs.fields().iter().zip(structs.columns()).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write!(out, "{}: ", field.name())?;
                write_value(out, column.as_ref(), i)?;
            }
            out.push('}');
            Ok(())
        }
        DataType::Map(_) => {
            let entries = downcast::<MapArray>(array).value(i);
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
        DataType::Union(union) => {
            let unions = downcast::<UnionArray>(array);
            let (child, slot) = unions.locate(i);
            write!(out, "{{{}=", union.fields()[child].name())?;
            write_value(out, unions.children()[child].as_ref(), slot)?;
            out.push('}');
            Ok(())
        }
        DataType::Dictionary { key, .. } => match key {
            alkaid_schema::IntegerType::Int8 => write_dictionary::<Int8Type>(out, array, i),
            alkaid_schema::IntegerType::Int16 => write_dictionary::<Int16Type>(out, array, i),
            alkaid_schema::IntegerType::Int32 => write_dictionary::<Int32Type>(out, array, i),
            alkaid_schema::IntegerType::Int64 => write_dictionary::<Int64Type>(out, array, i),
            alkaid_schema::IntegerType::UInt8 => write_dictionary::<UInt8Type>(out, array, i),
            alkaid_schema::IntegerType::UInt16 => write_dictionary::<UInt16Type>(out, array, i),
            alkaid_schema::IntegerType::UInt32 => write_dictionary::<UInt32Type>(out, array, i),
            alkaid_schema::IntegerType::UInt64 => write_dictionary::<UInt64Type>(out, array, i),
        },
        DataType::RunEndEncoded(ree) => match ree.run_end_type() {
            alkaid_schema::RunEndType::Int16 => write_run::<Int16Type>(out, array, i),
            alkaid_schema::RunEndType::Int32 => write_run::<Int32Type>(out, array, i),
            alkaid_schema::RunEndType::Int64 => write_run::<Int64Type>(out, array, i),
        },
        // Every remaining type is fixed-width.
        _ => visit_primitive(data_type, PrimitiveText { out, array, i })
            .unwrap_or_else(|| write!(out, "<{data_type}>")),
    }
}

/// Writes one fixed-width value, reached through the primitive visitor.
struct PrimitiveText<'a> {
    out: &'a mut String,
    array: &'a dyn Array,
    i: usize,
}

impl PrimitiveVisitor for PrimitiveText<'_> {
    type Output = fmt::Result;

    fn visit<T: PrimitiveType>(self) -> fmt::Result {
        let PrimitiveText { out, array, i } = self;
        let value = array.as_primitive::<T>().value(i);
        // Dates, times, timestamps and durations are all `i32` or `i64`.
        let raw = || value.to_i64().unwrap_or_default();
        match array.data_type() {
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

fn write_dictionary<K: crate::DictionaryKey>(
    out: &mut String,
    array: &dyn Array,
    i: usize,
) -> fmt::Result {
    let dictionary = downcast::<crate::DictionaryArray<K>>(array);
    match dictionary.key(i) {
        Some(key) => write_value(out, dictionary.values().as_ref(), key),
        None => out.write_str("null"),
    }
}

fn write_run<R: crate::RunEndIndex>(out: &mut String, array: &dyn Array, i: usize) -> fmt::Result {
    let runs = downcast::<crate::RunArray<R>>(array);
    write_value(out, runs.values().as_ref(), runs.physical_index(i))
}

fn downcast<T: 'static>(array: &dyn Array) -> &T {
    array
        .as_any()
        .downcast_ref::<T>()
        .expect("make_array gives the typed array of every type")
}

fn fixed_binary(array: &dyn Array) -> &FixedSizeBinaryArray {
    downcast(array)
}

fn view<T: crate::ByteViewType>(array: &dyn Array) -> &crate::GenericByteViewArray<T> {
    downcast(array)
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

fn write_date(out: &mut String, seconds: i64, unit: &str) -> fmt::Result {
    // Counted in civil days, not through an instant: jiff's instants end a day before its
    // dates do (9999-12-31 is a date but not a UTC midnight it can hold).
    let days = seconds.div_euclid(86_400);
    let date = jiff::Span::new()
        .try_days(days)
        .ok()
        .and_then(|span| jiff::civil::date(1970, 1, 1).checked_add(span).ok());
    match date {
        Some(date) => write!(out, "{date}"),
        None => write!(out, "{seconds}s ({unit})"),
    }
}

fn nanoseconds(raw: i64, unit: TimeUnit) -> Option<i128> {
    let scale: i128 = match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    };
    i128::from(raw).checked_mul(scale)
}

fn write_time(out: &mut String, raw: i64, unit: TimeUnit) -> fmt::Result {
    let time = nanoseconds(raw, unit)
        .and_then(|ns| i64::try_from(ns).ok())
        .filter(|ns| (0..86_400_000_000_000).contains(ns))
        .and_then(|ns| {
            jiff::civil::Time::MIN
                .checked_add(jiff::SignedDuration::from_nanos(ns))
                .ok()
        });
    match time {
        Some(time) => write!(out, "{time}"),
        None => write!(out, "{raw}{}", unit.abbreviation()),
    }
}

fn write_timestamp(
    out: &mut String,
    raw: i64,
    unit: TimeUnit,
    timezone: Option<&str>,
) -> fmt::Result {
    let Some(ts) = nanoseconds(raw, unit).and_then(|ns| jiff::Timestamp::from_nanosecond(ns).ok())
    else {
        return write!(out, "{raw}{}", unit.abbreviation());
    };
    let Some(name) = timezone else {
        // No timezone: a wall-clock time, printed without an offset.
        return write!(out, "{}", ts.to_zoned(jiff::tz::TimeZone::UTC).datetime());
    };
    match resolve_timezone(name) {
        Some(tz) => write!(
            out,
            "{}",
            ts.to_zoned(tz).strftime("%Y-%m-%dT%H:%M:%S%.f%:z")
        ),
        // An unknown zone: UTC, and the name as written.
        None => write!(
            out,
            "{}Z [{name}]",
            ts.to_zoned(jiff::tz::TimeZone::UTC).datetime()
        ),
    }
}

/// A timezone from an IANA name (`Europe/Paris`) or a fixed offset such as `+05:30`, as
/// the format allows in a timestamp's type; `None` if it is neither. Display and the
/// compute kernels' calendar arithmetic read zones through this one function.
///
/// ```
/// use alkaid_array::display::resolve_timezone;
/// assert!(resolve_timezone("Asia/Kolkata").is_some());
/// assert!(resolve_timezone("-03:30").is_some());
/// assert!(resolve_timezone("Mars/Olympus").is_none());
/// ```
pub fn resolve_timezone(name: &str) -> Option<jiff::tz::TimeZone> {
    if let Ok(tz) = jiff::tz::TimeZone::get(name) {
        return Some(tz);
    }
    let (sign, rest) = match name.as_bytes().first()? {
        b'+' => (1, &name[1..]),
        b'-' => (-1, &name[1..]),
        _ => return None,
    };
    let (hours, minutes) = rest.split_once(':').unwrap_or((rest, "0"));
    let seconds = sign * (hours.parse::<i32>().ok()? * 3600 + minutes.parse::<i32>().ok()? * 60);
    jiff::tz::Offset::from_seconds(seconds)
        .ok()
        .map(jiff::tz::TimeZone::fixed)
}

/// The batches as a table: a header of column names, then at most `max_rows` rows (all if
/// `None`), then `... N more rows` if some were left out.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{display::pretty_format_batches, Int32Array, RecordBatch, StringArray};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("id", DataType::Int32, false),
///     Field::new("name", DataType::Utf8, true),
/// ]));
/// let batch = RecordBatch::try_new(schema, vec![
///     Arc::new(Int32Array::from(vec![1, 2, 3])),
///     Arc::new(StringArray::from(vec![Some("ann"), None, Some("bo")])),
/// ])?;
/// let table = pretty_format_batches(&[batch], Some(2));
/// assert_eq!(table, "\
/// +----+------+
/// | id | name |
/// +----+------+
/// | 1  | ann  |
/// | 2  | null |
/// +----+------+
/// ... 1 more row");
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub fn pretty_format_batches(batches: &[RecordBatch], max_rows: Option<usize>) -> String {
    let Some(first) = batches.first() else {
        return String::new();
    };
    let header: Vec<String> = first
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let limit = max_rows.unwrap_or(total).min(total);
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(limit);
    'batches: for batch in batches {
        for row in 0..batch.num_rows() {
            if rows.len() == limit {
                break 'batches;
            }
            let cells = batch.columns().iter().map(|column| {
                // Keep one line per row: escape line breaks and tabs.
                format_value(column.as_ref(), row)
                    .replace('\n', "\\n")
                    .replace('\r', "\\r")
                    .replace('\t', "\\t")
            });
            rows.push(cells.collect());
        }
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let rule: String = widths.iter().fold(String::from("+"), |mut line, w| {
        line.push_str(&"-".repeat(w + 2));
        line.push('+');
        line
    });
    let line = |cells: &[String]| {
        let mut text = String::from("|");
        for (cell, width) in cells.iter().zip(&widths) {
            let pad = width - cell.chars().count();
            write!(text, " {cell}{} |", " ".repeat(pad)).expect("writing to a String cannot fail");
        }
        text
    };
    let mut table = vec![rule.clone(), line(&header), rule.clone()];
    table.extend(rows.iter().map(|r| line(r)));
    table.push(rule);
    let mut text = table.join("\n");
    if total > limit {
        let more = total - limit;
        write!(
            text,
            "\n... {more} more row{}",
            if more == 1 { "" } else { "s" }
        )
        .expect("writing to a String cannot fail");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use alkaid_buffer::native::i256;

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

    #[test]
    fn dates_reach_the_ends_of_the_calendar() {
        let shown = |days: i64| {
            let mut out = String::new();
            write_date(&mut out, days * 86_400, "days").unwrap();
            out
        };
        assert_eq!(shown(2_932_896), "9999-12-31");
        assert_eq!(shown(-719_162), "0001-01-01");
        assert_eq!(shown(-1), "1969-12-31");
        assert_eq!(
            shown(2_932_897),
            "253402300800s (days)",
            "past the calendar"
        );
    }

    #[test]
    fn timezones_from_names_and_offsets() {
        assert!(resolve_timezone("Asia/Tokyo").is_some());
        assert!(resolve_timezone("+05:30").is_some());
        assert!(resolve_timezone("-07").is_some());
        assert!(resolve_timezone("Mars/Olympus").is_none());
        assert!(resolve_timezone("+99:00").is_none());
        assert!(resolve_timezone("").is_none());
    }
}

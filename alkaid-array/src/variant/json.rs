//! JSON text to and from Variant.

use std::fmt::Write;

use alkaid_schema::TimeUnit;
use alkaid_schema::json::{JsonValue, parse_json, write_json_string};

use super::value::MAX_DEPTH;
use super::{MetadataBuilder, ValueEncoder, Variant, VariantError};
use crate::calendar::{write_date, write_time, write_timestamp};

/// Encodes JSON text as a Variant: its metadata (the object keys, sorted) and its value.
///
/// Numbers keep what they say: an integer becomes the narrowest of int8 to int64 that
/// holds it; a number with a fraction and no exponent becomes a decimal of its written
/// digits (up to 38; `1.50` is decimal4 150, scale 2); anything else (an exponent, more
/// digits) a double. A key repeated in one object keeps its last value, as JSON readers do.
///
/// # Errors
/// When the text is not JSON, nests deeper than [`MAX_DEPTH`], or a number is out of
/// every type's range.
pub fn json_to_variant(text: &str) -> Result<(Vec<u8>, Vec<u8>), VariantError> {
    let json = parse_json(text).map_err(|e| VariantError::value(format!("not JSON: {e}")))?;
    let mut keys = Vec::new();
    collect_keys(&json, &mut keys, 0)?;
    keys.sort_unstable();
    keys.dedup();
    let mut names = MetadataBuilder::with_names(keys);
    let mut value = Vec::new();
    write_json(&json, ValueEncoder::new(&mut names, &mut value))?;
    Ok((names.finish(), value))
}

fn collect_keys<'a>(
    json: &'a JsonValue,
    keys: &mut Vec<&'a str>,
    depth: usize,
) -> Result<(), VariantError> {
    if depth > MAX_DEPTH {
        return Err(VariantError::value(format!(
            "JSON nested more than {MAX_DEPTH} deep"
        )));
    }
    match json {
        JsonValue::Array(items) => {
            for item in items {
                collect_keys(item, keys, depth + 1)?;
            }
        }
        JsonValue::Object(members) => {
            for (key, value) in members {
                keys.push(key);
                collect_keys(value, keys, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn write_json(json: &JsonValue, into: ValueEncoder<'_>) -> Result<(), VariantError> {
    match json {
        JsonValue::Null => into.null(),
        JsonValue::Bool(b) => into.primitive(Variant::Boolean(*b))?,
        JsonValue::Number(text) => into.primitive(number(text)?)?,
        JsonValue::String(text) => into.string(text),
        JsonValue::Array(items) => {
            let mut list = into.list();
            for item in items {
                write_json(item, list.element())?;
            }
            list.finish()?;
        }
        JsonValue::Object(members) => {
            let mut object = into.object();
            // The last of a repeated key wins.
            for (i, (key, value)) in members.iter().enumerate() {
                if members[i + 1..].iter().any(|(later, _)| later == key) {
                    continue;
                }
                write_json(value, object.field(key)?)?;
            }
            object.finish()?;
        }
    }
    Ok(())
}

/// The Variant of a JSON number as written.
fn number(text: &str) -> Result<Variant<'static, 'static>, VariantError> {
    if let Ok(v) = text.parse::<i64>() {
        return Ok(narrowest_integer(v));
    }
    let exact = !text.contains(['e', 'E']);
    if exact {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = format!("{whole}{fraction}");
        let significant = digits.trim_start_matches(['-', '0']).len();
        if significant <= 38
            && let Ok(unscaled) = digits.parse::<i128>()
            && let Ok(scale) = u8::try_from(fraction.len())
            && scale <= 38
        {
            return Ok(match significant.max(usize::from(scale)) {
                0..=9 => Variant::Decimal4(unscaled as i32, scale),
                10..=18 => Variant::Decimal8(unscaled as i64, scale),
                _ => Variant::Decimal16(unscaled, scale),
            });
        }
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Variant::Double(v)),
        _ => Err(VariantError::value(format!(
            "JSON number {text} is out of a double's range"
        ))),
    }
}

fn narrowest_integer(v: i64) -> Variant<'static, 'static> {
    if let Ok(v) = i8::try_from(v) {
        Variant::Int8(v)
    } else if let Ok(v) = i16::try_from(v) {
        Variant::Int16(v)
    } else if let Ok(v) = i32::try_from(v) {
        Variant::Int32(v)
    } else {
        Variant::Int64(v)
    }
}

/// `value` as JSON text; see [`write_variant_json`].
///
/// # Errors
/// When a nested value does not read.
pub fn variant_to_json(value: Variant<'_, '_>) -> Result<String, VariantError> {
    let mut out = String::new();
    write_variant_json(&mut out, value)?;
    Ok(out)
}

/// Appends `value` as JSON text: objects and arrays as such, numbers as numbers (a
/// decimal with its scale's digits; a float that is not finite as a string), and the
/// types JSON lacks as strings: dates, times and timestamps in ISO 8601 (UTC ones with
/// `+00:00`), UUIDs hyphenated, bytes in base64.
///
/// # Errors
/// When a nested value does not read, or values nest deeper than [`MAX_DEPTH`].
pub fn write_variant_json(out: &mut String, value: Variant<'_, '_>) -> Result<(), VariantError> {
    write_value(out, value, 0)
}

fn write_value(out: &mut String, value: Variant<'_, '_>, depth: usize) -> Result<(), VariantError> {
    if depth > MAX_DEPTH {
        return Err(VariantError::value(format!(
            "nested more than {MAX_DEPTH} deep"
        )));
    }
    // Writing to a String does not fail.
    let quoted = |out: &mut String, write: &dyn Fn(&mut String) -> std::fmt::Result| {
        out.push('"');
        let _ = write(out);
        out.push('"');
    };
    let float = |out: &mut String, v: f64| {
        if v.is_finite() {
            let _ = write!(out, "{v:?}");
        } else {
            let _ = write!(out, "\"{v}\"");
        }
    };
    match value {
        Variant::Null => out.push_str("null"),
        Variant::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
        Variant::Int8(v) => {
            let _ = write!(out, "{v}");
        }
        Variant::Int16(v) => {
            let _ = write!(out, "{v}");
        }
        Variant::Int32(v) => {
            let _ = write!(out, "{v}");
        }
        Variant::Int64(v) => {
            let _ = write!(out, "{v}");
        }
        Variant::Float(v) => float(out, f64::from(v)),
        Variant::Double(v) => float(out, v),
        Variant::Decimal4(v, scale) => write_decimal(out, v.into(), scale),
        Variant::Decimal8(v, scale) => write_decimal(out, v.into(), scale),
        Variant::Decimal16(v, scale) => write_decimal(out, v, scale),
        Variant::Date(days) => quoted(out, &|o| write_date(o, i64::from(days) * 86_400, "days")),
        Variant::TimestampMicros(v) => quoted(out, &|o| {
            write_timestamp(o, v, TimeUnit::Microsecond, Some("+00:00"))
        }),
        Variant::TimestampNanos(v) => quoted(out, &|o| {
            write_timestamp(o, v, TimeUnit::Nanosecond, Some("+00:00"))
        }),
        Variant::TimestampNtzMicros(v) => {
            quoted(out, &|o| write_timestamp(o, v, TimeUnit::Microsecond, None))
        }
        Variant::TimestampNtzNanos(v) => {
            quoted(out, &|o| write_timestamp(o, v, TimeUnit::Nanosecond, None))
        }
        Variant::Time(v) => quoted(out, &|o| write_time(o, v, TimeUnit::Microsecond)),
        Variant::Binary(bytes) => quoted(out, &|o| {
            write_base64(o, bytes);
            Ok(())
        }),
        Variant::String(text) => write_json_string(out, text),
        Variant::Uuid(bytes) => quoted(out, &|o| write_uuid(o, &bytes)),
        Variant::Object(object) => {
            out.push('{');
            for (i, field) in object.iter().enumerate() {
                let (name, value) = field?;
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, name);
                out.push(':');
                write_value(out, value, depth + 1)?;
            }
            out.push('}');
        }
        Variant::List(list) => {
            out.push('[');
            for (i, element) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, element?, depth + 1)?;
            }
            out.push(']');
        }
    }
    Ok(())
}

/// `unscaled` × 10^-`scale` in plain digits.
pub(crate) fn write_decimal(out: &mut String, unscaled: i128, scale: u8) {
    let digits = unscaled.unsigned_abs().to_string();
    if unscaled < 0 {
        out.push('-');
    }
    let scale = usize::from(scale);
    if scale == 0 {
        out.push_str(&digits);
    } else if digits.len() > scale {
        let (whole, fraction) = digits.split_at(digits.len() - scale);
        let _ = write!(out, "{whole}.{fraction}");
    } else {
        let _ = write!(out, "0.{}{digits}", "0".repeat(scale - digits.len()));
    }
}

pub(crate) fn write_uuid(out: &mut String, bytes: &[u8; 16]) -> std::fmt::Result {
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        write!(out, "{byte:02x}")?;
    }
    Ok(())
}

fn write_base64(out: &mut String, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::VariantMetadata;

    fn round_trip(text: &str) -> String {
        let (metadata, value) = json_to_variant(text).unwrap();
        let metadata = VariantMetadata::try_new(&metadata).unwrap();
        variant_to_json(Variant::try_new(metadata, &value).unwrap()).unwrap()
    }

    #[test]
    fn json_numbers_keep_their_digits() {
        assert_eq!(
            round_trip("[1, -129, 70000, 5000000000, 1.50, -0.05, 1e3, 12345678901234567890]"),
            "[1,-129,70000,5000000000,1.50,-0.05,1000.0,12345678901234567890]"
        );
        let (metadata, value) = json_to_variant("1.50").unwrap();
        let metadata = VariantMetadata::try_new(&metadata).unwrap();
        assert_eq!(
            Variant::try_new(metadata, &value).unwrap(),
            Variant::Decimal4(150, 2)
        );
    }

    #[test]
    fn objects_are_sorted_and_the_last_repeated_key_wins() {
        assert_eq!(
            round_trip(r#"{"b": {"z": null, "a": [true]}, "a": 1, "b2": "x", "a": 2}"#),
            r#"{"a":2,"b":{"a":[true],"z":null},"b2":"x"}"#
        );
        assert_eq!(round_trip("{}"), "{}");
        assert_eq!(round_trip("[]"), "[]");
        assert_eq!(round_trip(r#""é\"\n""#), r#""é\"\n""#);
    }

    #[test]
    fn types_json_lacks_are_written_as_strings() {
        let metadata = VariantMetadata::try_new(&crate::variant::EMPTY_METADATA).unwrap();
        let _ = metadata;
        for (value, expected) in [
            (Variant::Date(19_000), "\"2022-01-08\""),
            (
                Variant::TimestampMicros(1_000_001),
                "\"1970-01-01T00:00:01.000001+00:00\"",
            ),
            (
                Variant::TimestampNtzNanos(1),
                "\"1970-01-01T00:00:00.000000001\"",
            ),
            (Variant::Time(3_600_000_000), "\"01:00:00\""),
            (Variant::Binary(b"hello"), "\"aGVsbG8=\""),
            (
                Variant::Uuid([0xab; 16]),
                "\"abababab-abab-abab-abab-abababababab\"",
            ),
            (Variant::Double(f64::NAN), "\"NaN\""),
            (Variant::Float(0.5), "0.5"),
            (Variant::Decimal16(-5, 3), "-0.005"),
        ] {
            assert_eq!(variant_to_json(value).unwrap(), expected);
        }
    }

    #[test]
    fn bad_json_is_refused_with_why() {
        assert!(
            json_to_variant("{")
                .unwrap_err()
                .to_string()
                .contains("not JSON")
        );
        let deep = "[".repeat(200) + &"]".repeat(200);
        let error = json_to_variant(&deep).unwrap_err().to_string();
        assert!(error.contains("deep"), "{error}");
    }
}

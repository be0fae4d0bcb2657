//! Text to numbers, booleans, decimals, dates, times and timestamps.
//!
//! Surrounding ASCII spaces are ignored. Integers are decimal digits with an optional
//! sign; floats anything Rust's float parser takes (`1e-3`, `inf`, `NaN`); booleans
//! `true`/`false`, `t`/`f`, `yes`/`no`, `y`/`n`, `on`/`off`, `1`/`0` in any case; dates
//! `YYYY-MM-DD`; times `HH:MM[:SS[.fraction]]`; timestamps a date, optionally `T` or a
//! space and a time, optionally `Z` or an offset `±HH[:MM]`. A timestamp without an offset
//! is a wall-clock time in the target's zone (UTC if it has none). A time or timestamp
//! with a fraction its unit cannot hold does not convert.

use alkaid_array::{Array, BooleanArray};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, NativeKind, TimeUnit};

use super::decimal::{into_decimals, parse_decimal};
use super::numeric::{Number, numeric_physical, with_number};
use super::options::CastOptions;
use super::values::primitive;
use crate::calendar::days_from_civil;
use crate::error::ComputeError;
use crate::text::each_value;

/// An optional leading sign, and what follows it; `None` for empty text.
fn split_sign(text: &[u8]) -> Option<(bool, &[u8])> {
    Some(match text.first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    })
}

fn trimmed(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii()
}

/// A decimal integer with an optional sign.
pub(super) fn parse_integer(bytes: &[u8]) -> Option<i128> {
    let bytes = trimmed(bytes);
    let (negative, digits) = split_sign(bytes)?;
    if digits.is_empty() || digits.len() > 39 {
        return None;
    }
    let mut value: i128 = 0;
    for &b in digits {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_sub(i128::from(digit))?;
    }
    // Accumulated negatively, so that the most negative value parses too.
    if negative {
        Some(value)
    } else {
        value.checked_neg()
    }
}

/// A boolean word.
pub(super) fn parse_bool(bytes: &[u8]) -> Option<bool> {
    let word = trimmed(bytes);
    const TRUE: [&[u8]; 6] = [b"true", b"t", b"yes", b"y", b"on", b"1"];
    const FALSE: [&[u8]; 6] = [b"false", b"f", b"no", b"n", b"off", b"0"];
    if TRUE.iter().any(|w| w.eq_ignore_ascii_case(word)) {
        Some(true)
    } else if FALSE.iter().any(|w| w.eq_ignore_ascii_case(word)) {
        Some(false)
    } else {
        None
    }
}

/// `n` ASCII digits as a number.
fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    bytes.iter().try_fold(0u32, |v, &b| {
        v.checked_mul(10)?.checked_add(u32::from(b - b'0'))
    })
}

/// `YYYY-MM-DD` (a year of four or more digits, optionally negative) as days since
/// 1970-01-01, and the rest of the text.
fn date_prefix(text: &[u8]) -> Option<(i64, &[u8])> {
    let (negative, text) = split_sign(text)?;
    let year_end = text.iter().position(|&b| b == b'-')?;
    if year_end < 4 || text.len() < year_end + 6 || text[year_end + 3] != b'-' {
        return None;
    }
    let year = i64::from(digits(&text[..year_end])?);
    let year = if negative { -year } else { year };
    let month = digits(&text[year_end + 1..year_end + 3])?;
    let day = digits(&text[year_end + 4..year_end + 6])?;
    if !(1..=12).contains(&month) || day == 0 || day > crate::calendar::days_in_month(year, month) {
        return None;
    }
    Some((days_from_civil(year, month, day), &text[year_end + 6..]))
}

/// A whole date.
pub(super) fn parse_date(bytes: &[u8]) -> Option<i64> {
    match date_prefix(trimmed(bytes))? {
        (days, []) => Some(days),
        _ => None,
    }
}

/// `HH:MM[:SS[.fraction]]` as nanoseconds since midnight, and the rest of the text.
fn time_prefix(text: &[u8]) -> Option<(i64, &[u8])> {
    if text.len() < 5 || text[2] != b':' {
        return None;
    }
    let (hour, minute) = (digits(&text[..2])?, digits(&text[3..5])?);
    let mut rest = &text[5..];
    let mut second = 0;
    let mut nanos = 0i64;
    if rest.first() == Some(&b':') {
        second = digits(rest.get(1..3)?)?;
        rest = &rest[3..];
        if rest.first() == Some(&b'.') {
            let n = rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 || n > 9 {
                return None;
            }
            nanos = i64::from(digits(&rest[1..=n])?) * 10i64.pow(9 - n as u32);
            rest = &rest[n + 1..];
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let total = (i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second))
        * 1_000_000_000
        + nanos;
    Some((total, rest))
}

/// A whole time of day, in nanoseconds.
pub(super) fn parse_time(bytes: &[u8]) -> Option<i64> {
    match time_prefix(trimmed(bytes))? {
        (nanos, []) => Some(nanos),
        _ => None,
    }
}

/// A timestamp as nanoseconds since the epoch (as an `i128`: dates far from 1970 do not
/// fit 64 bits of nanoseconds, but may fit coarser units).
pub(super) fn parse_timestamp(bytes: &[u8], zone: Option<&jiff::tz::TimeZone>) -> Option<i128> {
    let (days, rest) = date_prefix(trimmed(bytes))?;
    let (nanos, rest) = match rest.first() {
        None => (0, rest),
        Some(b'T' | b't' | b' ') => time_prefix(&rest[1..])?,
        Some(_) => return None,
    };
    let offset_seconds: Option<i64> = match rest {
        [] => None,
        [b'Z' | b'z'] => Some(0),
        [sign @ (b'+' | b'-'), tail @ ..] => {
            let (hours, minutes) = match tail {
                [h1, h2] => (digits(&[*h1, *h2])?, 0),
                [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => {
                    (digits(&[*h1, *h2])?, digits(&[*m1, *m2])?)
                }
                _ => return None,
            };
            let seconds = i64::from(hours * 3600 + minutes * 60);
            Some(if *sign == b'-' { -seconds } else { seconds })
        }
        _ => return None,
    };
    let wall = i128::from(days) * 86_400_000_000_000 + i128::from(nanos);
    match (offset_seconds, zone) {
        (Some(offset), _) => Some(wall - i128::from(offset) * 1_000_000_000),
        (None, None) => Some(wall),
        (None, Some(zone)) => {
            let (year, month, day) = crate::calendar::civil_from_days(days);
            let time = jiff::civil::Time::new(
                (nanos / 3_600_000_000_000) as i8,
                (nanos / 60_000_000_000 % 60) as i8,
                (nanos / 1_000_000_000 % 60) as i8,
                (nanos % 1_000_000_000) as i32,
            )
            .ok()?;
            let date =
                jiff::civil::Date::new(i16::try_from(year).ok()?, month as i8, day as i8).ok()?;
            let instant = date
                .to_datetime(time)
                .to_zoned(zone.clone())
                .ok()?
                .timestamp();
            Some(instant.as_nanosecond())
        }
    }
}

/// Nanoseconds in one `unit`.
pub(super) fn nanos_per(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// Each valid row of text `data` through `parse`, as `to`: a row that does not parse is
/// null (safe) or an error naming it (strict). One pass over the values, no copy of them.
fn parse_rows<T: alkaid_buffer::NativeType>(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
    parse: impl Fn(&[u8]) -> Option<T>,
) -> Result<ArrayData, ComputeError> {
    let (values, nulls) = parse_values(data, to, options, parse)?;
    primitive(to, values.into(), nulls)
}

/// [`parse_rows`]' values and validity.
fn parse_values<T: Default + Copy>(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
    parse: impl Fn(&[u8]) -> Option<T>,
) -> Result<(Vec<T>, Option<alkaid_buffer::NullBuffer>), ComputeError> {
    let mut values = Vec::with_capacity(data.len());
    let mut failed: Vec<usize> = Vec::new();
    each_value(data, |row, value| {
        let parsed = match value {
            None => Some(T::default()),
            Some(bytes) => parse(bytes),
        };
        match parsed {
            Some(v) => values.push(v),
            None if options.safe => {
                values.push(T::default());
                failed.push(row);
            }
            None => {
                let text = String::from_utf8_lossy(value.unwrap_or_default());
                return Err(ComputeError::Cast {
                    row,
                    message: format!("{text:?} is not a {to}"),
                });
            }
        }
        Ok(())
    })?;
    let nulls = if failed.is_empty() {
        data.nulls().cloned()
    } else {
        let mut valid: Vec<bool> = (0..data.len()).map(|row| data.is_valid(row)).collect();
        for row in failed {
            valid[row] = false;
        }
        Some(alkaid_buffer::NullBuffer::from(valid))
    };
    Ok((values, nulls.filter(|n| n.null_count() > 0)))
}

/// A float from text.
fn parse_float<F: std::str::FromStr>(bytes: &[u8]) -> Option<F> {
    std::str::from_utf8(trimmed(bytes)).ok()?.parse().ok()
}

/// Text as `to`, a number, boolean, decimal or temporal type.
pub(super) fn from_text(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    match to {
        DataType::Boolean => {
            let (bits, nulls) = parse_values(data, to, options, parse_bool)?;
            Ok(BooleanArray::try_new(BooleanBuffer::from(bits), nulls)?.to_data())
        }
        DataType::Decimal(_) => {
            let values = {
                let mut out = Vec::with_capacity(data.len());
                each_value(data, |_, value| {
                    out.push(value);
                    Ok(())
                })?;
                out
            };
            into_decimals(to, data.len(), data.nulls(), options, |row| {
                let text = String::from_utf8_lossy(values[row].unwrap_or_default());
                parse_decimal(&text).ok_or_else(|| format!("{text:?} is not a {to}"))
            })
        }
        DataType::Date32 => parse_rows::<i32>(data, to, options, |v| {
            parse_date(v).and_then(|d| i32::try_from(d).ok())
        }),
        DataType::Date64 => parse_rows::<i64>(data, to, options, |v| {
            parse_date(v).and_then(|d| d.checked_mul(86_400_000))
        }),
        DataType::Time(unit) => {
            let per = nanos_per(*unit);
            let at = move |v: &[u8]| parse_time(v).filter(|n| n % per == 0).map(|n| n / per);
            match unit {
                TimeUnit::Second | TimeUnit::Millisecond => {
                    parse_rows::<i32>(data, to, options, |v| {
                        at(v).and_then(|t| i32::try_from(t).ok())
                    })
                }
                _ => parse_rows::<i64>(data, to, options, at),
            }
        }
        DataType::Timestamp(unit, zone) => {
            let zone = match zone {
                Some(name) => Some(
                    alkaid_array::display::resolve_timezone(name)
                        .map_err(|e| ComputeError::InvalidArgument(e.to_string()))?,
                ),
                None => None,
            };
            let per = i128::from(nanos_per(*unit));
            parse_rows::<i64>(data, to, options, |v| {
                // As for times: a fraction the unit cannot hold does not convert (rather
                // than losing it silently).
                parse_timestamp(v, zone.as_ref())
                    .filter(|n| n.rem_euclid(per) == 0)
                    .and_then(|n| i64::try_from(n / per).ok())
            })
        }
        _ => {
            let Some(p) = numeric_physical(to) else {
                return Err(ComputeError::unsupported(
                    "cast",
                    format!("{} to {to}", data.data_type()),
                ));
            };
            match p {
                NativeKind::Float32 => parse_rows::<f32>(data, to, options, parse_float::<f32>),
                NativeKind::Float64 => parse_rows::<f64>(data, to, options, parse_float::<f64>),
                NativeKind::Int64 => parse_rows::<i64>(data, to, options, parse_i64),
                _ => with_number!(
                    p,
                    |T| parse_rows::<T>(data, to, options, |v| {
                        if T::INTEGER {
                            parse_integer(v).and_then(T::from_integer)
                        } else {
                            parse_float::<f64>(v).and_then(T::from_float)
                        }
                    }),
                    unreachable!("numeric_physical answered")
                ),
            }
        }
    }
}

/// A decimal integer that fits `i64` (the common case, in 64-bit arithmetic).
fn parse_i64(bytes: &[u8]) -> Option<i64> {
    let bytes = trimmed(bytes);
    let (negative, digits) = split_sign(bytes)?;
    if digits.is_empty() || digits.len() > 19 {
        return parse_integer(bytes).and_then(|v| i64::try_from(v).ok());
    }
    let mut value: i64 = 0;
    for &b in digits {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_sub(i64::from(digit))?;
    }
    if negative {
        Some(value)
    } else {
        value.checked_neg()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_to_the_extremes_and_no_further() {
        assert_eq!(
            parse_integer(b" -170141183460469231731687303715884105728 "),
            Some(i128::MIN)
        );
        assert_eq!(
            parse_integer(b"170141183460469231731687303715884105727"),
            Some(i128::MAX)
        );
        assert_eq!(
            parse_integer(b"170141183460469231731687303715884105728"),
            None
        );
        assert_eq!(parse_integer(b"+12"), Some(12));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i64(b" 00000000000000000000042 "), Some(42));
        assert_eq!(parse_i64(b"4a"), None);
        for bad in [&b""[..], b"-", b"1.5", b"1 2", b"0x1f", "١".as_bytes()] {
            assert_eq!(parse_integer(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn dates_times_and_timestamps_parse_strictly() {
        assert_eq!(parse_date(b"1970-01-01"), Some(0));
        assert_eq!(parse_date(b"2024-02-29"), Some(19782));
        assert_eq!(parse_date(b"2023-02-29"), None);
        assert_eq!(
            parse_date(b"-0001-12-31"),
            Some(days_from_civil(-1, 12, 31))
        );
        assert_eq!(parse_date(b"2024-1-01"), None);
        assert_eq!(parse_time(b"23:59:59.5"), Some(86_399_500_000_000));
        assert_eq!(parse_time(b"24:00"), None);
        assert_eq!(parse_time(b"12:00:00.1234567891"), None);
        assert_eq!(
            parse_timestamp(b"1970-01-01T00:00:01Z", None),
            Some(1_000_000_000)
        );
        assert_eq!(parse_timestamp(b"1970-01-01 01:00:00+01:00", None), Some(0));
        assert_eq!(
            parse_timestamp(b"1970-01-01T00:00:00-0130", None),
            Some(5_400_000_000_000)
        );
        let paris = alkaid_array::display::resolve_timezone("Europe/Paris").unwrap();
        assert_eq!(
            parse_timestamp(b"1970-01-01T01:00:00", Some(&paris)),
            Some(0)
        );
        assert_eq!(parse_timestamp(b"1970-01-01", None), Some(0));
        assert_eq!(parse_timestamp(b"1970-01-01X", None), None);
        assert_eq!(parse_bool(b" YES "), Some(true));
        assert_eq!(parse_bool(b"off"), Some(false));
        assert_eq!(parse_bool(b"2"), None);
    }
}

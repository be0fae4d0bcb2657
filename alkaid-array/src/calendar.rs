//! Dates, times and timestamps as text, and the one resolution of a timestamp's zone.

use std::fmt::{self, Write};

use alkaid_schema::TimeUnit;

use crate::ArrayError;

pub(crate) fn write_date(out: &mut String, seconds: i64, unit: &str) -> fmt::Result {
    // Counted in civil days, not through an instant: jiff's instants end a day before its
    // dates do (9999-12-31 is a date but not a UTC midnight it can hold).
    match civil_date(seconds.div_euclid(86_400)) {
        Some(date) => write!(out, "{date}"),
        None => write!(out, "{seconds}s ({unit})"),
    }
}

/// The civil date `days` after 1970-01-01, if jiff's dates (years -9999 to 9999) hold it.
fn civil_date(days: i64) -> Option<jiff::civil::Date> {
    let span = jiff::Span::new().try_days(days).ok()?;
    jiff::civil::date(1970, 1, 1).checked_add(span).ok()
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

pub(crate) fn write_time(out: &mut String, raw: i64, unit: TimeUnit) -> fmt::Result {
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

pub(crate) fn write_timestamp(
    out: &mut String,
    raw: i64,
    unit: TimeUnit,
    timezone: Option<&str>,
) -> fmt::Result {
    let Some(name) = timezone else {
        // No timezone: a wall-clock time, printed without an offset, and counted in civil
        // days as dates are (jiff's instants end a day before its dates do).
        return match wall_clock(raw, unit) {
            Some(datetime) => write!(out, "{datetime}"),
            None => write!(out, "{raw}{}", unit.abbreviation()),
        };
    };
    let Some(ts) = nanoseconds(raw, unit).and_then(|ns| jiff::Timestamp::from_nanosecond(ns).ok())
    else {
        return write!(out, "{raw}{}", unit.abbreviation());
    };
    match resolve_timezone(name) {
        Ok(tz) => write!(
            out,
            "{}",
            ts.to_zoned(tz).strftime("%Y-%m-%dT%H:%M:%S%.f%:z")
        ),
        // An unknown zone (or a named one without the `tz` feature): UTC, and the name as
        // written.
        Err(_) => write!(
            out,
            "{}Z [{name}]",
            ts.to_zoned(jiff::tz::TimeZone::UTC).datetime()
        ),
    }
}

/// The instant `raw` (in `unit` since the epoch) as ISO 8601 in the fixed offset of
/// `minutes` east of UTC, with the fraction `unit` holds:
/// `2024-05-01T12:30:00.250+02:00`. Outside jiff's years, the raw count and the offset.
pub(crate) fn write_with_offset(
    out: &mut String,
    raw: i64,
    unit: TimeUnit,
    minutes: i16,
) -> fmt::Result {
    let local = jiff::tz::Offset::from_seconds(i32::from(minutes) * 60)
        .ok()
        .zip(nanoseconds(raw, unit).and_then(|ns| jiff::Timestamp::from_nanosecond(ns).ok()))
        .map(|(offset, ts)| ts.to_zoned(jiff::tz::TimeZone::fixed(offset)));
    let Some(local) = local else {
        return write!(out, "{raw}{} ({minutes:+} min)", unit.abbreviation());
    };
    let pattern = match unit {
        TimeUnit::Second => "%Y-%m-%dT%H:%M:%S%:z",
        TimeUnit::Millisecond => "%Y-%m-%dT%H:%M:%S%.3f%:z",
        TimeUnit::Microsecond => "%Y-%m-%dT%H:%M:%S%.6f%:z",
        TimeUnit::Nanosecond => "%Y-%m-%dT%H:%M:%S%.9f%:z",
    };
    write!(out, "{}", local.strftime(pattern))
}

/// The civil date and time `raw` (in `unit`) after the epoch's midnight, if jiff's dates
/// (years -9999 to 9999) hold it.
fn wall_clock(raw: i64, unit: TimeUnit) -> Option<jiff::civil::DateTime> {
    const DAY: i128 = 86_400_000_000_000;
    let ns = nanoseconds(raw, unit)?;
    let days = i64::try_from(ns.div_euclid(DAY)).ok()?;
    let time_of_day = i64::try_from(ns.rem_euclid(DAY)).ok()?;
    let date = civil_date(days)?;
    let time = jiff::civil::Time::MIN
        .checked_add(jiff::SignedDuration::from_nanos(time_of_day))
        .ok()?;
    Some(date.to_datetime(time))
}

/// A timezone from an IANA name (`Europe/Paris`), `UTC`, or a fixed offset such as `+05:30`,
/// as the format allows in a timestamp's type. Display and the compute kernels' calendar
/// arithmetic read zones through this one function.
///
/// IANA names need the time-zone database, which the `tz` feature (on by default) brings:
/// the system's, else one compiled in. Without it, `UTC` and fixed offsets still resolve.
///
/// # Errors
/// [`ArrayError::Timezone`] for a name that is none of these, or a named zone in a build
/// without the `tz` feature (the message says which).
///
/// ```
/// use alkaid_array::display::resolve_timezone;
/// assert!(resolve_timezone("-03:30").is_ok());
/// assert!(resolve_timezone("UTC").is_ok());
/// assert!(resolve_timezone("Mars/Olympus").is_err());
/// # #[cfg(feature = "tz")]
/// assert!(resolve_timezone("Asia/Kolkata").is_ok());
/// ```
pub fn resolve_timezone(name: &str) -> Result<jiff::tz::TimeZone, ArrayError> {
    if name == "UTC" {
        return Ok(jiff::tz::TimeZone::UTC);
    }
    if let Some(offset) = fixed_offset(name) {
        return Ok(jiff::tz::TimeZone::fixed(offset));
    }
    let unknown = |reason: &str| ArrayError::Timezone {
        name: name.to_string(),
        reason: reason.to_string(),
    };
    if cfg!(feature = "tz") {
        jiff::tz::TimeZone::get(name).map_err(|_| {
            unknown("neither a zone of the IANA database nor an offset such as +01:00")
        })
    } else {
        Err(unknown(
            "IANA zone names need alkaid-array's `tz` feature (the time-zone database), which \
             this build leaves out; UTC and offsets such as +01:00 work without it",
        ))
    }
}

/// `+hh:mm`, `-hh:mm`, `+hh` or `-hh` as an offset.
fn fixed_offset(name: &str) -> Option<jiff::tz::Offset> {
    let (sign, rest) = match name.as_bytes().first()? {
        b'+' => (1, &name[1..]),
        b'-' => (-1, &name[1..]),
        _ => return None,
    };
    let (hours, minutes) = rest.split_once(':').unwrap_or((rest, "0"));
    let seconds = sign * (hours.parse::<i32>().ok()? * 3600 + minutes.parse::<i32>().ok()? * 60);
    jiff::tz::Offset::from_seconds(seconds).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn wall_clock_timestamps_reach_the_ends_of_the_calendar() {
        let shown = |raw: i64, unit: TimeUnit| {
            let mut out = String::new();
            write_timestamp(&mut out, raw, unit, None).unwrap();
            out
        };
        // Spark's 9999-12-31T01:00-02:00, past the last instant jiff holds.
        let last_day = 253_402_225_200_000_000;
        assert_eq!(
            shown(last_day, TimeUnit::Microsecond),
            "9999-12-31T03:00:00"
        );
        assert_eq!(
            shown(-1, TimeUnit::Nanosecond),
            "1969-12-31T23:59:59.999999999"
        );
        assert_eq!(
            shown(1_704_141_296_123_456, TimeUnit::Microsecond),
            "2024-01-01T20:34:56.123456"
        );
        // Year 290000: beyond the calendar, the number and its unit.
        let far = 9_089_380_393_200_000_000;
        assert_eq!(shown(far, TimeUnit::Microsecond), "9089380393200000000us");
        assert_eq!(shown(i64::MIN, TimeUnit::Second), format!("{}s", i64::MIN));
    }

    #[test]
    fn timezones_from_names_and_offsets() {
        assert_eq!(resolve_timezone("Asia/Tokyo").is_ok(), cfg!(feature = "tz"));
        assert!(resolve_timezone("+05:30").is_ok());
        assert!(resolve_timezone("-07").is_ok());
        assert!(resolve_timezone("UTC").is_ok());
        let unknown = resolve_timezone("Mars/Olympus").unwrap_err().to_string();
        assert!(unknown.contains("\"Mars/Olympus\""), "{unknown}");
        if !cfg!(feature = "tz") {
            let named = resolve_timezone("Europe/Paris").unwrap_err().to_string();
            assert!(named.contains("`tz` feature"), "{named}");
        }
        assert!(resolve_timezone("+99:00").is_err());
        assert!(resolve_timezone("").is_err());
    }

    #[test]
    fn timestamps_in_zones_print_with_their_offset_or_as_utc_with_the_name() {
        let shown = |zone: &str| {
            let mut out = String::new();
            write_timestamp(&mut out, 1_700_000_000, TimeUnit::Second, Some(zone)).unwrap();
            out
        };
        assert_eq!(shown("+01:00"), "2023-11-14T23:13:20+01:00");
        assert_eq!(shown("UTC"), "2023-11-14T22:13:20+00:00");
        assert_eq!(shown("Mars/Olympus"), "2023-11-14T22:13:20Z [Mars/Olympus]");
        let paris = if cfg!(feature = "tz") {
            "2023-11-14T23:13:20+01:00"
        } else {
            "2023-11-14T22:13:20Z [Europe/Paris]"
        };
        assert_eq!(shown("Europe/Paris"), paris);
    }
}

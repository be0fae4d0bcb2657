//! [`strftime`] and [`strptime`]: temporal values as text by a `strftime`-style pattern,
//! and text read by one (jiff's `strtime`: `%Y-%m-%d %H:%M:%S%.f %z` and the rest of
//! C's conversions).

use alkaid_array::{Array, ArrayRef, Int64Array, make_array};
use alkaid_schema::{DataType, TimeUnit};

use super::{Kind, NANOS_PER_DAY, Temporal};
use crate::error::ComputeError;
use crate::text::{TextWriter, check_input, each_value};

/// Each value written by `pattern` (`%Y-%m-%dT%H:%M:%S`, …) as `Utf8`: a timestamp with a
/// zone in its local time (so `%z` and `%Z` write its offset and zone), one without as
/// UTC, a date at midnight, a time on no date.
///
/// # Errors
/// If the input is not temporal, or a value cannot be written by the pattern (`%z` of a
/// time, an unknown conversion), naming the row.
///
/// ```
/// use alkaid_array::{AsArray, Date32Array};
/// let days = Date32Array::from(vec![Some(20_785), None]);
/// let text = alkaid_compute::strftime(&days, "%A %-d %B %Y")?;
/// assert_eq!(text.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("Saturday 28 November 2026"), None]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn strftime(array: &dyn Array, pattern: &str) -> Result<ArrayRef, ComputeError> {
    let input = Temporal::of("strftime", array)?;
    let zone = input.time_zone();
    let mut writer = TextWriter::like(&DataType::Utf8, input.len(), input.len() * pattern.len());
    for row in 0..input.len() {
        if !input.is_valid(row) {
            writer.push(row, None)?;
            continue;
        }
        let failed = |e: &dyn std::fmt::Display| {
            ComputeError::InvalidArgument(format!("strftime: row {row} by {pattern:?}: {e}"))
        };
        let text = match (input.kind, &zone) {
            (Kind::Time, _) => {
                let nanos = input.nanos(row).rem_euclid(i128::from(NANOS_PER_DAY)) as i64;
                let time = jiff::civil::Time::MIN
                    .checked_add(jiff::SignedDuration::from_nanos(nanos))
                    .map_err(|e| failed(&e))?;
                jiff::fmt::strtime::format(pattern, time)
            }
            (_, zone) => {
                let instant =
                    jiff::Timestamp::from_nanosecond(input.nanos(row)).map_err(|e| failed(&e))?;
                match zone {
                    Some(zone) => {
                        jiff::fmt::strtime::format(pattern, &instant.to_zoned(zone.clone()))
                    }
                    None => jiff::fmt::strtime::format(
                        pattern,
                        instant.to_zoned(jiff::tz::TimeZone::UTC).datetime(),
                    ),
                }
            }
        };
        let text = text.map_err(|e| failed(&e))?;
        writer.push(row, Some(text.as_bytes()))?;
    }
    Ok(make_array(writer.finish(DataType::Utf8)?))
}

/// Each text value read by `pattern` as a timestamp of `unit` without a zone: an instant
/// if the pattern reads an offset (`%z`), else the local date and time read as UTC. A value
/// that does not match is null if `safe`, else an error naming the row.
///
/// # Errors
/// If the input is not text, a value does not match and `safe` is false, or a time is
/// outside the unit's range.
///
/// ```
/// use alkaid_array::{AsArray, StringArray, types::TimestampSecondType};
/// use alkaid_schema::TimeUnit;
/// let text = StringArray::from(vec!["28/11/2026 09:30 +0100", "soon"]);
/// let stamps = alkaid_compute::strptime(&text, "%d/%m/%Y %H:%M %z", TimeUnit::Second, true)?;
/// let stamps = stamps.as_primitive::<TimestampSecondType>();
/// assert_eq!(stamps.iter().collect::<Vec<_>>(), [Some(1_795_854_600), None]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn strptime(
    array: &dyn Array,
    pattern: &str,
    unit: TimeUnit,
    safe: bool,
) -> Result<ArrayRef, ComputeError> {
    let data = crate::encoding::decoded(&array.to_data())?;
    check_input("strptime", &data, false)?;
    let mut values: Vec<Option<i64>> = Vec::with_capacity(data.len());
    let mut failure = None;
    each_value(&data, |row, value| {
        let parsed = value.map(|v| read(v, pattern, unit));
        match parsed {
            None => values.push(None),
            Some(Ok(n)) => values.push(Some(n)),
            Some(Err(_)) if safe => values.push(None),
            Some(Err(e)) => {
                failure.get_or_insert(ComputeError::Cast {
                    row,
                    message: format!(
                        "{:?} does not match {pattern:?}: {e}",
                        String::from_utf8_lossy(value.unwrap_or_default())
                    ),
                });
                values.push(None)
            }
        }
        Ok(())
    })?;
    if let Some(failure) = failure {
        return Err(failure);
    }
    let ints = Int64Array::from(values).to_data();
    let stamps = alkaid_data::ArrayData::builder(DataType::Timestamp(unit, None))
        .len(ints.len())
        .nulls(ints.nulls().cloned())
        .buffers(ints.buffers().to_vec())
        .build()?;
    Ok(make_array(stamps))
}

/// One value read by `pattern`, as `unit`s since the epoch.
fn read(value: &[u8], pattern: &str, unit: TimeUnit) -> Result<i64, String> {
    let broken = jiff::fmt::strtime::parse(pattern, value).map_err(|e| e.to_string())?;
    let instant = match broken.offset() {
        Some(_) => broken.to_timestamp().map_err(|e| e.to_string())?,
        None => {
            let civil = broken.to_datetime().map_err(|e| e.to_string())?;
            civil
                .to_zoned(jiff::tz::TimeZone::UTC)
                .map_err(|e| e.to_string())?
                .timestamp()
        }
    };
    match unit {
        TimeUnit::Second => Ok(instant.as_second()),
        TimeUnit::Millisecond => Ok(instant.as_millisecond()),
        TimeUnit::Microsecond => Ok(instant.as_microsecond()),
        TimeUnit::Nanosecond => i64::try_from(instant.as_nanosecond())
            .map_err(|_| "outside a nanosecond timestamp's range (1677 to 2262)".into()),
    }
}

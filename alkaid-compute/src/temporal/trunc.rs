//! [`date_trunc`] and [`date_bin`]: values moved down to the start of their unit or bin.

use alkaid_array::{Array, ArrayRef, make_array};
use alkaid_buffer::Buffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, TimeUnit};

use super::{Kind, NANOS_PER_DAY, Temporal};
use crate::calendar::nanos_per;
use crate::calendar::{civil_from_days, days_from_civil};
use crate::error::ComputeError;

/// A unit to truncate to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DateUnit {
    /// January 1.
    Year,
    /// The first day of January, April, July or October.
    Quarter,
    /// The first day of the month.
    Month,
    /// The Monday the week starts on (ISO 8601).
    Week,
    /// Midnight.
    Day,
    /// The hour.
    Hour,
    /// The minute.
    Minute,
    /// The second.
    Second,
    /// The millisecond.
    Millisecond,
    /// The microsecond.
    Microsecond,
}

impl DateUnit {
    /// The length of a unit of a day or less, in nanoseconds.
    fn within_day(self) -> Option<i64> {
        match self {
            Self::Hour => Some(3_600_000_000_000),
            Self::Minute => Some(60_000_000_000),
            Self::Second => Some(1_000_000_000),
            Self::Millisecond => Some(1_000_000),
            Self::Microsecond => Some(1_000),
            Self::Day => Some(NANOS_PER_DAY),
            _ => None,
        }
    }

    /// Local `(days, nanos)` truncated to this unit.
    fn truncate(self, days: i64, nanos: i64) -> (i64, i64) {
        if let Some(unit) = self.within_day() {
            return (days, nanos - nanos % unit);
        }
        let (year, month, _) = civil_from_days(days);
        let start = match self {
            Self::Year => days_from_civil(year, 1, 1),
            Self::Quarter => days_from_civil(year, (month - 1) / 3 * 3 + 1, 1),
            Self::Month => days_from_civil(year, month, 1),
            _ => days - (days + 3).rem_euclid(7),
        };
        (start, 0)
    }
}

/// Each value moved down to the start of its `unit` (the input's type): a timestamp
/// with a zone in its local time. A date truncated to a unit shorter than a day, or a
/// time to one longer, is unchanged.
///
/// # Errors
/// If the input is not temporal, the zone is unknown, or a truncated value leaves its
/// type's range (naming the row).
///
/// ```
/// use alkaid_array::{AsArray, Date32Array, types::Date32Type};
/// use alkaid_compute::{DateUnit, date_trunc};
/// // 2026-11-28 (day 20_785) to its month, quarter and ISO week.
/// let days = Date32Array::from(vec![20_785]);
/// let first = |unit| date_trunc(&days, unit).map(|a| a.as_primitive::<Date32Type>().value(0));
/// assert_eq!(first(DateUnit::Month)?, 20_758); // 2026-11-01
/// assert_eq!(first(DateUnit::Quarter)?, 20_727); // 2026-10-01
/// assert_eq!(first(DateUnit::Week)?, 20_780); // Monday 2026-11-23
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn date_trunc(array: &dyn Array, unit: DateUnit) -> Result<ArrayRef, ComputeError> {
    let input = Temporal::of("date_trunc", array)?;
    let zone = input.time_zone();
    let moved = (0..input.len()).map(|row| {
        if !input.is_valid(row) {
            return Some(input.nanos(row));
        }
        let (days, nanos) = input.local(row);
        let (days, nanos) = match input.kind {
            Kind::Time if unit.within_day().is_none() || unit == DateUnit::Day => (0, 0),
            _ => unit.truncate(days, nanos),
        };
        let local = i128::from(days) * i128::from(NANOS_PER_DAY) + i128::from(nanos);
        match &zone {
            Some(zone) => to_utc(zone, local),
            None => Some(local),
        }
    });
    rebuild(&input, "date_trunc", moved)
}

/// The instant of local nanoseconds `local` in `zone` (jiff's `compatible` rule for
/// skipped and repeated local times).
fn to_utc(zone: &jiff::tz::TimeZone, local: i128) -> Option<i128> {
    let seconds = i64::try_from(local.div_euclid(1_000_000_000)).ok()?;
    let subsecond = local.rem_euclid(1_000_000_000) as i32;
    let civil = jiff::Timestamp::new(seconds, subsecond)
        .ok()?
        .to_zoned(jiff::tz::TimeZone::UTC)
        .datetime();
    let instant = zone.to_ambiguous_timestamp(civil).compatible().ok()?;
    Some(instant.as_nanosecond())
}

/// Each value moved down to the start of its bin: bins of `stride` (a positive duration)
/// laid from `origin` (both as the input's unit, like its values), as PostgreSQL's
/// `date_bin`; on the stored instants, so a zone's offset does not move the bins.
/// Timestamps only.
///
/// # Errors
/// If the input is not a timestamp, `stride` is not positive, or a bin's start leaves the
/// type's range (naming the row).
///
/// ```
/// use alkaid_array::{AsArray, TimestampSecondArray, types::TimestampSecondType};
/// use alkaid_compute::date_bin;
/// // Fifteen-minute bins from the epoch.
/// let stamps = TimestampSecondArray::from(vec![1_000, 3_599, -1]);
/// let bins = date_bin(&stamps, 900, 0)?;
/// assert_eq!(bins.as_primitive::<TimestampSecondType>().values().as_slice(), &[900, 2_700, -900]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn date_bin(array: &dyn Array, stride: i64, origin: i64) -> Result<ArrayRef, ComputeError> {
    let input = Temporal::of("date_bin", array)?;
    let DataType::Timestamp(unit, _) = input.data.data_type() else {
        return Err(ComputeError::unsupported(
            "date_bin",
            format!("expected a timestamp, found {}", input.data.data_type()),
        ));
    };
    if stride <= 0 {
        return Err(ComputeError::InvalidArgument(format!(
            "date_bin: the stride must be positive, found {stride}"
        )));
    }
    let scale = i128::from(nanos_per(*unit));
    let (stride, origin) = (i128::from(stride) * scale, i128::from(origin) * scale);
    let moved = (0..input.len()).map(|row| {
        let value = input.nanos(row);
        Some(origin + (value - origin).div_euclid(stride) * stride)
    });
    rebuild(&input, "date_bin", moved)
}

/// The values `nanos` (UTC, or since midnight) stored back in the input's type and unit.
fn rebuild(
    input: &Temporal,
    kernel: &'static str,
    nanos: impl Iterator<Item = Option<i128>>,
) -> Result<ArrayRef, ComputeError> {
    let data_type = input.data.data_type().clone();
    let overflow = |row: usize| ComputeError::Overflow {
        row: Some(row),
        message: format!("{kernel}: the result is outside {data_type}"),
    };
    let scale = i128::from(match &data_type {
        DataType::Date32 => NANOS_PER_DAY,
        DataType::Date64 => 1_000_000,
        DataType::Time(unit) | DataType::Timestamp(unit, _) => nanos_per(*unit),
        _ => unreachable!("Temporal::of took only temporal types"),
    });
    let mut wide: Vec<i64> = Vec::with_capacity(input.len());
    for (row, value) in nanos.enumerate() {
        let stored = value
            .map(|v| v.div_euclid(scale))
            .and_then(|v| i64::try_from(v).ok());
        match stored {
            Some(v) => wide.push(v),
            None if !input.is_valid(row) => wide.push(0),
            None => return Err(overflow(row)),
        }
    }
    let values = match &data_type {
        DataType::Date32 | DataType::Time(TimeUnit::Second | TimeUnit::Millisecond) => {
            let mut narrow = Vec::with_capacity(wide.len());
            for (row, &v) in wide.iter().enumerate() {
                match i32::try_from(v) {
                    Ok(v) => narrow.push(v),
                    Err(_) if !input.is_valid(row) => narrow.push(0),
                    Err(_) => return Err(overflow(row)),
                }
            }
            Buffer::from_vec(narrow)
        }
        _ => Buffer::from_vec(wide),
    };
    let data = ArrayData::builder(data_type)
        .len(input.len())
        .nulls(input.data.nulls().cloned())
        .buffers(vec![values])
        .build()?;
    Ok(make_array(data))
}

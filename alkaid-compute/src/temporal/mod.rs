//! Temporal kernels: fields of dates, times and timestamps ([`extract`]), truncation to a
//! unit ([`date_trunc`]) and to fixed-width bins ([`date_bin`]), and text by a
//! `strftime`-style pattern both ways ([`strftime`], [`strptime`]); and the values of
//! `arrow.timestamp_with_offset` made from zoned timestamps and back
//! ([`timestamps_with_offset`], [`zoned_timestamps`]) and written with their offsets
//! ([`with_offset_text`]).
//!
//! A timestamp with a zone is taken apart in that zone's local time, daylight-saving
//! changes included (an IANA zone needs alkaid-array's `tz` feature, on by default; UTC and
//! fixed offsets work without it); one without a zone is read as UTC. Dates are midnight.
//! Truncating a zoned timestamp truncates its local time, and a local time a
//! daylight-saving change skips or repeats is resolved as jiff's `compatible` rule does
//! (a skipped time moves forward by the gap; a repeated one takes its first instant).
//! Every kernel keeps the input's nulls; dictionaries and runs are decoded first. Beyond
//! the years −9999 to 9999 (jiff's range) a named zone's offset is taken as UTC's.

mod fields;
mod format;
mod trunc;
mod with_offset;

pub use fields::{DatePart, extract};
pub use format::{strftime, strptime};
pub use trunc::{DateUnit, date_bin, date_trunc};
pub use with_offset::{timestamps_with_offset, with_offset_text, zoned_timestamps};

use alkaid_array::Array;
use alkaid_array::display::resolve_timezone;
use alkaid_buffer::ScalarBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, TimeUnit};

use crate::access::native_values;
use crate::calendar::nanos_per;
use crate::encoding::decoded;
use crate::error::ComputeError;

pub(crate) const NANOS_PER_DAY: i64 = 86_400_000_000_000;

/// What kind of temporal values an input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Dates: days (or milliseconds, `Date64`) since the epoch.
    Date,
    /// Times of day.
    Time,
    /// Instants.
    Timestamp,
}

/// A zone as the kernels use it: a fixed offset is read once, a named zone per value.
enum Zone {
    Fixed(i64),
    Named(jiff::tz::TimeZone),
}

/// A temporal input: each row's stored value (days, milliseconds, or the unit's count
/// since the epoch or midnight), how many nanoseconds one stands for, and the zone its
/// local time is read in.
struct Temporal {
    data: ArrayData,
    kind: Kind,
    /// The stored values (32-bit ones widened).
    values: ScalarBuffer<i64>,
    /// Nanoseconds per stored unit; it divides a day.
    scale: i64,
    zone: Option<Zone>,
}

impl Temporal {
    fn of(kernel: &'static str, array: &dyn Array) -> Result<Self, ComputeError> {
        let data = decoded(&array.to_data())?;
        let read32 = || -> Result<ScalarBuffer<i64>, ComputeError> {
            let values = native_values::<i32>(&data)?;
            Ok(ScalarBuffer::from(
                values.iter().map(|&v| i64::from(v)).collect::<Vec<i64>>(),
            ))
        };
        // 64-bit values as they are stored: no copy.
        let read64 = || native_values::<i64>(&data);
        let (kind, values, scale, zone) = match data.data_type() {
            DataType::Date32 => (Kind::Date, read32()?, NANOS_PER_DAY, None),
            DataType::Date64 => (Kind::Date, read64()?, 1_000_000, None),
            DataType::Time(unit @ (TimeUnit::Second | TimeUnit::Millisecond)) => {
                (Kind::Time, read32()?, nanos_per(*unit), None)
            }
            DataType::Time(unit) => (Kind::Time, read64()?, nanos_per(*unit), None),
            DataType::Timestamp(unit, zone) => {
                let zone = zone.as_deref().map(resolve_timezone).transpose()?;
                let zone = zone.map(|zone| match zone.to_fixed_offset() {
                    Ok(fixed) => Zone::Fixed(i64::from(fixed.seconds())),
                    Err(_) => Zone::Named(zone),
                });
                (Kind::Timestamp, read64()?, nanos_per(*unit), zone)
            }
            other => {
                return Err(ComputeError::unsupported(
                    kernel,
                    format!("expected a date, time or timestamp, found {other}"),
                ));
            }
        };
        Ok(Self {
            data,
            kind,
            values,
            scale,
            zone,
        })
    }

    /// Row `row` as nanoseconds since the epoch (UTC) or since midnight.
    fn nanos(&self, row: usize) -> i128 {
        i128::from(self.values[row]) * i128::from(self.scale)
    }

    /// The zone's offset at row `row`'s instant, in stored units.
    #[inline]
    fn offset_units(&self, row: usize) -> i64 {
        let per_second = (1_000_000_000 / self.scale).max(1);
        let seconds = match &self.zone {
            None => return 0,
            Some(Zone::Fixed(seconds)) => *seconds,
            Some(Zone::Named(zone)) => {
                let instant = jiff::Timestamp::from_second(self.values[row].div_euclid(per_second));
                instant.map_or(0, |t| i64::from(zone.to_offset(t).seconds()))
            }
        };
        seconds * per_second
    }

    /// Row `row` as local (days since the epoch, nanoseconds into the day).
    #[inline]
    fn local(&self, row: usize) -> (i64, i64) {
        local_at(self.values[row], self.offset_units(row), self.scale)
    }

    /// The zone's offset in stored units, if it is the same at every instant (no zone, or
    /// a fixed offset).
    fn fixed_offset(&self) -> Option<i64> {
        match &self.zone {
            Some(Zone::Named(_)) => None,
            _ => Some(self.offset_units(0)),
        }
    }

    /// The zone to read local times in, for the kernels that need jiff's.
    fn time_zone(&self) -> Option<jiff::tz::TimeZone> {
        match &self.zone {
            None => None,
            Some(Zone::Fixed(seconds)) => jiff::tz::Offset::from_seconds(*seconds as i32)
                .ok()
                .map(jiff::tz::TimeZone::fixed),
            Some(Zone::Named(zone)) => Some(zone.clone()),
        }
    }

    fn is_valid(&self, row: usize) -> bool {
        self.data.is_valid(row)
    }

    fn len(&self) -> usize {
        self.values.len()
    }
}

/// A stored `value` (`scale` nanoseconds each) read at `offset` (stored units) as local
/// (days since the epoch, nanoseconds into the day). Inlined into loops where `scale` is a
/// constant.
#[inline(always)]
fn local_at(value: i64, offset: i64, scale: i64) -> (i64, i64) {
    let per_day = NANOS_PER_DAY / scale;
    match value.checked_add(offset) {
        Some(local) => (local.div_euclid(per_day), local.rem_euclid(per_day) * scale),
        // Within an offset of i64's ends: in 128 bits (|local| < 2^64, so the day count
        // fits i64 and the rest is below a day).
        None => {
            let local = i128::from(value) + i128::from(offset);
            let per_day = i128::from(per_day);
            (
                local.div_euclid(per_day) as i64,
                local.rem_euclid(per_day) as i64 * scale,
            )
        }
    }
}

#[cfg(test)]
mod tests;

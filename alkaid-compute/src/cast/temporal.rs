//! Temporal values to other temporal types: timestamps between units and zones (the
//! instant is kept; the zone is how it is shown), timestamps to dates (the date in the
//! timestamp's zone), dates to timestamps (midnight in the target's zone), dates between
//! days and milliseconds, and times and durations between units. Finer to coarser units
//! round toward negative infinity (the instant's second, not the nearest one).

use alkaid_data::ArrayData;
use alkaid_schema::{DataType, TimeUnit};

use super::options::CastOptions;
use super::parse::nanos_per;
use super::values::convert_rows;
use crate::access::native_values;
use crate::calendar::{civil_from_days, days_from_civil};
use crate::error::ComputeError;

/// Whether [`temporal`] converts `from` to `to`.
pub(super) fn converts(from: &DataType, to: &DataType) -> bool {
    use DataType as D;
    matches!(
        (from, to),
        (D::Timestamp(..), D::Timestamp(..) | D::Date32 | D::Date64)
            | (
                D::Date32 | D::Date64,
                D::Timestamp(..) | D::Date32 | D::Date64
            )
            | (D::Time(_), D::Time(_))
            | (D::Duration(_), D::Duration(_))
    )
}

/// The zone of a timestamp type, resolved.
fn zone_of(data_type: &DataType) -> Result<Option<jiff::tz::TimeZone>, ComputeError> {
    match data_type {
        DataType::Timestamp(_, Some(name)) => alkaid_array::display::resolve_timezone(name)
            .map(Some)
            .map_err(|e| ComputeError::InvalidArgument(e.to_string())),
        _ => Ok(None),
    }
}

/// `value` in `from` units as `to` units (floor when coarser); `None` on overflow.
fn rescale(value: i64, from: TimeUnit, to: TimeUnit) -> Option<i64> {
    let (f, t) = (nanos_per(from), nanos_per(to));
    if f >= t {
        value.checked_mul(f / t)
    } else {
        Some(value.div_euclid(t / f))
    }
}

/// Every value of `data` as nanoseconds since the epoch (timestamps) or midnight days
/// (dates) as days since the epoch: the values as `i64`s.
fn values_i64(data: &ArrayData) -> Result<Vec<i64>, ComputeError> {
    Ok(match data.data_type() {
        DataType::Date32 | DataType::Time(TimeUnit::Second | TimeUnit::Millisecond) => {
            native_values::<i32>(data)?
                .iter()
                .map(|&v| i64::from(v))
                .collect()
        }
        _ => native_values::<i64>(data)?.to_vec(),
    })
}

/// The days since the epoch of an instant (nanoseconds) in `zone` (UTC if none).
fn local_days(nanos: i128, zone: Option<&jiff::tz::TimeZone>) -> Option<i64> {
    match zone {
        None => i64::try_from(nanos.div_euclid(86_400_000_000_000)).ok(),
        Some(zone) => {
            let instant = jiff::Timestamp::from_nanosecond(nanos).ok()?;
            let date = instant.to_zoned(zone.clone()).date();
            Some(days_from_civil(
                i64::from(date.year()),
                date.month() as u32,
                date.day() as u32,
            ))
        }
    }
}

/// The instant (nanoseconds) of midnight starting day `days` in `zone` (UTC if none).
fn midnight(days: i64, zone: Option<&jiff::tz::TimeZone>) -> Option<i128> {
    match zone {
        None => Some(i128::from(days) * 86_400_000_000_000),
        Some(zone) => {
            let (year, month, day) = civil_from_days(days);
            let date =
                jiff::civil::Date::new(i16::try_from(year).ok()?, month as i8, day as i8).ok()?;
            Some(
                date.to_zoned(zone.clone())
                    .ok()?
                    .timestamp()
                    .as_nanosecond(),
            )
        }
    }
}

/// `data` (temporal) as `to` (temporal, [`converts`]).
pub(super) fn temporal(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    use DataType as D;
    let from = data.data_type();
    let values = values_i64(data)?;
    let (len, nulls) = (data.len(), data.nulls());
    let fail = |row: usize| format!("{from} value {} does not fit {to}", values[row]);
    let (from_zone, to_zone) = (zone_of(from)?, zone_of(to)?);
    // Dates and timestamps as instants in nanoseconds (i128: no overflow on the way).
    let instant = |row: usize| -> Option<i128> {
        let v = values[row];
        match from {
            D::Timestamp(unit, _) => Some(i128::from(v) * i128::from(nanos_per(*unit))),
            D::Date32 => midnight(v, to_zone.as_ref()),
            D::Date64 => midnight(v.div_euclid(86_400_000), to_zone.as_ref()),
            _ => None,
        }
    };
    match (from, to) {
        (D::Time(a), D::Time(b)) | (D::Duration(a), D::Duration(b)) => {
            let (a, b) = (*a, *b);
            match to {
                D::Time(TimeUnit::Second | TimeUnit::Millisecond) => {
                    convert_rows::<i32>(to, len, nulls, options, |row| {
                        rescale(values[row], a, b)
                            .and_then(|v| i32::try_from(v).ok())
                            .ok_or_else(|| fail(row))
                    })
                }
                _ => convert_rows::<i64>(to, len, nulls, options, |row| {
                    rescale(values[row], a, b).ok_or_else(|| fail(row))
                }),
            }
        }
        (_, D::Date32 | D::Date64) => {
            let days = |row: usize| -> Option<i64> {
                match from {
                    D::Date32 => Some(values[row]),
                    D::Date64 => Some(values[row].div_euclid(86_400_000)),
                    _ => local_days(instant(row)?, from_zone.as_ref()),
                }
            };
            match to {
                D::Date32 => convert_rows::<i32>(to, len, nulls, options, |row| {
                    days(row)
                        .and_then(|d| i32::try_from(d).ok())
                        .ok_or_else(|| fail(row))
                }),
                _ => convert_rows::<i64>(to, len, nulls, options, |row| {
                    days(row)
                        .and_then(|d| d.checked_mul(86_400_000))
                        .ok_or_else(|| fail(row))
                }),
            }
        }
        (_, D::Timestamp(unit, _)) => {
            let per = i128::from(nanos_per(*unit));
            convert_rows::<i64>(to, len, nulls, options, |row| {
                instant(row)
                    .and_then(|n| i64::try_from(n.div_euclid(per)).ok())
                    .ok_or_else(|| fail(row))
            })
        }
        _ => Err(ComputeError::unsupported("cast", format!("{from} to {to}"))),
    }
}

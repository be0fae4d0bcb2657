//! Temporal arithmetic (rules in the [module docs](super)): differences of instants and
//! dates, instants moved by durations (in the finer of the two units), and dates and
//! instants moved by calendar intervals.

use alkaid_array::display::resolve_timezone;
use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano};
use alkaid_buffer::{Buffer, NativeType};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, IntervalUnit, TimeUnit};

use super::kernel::{Side, try_binary, try_unary};
use super::op::{ArithOp, Job};
use crate::access::native_values;
use crate::calendar::{add_months, nanos_per};
use crate::error::ComputeError;

const NANOS_PER_DAY: i128 = 86_400_000_000_000;

fn finer(a: TimeUnit, b: TimeUnit) -> TimeUnit {
    a.max(b)
}

/// The type of `left op right` for temporal operands, or `None` if they do not combine.
pub(super) fn result_type(op: ArithOp, left: &DataType, right: &DataType) -> Option<DataType> {
    use DataType::{Date32, Date64, Duration, Interval, Timestamp};
    let (add, sub) = (op == ArithOp::Add, op == ArithOp::Sub);
    Some(match (left, right) {
        (Timestamp(a, _), Timestamp(b, _)) if sub => Duration(finer(*a, *b)),
        (Timestamp(a, zone), Duration(b)) if add || sub => Timestamp(finer(*a, *b), zone.clone()),
        (Duration(a), Timestamp(b, zone)) if add => Timestamp(finer(*a, *b), zone.clone()),
        (Duration(a), Duration(b)) if add || sub => Duration(finer(*a, *b)),
        (Date32, Date32) if sub => Duration(TimeUnit::Second),
        (Date64, Date64) if sub => Duration(TimeUnit::Millisecond),
        (Date32 | Date64 | Timestamp(..), Interval(_)) if add || sub => left.clone(),
        (Interval(_), Date32 | Date64 | Timestamp(..)) if add => right.clone(),
        (Interval(a), Interval(b)) if a == b && (add || sub) => left.clone(),
        _ => return None,
    })
}

/// `left op right` for temporal operands whose result type [`result_type`] gave.
pub(super) fn compute(job: &Job<'_>) -> Result<ArrayData, ComputeError> {
    use DataType::{Date32, Date64, Duration, Interval, Timestamp};
    let (lt, rt) = (job.left.data.data_type(), job.right.data.data_type());
    match (lt, rt) {
        (Date32, Date32) => {
            let run = |a: i32, b: i32| ((i64::from(a) - i64::from(b)) * 86_400, false);
            linear(job, run)
        }
        (Timestamp(..) | Duration(_) | Date64, Timestamp(..) | Duration(_) | Date64) => {
            let target = match &job.output {
                Timestamp(unit, _) | Duration(unit) => *unit,
                _ => TimeUnit::Millisecond,
            };
            let scale = |t: &DataType| match t {
                Timestamp(unit, _) | Duration(unit) => nanos_per(*unit) / nanos_per(target),
                _ => 1,
            };
            let (fl, fr) = (scale(lt).max(1), scale(rt).max(1));
            let subtract = job.op == ArithOp::Sub;
            linear(job, move |a: i64, b: i64| {
                let (a, b) = (a.checked_mul(fl), b.checked_mul(fr));
                let value = match (a, b) {
                    (Some(a), Some(b)) if subtract => a.checked_sub(b),
                    (Some(a), Some(b)) => a.checked_add(b),
                    _ => None,
                };
                (value.unwrap_or(0), value.is_none())
            })
        }
        (Interval(IntervalUnit::DayTime), Interval(_)) => {
            let subtract = job.op == ArithOp::Sub;
            linear(job, move |a: IntervalDayTime, b: IntervalDayTime| {
                let sum = (|| {
                    let (days, ms) = if subtract {
                        (b.days.checked_neg()?, b.milliseconds.checked_neg()?)
                    } else {
                        (b.days, b.milliseconds)
                    };
                    Some(IntervalDayTime::new(
                        a.days.checked_add(days)?,
                        a.milliseconds.checked_add(ms)?,
                    ))
                })();
                (sum.unwrap_or_default(), sum.is_none())
            })
        }
        (Interval(IntervalUnit::MonthDayNano), Interval(_)) => {
            let subtract = job.op == ArithOp::Sub;
            linear(
                job,
                move |a: IntervalMonthDayNano, b: IntervalMonthDayNano| {
                    let b = if subtract { negated(b) } else { Some(b) };
                    let sum = b.and_then(|b| {
                        Some(IntervalMonthDayNano::new(
                            a.months.checked_add(b.months)?,
                            a.days.checked_add(b.days)?,
                            a.nanoseconds.checked_add(b.nanoseconds)?,
                        ))
                    });
                    (sum.unwrap_or_default(), sum.is_none())
                },
            )
        }
        (Interval(_), _) => calendar(job, true),
        _ => calendar(job, false),
    }
}

/// Runs `f` over the two operands as `A` and `B` values into the output.
fn linear<A: NativeType, B: NativeType, O: NativeType>(
    job: &Job<'_>,
    f: impl Fn(A, B) -> (O, bool),
) -> Result<ArrayData, ComputeError> {
    let (l, r) = (
        native_values::<A>(&job.left.data)?,
        native_values::<B>(&job.right.data)?,
    );
    let (ls, rs) = (
        Side::new(&l, job.left.scalar),
        Side::new(&r, job.right.scalar),
    );
    match try_binary(ls, rs, job.len, job.valid.as_ref(), f) {
        Ok(values) => job.finish(values),
        Err(row) => Err(job.failure(row, false)),
    }
}

fn negated(value: IntervalMonthDayNano) -> Option<IntervalMonthDayNano> {
    Some(IntervalMonthDayNano::new(
        value.months.checked_neg()?,
        value.days.checked_neg()?,
        value.nanoseconds.checked_neg()?,
    ))
}

/// An interval as months, days and nanoseconds, negated for subtraction.
fn parts(data_type: &DataType, row: &[u8], subtract: bool) -> (i64, i64, i128) {
    let (months, days, nanos) = match data_type {
        DataType::Interval(IntervalUnit::YearMonth) => (
            i64::from(i32::from_le_bytes(row[..4].try_into().unwrap_or([0; 4]))),
            0,
            0,
        ),
        DataType::Interval(IntervalUnit::DayTime) => {
            let days = i32::from_le_bytes(row[..4].try_into().unwrap_or([0; 4]));
            let ms = i32::from_le_bytes(row[4..8].try_into().unwrap_or([0; 4]));
            (0, i64::from(days), i128::from(ms) * 1_000_000)
        }
        _ => {
            let months = i32::from_le_bytes(row[..4].try_into().unwrap_or([0; 4]));
            let days = i32::from_le_bytes(row[4..8].try_into().unwrap_or([0; 4]));
            let nanos = i64::from_le_bytes(row[8..16].try_into().unwrap_or([0; 8]));
            (i64::from(months), i64::from(days), i128::from(nanos))
        }
    };
    if subtract {
        (-months, -days, -nanos)
    } else {
        (months, days, nanos)
    }
}

/// A date or timestamp moved by an interval, row by row. `interval_first` says the interval
/// is the left operand (`interval + date`).
fn calendar(job: &Job<'_>, interval_first: bool) -> Result<ArrayData, ComputeError> {
    let (point, interval) = if interval_first {
        (job.right, job.left)
    } else {
        (job.left, job.right)
    };
    let subtract = job.op == ArithOp::Sub;
    let width = match interval.data.data_type() {
        DataType::Interval(IntervalUnit::YearMonth) => 4,
        DataType::Interval(IntervalUnit::DayTime) => 8,
        _ => 16,
    };
    let interval_bytes = &interval.data.buffers()[0];
    let interval_row = |i: usize| {
        let at = (interval.data.offset() + if interval.scalar { 0 } else { i }) * width;
        parts(
            interval.data.data_type(),
            &interval_bytes[at..at + width],
            subtract,
        )
    };
    let valid = job.valid.as_ref();
    let fail = |row: usize| job.failure(row, false);
    let values: Buffer = match point.data.data_type() {
        DataType::Date32 => {
            let dates = native_values::<i32>(&point.data)?;
            let side = Side::new(&dates, point.scalar);
            rows(job.len, valid, |i| {
                let (months, days, nanos) = interval_row(i);
                let moved = add_months(i64::from(side.at(i)), months)
                    .and_then(|d| d.checked_add(days))
                    .and_then(|d| d.checked_add((nanos / NANOS_PER_DAY) as i64))
                    .and_then(|d| i32::try_from(d).ok());
                (moved.unwrap_or(0), moved.is_none())
            })
            .map_err(fail)?
        }
        DataType::Date64 => {
            let dates = native_values::<i64>(&point.data)?;
            let side = Side::new(&dates, point.scalar);
            rows(job.len, valid, |i| {
                let moved = move_utc(side.at(i), 1_000_000, interval_row(i));
                (moved.unwrap_or(0), moved.is_none())
            })
            .map_err(fail)?
        }
        DataType::Timestamp(unit, zone) => {
            let unit_nanos = nanos_per(*unit);
            let times = native_values::<i64>(&point.data)?;
            let side = Side::new(&times, point.scalar);
            match zone {
                None => rows(job.len, valid, |i| {
                    let moved = move_utc(side.at(i), unit_nanos, interval_row(i));
                    (moved.unwrap_or(0), moved.is_none())
                })
                .map_err(fail)?,
                Some(name) => {
                    let zone = resolve_timezone(name).map_err(|e| {
                        ComputeError::InvalidArgument(format!("{e}, in {}", point.data.data_type()))
                    })?;
                    rows(job.len, valid, |i| {
                        let moved = move_zoned(side.at(i), unit_nanos, interval_row(i), &zone);
                        (moved.unwrap_or(0), moved.is_none())
                    })
                    .map_err(fail)?
                }
            }
        }
        other => {
            return Err(ComputeError::unsupported(
                job.op.name(),
                format!("cannot move {other} by an interval"),
            ));
        }
    };
    job.finish(values)
}

/// `f` of each row index, through the engine (so failures under nulls are ignored).
fn rows<O: NativeType>(
    len: usize,
    valid: Option<&alkaid_buffer::NullBuffer>,
    f: impl Fn(usize) -> (O, bool),
) -> Result<Buffer, usize> {
    let index: Vec<u64> = (0..len as u64).collect();
    try_unary(&index, valid, |i| f(i as usize))
}

/// A count of `unit_nanos`-nanosecond units since the epoch, in UTC, moved by an interval.
fn move_utc(value: i64, unit_nanos: i64, (months, days, nanos): (i64, i64, i128)) -> Option<i64> {
    let per_day = 86_400_000_000_000 / unit_nanos;
    let (day, within) = (value.div_euclid(per_day), value.rem_euclid(per_day));
    let day = add_months(day, months)?.checked_add(days)?;
    let moved =
        i128::from(day) * i128::from(per_day) + i128::from(within) + nanos / i128::from(unit_nanos);
    i64::try_from(moved).ok()
}

/// The same, in the local time of `zone`.
fn move_zoned(
    value: i64,
    unit_nanos: i64,
    (months, days, nanos): (i64, i64, i128),
    zone: &jiff::tz::TimeZone,
) -> Option<i64> {
    let instant =
        jiff::Timestamp::from_nanosecond(i128::from(value) * i128::from(unit_nanos)).ok()?;
    // Two steps: a jiff span has one sign for all its units, and an interval's months and
    // days may have different signs.
    let months = jiff::Span::new().try_months(months).ok()?;
    let days = jiff::Span::new().try_days(days).ok()?;
    let moved = instant
        .to_zoned(zone.clone())
        .checked_add(months)
        .ok()?
        .checked_add(days)
        .ok()?;
    let total = moved.timestamp().as_nanosecond().checked_add(nanos)?;
    i64::try_from(total.div_euclid(i128::from(unit_nanos))).ok()
}

/// `-interval` for day-time and month-day-nano intervals, field by field, checked.
pub(super) fn negate_interval(data: &ArrayData) -> Result<ArrayData, ComputeError> {
    let fail = |row: usize| ComputeError::Overflow {
        row: Some(row),
        message: format!(
            "the negation of row {row} does not fit {}",
            data.data_type()
        ),
    };
    let values = match data.data_type() {
        DataType::Interval(IntervalUnit::DayTime) => {
            let values = native_values::<IntervalDayTime>(data)?;
            try_unary(&values, data.nulls(), |v| {
                match (v.days.checked_neg(), v.milliseconds.checked_neg()) {
                    (Some(d), Some(m)) => (IntervalDayTime::new(d, m), false),
                    _ => (IntervalDayTime::default(), true),
                }
            })
            .map_err(fail)?
        }
        _ => {
            let values = native_values::<IntervalMonthDayNano>(data)?;
            try_unary(&values, data.nulls(), |v| match negated(v) {
                Some(n) => (n, false),
                None => (IntervalMonthDayNano::default(), true),
            })
            .map_err(fail)?
        }
    };
    Ok(ArrayData::builder(data.data_type().clone())
        .len(data.len())
        .nulls(data.nulls().cloned())
        .buffers(vec![values])
        .build()?)
}

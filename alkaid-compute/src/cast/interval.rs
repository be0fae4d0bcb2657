//! Intervals and durations as intervals, and intervals as durations. Every interval is
//! read as months, days and nanoseconds (the widest kind, `MonthDayNano`) and written
//! as the target if it holds it exactly: months only for `YearMonth`; days and whole
//! milliseconds for `DayTime`; neither months nor days for a duration (a month or a day
//! has no fixed length), whose nanoseconds round toward negative infinity to its unit.
//! Anything else fails (strict) or is null (safe).

use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, IntervalUnit};

use super::options::CastOptions;
use super::parse::nanos_per;
use super::values::{Converted, convert_rows};
use crate::access::native_values;
use crate::error::ComputeError;

/// Whether [`intervals`] converts `from` to `to`.
pub(super) fn converts(from: &DataType, to: &DataType) -> bool {
    use DataType as D;
    matches!(
        (from, to),
        (D::Interval(_) | D::Duration(_), D::Interval(_)) | (D::Interval(_), D::Duration(_))
    )
}

/// One interval in the widest form.
#[derive(Clone, Copy)]
struct Span {
    months: i32,
    days: i32,
    nanos: i64,
}

/// Each value of `data` (an interval or a duration) as a span; `None` where a duration's
/// nanoseconds overflow 64 bits.
fn spans(data: &ArrayData) -> Result<Vec<Option<Span>>, ComputeError> {
    let span = |months, days, nanos| {
        Some(Span {
            months,
            days,
            nanos,
        })
    };
    Ok(match data.data_type() {
        DataType::Interval(IntervalUnit::YearMonth) => native_values::<i32>(data)?
            .iter()
            .map(|&m| span(m, 0, 0))
            .collect(),
        DataType::Interval(IntervalUnit::DayTime) => native_values::<IntervalDayTime>(data)?
            .iter()
            .map(|v| span(0, v.days, i64::from(v.milliseconds) * 1_000_000))
            .collect(),
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            native_values::<IntervalMonthDayNano>(data)?
                .iter()
                .map(|v| span(v.months, v.days, v.nanoseconds))
                .collect()
        }
        DataType::Duration(unit) => native_values::<i64>(data)?
            .iter()
            .map(|&v| span(0, 0, v.checked_mul(nanos_per(*unit))?))
            .collect(),
        other => {
            return Err(ComputeError::unsupported(
                "cast",
                format!("{other} is not an interval"),
            ));
        }
    })
}

/// `data` (an interval or a duration) as `to` ([`converts`]).
pub(super) fn intervals(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    let from = data.data_type();
    let spans = spans(data)?;
    let (len, nulls) = (data.len(), data.nulls());
    // The span of `row` if `fits` holds for it.
    let span_if = |row: usize, fits: fn(&Span) -> bool| -> Converted<Span> {
        spans[row].filter(fits).ok_or_else(|| match spans[row] {
            Some(s) => format!(
                "{from} value of {} months {} days {} ns does not fit {to}",
                s.months, s.days, s.nanos
            ),
            None => format!("a {from} value overflows 64-bit nanoseconds"),
        })
    };
    match to {
        DataType::Interval(IntervalUnit::YearMonth) => {
            convert_rows::<i32>(to, len, nulls, options, |row| {
                span_if(row, |s| s.days == 0 && s.nanos == 0).map(|s| s.months)
            })
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            convert_rows::<IntervalDayTime>(to, len, nulls, options, |row| {
                let fits = |s: &Span| {
                    s.months == 0
                        && s.nanos % 1_000_000 == 0
                        && i32::try_from(s.nanos / 1_000_000).is_ok()
                };
                span_if(row, fits)
                    .map(|s| IntervalDayTime::new(s.days, (s.nanos / 1_000_000) as i32))
            })
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            convert_rows::<IntervalMonthDayNano>(to, len, nulls, options, |row| {
                span_if(row, |_| true).map(|s| IntervalMonthDayNano::new(s.months, s.days, s.nanos))
            })
        }
        DataType::Duration(unit) => {
            let per = nanos_per(*unit);
            convert_rows::<i64>(to, len, nulls, options, |row| {
                span_if(row, |s| s.months == 0 && s.days == 0).map(|s| s.nanos.div_euclid(per))
            })
        }
        _ => Err(ComputeError::unsupported("cast", format!("{from} to {to}"))),
    }
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Array, DurationSecondArray, IntervalMonthDayNanoArray, make_array};

    use alkaid_data::equal;

    use super::*;
    use crate::cast::cast;

    fn month_day_nano(values: Vec<Option<(i32, i32, i64)>>) -> IntervalMonthDayNanoArray {
        values
            .into_iter()
            .map(|v| v.map(|(m, d, n)| IntervalMonthDayNano::new(m, d, n)))
            .collect()
    }

    #[test]
    fn intervals_narrow_only_when_exact() {
        let wide = month_day_nano(vec![
            Some((14, 0, 0)),
            Some((0, 3, 5_000_000)),
            Some((0, 0, 1)),
            None,
        ]);
        let year_month = DataType::Interval(IntervalUnit::YearMonth);
        let safe = cast(&wide, &year_month, CastOptions::SAFE).unwrap();
        assert_eq!(
            safe.to_data().null_count(),
            3,
            "only the months-only row fits"
        );
        let strict = cast(&wide, &year_month, CastOptions::STRICT).unwrap_err();
        assert!(
            matches!(strict, ComputeError::Cast { row: 1, .. }),
            "{strict}"
        );

        let day_time = DataType::Interval(IntervalUnit::DayTime);
        let safe = cast(&wide, &day_time, CastOptions::SAFE).unwrap();
        // Months do not fit, 1 ns is not a whole millisecond.
        assert_eq!(safe.to_data().null_count(), 3);
        let back = cast(
            safe.as_ref(),
            &wide.data_type().clone(),
            CastOptions::STRICT,
        )
        .unwrap();
        assert!(equal(
            &back.to_data().slice(1, 1),
            &wide.to_data().slice(1, 1)
        ));
    }

    #[test]
    fn durations_and_intervals_meet_in_nanoseconds() {
        let seconds = DurationSecondArray::from(vec![Some(-1), Some(90), None, Some(i64::MAX)]);
        let mdn = DataType::Interval(IntervalUnit::MonthDayNano);
        let error = cast(&seconds, &mdn, CastOptions::STRICT).unwrap_err();
        assert!(
            matches!(error, ComputeError::Cast { row: 3, .. }),
            "{error}"
        );
        let wide = cast(&seconds, &mdn, CastOptions::SAFE).unwrap();
        let expected = month_day_nano(vec![
            Some((0, 0, -1_000_000_000)),
            Some((0, 0, 90_000_000_000)),
            None,
            None,
        ]);
        assert!(equal(&wide.to_data(), &expected.to_data()));
        let back = cast(wide.as_ref(), seconds.data_type(), CastOptions::SAFE).unwrap();
        assert!(equal(
            &back.to_data().slice(0, 3),
            &seconds.to_data().slice(0, 3)
        ));

        // A day is not a fixed length; -1 ns floors to -1 s.
        let mixed = month_day_nano(vec![Some((0, 1, 0)), Some((0, 0, -1))]);
        let as_seconds = cast(&mixed, seconds.data_type(), CastOptions::SAFE).unwrap();
        let expected = make_array(DurationSecondArray::from(vec![None, Some(-1)]).to_data());
        assert!(equal(&as_seconds.to_data(), &expected.to_data()));
    }
}

//! Calendar arithmetic for Python's `datetime` values, which the stable ABI lets this
//! module reach only as objects: days since 1970-01-01 to a year, month and day and back
//! (alkaid-compute's calendar, the proleptic Gregorian one of Python and Arrow), and a
//! count of a time unit split into seconds and the fraction below them.

pub(crate) use alkaid_compute::calendar::{civil_from_days, days_from_civil};
use alkaid_schema::TimeUnit;

/// How many of `unit` a second holds.
pub(crate) fn per_second(unit: TimeUnit) -> i64 {
    1_000_000_000 / alkaid_compute::calendar::nanos_per(unit)
}

/// `value` of `unit` as whole seconds and the nanoseconds past them (never negative).
pub(crate) fn seconds_and_nanos(value: i64, unit: TimeUnit) -> (i64, i64) {
    let per = per_second(unit);
    (
        value.div_euclid(per),
        value.rem_euclid(per) * (1_000_000_000 / per),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_s_first_and_last_days_are_reached() {
        assert_eq!(days_from_civil(1, 1, 1), -719_162);
        assert_eq!(civil_from_days(2_932_896), (9999, 12, 31));
    }

    #[test]
    fn units_split_into_seconds_and_nanoseconds() {
        assert_eq!(
            seconds_and_nanos(-1, TimeUnit::Millisecond),
            (-1, 999_000_000)
        );
        assert_eq!(
            seconds_and_nanos(1_500, TimeUnit::Microsecond),
            (0, 1_500_000)
        );
        assert_eq!(seconds_and_nanos(7, TimeUnit::Second), (7, 0));
    }
}

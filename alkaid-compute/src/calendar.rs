//! The proleptic Gregorian calendar as day counts: dates to and from (year, month, day),
//! and adding months the way people do (January 31 plus one month is the last day of
//! February). Exact for every `i32` day count and far beyond; no time zones (see
//! `arith/temporal.rs` for those). Public for the crates above that meet dates in other
//! forms (alkaid-python's `datetime` values).
//!
//! ```
//! use alkaid_compute::calendar::{civil_from_days, days_from_civil};
//!
//! assert_eq!(days_from_civil(2024, 2, 29), 19_782);
//! assert_eq!(civil_from_days(-1), (1969, 12, 31));
//! ```

/// The nanoseconds in one `unit`.
pub fn nanos_per(unit: alkaid_schema::TimeUnit) -> i64 {
    use alkaid_schema::TimeUnit;
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// Days from 1970-01-01 to `year-month-day` (`month` in 1..=12, `day` in 1..=31).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Count years from March, so that the leap day is the last day of the year: a year
    // of this count is then 365 days plus one every fourth, hundredth and 400th year.
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    // 719_468 days from 0000-03-01 to 1970-01-01.
    era * 146_097 + day_of_era - 719_468
}

/// The (year, month, day) of a count of days from 1970-01-01; the inverse of
/// [`days_from_civil`], for any count within ±2.3·10^18 days (every `i64` of seconds is
/// within ±1.1·10^14).
///
/// Neri and Schneider's algorithm ("Euclidean affine functions and their application to
/// calendar algorithms", 2022): unsigned, with every division by a constant a
/// multiplication, and the year and day of the year from one product. The days are
/// first moved forward by `ERAS` whole 400-year eras (146,097 days each, so the calendar
/// repeats) to make them non-negative; the years are moved back after. `extract` of the
/// year took 72 ms for 4 Mi timestamps with the signed form (`div_euclid`, then five
/// more divisions), against pyarrow's 42.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Eras added: 146,097 · ERAS is about 2^61, so `4 · n + 3` below stays within u64.
    const ERAS: u64 = 15_781_000_000_000;
    // 719,468 days from 0000-03-01 (where the computational year starts) to 1970-01-01.
    const SHIFT: u64 = 719_468 + 146_097 * ERAS;
    let n = (days as u64).wrapping_add(SHIFT);
    // The century, and the day within it.
    let n1 = 4 * n + 3;
    let century = n1 / 146_097;
    let day_of_century = (n1 % 146_097) / 4;
    // The year of the century and the day of the year, from one product.
    let p2 = 2_939_745 * (4 * day_of_century + 3);
    let year_of_century = p2 >> 32;
    let day_of_year = (p2 & 0xFFFF_FFFF) / 2_939_745 / 4;
    // The month (from March) and the day of the month.
    let n3 = 2_141 * day_of_year + 197_913;
    let month = (n3 >> 16) as u32;
    let day = ((n3 & 0xFFFF) / 2_141) as u32 + 1;
    // January and February belong to the next year of the civil calendar.
    let january_or_later = day_of_year >= 306;
    let year = (100 * century + year_of_century) as i64 - (400 * ERAS) as i64
        + i64::from(january_or_later);
    let month = if january_or_later { month - 12 } else { month };
    (year, month, day)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The number of days in `month` of `year`.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The day `months` calendar months after `days` (before, if negative), with the day of
/// the month kept, or moved back to the month's last day where the month is shorter.
/// `None` if the result is more than about 10^15 years away.
pub(crate) fn add_months(days: i64, months: i64) -> Option<i64> {
    // Day counts past ±2^50 (about 3·10^12 years) are out of any type's range anyway, and
    // stay clear of overflow in the arithmetic below.
    if days.unsigned_abs() > 1 << 50 {
        return None;
    }
    let (year, month, day) = civil_from_days(days);
    let total = year
        .checked_mul(12)?
        .checked_add(i64::from(month) - 1)?
        .checked_add(months)?;
    if total.unsigned_abs() > 1 << 50 {
        return None;
    }
    let (new_year, new_month) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
    let new_day = day.min(days_in_month(new_year, new_month));
    Some(days_from_civil(new_year, new_month, new_day))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The signed form `civil_from_days` replaced (Hinnant's), as the reference.
    fn civil_by_eras(days: i64) -> (i64, u32, u32) {
        let days = i128::from(days) + 719_468;
        let era = days.div_euclid(146_097);
        let day_of_era = days - era * 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_from_march = (5 * day_of_year + 2) / 153;
        let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
        let month = if month_from_march < 10 {
            month_from_march + 3
        } else {
            month_from_march - 9
        } as u32;
        let year = (year_of_era + era * 400) as i64;
        (if month <= 2 { year + 1 } else { year }, month, day)
    }

    #[test]
    fn civil_dates_agree_with_the_signed_form() {
        // Every day of ±3,000 years around 1970, then a spread across the whole range.
        for days in -1_100_000..1_100_000 {
            assert_eq!(civil_from_days(days), civil_by_eras(days), "{days}");
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let limit = 2_300_000_000_000_000_000i64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let days = (x as i64) % limit;
            assert_eq!(civil_from_days(days), civil_by_eras(days), "{days}");
        }
        for days in [
            limit - 1,
            -limit + 1,
            i64::from(i32::MAX) * 86_400,
            -(1 << 50),
        ] {
            assert_eq!(civil_from_days(days), civil_by_eras(days), "{days}");
        }
    }

    #[test]
    fn known_dates_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(-719_468), (0, 3, 1));
        for days in (-1_000_000..1_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        for days in [i32::MIN as i64, i32::MAX as i64] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn months_clamp_to_the_end_of_shorter_months() {
        let day = |y, m, d| days_from_civil(y, m, d);
        assert_eq!(add_months(day(2024, 1, 31), 1), Some(day(2024, 2, 29)));
        assert_eq!(add_months(day(2023, 1, 31), 1), Some(day(2023, 2, 28)));
        assert_eq!(add_months(day(2024, 3, 31), -1), Some(day(2024, 2, 29)));
        assert_eq!(add_months(day(2024, 2, 29), 12), Some(day(2025, 2, 28)));
        assert_eq!(add_months(day(2000, 2, 29), 48), Some(day(2004, 2, 29)));
        assert_eq!(add_months(day(1900, 2, 28), 1), Some(day(1900, 3, 28)));
        assert_eq!(add_months(day(2024, 12, 15), 1), Some(day(2025, 1, 15)));
        assert_eq!(add_months(day(-1, 1, 1), -13), Some(day(-3, 12, 1)));
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(add_months(0, i64::MAX), None);
    }
}

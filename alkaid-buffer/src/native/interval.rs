//! The two interval values wider than one integer (year-month intervals are a plain `i32`).

use std::fmt;

use super::{NativeType, sealed};

/// An interval of days and milliseconds (the spec's `DAY_TIME` unit), 8 bytes.
///
/// # Examples
/// ```
/// use alkaid_buffer::native::IntervalDayTime;
/// let interval = IntervalDayTime::new(2, 3_600_000);
/// assert_eq!((interval.days, interval.milliseconds), (2, 3_600_000));
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C)]
pub struct IntervalDayTime {
    /// Whole days.
    pub days: i32,
    /// Milliseconds, in addition to the days.
    pub milliseconds: i32,
}

impl IntervalDayTime {
    /// An interval of `days` and `milliseconds`.
    pub const fn new(days: i32, milliseconds: i32) -> Self {
        Self { days, milliseconds }
    }
}

/// An interval of months, days and nanoseconds (the spec's `MONTH_DAY_NANO` unit), 16 bytes.
///
/// # Examples
/// ```
/// use alkaid_buffer::native::IntervalMonthDayNano;
/// let interval = IntervalMonthDayNano::new(1, 15, 500);
/// assert_eq!(interval.nanoseconds, 500);
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C)]
pub struct IntervalMonthDayNano {
    /// Whole months.
    pub months: i32,
    /// Whole days, in addition to the months.
    pub days: i32,
    /// Nanoseconds, in addition to the months and days.
    pub nanoseconds: i64,
}

impl IntervalMonthDayNano {
    /// An interval of `months`, `days` and `nanoseconds`.
    pub const fn new(months: i32, days: i32, nanoseconds: i64) -> Self {
        Self {
            months,
            days,
            nanoseconds,
        }
    }
}

/// `2 days 3600000 ms`.
impl fmt::Display for IntervalDayTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} days {} ms", self.days, self.milliseconds)
    }
}

/// `1 months 15 days 500 ns`.
impl fmt::Display for IntervalMonthDayNano {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} months {} days {} ns",
            self.months, self.days, self.nanoseconds
        )
    }
}

impl sealed::Sealed for IntervalDayTime {}
impl NativeType for IntervalDayTime {
    fn swap_bytes(self) -> Self {
        Self::new(self.days.swap_bytes(), self.milliseconds.swap_bytes())
    }
}

impl sealed::Sealed for IntervalMonthDayNano {}
impl NativeType for IntervalMonthDayNano {
    fn swap_bytes(self) -> Self {
        Self::new(
            self.months.swap_bytes(),
            self.days.swap_bytes(),
            self.nanoseconds.swap_bytes(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_spec() {
        assert_eq!(size_of::<IntervalDayTime>(), 8);
        assert_eq!(size_of::<IntervalMonthDayNano>(), 16);
        let bytes = crate::native::as_bytes(&[IntervalMonthDayNano::new(1, 2, 3)]).to_vec();
        assert_eq!(&bytes[0..4], &1i32.to_le_bytes());
        assert_eq!(&bytes[4..8], &2i32.to_le_bytes());
        assert_eq!(&bytes[8..16], &3i64.to_le_bytes());
    }

    #[test]
    fn swap_bytes_swaps_each_field() {
        let swapped = IntervalMonthDayNano::new(1, 2, 3).swap_bytes();
        assert_eq!(swapped.months, 1i32.swap_bytes());
        assert_eq!(swapped.nanoseconds, 3i64.swap_bytes());
        assert_eq!(
            IntervalDayTime::new(1, 2).swap_bytes().milliseconds,
            2i32.swap_bytes()
        );
    }
}

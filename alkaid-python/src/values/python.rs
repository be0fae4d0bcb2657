//! The Python classes values are made of and read from: `datetime`'s, `decimal.Decimal`,
//! and the time zones of zoned timestamps (`zoneinfo.ZoneInfo` for a name, a fixed
//! `datetime.timezone` for an offset such as `+05:30`), imported once per conversion.

use pyo3::prelude::*;

use crate::error::to_py;

/// The classes of one conversion.
pub(crate) struct Modules<'py> {
    pub(crate) py: Python<'py>,
    pub(crate) date: Bound<'py, PyAny>,
    pub(crate) time: Bound<'py, PyAny>,
    pub(crate) datetime: Bound<'py, PyAny>,
    pub(crate) timedelta: Bound<'py, PyAny>,
    pub(crate) timezone: Bound<'py, PyAny>,
    pub(crate) utc: Bound<'py, PyAny>,
    pub(crate) decimal: Bound<'py, PyAny>,
}

impl<'py> Modules<'py> {
    /// Imports them.
    pub(crate) fn import(py: Python<'py>) -> PyResult<Self> {
        let datetime = py.import("datetime")?;
        let timezone = datetime.getattr("timezone")?;
        Ok(Self {
            py,
            date: datetime.getattr("date")?,
            time: datetime.getattr("time")?,
            timedelta: datetime.getattr("timedelta")?,
            utc: timezone.getattr("utc")?,
            timezone,
            datetime: datetime.getattr("datetime")?,
            decimal: py.import("decimal")?.getattr("Decimal")?,
        })
    }

    /// The time zone a timestamp type names: an offset (`+05:30`, `-08:00`, `Z`) as a
    /// fixed zone, anything else as an IANA name.
    ///
    /// # Errors
    /// For a name `zoneinfo` does not know.
    pub(crate) fn zone(&self, name: &str) -> PyResult<Bound<'py, PyAny>> {
        if let Some(minutes) = offset_minutes(name) {
            let offset = self.timedelta.call1((0, minutes * 60))?;
            return self.timezone.call1((offset,));
        }
        let zoneinfo = self.py.import("zoneinfo")?.getattr("ZoneInfo")?;
        zoneinfo
            .call1((name,))
            .map_err(|e| to_py(format!("time zone {name:?}: {e}")))
    }
}

/// The minutes east of UTC of a fixed offset (`+HH:MM`, `-HHMM`, `+HH`, `Z`, `UTC`).
pub(crate) fn offset_minutes(name: &str) -> Option<i64> {
    if name == "Z" || name == "UTC" || name == "+00:00" {
        return Some(0);
    }
    let sign = match name.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = name[1..].chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) || !matches!(digits.len(), 2 | 4) {
        return None;
    }
    let hours: i64 = digits[..2].parse().ok()?;
    let minutes: i64 = match digits.len() {
        4 => digits[2..].parse().ok()?,
        _ => 0,
    };
    (hours < 24 && minutes < 60).then_some(sign * (hours * 60 + minutes))
}

#[cfg(test)]
mod tests {
    use super::offset_minutes;

    #[test]
    fn offsets_are_read_and_names_are_not() {
        assert_eq!(offset_minutes("+05:30"), Some(330));
        assert_eq!(offset_minutes("-0800"), Some(-480));
        assert_eq!(offset_minutes("+01"), Some(60));
        assert_eq!(offset_minutes("UTC"), Some(0));
        assert_eq!(offset_minutes("Europe/Paris"), None);
        assert_eq!(offset_minutes("+25:00"), None);
        assert_eq!(offset_minutes("+1:00"), None);
    }
}

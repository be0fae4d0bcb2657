//! `arrow.timestamp_with_offset`: instants with the UTC offset each was written in.

use std::any::Any;
use std::sync::Arc;

use super::{ExtensionFactory, ExtensionType};
use crate::{DataType, Field, Fields, SchemaError, TimeUnit};

const NAME: &str = "arrow.timestamp_with_offset";

/// The largest offset, in minutes either way, a value may have: less than a day (zones
/// in use range from -12:00 to +14:00; the format says "normally -779 to +780").
pub const MAX_OFFSET_MINUTES: i16 = 24 * 60 - 1;

/// `arrow.timestamp_with_offset`: each value an instant and the offset from UTC, in
/// minutes, it was written in (SQL's `TIMESTAMP WITH TIME ZONE` as most engines keep it).
/// Stored as a struct of two non-nullable fields, in order: `timestamp`, a
/// `Timestamp(unit, "UTC")` of any unit, and `offset_minutes`, an `Int16` (possibly
/// dictionary- or run-end encoded). The description is empty.
///
/// ```
/// use alkaid_schema::extension::{ExtensionType, TimestampWithOffset};
/// use alkaid_schema::{DataType, TimeUnit};
///
/// let storage = TimestampWithOffset::storage_type(TimeUnit::Millisecond);
/// TimestampWithOffset.check_storage(&storage)?;
/// assert_eq!(TimestampWithOffset::unit_of(&storage), Some(TimeUnit::Millisecond));
/// let error = TimestampWithOffset.check_storage(&DataType::Int64).unwrap_err();
/// assert!(error.to_string().contains("expected Struct(timestamp: Timestamp(unit, \"UTC\")"));
/// # Ok::<(), alkaid_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimestampWithOffset;

impl TimestampWithOffset {
    /// The storage for instants in `unit`: `Struct(timestamp: Timestamp(unit, "UTC") not
    /// null, offset_minutes: Int16 not null)`.
    pub fn storage_type(unit: TimeUnit) -> DataType {
        DataType::Struct(Self::storage_fields(unit))
    }

    /// The fields of [`storage_type`](Self::storage_type).
    pub fn storage_fields(unit: TimeUnit) -> Fields {
        vec![
            Field::new(
                "timestamp",
                DataType::Timestamp(unit, Some("UTC".into())),
                false,
            ),
            Field::new("offset_minutes", DataType::Int16, false),
        ]
        .into()
    }

    /// The unit of the instants of a storage type that fits, `None` for one that does not.
    pub fn unit_of(storage: &DataType) -> Option<TimeUnit> {
        let DataType::Struct(fields) = storage else {
            return None;
        };
        let [timestamp, offset] = fields.as_ref() else {
            return None;
        };
        let unit = match timestamp.data_type() {
            DataType::Timestamp(unit, Some(zone)) if matches!(zone.as_ref(), "UTC" | "+00:00") => {
                *unit
            }
            _ => return None,
        };
        let int16 = match offset.data_type() {
            DataType::Dictionary { value, .. } => **value == DataType::Int16,
            DataType::RunEndEncoded(ree) => *ree.values().data_type() == DataType::Int16,
            other => *other == DataType::Int16,
        };
        (timestamp.name() == "timestamp" && offset.name() == "offset_minutes" && int16)
            .then_some(unit)
    }
}

canonical_with_storage_rule!(
    TimestampWithOffset,
    NAME,
    Some(String::new()),
    |storage: &DataType| {
        match TimestampWithOffset::unit_of(storage) {
            Some(_) => Ok(()),
            None => Err(super::canonical::storage_error(
                NAME,
                "Struct(timestamp: Timestamp(unit, \"UTC\"), offset_minutes: Int16)",
                storage,
            )),
        }
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_rules() {
        for unit in [
            TimeUnit::Second,
            TimeUnit::Millisecond,
            TimeUnit::Microsecond,
            TimeUnit::Nanosecond,
        ] {
            assert_eq!(
                TimestampWithOffset::unit_of(&TimestampWithOffset::storage_type(unit)),
                Some(unit)
            );
        }
        let with = |timestamp: DataType, offset: DataType| {
            DataType::Struct(
                vec![
                    Field::new("timestamp", timestamp, false),
                    Field::new("offset_minutes", offset, false),
                ]
                .into(),
            )
        };
        let utc = DataType::Timestamp(TimeUnit::Second, Some("UTC".into()));
        let dictionary = DataType::Dictionary {
            key: crate::IntegerType::Int8,
            value: Box::new(DataType::Int16),
            ordered: false,
        };
        assert!(TimestampWithOffset::unit_of(&with(utc.clone(), dictionary)).is_some());
        for wrong in [
            with(DataType::Timestamp(TimeUnit::Second, None), DataType::Int16),
            with(
                DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into())),
                DataType::Int16,
            ),
            with(utc.clone(), DataType::Int32),
            DataType::Struct(vec![Field::new("offset_minutes", DataType::Int16, false)].into()),
        ] {
            assert!(
                TimestampWithOffset.check_storage(&wrong).is_err(),
                "{wrong}"
            );
        }
    }
}

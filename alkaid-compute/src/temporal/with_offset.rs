//! `arrow.timestamp_with_offset` values (`TimestampWithOffset`): made from zoned
//! timestamps (each instant with its zone's offset at that instant), turned back into
//! timestamps of a zone, and written as text with their own offsets.

use std::sync::Arc;

use alkaid_array::display::{format_with_offset, resolve_timezone};
use alkaid_array::types::Int16Type;
use alkaid_array::{
    Array, ArrayRef, AsArray, PrimitiveArray, StringArray, StructArray, make_array,
};
use alkaid_data::ArrayData;
use alkaid_schema::extension::{MAX_OFFSET_MINUTES, TimestampWithOffset};
use alkaid_schema::{DataType, TimeUnit};

use crate::access::native_values;
use crate::calendar::nanos_per;
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::{CastOptions, cast};

fn invalid(message: String) -> ComputeError {
    ComputeError::InvalidArgument(message)
}

/// The instants of `timestamps` (a timestamp type with a zone) with the offset their zone
/// has at each, as the storage of `arrow.timestamp_with_offset` in the same unit. An
/// offset with seconds (a zone's local mean time before 1900, say) is kept to its
/// minutes, toward zero; the instant itself is exact. Nulls stay null.
///
/// ```
/// use alkaid_array::{Array, PrimitiveArray};
/// use alkaid_array::types::TimestampSecondType;
/// use alkaid_compute::temporal::{timestamps_with_offset, with_offset_text};
/// use alkaid_schema::{DataType, TimeUnit};
///
/// let zoned = PrimitiveArray::<TimestampSecondType>::from(vec![Some(1_700_000_000), None])
///     .with_data_type(DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into())))?;
/// let stored = timestamps_with_offset(&zoned)?;
/// let text = with_offset_text(&stored)?;
/// assert_eq!(text.value(0), "2023-11-14T23:13:20+01:00");
/// assert!(text.is_null(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// When `timestamps` is not a timestamp with a zone, or the zone does not resolve.
pub fn timestamps_with_offset(timestamps: &dyn Array) -> Result<StructArray, ComputeError> {
    let DataType::Timestamp(unit, Some(zone)) = timestamps.data_type() else {
        return Err(invalid(format!(
            "timestamps_with_offset takes timestamps with a zone, found {}",
            timestamps.data_type()
        )));
    };
    let zone_name = zone.to_string();
    let tz = resolve_timezone(&zone_name)?;
    let data = decoded(&timestamps.to_data())?;
    let values = native_values::<i64>(&data)?;
    let per = nanos_per(*unit);
    let offsets: Vec<i16> = (0..data.len())
        .map(|i| {
            if data.is_null(i) {
                return 0;
            }
            let nanos = i128::from(values[i]) * i128::from(per);
            jiff::Timestamp::from_nanosecond(nanos)
                .map(|ts| (tz.to_offset(ts).seconds() / 60) as i16)
                .unwrap_or(0)
        })
        .collect();
    let instants = ArrayData::builder(DataType::Timestamp(*unit, Some("UTC".into())))
        .len(data.len())
        .buffers(vec![
            alkaid_buffer::ScalarBuffer::from(values.to_vec()).into_inner(),
        ])
        .build()?;
    StructArray::try_new(
        TimestampWithOffset::storage_fields(*unit),
        vec![
            make_array(instants),
            Arc::new(PrimitiveArray::<Int16Type>::from(offsets)) as ArrayRef,
        ],
        data.nulls().cloned(),
    )
    .map_err(ComputeError::from)
}

/// The parts of `arrow.timestamp_with_offset` storage: the unit, the instants (UTC), and
/// the offsets decoded to a plain `Int16` column, each checked against the type's bound.
fn parts(
    array: &dyn Array,
) -> Result<(TimeUnit, StructArray, PrimitiveArray<Int16Type>), ComputeError> {
    let unit = TimestampWithOffset::unit_of(array.data_type()).ok_or_else(|| {
        invalid(format!(
            "expected arrow.timestamp_with_offset storage, found {}",
            array.data_type()
        ))
    })?;
    let storage = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| invalid("a timestamp_with_offset array is a struct".into()))?
        .clone();
    let offsets = cast(
        storage.column(1).as_ref(),
        &DataType::Int16,
        CastOptions::STRICT,
    )?;
    let offsets = offsets.as_primitive::<Int16Type>().clone();
    for i in 0..storage.len() {
        if storage.is_valid(i)
            && offsets.is_valid(i)
            && offsets.value(i).unsigned_abs() > MAX_OFFSET_MINUTES as u16
        {
            return Err(invalid(format!(
                "row {i}: an offset of {} minutes is not one (at most {MAX_OFFSET_MINUTES} either way)",
                offsets.value(i)
            )));
        }
    }
    Ok((unit, storage, offsets))
}

/// The instants of `array` (`arrow.timestamp_with_offset` storage) as timestamps of
/// `zone` (`None`: `UTC`), in the same unit; the offsets are dropped, the instants kept.
///
/// # Errors
/// When `array` is not such storage or an offset is out of bounds.
pub fn zoned_timestamps(array: &dyn Array, zone: Option<&str>) -> Result<ArrayRef, ComputeError> {
    let (unit, storage, _) = parts(array)?;
    let zone = zone.unwrap_or("UTC");
    resolve_timezone(zone)?;
    let instants = storage.column(0).to_data();
    let data = ArrayData::builder(DataType::Timestamp(unit, Some(zone.into())))
        .len(instants.len())
        .offset(instants.offset())
        .buffers(instants.buffers().to_vec())
        .nulls(alkaid_buffer::NullBuffer::union(
            storage.nulls(),
            instants.nulls(),
        ))
        .build()?;
    Ok(make_array(data))
}

/// Each value of `array` (`arrow.timestamp_with_offset` storage) as ISO 8601 text in its
/// own offset (`2024-05-01T12:30:00.250+02:00`), with the fraction its unit holds.
///
/// # Errors
/// When `array` is not such storage or an offset is out of bounds.
pub fn with_offset_text(array: &dyn Array) -> Result<StringArray, ComputeError> {
    let (unit, storage, offsets) = parts(array)?;
    let instants = decoded(&storage.column(0).to_data())?;
    let values = native_values::<i64>(&instants)?;
    let mut out = Vec::with_capacity(storage.len());
    for i in 0..storage.len() {
        if storage.is_null(i) || instants.is_null(i) || offsets.is_null(i) {
            out.push(None);
            continue;
        }
        out.push(Some(format_with_offset(values[i], unit, offsets.value(i))));
    }
    Ok(StringArray::from(
        out.iter().map(Option::as_deref).collect::<Vec<_>>(),
    ))
}

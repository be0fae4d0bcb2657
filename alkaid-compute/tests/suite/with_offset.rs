//! `arrow.timestamp_with_offset`: made from zoned timestamps (the zone's offset at each
//! instant, daylight saving included), back to timestamps of any zone (the same
//! instants), and written with each value's own offset.

use std::sync::Arc;

use alkaid_array::types::{Int8Type, TimestampMillisecondType, TimestampSecondType};
use alkaid_array::{
    Array, ArrayRef, AsArray, DictionaryArray, Int16Array, PrimitiveArray, StructArray,
};
use alkaid_compute::temporal::{timestamps_with_offset, with_offset_text, zoned_timestamps};
use alkaid_schema::extension::{ExtensionType, TimestampWithOffset};
use alkaid_schema::{DataType, TimeUnit};

fn zoned(values: Vec<Option<i64>>, zone: &str) -> PrimitiveArray<TimestampSecondType> {
    PrimitiveArray::from(values)
        .with_data_type(DataType::Timestamp(TimeUnit::Second, Some(zone.into())))
        .unwrap()
}

fn texts(array: &alkaid_array::StringArray) -> Vec<Option<&str>> {
    array.iter().collect()
}

#[test]
fn offsets_follow_the_zone_at_each_instant() {
    // 2024-01-15 12:00 UTC (winter) and 2024-07-15 12:00 UTC (summer), and a null.
    let (winter, summer) = (1_705_320_000, 1_721_044_800);
    let paris = zoned(vec![Some(winter), Some(summer), None], "Europe/Paris");
    let stored = timestamps_with_offset(&paris).unwrap();
    TimestampWithOffset
        .check_storage(stored.data_type())
        .unwrap();
    let offsets = stored
        .column(1)
        .as_primitive::<alkaid_array::types::Int16Type>();
    assert_eq!(offsets.values()[..2], [60, 120]);
    assert!(stored.is_null(2));
    assert_eq!(
        texts(&with_offset_text(&stored).unwrap()),
        [
            Some("2024-01-15T13:00:00+01:00"),
            Some("2024-07-15T14:00:00+02:00"),
            None
        ]
    );
    let new_york =
        timestamps_with_offset(&zoned(vec![Some(winter), Some(summer)], "America/New_York"))
            .unwrap();
    assert_eq!(
        texts(&with_offset_text(&new_york).unwrap()),
        [
            Some("2024-01-15T07:00:00-05:00"),
            Some("2024-07-15T08:00:00-04:00")
        ]
    );
    // Back to any zone: the same instants.
    let back = zoned_timestamps(&stored, Some("Asia/Tokyo")).unwrap();
    assert_eq!(
        back.data_type(),
        &DataType::Timestamp(TimeUnit::Second, Some("Asia/Tokyo".into()))
    );
    let back = back.as_primitive::<TimestampSecondType>();
    assert_eq!(
        back.iter().collect::<Vec<_>>(),
        [Some(winter), Some(summer), None]
    );
    let utc = zoned_timestamps(&stored, None).unwrap();
    assert_eq!(
        utc.data_type(),
        &DataType::Timestamp(TimeUnit::Second, Some("UTC".into()))
    );
}

#[test]
fn fractions_dictionaries_slices_and_errors() {
    let millis = PrimitiveArray::<TimestampMillisecondType>::from(vec![1_500, -1])
        .with_data_type(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("UTC".into()),
        ))
        .unwrap();
    // Offsets dictionary-encoded with Int8 keys, as the format prefers.
    let offsets = DictionaryArray::<Int8Type>::try_new(
        PrimitiveArray::<Int8Type>::from(vec![0, 1]),
        Arc::new(Int16Array::from(vec![330, -210])),
    )
    .unwrap();
    let fields = vec![
        alkaid_schema::Field::new("timestamp", millis.data_type().clone(), false),
        alkaid_schema::Field::new("offset_minutes", offsets.data_type().clone(), false),
    ];
    let stored = StructArray::try_new(
        fields.into(),
        vec![Arc::new(millis) as ArrayRef, Arc::new(offsets)],
        None,
    )
    .unwrap();
    assert_eq!(
        texts(&with_offset_text(&stored).unwrap()),
        [
            Some("1970-01-01T05:30:01.500+05:30"),
            Some("1969-12-31T20:29:59.999-03:30")
        ]
    );
    let sliced = stored.slice_typed(1, 1);
    assert_eq!(
        texts(&with_offset_text(&sliced).unwrap()),
        [Some("1969-12-31T20:29:59.999-03:30")]
    );
    // Errors: no zone, not the storage, an offset past a day.
    let naive = PrimitiveArray::<TimestampSecondType>::from(vec![0]);
    assert!(
        timestamps_with_offset(&naive)
            .unwrap_err()
            .to_string()
            .contains("timestamps with a zone")
    );
    assert!(
        with_offset_text(&Int16Array::from(vec![1]))
            .unwrap_err()
            .to_string()
            .contains("expected arrow.timestamp_with_offset storage")
    );
    let bad = StructArray::try_new(
        TimestampWithOffset::storage_fields(TimeUnit::Second),
        vec![
            Arc::new(zoned(vec![Some(0)], "UTC")) as ArrayRef,
            Arc::new(Int16Array::from(vec![-1440])),
        ],
        None,
    )
    .unwrap();
    let error = with_offset_text(&bad).unwrap_err().to_string();
    assert!(
        error.contains("row 0: an offset of -1440 minutes"),
        "{error}"
    );
}

/// Tables show a timestamp with offset in its own offset, and a Variant as JSON.
#[test]
fn tables_show_extension_columns_as_their_values() {
    use alkaid_array::RecordBatch;
    use alkaid_array::display::pretty_format_batches;
    use alkaid_array::variant::VariantArray;
    use alkaid_schema::extension::{Namespace, ParquetVariant};
    use alkaid_schema::{Field, Schema};

    let stored =
        timestamps_with_offset(&zoned(vec![Some(1_705_320_000), None], "Asia/Kolkata")).unwrap();
    let variants = VariantArray::from_json([Some(r#"{"k": [1]}"#), Some("null")]).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("t", stored.data_type().clone(), true)
            .with_extension_type(&TimestampWithOffset, Namespace::Arrow)
            .unwrap(),
        Field::new("v", variants.storage().data_type().clone(), true)
            .with_extension_type(&ParquetVariant, Namespace::Arrow)
            .unwrap(),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(stored) as ArrayRef,
            Arc::new(variants.storage().clone()),
        ],
    )
    .unwrap();
    let table = pretty_format_batches(&[batch], None);
    assert!(
        table.contains("| 2024-01-15T17:30:00+05:30 | {\"k\":[1]} |"),
        "{table}"
    );
    // A null row, and a valid row holding Variant null.
    assert_eq!(table.matches("null").count(), 2, "{table}");
}

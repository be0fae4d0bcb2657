use alkaid_array::types::{Int64Type, TimestampMicrosecondType, TimestampSecondType};
use alkaid_array::{
    Array, ArrayRef, AsArray, Date32Array, Date64Array, StringArray, Time32SecondArray,
    Time64NanosecondArray, TimestampMicrosecondArray, TimestampSecondArray,
};
use alkaid_schema::{DataType, TimeUnit};

use super::*;

fn paris_seconds(values: Vec<Option<i64>>) -> TimestampSecondArray {
    let paris = DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into()));
    TimestampSecondArray::from(values)
        .with_data_type(paris)
        .unwrap()
}

fn ints(array: &ArrayRef) -> Vec<Option<i64>> {
    array.as_primitive::<Int64Type>().iter().collect()
}

#[test]
fn zones_far_from_today_follow_the_zone_database() {
    // Checked against Python's zoneinfo: 1910-03-25 14:18:40 UTC is 14:28:01 in Paris
    // (local mean time, +00:09:21); 2064-10-23 22:30:57 UTC is 00:30:57 on the 24th (the
    // summer-time rule past the listed transitions).
    let stamps = paris_seconds(vec![Some(-1_886_233_280), Some(2_992_026_657)]);
    assert_eq!(
        ints(&extract(&stamps, DatePart::Second).unwrap()),
        [Some(1), Some(57)]
    );
    assert_eq!(
        ints(&extract(&stamps, DatePart::Day).unwrap()),
        [Some(25), Some(24)]
    );
    // 1945-04-06 in Paris: its week starts Monday 1945-04-02 00:00 at +01:00 (the double
    // summer time began at 02:00 that day).
    let wartime = paris_seconds(vec![Some(-780_689_499)]);
    let monday = date_trunc(&wartime, DateUnit::Week).unwrap();
    assert_eq!(
        monday.as_primitive::<TimestampSecondType>().value(0),
        -781_059_600
    );
}

#[test]
fn truncation_in_a_zone_crosses_daylight_saving_changes() {
    // 2024-03-31 10:00 CEST (+02:00): its day began at 00:00 CET (+01:00).
    let stamps = paris_seconds(vec![Some(1_711_872_000), None]);
    let day = date_trunc(&stamps, DateUnit::Day).unwrap();
    let day: Vec<_> = day.as_primitive::<TimestampSecondType>().iter().collect();
    assert_eq!(day, [Some(1_711_839_600), None]);
    assert_eq!(
        date_trunc(&stamps, DateUnit::Hour)
            .unwrap()
            .as_primitive::<TimestampSecondType>()
            .value(0),
        1_711_872_000
    );
    let fields: Vec<Option<i64>> = [
        DatePart::Year,
        DatePart::Quarter,
        DatePart::DayOfYear,
        DatePart::IsoWeek,
    ]
    .into_iter()
    .map(|p| ints(&extract(&stamps, p).unwrap())[0])
    .collect();
    assert_eq!(fields, [Some(2024), Some(1), Some(91), Some(13)]);
}

#[test]
fn iso_weeks_at_year_ends_and_dates_before_1970() {
    // 2024-12-30 is in ISO week 1 of 2025; 2021-01-03 in week 53 of 2020; 1969-12-31 is a
    // Wednesday (2).
    let days = Date32Array::from(vec![20_087, 18_630, -1]);
    assert_eq!(
        ints(&extract(&days, DatePart::IsoYear).unwrap()),
        [Some(2025), Some(2020), Some(1970)]
    );
    assert_eq!(
        ints(&extract(&days, DatePart::IsoWeek).unwrap()),
        [Some(1), Some(53), Some(1)]
    );
    assert_eq!(
        ints(&extract(&days, DatePart::DayOfWeek).unwrap())[2],
        Some(2)
    );
    let millis = Date64Array::from(vec![-86_400_000]);
    assert_eq!(ints(&extract(&millis, DatePart::Day).unwrap()), [Some(31)]);
    let year = date_trunc(days.slice(2, 1).as_ref(), DateUnit::Year).unwrap();
    assert_eq!(
        year.as_primitive::<alkaid_array::types::Date32Type>()
            .value(0),
        -365
    );
}

#[test]
fn times_have_time_fields_only() {
    let times = Time32SecondArray::from(vec![Some(3_723), None]);
    assert_eq!(
        ints(&extract(&times, DatePart::Minute).unwrap()),
        [Some(2), None]
    );
    let error = extract(&times, DatePart::Year).unwrap_err().to_string();
    assert!(
        error.contains("year: Time(s) has no date") || error.contains("has no date"),
        "{error}"
    );
    let nanos = Time64NanosecondArray::from(vec![45_296_789_012_345]);
    assert_eq!(
        ints(&extract(&nanos, DatePart::Nanosecond).unwrap()),
        [Some(345)]
    );
    assert_eq!(
        ints(&extract(&nanos, DatePart::Microsecond).unwrap()),
        [Some(12)]
    );
    assert_eq!(
        ints(&extract(&nanos, DatePart::Millisecond).unwrap()),
        [Some(789)]
    );
    let hour = date_trunc(&nanos, DateUnit::Hour).unwrap();
    assert_eq!(
        hour.as_primitive::<alkaid_array::types::Time64NanosecondType>()
            .value(0),
        45_296_789_012_345 - 2_096_789_012_345
    );
    assert!(extract(&StringArray::from(vec!["x"]), DatePart::Day).is_err());
}

#[test]
fn bins_and_their_errors() {
    let stamps = TimestampMicrosecondArray::from(vec![Some(1_500_000), Some(-1), None]);
    let bins = date_bin(&stamps, 1_000_000, 250_000).unwrap();
    let bins: Vec<_> = bins
        .as_primitive::<TimestampMicrosecondType>()
        .iter()
        .collect();
    assert_eq!(bins, [Some(1_250_000), Some(-750_000), None]);
    assert!(date_bin(&stamps, 0, 0).is_err());
    assert!(date_bin(&Date32Array::from(vec![1]), 1, 0).is_err());
    let edge = TimestampSecondArray::from(vec![i64::MIN + 5]);
    let error = date_bin(&edge, 1_000, 0).unwrap_err();
    assert_eq!(error.row(), Some(0));
}

#[test]
fn text_both_ways() {
    let stamps = paris_seconds(vec![Some(1_711_872_000)]);
    let text = strftime(&stamps, "%Y-%m-%d %H:%M %z %Z").unwrap();
    assert_eq!(
        text.as_string::<i32>().value(0),
        "2024-03-31 10:00 +0200 CEST"
    );
    let times = Time32SecondArray::from(vec![3_723]);
    assert_eq!(
        strftime(&times, "%H:%M:%S")
            .unwrap()
            .as_string::<i32>()
            .value(0),
        "01:02:03"
    );
    let error = strftime(&times, "%Y").unwrap_err().to_string();
    assert!(error.contains("row 0"), "{error}");
    let input = StringArray::from(vec![Some("2024-03-31 10:00"), None, Some("31/03/2024")]);
    let parsed = strptime(&input, "%Y-%m-%d %H:%M", TimeUnit::Millisecond, true).unwrap();
    let parsed: Vec<_> = parsed
        .as_primitive::<alkaid_array::types::TimestampMillisecondType>()
        .iter()
        .collect();
    assert_eq!(parsed, [Some(1_711_879_200_000), None, None]);
    let error = strptime(&input, "%Y-%m-%d %H:%M", TimeUnit::Second, false).unwrap_err();
    assert_eq!(error.row(), Some(2));
    let old = strptime(
        &StringArray::from(vec!["1500-01-01"]),
        "%Y-%m-%d",
        TimeUnit::Second,
        false,
    )
    .unwrap();
    assert_eq!(
        old.as_primitive::<TimestampSecondType>().value(0),
        -14_831_769_600
    );
}

#[test]
fn fields_at_a_fixed_offset_agree_with_jiff_in_every_unit() {
    // The loops compiled per unit (a day's length a constant) against jiff's civil time,
    // at an offset with minutes, on instants across four centuries, negative ones included.
    let offset = jiff::tz::Offset::from_seconds(-(3 * 3600 + 30 * 60)).unwrap();
    let seconds: Vec<i64> = (0..400)
        .map(|i: i64| (i - 200) * 31_556_952 + i * i * 7_919 % 86_400)
        .collect();
    let parts = [
        DatePart::Year,
        DatePart::Quarter,
        DatePart::Month,
        DatePart::Day,
        DatePart::DayOfWeek,
        DatePart::DayOfYear,
        DatePart::IsoWeek,
        DatePart::IsoYear,
        DatePart::Hour,
        DatePart::Minute,
        DatePart::Second,
        DatePart::Millisecond,
        DatePart::Microsecond,
        DatePart::Nanosecond,
    ];
    for (unit, per_second) in [
        (TimeUnit::Second, 1),
        (TimeUnit::Millisecond, 1_000),
        (TimeUnit::Microsecond, 1_000_000),
        (TimeUnit::Nanosecond, 1_000_000_000),
    ] {
        // A sub-second part that differs by unit: 123_456_789 ns cut to the unit.
        let fraction = 123_456_789 / (1_000_000_000 / per_second);
        let stored: Vec<i64> = seconds.iter().map(|s| s * per_second + fraction).collect();
        let data_type = DataType::Timestamp(unit, Some("-03:30".into()));
        let array = alkaid_array::make_array(
            ArrayData::builder(data_type)
                .len(stored.len())
                .buffers(vec![alkaid_buffer::Buffer::from_vec(stored.clone())])
                .build()
                .unwrap(),
        );
        for part in parts {
            let found = ints(&extract(array.as_ref(), part).unwrap());
            for (row, &second) in seconds.iter().enumerate() {
                let nanos = i128::from(fraction) * i128::from(1_000_000_000 / per_second);
                let stamp =
                    jiff::Timestamp::from_nanosecond(i128::from(second) * 1_000_000_000 + nanos)
                        .unwrap();
                let civil = stamp.to_zoned(jiff::tz::TimeZone::fixed(offset)).datetime();
                let iso = civil.date().iso_week_date();
                let expected = match part {
                    DatePart::Year => i64::from(civil.year()),
                    DatePart::Quarter => i64::from((civil.month() - 1) / 3 + 1),
                    DatePart::Month => i64::from(civil.month()),
                    DatePart::Day => i64::from(civil.day()),
                    DatePart::DayOfWeek => i64::from(civil.weekday().to_monday_zero_offset()),
                    DatePart::DayOfYear => i64::from(civil.day_of_year()),
                    DatePart::IsoWeek => i64::from(iso.week()),
                    DatePart::IsoYear => i64::from(iso.year()),
                    DatePart::Hour => i64::from(civil.hour()),
                    DatePart::Minute => i64::from(civil.minute()),
                    DatePart::Second => i64::from(civil.second()),
                    DatePart::Millisecond => i64::from(civil.millisecond()),
                    DatePart::Microsecond => i64::from(civil.microsecond()),
                    DatePart::Nanosecond => i64::from(civil.nanosecond()),
                };
                assert_eq!(found[row], Some(expected), "{unit:?} {part:?} at {second}");
            }
        }
    }
    // At the ends of i64 the local time is computed in 128 bits.
    let ends = TimestampSecondArray::from(vec![i64::MIN, i64::MAX])
        .with_data_type(DataType::Timestamp(TimeUnit::Second, Some("+05:30".into())))
        .unwrap();
    let hours = ints(&extract(&ends, DatePart::Hour).unwrap());
    // i64::MAX seconds is 15:30:07 UTC of its day, 21:00:07 at +05:30; i64::MIN is 08:29:52
    // UTC, 13:59:52 local.
    assert_eq!(hours, [Some(13), Some(21)]);
}

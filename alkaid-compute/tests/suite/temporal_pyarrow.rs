//! Differential test of the temporal kernels against pyarrow.compute: every field of
//! `extract` and `date_trunc` to every unit (pyarrow's `floor_temporal` with weeks
//! starting on Monday), on microsecond timestamps in five zones (none, UTC, two with
//! daylight saving, a fixed offset) and on dates, with instants around the daylight-saving
//! changes of 2024 and spread over 1970–2037 (why not wider: below).

use crate::common;
use crate::peer_python;
use crate::pyarrow_compute::pyarrow_results;

use alkaid_array::types::Int64Type;
use alkaid_array::{Array, AsArray, Date32Array, TimestampMicrosecondArray};
use alkaid_compute::{DatePart, DateUnit, date_trunc, extract};
use alkaid_schema::{DataType, TimeUnit};
use common::Rng;
use serde_json::{Value, json};

const PARTS: [(&str, DatePart); 14] = [
    ("year", DatePart::Year),
    ("quarter", DatePart::Quarter),
    ("month", DatePart::Month),
    ("day", DatePart::Day),
    ("day_of_week", DatePart::DayOfWeek),
    ("day_of_year", DatePart::DayOfYear),
    ("iso_week", DatePart::IsoWeek),
    ("iso_year", DatePart::IsoYear),
    ("hour", DatePart::Hour),
    ("minute", DatePart::Minute),
    ("second", DatePart::Second),
    ("millisecond", DatePart::Millisecond),
    ("microsecond", DatePart::Microsecond),
    ("nanosecond", DatePart::Nanosecond),
];
const UNITS: [(&str, DateUnit); 9] = [
    ("year", DateUnit::Year),
    ("quarter", DateUnit::Quarter),
    ("month", DateUnit::Month),
    ("week", DateUnit::Week),
    ("day", DateUnit::Day),
    ("hour", DateUnit::Hour),
    ("minute", DateUnit::Minute),
    ("second", DateUnit::Second),
    ("millisecond", DateUnit::Millisecond),
];
const ZONES: [&str; 5] = ["", "UTC", "Europe/Paris", "America/New_York", "+05:30"];

fn ints(array: &dyn Array) -> Vec<Value> {
    let values = array.as_primitive::<Int64Type>();
    values.iter().map(|v| json!(v)).collect()
}

#[test]
fn fields_and_truncation_agree_with_pyarrow_compute() {
    let Some(python) = peer_python::python_with("pyarrow.compute") else {
        return;
    };
    let mut rng = Rng::new(0x7e4d);
    // 2024's changes: Paris 03-31 01:00 UTC and 10-27 01:00 UTC; New York 03-10 07:00 UTC
    // and 11-03 06:00 UTC. Instants every 20 minutes around each, then random ones.
    let changes: [i64; 4] = [1_711_846_800, 1_729_990_800, 1_710_054_000, 1_730_613_600];
    let mut micros: Vec<Option<i64>> = Vec::new();
    for change in changes {
        for step in -6..=6 {
            micros.push(Some((change + step * 1200) * 1_000_000 + 123_456));
        }
    }
    for _ in 0..400 {
        // 1970 to 2037, where pyarrow's zones are whole. Outside, pyarrow and Alkaid
        // differ and Python's zoneinfo sides with Alkaid (unit tests in src/temporal check
        // each): before 1911 Paris kept its local mean time (+00:09:21), whose seconds
        // pyarrow drops; in April 1945 pyarrow truncates a Paris time to its week with the
        // summer offset of the week's end, an hour off; past 2037 pyarrow (Arrow C++'s date
        // library) keeps a zone's last listed offset instead of its daylight-saving rule.
        let seconds = rng.below(2_145_916_800) as i64;
        micros.push(Some(seconds * 1_000_000 + rng.below(1_000_000) as i64));
    }
    micros.push(None);
    let days: Vec<Option<i32>> = micros
        .iter()
        .map(|m| m.map(|m| m.div_euclid(86_400_000_000) as i32))
        .collect();
    let spec = json!({"micros": micros, "zones": ZONES, "days": days});
    let theirs = pyarrow_results(&python, "pyarrow_temporal", &spec);

    let mut compared = 0;
    let mut ambiguous = 0;
    let mut check = |name: String, ours: Vec<Value>| {
        let theirs = theirs[name.as_str()]
            .as_array()
            .unwrap_or_else(|| panic!("{name}"));
        for (row, (a, b)) in ours.iter().zip(theirs).enumerate() {
            // A truncated local time that the end of daylight saving repeats: pyarrow
            // refuses it, Alkaid takes its first instant (jiff's `compatible`).
            if b == "ambiguous" {
                ambiguous += 1;
                continue;
            }
            assert_eq!(a, b, "{name}, row {row} ({:?})", micros.get(row));
            compared += 1;
        }
    };
    for zone in ZONES {
        let zoned = (!zone.is_empty()).then(|| zone.into());
        let stamps = TimestampMicrosecondArray::from(micros.clone())
            .with_data_type(DataType::Timestamp(TimeUnit::Microsecond, zoned))
            .unwrap();
        for (name, part) in PARTS {
            check(
                format!("{name} {zone}"),
                ints(extract(&stamps, part).unwrap().as_ref()),
            );
        }
        for (name, unit) in UNITS {
            let floored = date_trunc(&stamps, unit).unwrap();
            let floored = floored.as_primitive::<alkaid_array::types::TimestampMicrosecondType>();
            let values = floored.iter().map(|v| json!(v)).collect();
            check(format!("floor {name} {zone}"), values);
        }
    }
    let dates = Date32Array::from(days.clone());
    for (name, part) in &PARTS[..8] {
        check(
            format!("{name} date"),
            ints(extract(&dates, *part).unwrap().as_ref()),
        );
    }
    assert!(compared > 30_000, "{compared} values compared");
    assert!(ambiguous < 100, "{ambiguous} ambiguous rows skipped");
}

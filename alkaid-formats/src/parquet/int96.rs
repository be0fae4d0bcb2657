//! INT96, the legacy timestamp of Impala, Hive and Spark: a Julian day and the nanoseconds
//! within it. arrow-rs reads it as a timestamp in nanoseconds and wraps a value outside
//! their range (1677 to 2262) without a word, as Arrow C++ does: Spark's `9999-12-31` comes
//! out as 1816. Here such a value is an error naming the column, row group and value
//! ([`check`]), and an option reads INT96 as microseconds, Spark's own resolution
//! ([`in_microseconds`], a hint applied by `leaves.rs`). In microseconds a value is what
//! Spark meant by it: Spark computes the day of a timestamp in 64-bit microseconds that
//! wrap, and arrow-rs's conversion wraps the same way, so that year 290000 (whose day Spark
//! wrote as a negative number) reads back as year 290000. Only nanoseconds are checked.
//!
//! The check reads the INT96 columns a second time before the first batch is decoded:
//! arrow-rs's conversion keeps no trace of a wrap, and only files that hold INT96 pay for
//! it. It scans the pages' raw values (`int96_scan.rs`: only the dictionary when every
//! data page is dictionary-encoded), and reads a chunk value by value through arrow-rs's
//! column reader only to name the value that does not fit.

use std::sync::Arc;

use arrow_schema_60::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::ArrowReaderMetadata;
use parquet::basic::Type as PhysicalType;
use parquet::column::reader::ColumnReaderImpl;
use parquet::data_type::{Int96, Int96Type};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;
use parquet::file::serialized_reader::SerializedPageReader;

use super::int96_scan::{
    JULIAN_DAY_OF_EPOCH, NANOS_PER_DAY, WholeDays, every_value_fits, per_second,
};
use super::leaves::{leaf_types, physical_type};
use crate::batches::unpanicked;

/// Values read at a time by the check.
const CHECK_BATCH: usize = 8192;

/// The file's INT96 columns read in nanoseconds, whose values [`check`] checks: their leaf
/// index and unit.
pub(crate) fn columns(metadata: &ArrowReaderMetadata) -> Vec<(usize, TimeUnit)> {
    let parquet = metadata.parquet_schema();
    let leaves = leaf_types(metadata.schema().fields());
    (0..parquet.num_columns())
        .filter(|&i| parquet.column(i).physical_type() == PhysicalType::INT96)
        .filter_map(|i| match leaves.get(i) {
            Some(DataType::Timestamp(TimeUnit::Nanosecond, _)) => Some((i, TimeUnit::Nanosecond)),
            _ => None,
        })
        .collect()
}

/// The type of leaf `column` (of `metadata`'s file, now read as `leaf`) when INT96 is read
/// in microseconds: a nanosecond timestamp reading an INT96 column in microseconds (a
/// unit the stored Arrow schema names is kept). `None` for any other leaf.
pub(crate) fn in_microseconds(
    metadata: &ParquetMetaData,
    column: usize,
    leaf: &DataType,
) -> Option<DataType> {
    let int96 = physical_type(metadata, column) == PhysicalType::INT96;
    match leaf {
        DataType::Timestamp(TimeUnit::Nanosecond, zone) if int96 => {
            Some(DataType::Timestamp(TimeUnit::Microsecond, zone.clone()))
        }
        _ => None,
    }
}

/// Checks that every INT96 value of `columns` in `row_groups` fits its unit's range, so
/// that arrow-rs's conversion does not wrap it.
///
/// # Errors
/// The first value that does not fit, with its column, row group and index in the chunk;
/// or what arrow-rs says of the column chunk.
pub(crate) fn check<R: ChunkReader + 'static>(
    reader: Arc<R>,
    metadata: &ArrowReaderMetadata,
    row_groups: &[usize],
    columns: &[(usize, TimeUnit)],
) -> Result<(), String> {
    let parquet = metadata.metadata();
    for &g in row_groups {
        let group = parquet.row_group(g);
        let rows = usize::try_from(group.num_rows()).map_err(|e| e.to_string())?;
        for &(c, unit) in columns {
            let chunk = group.column(c);
            let place = |index: usize| {
                format!(
                    "column {}, row group {g}, value {index}",
                    chunk.column_path()
                )
            };
            let whole_days = WholeDays::of(unit);
            // Most chunks are settled by their pages' raw values; the rest (a value that
            // does not fit, a page the scan does not take) are read again value by value.
            if every_value_fits(Arc::clone(&reader), chunk, rows, &whole_days) {
                continue;
            }
            let pages = SerializedPageReader::new(Arc::clone(&reader), chunk, rows, None)
                .map_err(|e| format!("{}: {e}", place(0)))?;
            let mut values = ColumnReaderImpl::<Int96Type>::new(
                metadata.parquet_schema().column(c),
                Box::new(pages),
            );
            let (mut definitions, mut repetitions, mut read) = (Vec::new(), Vec::new(), 0);
            let mut batch: Vec<Int96> = Vec::with_capacity(CHECK_BATCH);
            loop {
                batch.clear();
                definitions.clear();
                repetitions.clear();
                let (records, _, _) = unpanicked(|| {
                    values.read_records(
                        CHECK_BATCH,
                        Some(&mut definitions),
                        Some(&mut repetitions),
                        &mut batch,
                    )
                })?
                .map_err(|e| format!("{}: {e}", place(read)))?;
                let wrong = |v: &Int96| !whole_days.hold(v) && !fits(v, unit);
                if let Some((i, value)) = batch.iter().enumerate().find(|(_, v)| wrong(v)) {
                    return Err(format!(
                        "{}: the INT96 timestamp {} lies outside what a timestamp in \
                         nanoseconds holds (years 1677 to 2262); read INT96 as microseconds \
                         to keep it",
                        place(read + i),
                        describe(value),
                    ));
                }
                read += batch.len();
                if records == 0 {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Whether arrow-rs's conversion of `value` to `unit` is exact: its day and nanoseconds
/// in that unit, computed without wrapping, fit an `i64`.
fn fits(value: &Int96, unit: TimeUnit) -> bool {
    let (day, nanos) = day_and_nanos(value);
    let divisor = per_second(TimeUnit::Nanosecond) / per_second(unit);
    let exact = (day - JULIAN_DAY_OF_EPOCH) * (NANOS_PER_DAY / divisor) + nanos / divisor;
    i64::try_from(exact).is_ok()
}

/// The Julian day and the nanoseconds of `value`, as arrow-rs reads them: the day a signed
/// 32-bit number, the nanoseconds a signed 64-bit one.
fn day_and_nanos(value: &Int96) -> (i128, i128) {
    let data = value.data();
    let (low, high, day) = (data[0], data[1], data[2]);
    let nanos = ((u64::from(high) << 32) | u64::from(low)) as i64;
    (i128::from(day as i32), i128::from(nanos))
}

/// `value` for a message: its date when it has one (a proleptic Gregorian year, which may
/// lie far outside any timestamp's), and its raw day and nanoseconds.
fn describe(value: &Int96) -> String {
    let (day, nanos) = day_and_nanos(value);
    let days_since_epoch = day - JULIAN_DAY_OF_EPOCH;
    format!(
        "of year {} (Julian day {day}, {nanos} ns)",
        civil_year(days_since_epoch)
    )
}

/// The proleptic Gregorian year of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_year(days: i128) -> i128 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let january_or_february = month_index >= 10;
    year_of_era + era * 400 + i128::from(january_or_february)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int96(day: i32, nanos: i64) -> Int96 {
        let mut value = Int96::new();
        let nanos = nanos as u64;
        value.set_data(nanos as u32, (nanos >> 32) as u32, day as u32);
        value
    }

    #[test]
    fn a_value_fits_when_its_exact_conversion_does() {
        let epoch = JULIAN_DAY_OF_EPOCH as i32;
        // The fast test never says a value fits that does not.
        for unit in [
            TimeUnit::Second,
            TimeUnit::Millisecond,
            TimeUnit::Microsecond,
            TimeUnit::Nanosecond,
        ] {
            let whole = WholeDays::of(unit);
            for day in [
                whole.first.saturating_sub(1),
                whole.first,
                whole.last,
                whole.last.saturating_add(1),
                epoch,
                i32::MIN,
                i32::MAX,
            ] {
                for nanos in [0, NANOS_PER_DAY as i64 - 1, NANOS_PER_DAY as i64, -1] {
                    let value = int96(day, nanos);
                    assert!(
                        !whole.hold(&value) || fits(&value, unit),
                        "{unit:?} {day} {nanos}"
                    );
                }
            }
            assert!(whole.hold(&int96(whole.first, 0)) && whole.hold(&int96(whole.last, 0)));
        }
        assert!(fits(&int96(epoch, 0), TimeUnit::Nanosecond));
        // 2262-04-11 is the last day nanoseconds hold; 2262-04-12 is not.
        let last = epoch + 106_751;
        assert!(fits(&int96(last, 0), TimeUnit::Nanosecond));
        assert!(!fits(&int96(last + 1, 0), TimeUnit::Nanosecond));
        assert!(fits(&int96(last + 1, 0), TimeUnit::Microsecond));
        // Year 290000 (Spark's example) fits microseconds but not nanoseconds.
        let far = epoch + 105_203_000;
        assert!(!fits(&int96(far, 0), TimeUnit::Nanosecond));
        assert!(fits(&int96(far, 0), TimeUnit::Microsecond));
        // A day near i32::MAX fits no unit finer than seconds.
        assert!(!fits(&int96(i32::MAX, 0), TimeUnit::Microsecond));
        assert!(fits(&int96(i32::MAX, 0), TimeUnit::Second));
        // Nanoseconds past the day's end count as arrow-rs counts them.
        assert!(!fits(
            &int96(last, NANOS_PER_DAY as i64),
            TimeUnit::Nanosecond
        ));
    }

    #[test]
    fn a_value_is_described_by_its_year() {
        let epoch = JULIAN_DAY_OF_EPOCH as i32;
        assert!(describe(&int96(epoch, 5)).starts_with("of year 1970 "));
        assert!(describe(&int96(epoch - 1, 0)).starts_with("of year 1969 "));
        assert!(describe(&int96(epoch + 105_203_000, 0)).starts_with("of year 290"));
        assert_eq!(civil_year(-719_468), 0);
    }
}

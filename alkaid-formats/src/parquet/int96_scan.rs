//! The fast part of the INT96 check (`int96.rs`): a column chunk's pages read raw, each
//! INT96 value tested in place, without arrow-rs's column reader (which decodes levels and
//! dictionary indices into values: most of the check's cost before). A dictionary-encoded
//! data page holds indices into the dictionary page, whose values are tested once; when
//! the chunk's page encoding statistics say every data page is dictionary-encoded, only
//! the dictionary page is read at all. Whatever this scan does not take (a page it cannot
//! walk, a value that does not fit) it leaves to the exact check, which names the value.

use std::sync::Arc;

use arrow_schema_60::TimeUnit;
use parquet::basic::{Encoding, PageType};
use parquet::column::page::{Page, PageReader};
use parquet::data_type::Int96;
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::reader::ChunkReader;
use parquet::file::serialized_reader::SerializedPageReader;

use crate::batches::unpanicked;

/// The Julian day of 1970-01-01.
pub(super) const JULIAN_DAY_OF_EPOCH: i128 = 2_440_588;
pub(super) const NANOS_PER_DAY: i128 = 86_400 * 1_000_000_000;

/// The bytes of one INT96 value: the nanoseconds of the day (8), then the Julian day (4).
const WIDTH: usize = 12;

/// The Julian days every instant of which a unit holds: a value whose day is one of them
/// and whose nanoseconds lie within a day fits without [`fits`]'s 128-bit arithmetic,
/// which costs about ten times as much (the check runs on every value of the column).
pub(super) struct WholeDays {
    pub(super) first: i32,
    pub(super) last: i32,
}

impl WholeDays {
    pub(super) fn of(unit: TimeUnit) -> Self {
        let per_day = NANOS_PER_DAY / (per_second(TimeUnit::Nanosecond) / per_second(unit));
        // Day d covers [(d - epoch) * per_day, (d - epoch + 1) * per_day).
        let first = (i128::from(i64::MIN) + per_day - 1).div_euclid(per_day) + JULIAN_DAY_OF_EPOCH;
        let last = (i128::from(i64::MAX) + 1).div_euclid(per_day) - 1 + JULIAN_DAY_OF_EPOCH;
        let clamp = |day: i128| day.clamp(i32::MIN.into(), i32::MAX.into()) as i32;
        Self {
            first: clamp(first),
            last: clamp(last),
        }
    }

    pub(super) fn hold(&self, value: &Int96) -> bool {
        let data = value.data();
        let nanos = (u64::from(data[1]) << 32) | u64::from(data[0]);
        self.hold_parts(nanos, data[2] as i32)
    }

    /// [`Self::hold`] of a value as its 12 bytes in a page.
    fn hold_bytes(&self, bytes: &[u8]) -> bool {
        let (nanos, day) = bytes.split_at(8);
        let nanos = u64::from_le_bytes(nanos.try_into().expect("8 bytes"));
        let day = i32::from_le_bytes(day.try_into().expect("4 bytes"));
        self.hold_parts(nanos, day)
    }

    fn hold_parts(&self, nanos: u64, day: i32) -> bool {
        nanos < NANOS_PER_DAY as u64 && (self.first..=self.last).contains(&day)
    }
}

/// How many of `unit` a second holds.
pub(super) fn per_second(unit: TimeUnit) -> i128 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// Whether every INT96 value of `chunk` (of a row group of `rows` rows) certainly fits
/// `whole_days`; `false` when a value does not, or when the pages could not be walked.
pub(super) fn every_value_fits<R: ChunkReader + 'static>(
    reader: Arc<R>,
    chunk: &ColumnChunkMetaData,
    rows: usize,
    whole_days: &WholeDays,
) -> bool {
    let levels = Levels {
        repetition: chunk.column_descr().max_rep_level(),
        definition: chunk.column_descr().max_def_level(),
    };
    let only_dictionary = dictionary_only(chunk);
    let scan = || -> parquet::errors::Result<bool> {
        let mut pages = SerializedPageReader::new(reader, chunk, rows, None)?;
        while let Some(page) = pages.get_next_page()? {
            let values = match &page {
                Page::DictionaryPage { buf, .. } => Some(&buf[..]),
                Page::DataPage { encoding, .. } | Page::DataPageV2 { encoding, .. }
                    if is_dictionary(*encoding) =>
                {
                    continue;
                }
                Page::DataPage {
                    encoding: Encoding::PLAIN,
                    ..
                }
                | Page::DataPageV2 {
                    encoding: Encoding::PLAIN,
                    ..
                } => plain_values(&page, &levels),
                _ => None,
            };
            let Some(values) = values else {
                return Ok(false);
            };
            if values.len() % WIDTH != 0
                || !values.chunks_exact(WIDTH).all(|v| whole_days.hold_bytes(v))
            {
                return Ok(false);
            }
            if only_dictionary && matches!(page, Page::DictionaryPage { .. }) {
                return Ok(true);
            }
        }
        Ok(true)
    };
    matches!(unpanicked(scan), Ok(Ok(true)))
}

/// The largest repetition and definition levels of a column: whether a v1 data page
/// starts with each kind of level, and how wide they are.
struct Levels {
    repetition: i16,
    definition: i16,
}

/// The values section of a PLAIN data page: the bytes after its levels.
fn plain_values<'a>(page: &'a Page, levels: &Levels) -> Option<&'a [u8]> {
    match page {
        Page::DataPageV2 {
            buf,
            def_levels_byte_len,
            rep_levels_byte_len,
            ..
        } => {
            let start = usize::try_from(*def_levels_byte_len)
                .ok()?
                .checked_add(usize::try_from(*rep_levels_byte_len).ok()?)?;
            buf.get(start..)
        }
        Page::DataPage {
            buf,
            num_values,
            def_level_encoding,
            rep_level_encoding,
            ..
        } => {
            let mut rest = &buf[..];
            for (max, encoding) in [
                (levels.repetition, rep_level_encoding),
                (levels.definition, def_level_encoding),
            ] {
                if max > 0 {
                    rest = after_levels(rest, *encoding, max, *num_values)?;
                }
            }
            Some(rest)
        }
        Page::DictionaryPage { .. } => None,
    }
}

/// `bytes` after the levels at their start: RLE's are prefixed by their length, the
/// deprecated BIT_PACKED ones take `values` levels of the width `max` needs.
fn after_levels(bytes: &[u8], encoding: Encoding, max: i16, values: u32) -> Option<&[u8]> {
    let length = match encoding {
        Encoding::RLE => {
            let prefix: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
            4 + usize::try_from(u32::from_le_bytes(prefix)).ok()?
        }
        #[allow(deprecated)]
        Encoding::BIT_PACKED => {
            let width = 16 - u64::from((max as u16).leading_zeros());
            usize::try_from((u64::from(values) * width).div_ceil(8)).ok()?
        }
        _ => return None,
    };
    bytes.get(length..)
}

fn is_dictionary(encoding: Encoding) -> bool {
    matches!(
        encoding,
        Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY
    )
}

/// Whether the chunk's page encoding statistics say every data page holds dictionary
/// indices.
fn dictionary_only(chunk: &ColumnChunkMetaData) -> bool {
    chunk.page_encoding_stats().is_some_and(|stats| {
        stats
            .iter()
            .filter(|s| matches!(s.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2))
            .all(|s| is_dictionary(s.encoding))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use parquet::data_type::Int96Type;
    use parquet::file::properties::{WriterProperties, WriterVersion};
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    use crate::parquet::{ParquetReadOptions, read_bytes};

    /// The INT96 value of 12 bytes.
    fn int96(bytes: &[u8]) -> Int96 {
        let word =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let mut value = Int96::new();
        value.set_data(word(0), word(4), word(8));
        value
    }

    const EPOCH: i32 = JULIAN_DAY_OF_EPOCH as i32;
    /// 2262-04-12, the first day nanoseconds do not hold.
    const PAST_NANOSECONDS: i32 = EPOCH + 106_752;

    /// A file of one optional INT96 column holding `days` (`None` a null) at midnight, in
    /// pages of 4 rows.
    fn file(days: &[Option<i32>], dictionary: bool, version: WriterVersion) -> Bytes {
        let schema = Arc::new(parse_message_type("message m { optional int96 t; }").unwrap());
        let properties = WriterProperties::builder()
            .set_writer_version(version)
            .set_dictionary_enabled(dictionary)
            .set_data_page_row_count_limit(4)
            .set_write_batch_size(4)
            .build();
        let mut out = Vec::new();
        let mut writer = SerializedFileWriter::new(&mut out, schema, Arc::new(properties)).unwrap();
        let mut group = writer.next_row_group().unwrap();
        let mut column = group.next_column().unwrap().unwrap();
        let values: Vec<Int96> = days
            .iter()
            .flatten()
            .map(|&day| int96(&[[0; 8].as_slice(), &day.to_le_bytes()].concat()))
            .collect();
        let levels: Vec<i16> = days.iter().map(|d| i16::from(d.is_some())).collect();
        column
            .typed::<Int96Type>()
            .write_batch(&values, Some(&levels), None)
            .unwrap();
        column.close().unwrap();
        group.close().unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    }

    #[test]
    fn pages_of_every_kind_are_scanned_and_a_value_past_the_unit_found() {
        let mut days: Vec<Option<i32>> = (0..20).map(|i| Some(EPOCH + i % 3)).collect();
        days[5] = None;
        let whole_days = WholeDays::of(TimeUnit::Nanosecond);
        for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
            for dictionary in [false, true] {
                let what = format!("{version:?}, dictionary {dictionary}");
                let fits = |bytes: &Bytes| {
                    let footer = SerializedFileReader::new(bytes.clone()).unwrap();
                    let chunk = footer.metadata().row_group(0).column(0).clone();
                    every_value_fits(Arc::new(bytes.clone()), &chunk, days.len(), &whole_days)
                };
                assert!(fits(&file(&days, dictionary, version)), "{what}");
                // Row 13 is the 13th value that is not null (index 12).
                let mut wrong = days.clone();
                wrong[13] = Some(PAST_NANOSECONDS);
                let bytes = file(&wrong, dictionary, version);
                assert!(!fits(&bytes), "{what}");
                let mut batches = read_bytes(bytes, ParquetReadOptions::default()).unwrap();
                let error = batches.next().unwrap().unwrap_err().to_string();
                assert!(
                    error.contains("row group 0, value 12: the INT96 timestamp of year 2262"),
                    "{what}: {error}"
                );
            }
        }
    }
}

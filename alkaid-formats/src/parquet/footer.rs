//! A Parquet file's footer and page index, checked before arrow-rs decodes them and then
//! decoded inside the panic guard. The footer's and the page index's Thrift bytes are
//! walked first (`thrift.rs`): a size they declare that the bytes cannot hold is refused
//! here, where arrow-rs would reserve it (an abort no guard catches). The page index's
//! places come from the footer, decoded without it, and must lie inside the file.
//!
//! The synchronous reader ([`load`]) and the ranged one (`remote.rs`) share every check,
//! and the repairs of what faulty writers put in footers (`repair.rs`).

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::file::metadata::{
    PageIndexPolicy, ParquetMetaData, ParquetMetaDataOptions, ParquetMetaDataReader,
};
use parquet::file::reader::ChunkReader;

use super::mistyped::without_mistyped_fields;
use super::repair::repaired;
use super::thrift::check_struct;
use crate::batches::unpanicked;

/// Where the footer of a `len`-byte file lies, from the file's last 8 bytes (`tail`):
/// `None` for an encrypted footer, which is not checked here (arrow-rs refuses it, or
/// decrypts it with keys this reader does not take).
///
/// # Errors
/// If the file is too short, its magic is not Parquet's, or the footer's length does not
/// fit the file.
pub(crate) fn footer_range(tail: &[u8], len: u64) -> Result<Option<Range<u64>>, String> {
    let Some(tail) = tail
        .get(tail.len().saturating_sub(8)..)
        .filter(|t| t.len() == 8)
    else {
        return Err(format!("a {len}-byte file is too short to be Parquet"));
    };
    match &tail[4..] {
        b"PAR1" => {}
        b"PARE" => return Ok(None),
        _ => return Err("not a Parquet file: it does not end with PAR1".into()),
    }
    let footer = u64::from(u32::from_le_bytes(tail[..4].try_into().expect("4 bytes")));
    // The file starts with the 4-byte magic, and ends with the footer, its length and the
    // magic again.
    match len
        .checked_sub(8)
        .and_then(|end| Some(end.checked_sub(footer)?..end))
    {
        Some(range) if range.start >= 4 => Ok(Some(range)),
        _ => Err(format!(
            "the footer declares {footer} bytes, which the {len}-byte file cannot hold"
        )),
    }
}

/// Checks the footer's bytes: one Thrift struct that fits in them.
pub(crate) fn check_footer(footer: &[u8]) -> Result<(), String> {
    check_struct(footer)
        .map(drop)
        .map_err(|e| format!("the footer: {e}"))
}

/// The footer's bytes, which begin at `start` in the file, decoded once checked, without
/// the fields a writer wrote with another type than Parquet's (`mistyped.rs`), inside the
/// panic guard; then repaired (`repair.rs`). The page index is not read.
///
/// # Errors
/// What the check or arrow-rs refuses, or the message of a panic in arrow-rs.
pub(crate) fn decode(footer: &[u8], start: u64) -> Result<ParquetMetaData, String> {
    check_footer(footer)?;
    let retyped = without_mistyped_fields(footer).map_err(|e| format!("the footer: {e}"))?;
    let bytes = retyped.as_deref().unwrap_or(footer);
    // Each chunk's page encoding statistics in full (arrow-rs keeps only a mask of
    // encodings by default): the INT96 check reads only the dictionary of a chunk whose
    // data pages are all dictionary-encoded (`int96_scan.rs`).
    let options = ParquetMetaDataOptions::new().with_encoding_stats_as_mask(false);
    let metadata =
        unpanicked(|| ParquetMetaDataReader::decode_metadata_with_options(bytes, Some(&options)))?
            .map_err(|e| e.to_string())?;
    // Repairs build column chunk metadata again, through arrow-rs.
    unpanicked(|| repaired(metadata, start))?
}

/// The byte ranges of the page index the footer declares (each column chunk's column
/// index and offset index), each with what it is, checked to lie inside the file.
pub(crate) fn index_ranges(
    metadata: &ParquetMetaData,
    len: u64,
) -> Result<Vec<(Range<u64>, String)>, String> {
    let mut ranges = Vec::new();
    for (g, group) in metadata.row_groups().iter().enumerate() {
        for (c, chunk) in group.columns().iter().enumerate() {
            let declared = [
                (
                    "column index",
                    chunk.column_index_offset(),
                    chunk.column_index_length(),
                ),
                (
                    "offset index",
                    chunk.offset_index_offset(),
                    chunk.offset_index_length(),
                ),
            ];
            for (what, offset, length) in declared {
                let (Some(offset), Some(length)) = (offset, length) else {
                    continue;
                };
                let what = format!("row group {g}, column {c}: the {what}");
                let range = u64::try_from(offset)
                    .ok()
                    .zip(u64::try_from(length).ok())
                    .and_then(|(start, length)| Some(start..start.checked_add(length)?))
                    .filter(|range| range.end <= len)
                    .ok_or_else(|| {
                        format!(
                            "{what}: {length} bytes at {offset} lie outside the {len}-byte file"
                        )
                    })?;
                ranges.push((range, what));
            }
        }
    }
    Ok(ranges)
}

/// Checks the page index: each of `ranges` holds one Thrift struct that fits in it.
/// `bytes` covers the file from `start` to at least the ranges' end.
pub(crate) fn check_index(
    ranges: &[(Range<u64>, String)],
    start: u64,
    bytes: &[u8],
) -> Result<(), String> {
    for (range, what) in ranges {
        let slice = usize::try_from(range.start - start)
            .ok()
            .zip(usize::try_from(range.end - start).ok())
            .and_then(|(from, to)| bytes.get(from..to))
            .ok_or_else(|| format!("{what}: its bytes were not read"))?;
        check_struct(slice).map_err(|e| format!("{what}: {e}"))?;
    }
    Ok(())
}

/// The span of `ranges`, `None` when there are none.
pub(crate) fn span(ranges: &[(Range<u64>, String)]) -> Option<Range<u64>> {
    let start = ranges.iter().map(|(r, _)| r.start).min()?;
    let end = ranges.iter().map(|(r, _)| r.end).max()?;
    Some(start..end)
}

/// The reader's metadata of the Parquet file `reader` holds, its footer and (when
/// `page_index` asks for it) its page index checked first; `options` are the reader's.
///
/// # Errors
/// What the checks or arrow-rs refuse, or the message of a panic in arrow-rs.
pub(crate) fn load<R: ChunkReader>(
    reader: &R,
    page_index: PageIndexPolicy,
    options: ArrowReaderOptions,
) -> Result<ArrowReaderMetadata, String> {
    let len = reader.len();
    let read = |start: u64, length: u64| -> Result<Bytes, String> {
        let length = usize::try_from(length).map_err(|e| e.to_string())?;
        unpanicked(|| reader.get_bytes(start, length))?.map_err(|e| e.to_string())
    };
    let tail = read(len.saturating_sub(8), len.min(8))?;
    let footer = match footer_range(&tail, len)? {
        Some(range) => decode(&read(range.start, range.end - range.start)?, range.start)?,
        // An encrypted footer: arrow-rs's to refuse (or decrypt).
        None => unpanicked(|| {
            ParquetMetaDataReader::new()
                .with_page_index_policy(PageIndexPolicy::Skip)
                .parse_and_finish(reader)
        })?
        .map_err(|e| e.to_string())?,
    };
    let metadata = match page_index {
        PageIndexPolicy::Skip => footer,
        policy => {
            let ranges = index_ranges(&footer, len)?;
            if let Some(span) = span(&ranges) {
                check_index(
                    &ranges,
                    span.start,
                    &read(span.start, span.end - span.start)?,
                )?;
            }
            unpanicked(|| {
                let mut index =
                    ParquetMetaDataReader::new_with_metadata(footer).with_page_index_policy(policy);
                index.read_page_indexes(reader)?;
                index.finish()
            })?
            .map_err(|e| e.to_string())?
        }
    };
    unpanicked(|| ArrowReaderMetadata::try_new(Arc::new(metadata), options))?
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
    use alkaid_compute::predicate::{Comparison, Operand, Predicate};
    use alkaid_schema::{DataType, Field, Schema};

    use super::*;
    use crate::parquet::{
        ParquetReadOptions, ParquetWriter, WriteOptions, read_bytes, read_source,
    };

    /// A file of 10,000 int64 rows in pages of 1,000, with a page index.
    fn indexed_file() -> Vec<u8> {
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
        let n: ArrayRef = Arc::new(Int64Array::from((0..10_000).collect::<Vec<i64>>()));
        let batch = RecordBatch::try_new(schema.clone(), vec![n]).unwrap();
        let options = WriteOptions::default().with_page_rows(1_000);
        let mut file = Vec::new();
        let mut writer = ParquetWriter::try_new(&mut file, schema, &options).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        file
    }

    /// `file` with its first column chunk's offset index declaring 2^31 - 1 page
    /// locations (in its first bytes; the length of the index is unchanged). parquet 60.1
    /// reserves room for them before reading one (`OffsetIndexMetaData::try_from_fast`):
    /// 51,539,607,528 bytes, whose failure aborts the process.
    fn with_hostile_index(mut file: Vec<u8>) -> Vec<u8> {
        let footer = ParquetMetaDataReader::new()
            .parse_and_finish(&Bytes::from(file.clone()))
            .unwrap();
        let chunk = &footer.row_groups()[0].columns()[0];
        let at = chunk.offset_index_offset().unwrap() as usize;
        assert!(chunk.offset_index_length().unwrap() > 8);
        // Field 1, a list of structs, of 2^31 - 1 elements.
        file[at..at + 7].copy_from_slice(&[0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07]);
        file
    }

    fn predicate() -> Predicate {
        Predicate::compare(
            Operand::column("n"),
            Comparison::Gt,
            Operand::literal(9_500i64),
        )
    }

    #[test]
    fn a_page_index_that_declares_more_than_it_holds_is_refused_on_every_path() {
        let honest = indexed_file();
        // The honest file's page index prunes: one page of ten holds n > 9,500.
        let options = ParquetReadOptions::default().with_predicate(predicate());
        let rows: usize = read_bytes(honest.clone(), options.clone())
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum();
        assert_eq!(rows, 499);
        let hostile = with_hostile_index(honest);
        // Without a predicate the page index is not read: the file reads.
        let whole = read_bytes(hostile.clone(), ParquetReadOptions::default()).unwrap();
        assert_eq!(whole.map(|b| b.unwrap().num_rows()).sum::<usize>(), 10_000);
        // With one, it is checked and refused, before arrow-rs would reserve 2^31 - 1
        // places.
        let err = read_bytes(hostile.clone(), options.clone())
            .expect_err("refused")
            .to_string();
        assert!(
            err.contains("row group 0, column 0: the offset index")
                && err.contains("declares 2147483647 elements"),
            "{err}"
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let source = alkaid_buffer::Buffer::from_vec(hostile);
        let err = runtime
            .block_on(read_source(source, "hostile.parquet", options))
            .expect_err("refused")
            .to_string();
        assert!(err.contains("declares 2147483647 elements"), "{err}");
    }

    #[test]
    fn a_footer_that_declares_more_than_it_holds_is_refused() {
        let mut file = indexed_file();
        let len = file.len();
        let footer_len = u32::from_le_bytes(file[len - 8..len - 4].try_into().unwrap()) as usize;
        let start = len - 8 - footer_len;
        // FileMetaData's field 1 (version, i32) then field 2: its schema list, declared
        // 2^31 long.
        file[start..start + 9]
            .copy_from_slice(&[0x15, 0x02, 0x19, 0xfc, 0x80, 0x80, 0x80, 0x80, 0x08]);
        let err = read_bytes(file, ParquetReadOptions::default())
            .expect_err("refused")
            .to_string();
        assert!(
            err.contains("the footer") && err.contains("2147483648"),
            "{err}"
        );
    }

    #[test]
    fn the_footer_must_fit_the_file() {
        let tail = |len: u32, magic: &[u8; 4]| {
            let mut tail = len.to_le_bytes().to_vec();
            tail.extend_from_slice(magic);
            tail
        };
        assert_eq!(footer_range(&tail(10, b"PAR1"), 30), Ok(Some(12..22)));
        assert_eq!(footer_range(&tail(10, b"PARE"), 30), Ok(None));
        assert!(
            footer_range(&tail(19, b"PAR1"), 30)
                .unwrap_err()
                .contains("cannot hold")
        );
        assert!(
            footer_range(&tail(u32::MAX, b"PAR1"), 30)
                .unwrap_err()
                .contains("cannot hold")
        );
        assert!(
            footer_range(&tail(1, b"ABCD"), 30)
                .unwrap_err()
                .contains("PAR1")
        );
        assert!(footer_range(b"PAR1", 4).unwrap_err().contains("too short"));
    }
}

//! What old or faulty writers put in footers, repaired as Arrow C++ (and so pyarrow)
//! reads it, before arrow-rs sees the footer. Each repair changes only a number arrow-rs
//! would otherwise read wrong, and only where the footer is wrong in a way the file
//! itself shows:
//!
//! - a file's row count below the sum of its row groups' (parquet-rs 0.3 wrote 0): arrow-rs
//!   caps its batches at the file's count, and read such a file as no rows at all;
//! - a dictionary page offset that is not before the data page offset (0, from some
//!   writers): Arrow C++ reads the column chunk from its data page offset then, where the
//!   dictionary page is;
//! - the column chunk sizes of parquet-mr before 1.2.9 (PARQUET-816), which left the
//!   dictionary page's header out: Arrow C++ reads up to 100 bytes more and stops at the
//!   chunk's value count. arrow-rs reads pages to the end of the chunk, so here the size
//!   grows by up to 100 bytes but no further than where the next column chunk (or the
//!   footer) begins, which is where parquet-mr's chunk really ended.

use parquet::file::metadata::{
    ColumnChunkMetaData, FileMetaData, ParquetMetaData, ParquetMetaDataBuilder,
};

/// The most a dictionary page header takes, which parquet-mr before 1.2.9 left out of a
/// column chunk's size (Arrow C++'s `kMaxDictHeaderSize`).
const DICTIONARY_HEADER: i64 = 100;

/// `metadata` of a file whose footer begins at `footer_start`, repaired (see the
/// module's documentation).
///
/// # Errors
/// If a repaired column chunk does not build (it always should).
pub(crate) fn repaired(
    metadata: ParquetMetaData,
    footer_start: u64,
) -> Result<ParquetMetaData, String> {
    let rows: i64 = metadata
        .row_groups()
        .iter()
        .map(|g| g.num_rows().max(0))
        .fold(0i64, i64::saturating_add);
    let undercounted = metadata.file_metadata().num_rows() < rows;
    let sizes_short = left_out_dictionary_headers(metadata.file_metadata().created_by());
    let offsets_wrong = metadata.row_groups().iter().any(|g| {
        g.columns().iter().any(|c| {
            c.dictionary_page_offset()
                .is_some_and(|d| d <= 0 || d >= c.data_page_offset())
        })
    });
    if !undercounted && !sizes_short && !offsets_wrong {
        return Ok(metadata);
    }
    let file = metadata.file_metadata();
    let file = FileMetaData::new(
        file.version(),
        file.num_rows().max(rows),
        file.created_by().map(str::to_string),
        file.key_value_metadata().cloned(),
        file.schema_descr_ptr(),
        file.column_orders().cloned(),
    );
    // Where each column chunk begins, and the footer: a chunk ends at the next of them.
    let mut starts: Vec<i64> = metadata
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .map(chunk_start)
        .collect();
    starts.push(i64::try_from(footer_start).unwrap_or(i64::MAX));
    starts.sort_unstable();
    let mut builder = metadata.into_builder();
    let mut groups = builder.take_row_groups();
    let page_index = builder.take_page_index();
    for group in &mut groups {
        for chunk in group.columns_mut() {
            let mut fixed = chunk.clone().into_builder();
            if chunk
                .dictionary_page_offset()
                .is_some_and(|d| d <= 0 || d >= chunk.data_page_offset())
            {
                fixed = fixed.set_dictionary_page_offset(None);
            }
            if sizes_short {
                // Not `byte_range()`, which asserts: the footer is not checked yet.
                let (start, size) = (chunk_start(chunk), chunk.compressed_size());
                let next = starts[starts.partition_point(|&s| s <= start)..]
                    .first()
                    .copied()
                    .unwrap_or(start.saturating_add(size));
                let room = next.saturating_sub(start.saturating_add(size)).max(0);
                fixed = fixed.set_total_compressed_size(size + DICTIONARY_HEADER.min(room));
            }
            *chunk = fixed.build().map_err(|e| e.to_string())?;
        }
    }
    Ok(ParquetMetaDataBuilder::new(file)
        .set_row_groups(groups)
        .set_page_index(page_index)
        .build())
}

/// Where a column chunk begins: its dictionary page, else its first data page, as arrow-rs
/// reads it (once a dictionary page offset that is not before the data is dropped).
fn chunk_start(chunk: &ColumnChunkMetaData) -> i64 {
    match chunk.dictionary_page_offset() {
        Some(dictionary) if dictionary > 0 && dictionary < chunk.data_page_offset() => dictionary,
        _ => chunk.data_page_offset(),
    }
}

/// Whether `created_by` names parquet-mr before 1.2.9, whose column chunk sizes leave
/// the dictionary page header out; a parquet-mr without a version counts as one (Arrow
/// C++ reads its version as 0.0.0).
fn left_out_dictionary_headers(created_by: Option<&str>) -> bool {
    let Some(rest) = created_by.and_then(|c| c.strip_prefix("parquet-mr")) else {
        return false;
    };
    let version = rest.trim().strip_prefix("version").unwrap_or(rest).trim();
    let numbers: Vec<u64> = version
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|part| !part.is_empty())
        .take(3)
        .filter_map(|part| part.parse().ok())
        .collect();
    let at = |i: usize| numbers.get(i).copied().unwrap_or(0);
    (at(0), at(1), at(2)) < (1, 2, 9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parquet_mr_before_1_2_9_left_dictionary_headers_out() {
        for (created_by, short) in [
            (Some("parquet-mr"), true),
            (Some("parquet-mr version 1.2.8"), true),
            (Some("parquet-mr version 1.2.9"), false),
            (Some("parquet-mr version 1.12.0-2018 (build cec1)"), false),
            (Some("parquet-mr version 1.2.8-SNAPSHOT (build abc)"), true),
            (Some("parquet-cpp-arrow version 11.0.0"), false),
            (None, false),
        ] {
            assert_eq!(
                left_out_dictionary_headers(created_by),
                short,
                "{created_by:?}"
            );
        }
    }
}

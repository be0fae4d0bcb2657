//! Selecting batches and rows of a file (`FileReader::select_batches`, `read_rows`): the
//! same rows as slicing the whole read, and no body read outside the selection.

use crate::support;

use std::io::Cursor;
use std::sync::Arc;

use alkaid_array::types::Int32Type;
use alkaid_array::{ArrayRef, AsArray, Int32Array, RecordBatch, StringArray};
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    Compression, FileReader, FileWriter, IpcErrorKind, ReadOptions, Result, WriteOptions,
};
use alkaid_schema::{DataType, Field, Schema};
use proptest::prelude::*;
use support::CountingSource;

/// A file of batches of `sizes` rows: `n` counts rows from 0 across the file, `s` is its
/// text; and the number of rows.
fn file(sizes: &[usize], compression: Compression) -> (Vec<u8>, usize) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int32, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    let options = WriteOptions::default().with_compression(compression);
    let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
    let mut first = 0;
    for &size in sizes {
        let n: Vec<i32> = (first..first + size as i32).collect();
        let s: Vec<String> = n.iter().map(|i| format!("row {i}")).collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(n)),
            Arc::new(StringArray::from(s)),
        ];
        writer
            .write(&RecordBatch::try_new(schema.clone(), columns).unwrap())
            .unwrap();
        first += size as i32;
    }
    (writer.into_inner().unwrap(), first as usize)
}

/// The `n` values of `batches`, in order.
fn numbers(batches: &[RecordBatch], column: usize) -> Vec<i32> {
    batches
        .iter()
        .flat_map(|b| {
            b.column(column)
                .as_primitive::<Int32Type>()
                .values()
                .to_vec()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn a_row_range_reads_the_rows_of_the_whole_file(
        sizes in prop::collection::vec(0usize..20, 1..6),
        a in any::<prop::sample::Index>(),
        b in any::<prop::sample::Index>(),
        zstd in any::<bool>(),
        project in any::<bool>(),
    ) {
        let codec = if zstd { Compression::Zstd { level: 1 } } else { Compression::None };
        let (bytes, total) = file(&sizes, codec);
        let (start, end) = {
            let (x, y) = (a.index(total + 1), b.index(total + 1));
            (x.min(y), x.max(y))
        };
        // `s` first and `n` second when projecting, to see columns follow the option.
        let (options, n) = if project {
            (ReadOptions::default().with_columns([1, 0]), 1)
        } else {
            (ReadOptions::default(), 0)
        };
        let expected: Vec<i32> = (start as i32..end as i32).collect();
        let mut reader = FileReader::open(Buffer::from(bytes.clone()), options.clone()).unwrap();
        let read: Vec<RecordBatch> = reader.read_rows(start..end).unwrap().collect::<Result<_>>().unwrap();
        prop_assert_eq!(numbers(&read, n), expected.clone());
        prop_assert!(read.iter().all(|b| b.num_rows() > 0), "no empty parts");
        if project {
            let text = read.first().map(|b| b.column(0).as_string::<i32>().value(0).to_owned());
            prop_assert_eq!(text, expected.first().map(|i| format!("row {i}")));
        }
        let seekable = alkaid_ipc::Seekable(Cursor::new(bytes));
        let mut reader = FileReader::open(seekable, options).unwrap();
        let read: Vec<RecordBatch> = reader.read_rows(start..end).unwrap().collect::<Result<_>>().unwrap();
        prop_assert_eq!(numbers(&read, n), expected);
        // Past the end: an error naming the file's rows.
        let err = reader.read_rows(start..total + 1).err().unwrap();
        prop_assert_eq!(err.kind(), IpcErrorKind::InvalidArgument);
        let rows_of_file = format!("of a file of {total} rows");
        prop_assert!(err.to_string().contains(&rows_of_file), "{}", err);
    }
}

#[test]
fn rows_of_the_last_batch_read_no_other_body() {
    let (bytes, _) = file(&[1000, 1000, 1000, 1000], Compression::Lz4Frame);
    let source = CountingSource::new(&bytes);
    let mut reader = FileReader::open(source, ReadOptions::default()).unwrap();
    let opened = reader.get_ref().reads.len();
    // Rows 3500..3600 lie in the last batch.
    let read: Vec<RecordBatch> = reader
        .read_rows(3500..3600)
        .unwrap()
        .collect::<Result<_>>()
        .unwrap();
    assert_eq!(numbers(&read, 0), (3500..3600).collect::<Vec<i32>>());
    // Four batches' metadata (hundreds of bytes each), then the last one's again with its
    // body: the only read of a body.
    let reads = reader.get_ref().reads[opened..].to_vec();
    assert_eq!(reads.len(), 6, "{reads:?}");
    let bodies: Vec<&(u64, usize)> = reads.iter().filter(|(_, len)| *len > 2000).collect();
    assert_eq!(bodies.len(), 1, "{reads:?}");
    assert_eq!(bodies[0], &reads[5], "{reads:?}");
    // Row counts are kept: asking again reads nothing.
    assert_eq!(reader.batch_rows(0).unwrap(), 1000);
    assert_eq!(reader.get_ref().reads.len(), opened + 6);
}

#[test]
fn selected_batches_are_what_iteration_yields() {
    let (bytes, _) = file(&[3, 0, 4, 5], Compression::None);
    let mut reader = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
    reader.select_batches(1..3).unwrap();
    let read: Vec<RecordBatch> = reader.by_ref().collect::<Result<_>>().unwrap();
    assert_eq!(
        read.iter().map(|b| b.num_rows()).collect::<Vec<_>>(),
        [0, 4]
    );
    assert_eq!(numbers(&read, 0), [3, 4, 5, 6]);
    reader.select_batches(3..4).unwrap();
    assert_eq!(reader.next().unwrap().unwrap().num_rows(), 5);
    assert!(reader.next().is_none());
    // Built from parts: a reversed literal range is a lint error.
    let reversed = |start, end| std::ops::Range { start, end };
    for bad in [reversed(2, 1), 0..5] {
        let err = reader.select_batches(bad.clone()).unwrap_err();
        assert_eq!(err.kind(), IpcErrorKind::InvalidArgument, "{bad:?}");
        assert!(err.to_string().contains("4 batches"), "{err}");
    }
    let err = reader.read_rows(reversed(5, 2)).err().unwrap();
    assert!(err.to_string().contains("reversed"), "{err}");
    assert_eq!(reader.read_rows(12..12).unwrap().count(), 0);
}

#[test]
fn batch_offsets_follow_the_file_and_stop_at_the_last_batch() {
    let (bytes, _) = file(&[3, 5, 0, 7], Compression::None);
    let len = bytes.len() as u64;
    let reader = FileReader::open(Buffer::from(bytes), ReadOptions::default()).unwrap();
    let offsets: Vec<u64> = (0..reader.num_batches())
        .map(|i| reader.batch_offset(i).unwrap())
        .collect();
    assert_eq!(offsets.len(), 4);
    // After the magic and the schema message, increasing, inside the file.
    assert!(offsets[0] > 8, "{offsets:?}");
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
    assert!(offsets[3] < len);
    assert_eq!(reader.batch_offset(4), None);
}

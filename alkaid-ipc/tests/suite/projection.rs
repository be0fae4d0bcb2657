//! Reading only some columns (`ReadOptions::with_columns`, `with_column_names`): every
//! reader gives the columns of the full read, in the caller's order, and leaves the others'
//! bytes alone: not decompressed, not validated, their dictionaries not decoded.

use crate::batches;
use crate::common;

use crate::held;
use crate::support;

use std::io::Cursor;
use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, Int32Array, RecordBatch, StringArray};
use alkaid_buffer::Buffer;
use alkaid_data::equal;
use alkaid_ipc::{
    BufferStreamReader, Compression, Decoded, Decoder, FileReader, FileWriter, IpcErrorKind,
    ReadOptions, StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::{DataType, Field, IntegerType, Schema, SchemaRef, arbitrary};
use batches::random_batches;
use common::{Rng, dictionary_of_dictionary, generatable};
use held::held;
use proptest::prelude::*;
use support::CountingSource;

fn compression(rng: &mut Rng) -> Compression {
    match rng.below(3) {
        0 => Compression::None,
        1 => Compression::Lz4Frame,
        _ => Compression::Zstd { level: 1 },
    }
}

/// Every batch of a stream, read through the push decoder fed in pieces of up to `step`.
fn decode_in_pieces(bytes: &[u8], options: ReadOptions, step: usize) -> Vec<RecordBatch> {
    let mut decoder = Decoder::with_options(options);
    let mut read = Vec::new();
    for piece in bytes.chunks(step) {
        decoder.push(piece);
        while let Some(message) = decoder.next_message().unwrap() {
            if let Decoded::Batch(batch, _) = message {
                read.push(batch);
            }
        }
    }
    decoder.finish().unwrap();
    read
}

/// `projected` holds columns `columns` of `whole`, batch by batch, under `schema`.
fn check(
    whole: &[RecordBatch],
    projected: &[RecordBatch],
    columns: &[usize],
    schema: &SchemaRef,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(projected.len(), whole.len());
    for (b, (full, part)) in whole.iter().zip(projected).enumerate() {
        prop_assert_eq!(part.schema(), schema);
        prop_assert_eq!(part.num_rows(), full.num_rows());
        prop_assert_eq!(part.num_columns(), columns.len());
        for (c, &i) in columns.iter().enumerate() {
            prop_assert!(
                equal(&part.column(c).to_data(), &full.column(i).to_data()),
                "batch {} column {} (field {})",
                b,
                c,
                i
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_reader_gives_the_selected_columns_of_the_full_read(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..6),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..10, 1..4),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (schema, batches) = random_batches(&types, &lens, &mut rng);
        let write = WriteOptions::default()
            .with_compression(compression(&mut rng))
            .with_dictionary_deltas(rng.chance(0.5));
        // Some columns, in any order, one of them perhaps twice; sometimes none.
        let mut columns: Vec<usize> = (0..types.len()).filter(|_| rng.chance(0.5)).collect();
        for i in (1..columns.len()).rev() {
            columns.swap(i, rng.below(i + 1));
        }
        if !columns.is_empty() && rng.chance(0.3) {
            columns.push(columns[rng.below(columns.len())]);
        }
        let by_name = rng.chance(0.5);
        let options = {
            let options = ReadOptions::default()
                .with_decompression_threads(1 + rng.below(3))
                .with_fetch_gap([0, 64, 1 << 20][rng.below(3)]);
            if by_name {
                options.with_column_names(columns.iter().map(|i| format!("c{i}")))
            } else {
                options.with_columns(columns.iter().copied())
            }
        };
        let expected_schema = Arc::new(schema.project(&columns).unwrap());

        let mut writer = StreamWriter::try_new(Vec::new(), schema.clone(), write.clone()).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        let stream = writer.into_inner().unwrap();
        let whole: Vec<RecordBatch> = StreamReader::try_new(&stream[..])
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();

        let reader = StreamReader::with_options(&stream[..], options.clone()).unwrap();
        prop_assert_eq!(&reader.schema(), &expected_schema);
        let read: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
        check(&whole, &read, &columns, &expected_schema)?;
        let read: Vec<RecordBatch> =
            BufferStreamReader::with_options(Buffer::from(stream.clone()), options.clone())
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
        check(&whole, &read, &columns, &expected_schema)?;
        let read = decode_in_pieces(&stream, options.clone(), 1 + rng.below(100));
        check(&whole, &read, &columns, &expected_schema)?;

        // A file holds one dictionary per id: the first batch, twice.
        let file_batches = vec![batches[0].clone(), batches[0].clone()];
        let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), write).unwrap();
        for batch in &file_batches {
            writer.write(batch).unwrap();
        }
        let file = writer.into_inner().unwrap();
        let whole: Vec<RecordBatch> = FileReader::try_new(Cursor::new(file.clone()))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut reader = FileReader::open(Buffer::from(file.clone()), options.clone()).unwrap();
        prop_assert_eq!(&reader.schema(), &expected_schema);
        let last = reader.batch(1).unwrap();
        check(&whole[1..], &[last], &columns, &expected_schema)?;
        let seekable = alkaid_ipc::Seekable(Cursor::new(file));
        let read: Vec<RecordBatch> = FileReader::open(seekable, options)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        check(&whole, &read, &columns, &expected_schema)?;
    }
}

/// A stream of an `Int32` column `a`, a `Utf8` column `b` and a dictionary column `c`,
/// whose strings (in `b` and in `c`'s dictionary) are long runs of `Q`, with one `Q` in
/// the body of each message turned into a byte that is not UTF-8: in `b`'s buffer of the
/// batch, and in the dictionary's.
fn stream_with_bad_text(codec: Compression) -> Vec<u8> {
    let text: String = "Q".repeat(4000);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int32, false),
        Field::new("b", DataType::Utf8, false),
        Field::new(
            "c",
            DataType::dictionary(IntegerType::Int32, DataType::Utf8),
            false,
        ),
    ]));
    let keys = Int32Array::from(vec![0, 0, 0]);
    let dictionary = alkaid_array::DictionaryArray::try_new(
        keys,
        Arc::new(StringArray::from(vec![text.as_str()])),
    )
    .unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![7, 8, 9])),
        Arc::new(StringArray::from(vec![text.as_str(); 3])),
        Arc::new(dictionary),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let options = WriteOptions::default().with_compression(codec);
    let mut writer = StreamWriter::try_new(Vec::new(), schema, options).unwrap();
    writer.write(&batch).unwrap();
    let mut bytes = writer.into_inner().unwrap();
    // The schema names no `Q`: every `Q` is in a body. The last one of the stream lies in the
    // batch's `b`, the first in the dictionary batch, which comes before it.
    let first = bytes.iter().position(|&b| b == b'Q').unwrap();
    let last = bytes.iter().rposition(|&b| b == b'Q').unwrap();
    bytes[first] = 0xFF;
    bytes[last] = 0xFF;
    bytes
}

#[test]
fn columns_left_out_are_neither_decompressed_nor_validated() {
    for codec in [
        Compression::None,
        Compression::Lz4Frame,
        Compression::Zstd { level: 1 },
    ] {
        let bytes = stream_with_bad_text(codec);
        // Whole: the damage is found (a decompression or a UTF-8 error).
        let err = StreamReader::try_new(&bytes[..])
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err();
        assert!(
            matches!(
                err.kind(),
                IpcErrorKind::Malformed | IpcErrorKind::InvalidData
            ),
            "{codec:?}: {err}"
        );
        // `b` alone: its damage is found too (the dictionary is left out).
        let only_b =
            StreamReader::with_options(&bytes[..], ReadOptions::default().with_columns([1]))
                .unwrap()
                .next()
                .unwrap();
        let err = only_b.unwrap_err();
        assert!(err.to_string().contains("column b"), "{codec:?}: {err}");
        // Only `a`: the damaged bytes (of `b` and of `c`'s dictionary) are never looked at.
        for threads in [1, 2] {
            let options = ReadOptions::default()
                .with_columns([0])
                .with_decompression_threads(threads);
            let batches: Vec<RecordBatch> = StreamReader::with_options(&bytes[..], options)
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{codec:?}, {threads} threads: {e}"));
            assert_eq!(batches.len(), 1);
            let a = batches[0].column(0).to_data();
            assert!(equal(&a, &Int32Array::from(vec![7, 8, 9]).to_data()));
        }
    }
}

#[test]
fn a_dictionary_only_left_out_columns_use_is_not_decoded() {
    // Uncompressed, so that the first `Q` (the dictionary's) is damaged and `b`'s last one
    // too; selecting `b` alone fails on `b`, selecting `a` and `c`... fails on the dictionary.
    let bytes = stream_with_bad_text(Compression::None);
    let read = |columns: &[usize]| {
        StreamReader::with_options(
            &bytes[..],
            ReadOptions::default().with_columns(columns.to_vec()),
        )
        .unwrap()
        .collect::<Result<Vec<RecordBatch>, _>>()
    };
    assert!(read(&[0]).is_ok());
    let err = read(&[2, 0]).unwrap_err();
    assert!(err.to_string().contains("dictionary"), "{err}");
    let err = read(&[1]).unwrap_err();
    assert!(err.to_string().contains("column b"), "{err}");
}

#[test]
fn selecting_a_column_the_schema_lacks_is_an_error_naming_it() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int32Array::from(vec![1])) as ArrayRef],
    )
    .unwrap();
    let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    let bytes = writer.into_inner().unwrap();
    let err = StreamReader::with_options(&bytes[..], ReadOptions::default().with_columns([0, 3]))
        .err()
        .unwrap();
    assert_eq!(err.kind(), IpcErrorKind::InvalidArgument);
    assert!(err.to_string().contains("column 3"), "{err}");
    let err = StreamReader::with_options(
        &bytes[..],
        ReadOptions::default().with_column_names(["a", "nope"]),
    )
    .err()
    .unwrap();
    assert_eq!(err.kind(), IpcErrorKind::InvalidArgument);
    assert!(err.to_string().contains("\"nope\""), "{err}");
    // The push decoder reports it when the schema message arrives.
    let mut decoder = Decoder::with_options(ReadOptions::default().with_columns([1]));
    decoder.push(&bytes);
    assert_eq!(
        decoder.next_message().unwrap_err().kind(),
        IpcErrorKind::InvalidArgument
    );
    // No columns at all: batches of rows without columns.
    let batches: Vec<RecordBatch> =
        StreamReader::with_options(&bytes[..], ReadOptions::default().with_columns([]))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    assert_eq!((batches[0].num_rows(), batches[0].num_columns()), (1, 0));
}

/// The reads a file reader with `options` makes after opening `file`, to read every batch.
fn reads_of(file: &[u8], options: ReadOptions) -> (Vec<RecordBatch>, Vec<(u64, usize)>) {
    let source = CountingSource::new(file);
    let mut reader = FileReader::open(source, options).unwrap();
    let opened = reader.get_ref().reads.len();
    let batches: Vec<RecordBatch> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    (batches, reader.get_ref().reads[opened..].to_vec())
}

#[test]
fn one_of_eight_columns_of_a_file_reads_that_columns_bytes_alone() {
    // Eight Int64 columns with nulls (a validity and a values buffer each), 4 batches of
    // 10 000 rows.
    let rows: usize = 10_000;
    let fields: Vec<Field> = (0..8)
        .map(|i| Field::new(format!("c{i}"), DataType::Int64, true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let mut writer =
        FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for b in 0..4i64 {
        let columns: Vec<ArrayRef> = (0..8i64)
            .map(|c| {
                let values: Vec<Option<i64>> = (0..rows as i64)
                    .map(|r| (r % 7 != 0).then_some(b * 1000 + c * 100 + r))
                    .collect();
                Arc::new(alkaid_array::Int64Array::from(values)) as ArrayRef
            })
            .collect();
        writer
            .write(&RecordBatch::try_new(schema.clone(), columns).unwrap())
            .unwrap();
    }
    let file = writer.into_inner().unwrap();
    a_kept_column_holds_its_own_bytes(&file, rows);

    let (whole, reads) = reads_of(&file, ReadOptions::default());
    // A metadata read and a body read per batch.
    assert_eq!(reads.len(), 8, "{reads:?}");
    let whole_body: usize = reads.iter().skip(1).step_by(2).map(|r| r.1).sum();
    let metadata: usize = reads.iter().step_by(2).map(|r| r.1).sum();
    // The column's own bytes: values and validity, padded to 8 (or 64) bytes each.
    let column_bytes = 4 * (rows * 8 + rows.div_ceil(8));
    assert!(whole_body >= 8 * column_bytes);

    for (gap, per_batch) in [(0, 3), (64 << 10, 2)] {
        let options = ReadOptions::default().with_columns([5]).with_fetch_gap(gap);
        let (part, reads) = reads_of(&file, options);
        // The metadata, then the validity and the values: apart, or merged across the
        // padding between them.
        assert_eq!(reads.len(), 4 * per_batch, "gap {gap}: {reads:?}");
        let fetched: usize = reads.iter().map(|r| r.1).sum();
        assert!(
            fetched <= metadata + column_bytes + 4 * 2 * 64,
            "gap {gap}: {fetched} bytes fetched, the column has {column_bytes}"
        );
        assert!(fetched >= metadata + column_bytes, "gap {gap}: {fetched}");
        for (p, w) in part.iter().zip(&whole) {
            assert!(equal(&p.column(0).to_data(), &w.column(5).to_data()));
        }
    }
}

/// Read through `Read + Seek`, a column kept from a batch read whole holds the whole body;
/// from a batch read with two columns selected, only its own ranges: dropping the batch
/// frees the other column's bytes.
fn a_kept_column_holds_its_own_bytes(file: &[u8], rows: usize) {
    let column_bytes = rows * 8 + rows.div_ceil(8);
    let first = |options| {
        let seekable = alkaid_ipc::Seekable(Cursor::new(file.to_vec()));
        let mut reader = FileReader::open(seekable, options).unwrap();
        reader.batch(0).unwrap()
    };
    let whole = first(ReadOptions::default());
    let kept = whole.column(2).to_data();
    drop(whole);
    assert!(held(&kept) >= 8 * column_bytes, "{}", held(&kept));
    let gap = ReadOptions::default().with_fetch_gap(0);
    let two = first(gap.with_columns([2, 6]));
    let kept = two.column(0).to_data();
    drop(two);
    // The validity and the values, each read on its own (allocations round up a little).
    assert!(held(&kept) >= column_bytes, "{}", held(&kept));
    assert!(held(&kept) < column_bytes + 4096, "{}", held(&kept));
}

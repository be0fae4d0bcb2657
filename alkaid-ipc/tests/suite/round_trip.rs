//! Property tests: random batches of every data type, nested up to three deep, sliced with
//! junk around them at every level, written through the stream and file writers under
//! random options and read back through every reader. What comes back must be the same
//! values (checked against the plain decoder of alkaid-data's tests) and equal arrays.

use crate::common;

use std::sync::Arc;

use alkaid_array::{ArrayRef, RecordBatch, make_array};
use alkaid_buffer::Buffer;
use alkaid_data::equal;
use alkaid_ipc::{
    BufferStreamReader, Compression, Decoded, Decoder, FileReader, FileWriter, Magic, ReadOptions,
    StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::{Field, Schema, arbitrary};
use common::decode::decode;
use common::encode::encode;
use common::{Rng, Value, dictionary_of_dictionary, generatable, value};
use proptest::prelude::*;

fn options(rng: &mut Rng) -> WriteOptions {
    let compression = match rng.below(3) {
        0 => Compression::None,
        1 => Compression::Lz4Frame,
        _ => Compression::Zstd { level: 1 },
    };
    WriteOptions::default()
        .with_compression(compression)
        .with_alignment(if rng.chance(0.5) { 8 } else { 64 })
        .with_magic(if rng.chance(0.5) {
            Magic::Alkaid
        } else {
            Magic::Arrow
        })
        .with_dictionary_deltas(rng.chance(0.5))
        .with_compression_threads(1 + rng.below(3))
}

/// Every batch read back, through each reader, with its values.
fn check(
    batches: &[RecordBatch],
    expected: &[Vec<Vec<Value>>],
    read: Vec<RecordBatch>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(read.len(), batches.len());
    for (b, (batch, want)) in read.iter().zip(expected).enumerate() {
        prop_assert_eq!(batch.num_rows(), batches[b].num_rows());
        for (c, column) in batch.columns().iter().enumerate() {
            let data = column.to_data();
            prop_assert_eq!(&decode(&data), &want[c], "batch {} column {}", b, c);
            prop_assert!(equal(&data, &batches[b].column(c).to_data()));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn batches_survive_every_writer_and_reader(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..4),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..12, 1..4),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let fields: Vec<Field> = types
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("c{i}"), t.clone(), true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let mut batches = Vec::new();
        let mut expected = Vec::new();
        for &len in &lens {
            let mut columns: Vec<ArrayRef> = Vec::new();
            let mut values = Vec::new();
            for t in &types {
                let v: Vec<Value> = (0..len).map(|_| value(t, &mut rng, 0.3)).collect();
                columns.push(make_array(encode(t, &v, &mut rng)));
                values.push(v);
            }
            batches.push(RecordBatch::try_new(schema.clone(), columns).unwrap());
            expected.push(values);
        }
        let options = options(&mut rng);

        // Stream: every batch as it is (dictionaries change between them: replacements
        // and deltas).
        let mut writer = StreamWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        let bytes = writer.into_inner().unwrap();
        let read: Vec<RecordBatch> = StreamReader::try_new(&bytes[..]).unwrap().collect::<Result<_, _>>().unwrap();
        check(&batches, &expected, read)?;
        // Zero-copy, with buffers decompressed ahead on up to three threads.
        let threads = ReadOptions::default().with_decompression_threads(1 + rng.below(3));
        let read: Vec<RecordBatch> = BufferStreamReader::with_options(Buffer::from(bytes.clone()), threads).unwrap().collect::<Result<_, _>>().unwrap();
        check(&batches, &expected, read)?;

        // The push decoder, fed in random pieces.
        let mut decoder = Decoder::new();
        let mut read = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let step = 1 + rng.below(200);
            decoder.push(&bytes[at..(at + step).min(bytes.len())]);
            at += step;
            while let Some(message) = decoder.next_message().unwrap() {
                if let Decoded::Batch(batch, _) = message {
                    read.push(batch);
                }
            }
        }
        decoder.finish().unwrap();
        check(&batches, &expected, read)?;

        // File: one dictionary per id is all a file holds, so only the first batch and
        // slices of it, read through Read + Seek and zero-copy from memory.
        let first = &batches[0];
        let rows = first.num_rows();
        let cut = rng.below(rows + 1);
        let file_batches = vec![first.clone(), first.slice(cut, rows - cut)];
        let file_expected: Vec<Vec<Vec<Value>>> = vec![
            expected[0].clone(),
            expected[0].iter().map(|c| c[cut..].to_vec()).collect(),
        ];
        let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
        for batch in &file_batches {
            writer.write(batch).unwrap();
        }
        let bytes = writer.into_inner().unwrap();
        let read: Vec<RecordBatch> = FileReader::try_new(std::io::Cursor::new(bytes.clone())).unwrap().collect::<Result<_, _>>().unwrap();
        check(&file_batches, &file_expected, read)?;
        let mut reader = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
        let last = reader.batch(1).unwrap();
        check(&file_batches[1..], &file_expected[1..], vec![last])?;
    }
}

//! arrow-rs as an IPC peer, both ways: files and streams that `arrow-ipc` writes (with its
//! default options, which pad the file's magic to 64 bytes, with alignment 8, LZ4, zstd,
//! and dictionaries sent as deltas) read by Alkaid equal to the batches written, and every
//! type Alkaid writes (the Arrow magic, compressed and not) read by `arrow-ipc` equal to
//! the source.

use std::path::PathBuf;
use std::sync::Arc;

use alkaid_array::types::Int32Type;
use alkaid_array::{ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
use alkaid_arrow::arrow60::{batch_from_arrow, batch_to_arrow};
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    Compression, FileReader, FileWriter, Magic, StreamReader, StreamWriter, WriteOptions,
};
use alkaid_schema::{Field, Schema};
use arrow_ipc_60 as arrow_ipc;
use arrow_ipc_60::writer::{DictionaryHandling, IpcWriteOptions};

use crate::common::decode::decode;

/// Every type, as pyarrow wrote it (alkaid-ipc's fixture), in two batches, the second a
/// slice.
fn every_type() -> Vec<RecordBatch> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../alkaid-ipc/tests/fixtures/pyarrow/all_types.stream");
    let bytes = std::fs::read(path).unwrap();
    let table = StreamReader::try_new(&bytes[..])
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    vec![table.slice(0, 3), table.slice(3, table.num_rows() - 3)]
}

/// Dictionaries that grow: the second batch's extends the first's, so arrow-rs sends a
/// delta when asked to.
fn growing_dictionaries() -> Vec<RecordBatch> {
    let batch = |values: &[&str], keys: Vec<Option<i32>>| {
        let values: ArrayRef = Arc::new(StringArray::from(values.to_vec()));
        let keys = Int32Array::from(keys);
        let column: ArrayRef =
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).unwrap());
        let field = Field::new("d", column.data_type().clone(), true);
        RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![column]).unwrap()
    };
    vec![
        batch(&["a", "b"], vec![Some(0), None, Some(1)]),
        batch(&["a", "b", "c"], vec![Some(2), Some(0)]),
        batch(&["a", "b", "c", "d"], vec![Some(3), None]),
    ]
}

/// Panics unless `read` holds the rows of `expected` (as values: dictionaries may differ
/// in how they are sent), batch by batch.
fn assert_same(what: &str, read: &[RecordBatch], expected: &[RecordBatch]) {
    assert_eq!(read.len(), expected.len(), "{what}: batches");
    for (i, (batch, want)) in read.iter().zip(expected).enumerate() {
        assert_eq!(batch.schema(), want.schema(), "{what}: batch {i}'s schema");
        for c in 0..want.num_columns() {
            assert_eq!(
                decode(&batch.column(c).to_data()),
                decode(&want.column(c).to_data()),
                "{what}: batch {i}, column {:?}",
                want.schema().fields()[c].name()
            );
        }
    }
}

/// The ways arrow-rs is asked to write.
fn arrow_options() -> Vec<(&'static str, IpcWriteOptions)> {
    let v5 = arrow_ipc::MetadataVersion::V5;
    let aligned_8 = IpcWriteOptions::try_new(8, false, v5).unwrap();
    let compressed = |codec| {
        IpcWriteOptions::default()
            .try_with_compression(Some(codec))
            .unwrap()
    };
    vec![
        ("default", IpcWriteOptions::default()),
        ("alignment 8", aligned_8),
        ("lz4", compressed(arrow_ipc::CompressionType::LZ4_FRAME)),
        ("zstd", compressed(arrow_ipc::CompressionType::ZSTD)),
        (
            "deltas",
            IpcWriteOptions::default().with_dictionary_handling(DictionaryHandling::Delta),
        ),
    ]
}

fn arrow_file(batches: &[RecordBatch], options: IpcWriteOptions) -> Vec<u8> {
    let arrow: Vec<_> = batches.iter().map(batch_to_arrow).collect();
    let schema = arrow[0].schema();
    let mut writer =
        arrow_ipc::writer::FileWriter::try_new_with_options(Vec::new(), &schema, options).unwrap();
    for batch in &arrow {
        writer.write(batch).unwrap();
    }
    writer.into_inner().unwrap()
}

fn arrow_stream(batches: &[RecordBatch], options: IpcWriteOptions) -> Vec<u8> {
    let arrow: Vec<_> = batches.iter().map(batch_to_arrow).collect();
    let schema = arrow[0].schema();
    let mut writer =
        arrow_ipc::writer::StreamWriter::try_new_with_options(Vec::new(), &schema, options)
            .unwrap();
    for batch in &arrow {
        writer.write(batch).unwrap();
    }
    writer.into_inner().unwrap()
}

#[test]
fn alkaid_reads_what_arrow_rs_writes() {
    for (source, batches) in [
        ("every type", every_type()),
        ("growing dictionaries", growing_dictionaries()),
    ] {
        for (how, options) in arrow_options() {
            let what = format!("{source}, {how}");
            let stream = arrow_stream(&batches, options.clone());
            let read: Vec<RecordBatch> = StreamReader::try_new(&stream[..])
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{what}, stream: {e}"));
            assert_same(&format!("{what}, stream"), &read, &batches);

            if source == "growing dictionaries" && how != "deltas" {
                // arrow-rs's file writer sends a grown dictionary only as a delta; else it
                // refuses the batch (its limitation, not the format's).
                continue;
            }
            let file = arrow_file(&batches, options);
            if how == "default" {
                // arrow-rs pads its magic to 64 bytes: the stream starts there.
                assert_eq!(&file[..6], b"ARROW1");
                assert!(file[6..64].iter().all(|&b| b == 0), "{what}");
                assert_eq!(&file[64..68], &[0xFF; 4], "{what}");
            }
            let read: Vec<RecordBatch> = FileReader::from_buffer(Buffer::from(file))
                .unwrap_or_else(|e| panic!("{what}: {e}"))
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_same(&format!("{what}, file"), &read, &batches);
        }
    }
}

#[test]
fn arrow_rs_reads_what_alkaid_writes() {
    for (source, batches) in [
        ("every type", every_type()),
        ("growing dictionaries", growing_dictionaries()),
    ] {
        let schema = batches[0].schema().clone();
        for (how, compression) in [
            ("none", Compression::None),
            ("lz4", Compression::Lz4Frame),
            ("zstd", Compression::ZSTD),
        ] {
            let what = format!("{source}, {how}");
            let options = WriteOptions::default()
                .with_magic(Magic::Arrow)
                .with_compression(compression);
            let mut file =
                FileWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
            let mut stream = StreamWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
            for batch in &batches {
                file.write(batch).unwrap();
                stream.write(batch).unwrap();
            }
            let file = file.into_inner().unwrap();
            let read: Vec<RecordBatch> =
                arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(file), None)
                    .unwrap_or_else(|e| panic!("{what}: {e}"))
                    .map(|b| batch_from_arrow(&b.unwrap()).unwrap())
                    .collect();
            assert_same(&format!("{what}, file"), &read, &batches);

            let stream = stream.into_inner().unwrap();
            let read: Vec<RecordBatch> =
                arrow_ipc::reader::StreamReader::try_new(&stream[..], None)
                    .unwrap_or_else(|e| panic!("{what}: {e}"))
                    .map(|b| batch_from_arrow(&b.unwrap()).unwrap())
                    .collect();
            assert_same(&format!("{what}, stream"), &read, &batches);
        }
    }
}

#[test]
fn a_file_padded_by_arrow_rs_still_refuses_a_schema_that_disagrees() {
    let batches = growing_dictionaries();
    let mut file = arrow_file(&batches[..1], IpcWriteOptions::default());
    // The stream's schema message (at byte 64) names the column `d`; the footer's copy is
    // the last occurrence. Renaming the stream's copy makes the two disagree.
    // Flatbuffer strings are length-prefixed and end with a zero.
    let name = [1, 0, 0, 0, b'd', 0];
    let first = file.windows(6).position(|w| w == name).unwrap() + 4;
    assert!(first > 64, "the name is in the stream's schema message");
    file[first] = b'e';
    let err = FileReader::from_buffer(Buffer::from(file))
        .and_then(|mut reader| reader.batch(0))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("differs from the schema message at the start of the file"),
        "{err}"
    );
}

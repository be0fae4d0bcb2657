//! alkaid-formats beside the arrow-rs crates it is built on, on the IPC benchmark's batch
//! (seven columns: integers with nulls, floats, booleans, strings, a list, a dictionary, a
//! struct) at 1 Mi rows: Parquet read and written (zstd pages, as alkaid-formats writes by
//! default), CSV read (the flat columns). Alkaid's Parquet figures are arrow-rs's work plus
//! the bridge, so the target ratio is 1.0: the bridge should cost nothing measurable. CSV of
//! these types is read by Alkaid's own reader, against arrow-csv.

use std::io::Cursor;

use alkaid_arrow::arrow60::batch_to_arrow;
use alkaid_benches::{VersusGroup, export, ipc_batch};
use alkaid_formats::{csv as acsv, parquet as apq};
use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

const ROWS: usize = 1 << 20;

fn formats(c: &mut Criterion) {
    let ours = ipc_batch::alkaid_batch(&ipc_batch::columns(ROWS));
    let theirs = batch_to_arrow(&ours);
    let schema = ours.schema().clone();
    let properties = || {
        WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
            .set_coerce_types(true)
            .build()
    };
    let mut group = VersusGroup::new(c, "formats");
    group.group.sample_size(10);

    // Parquet written by arrow-rs, read by both.
    let mut written = Vec::new();
    let mut writer =
        ArrowWriter::try_new(&mut written, theirs.schema(), Some(properties())).unwrap();
    writer.write(&theirs).unwrap();
    writer.close().unwrap();
    let file = Bytes::from(written);
    // The same bytes for pyarrow_bench.py: the Parquet file, the batch, the CSV text.
    export::bytes("formats_input.parquet", &file);
    export::batch("formats_input", &ours);
    group.versus(
        "parquet_read",
        || {
            apq::read_bytes(file.clone(), apq::ParquetReadOptions::default())
                .unwrap()
                .map(|b| b.unwrap().num_rows())
                .sum::<usize>()
        },
        || {
            ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .with_batch_size(8192)
                .build()
                .unwrap()
                .map(|b| b.unwrap().num_rows())
                .sum::<usize>()
        },
    );
    group.versus(
        "parquet_write",
        || {
            let options = apq::WriteOptions::default();
            let mut writer =
                apq::ParquetWriter::try_new(Vec::new(), schema.clone(), &options).unwrap();
            writer.write(&ours).unwrap();
            writer.finish().unwrap().len()
        },
        || {
            let mut writer =
                ArrowWriter::try_new(Vec::new(), theirs.schema(), Some(properties())).unwrap();
            writer.write(&theirs).unwrap();
            writer.into_inner().unwrap().len()
        },
    );

    // CSV of the flat columns, read by both with the schema given.
    let flat = ours.project(&[0, 1, 2, 3]).unwrap();
    let mut text = Vec::new();
    let mut csv_writer = acsv::CsvWriter::new(&mut text, &acsv::WriteOptions::default());
    csv_writer.write(&flat).unwrap();
    drop(csv_writer);
    export::bytes("formats_input.csv", &text);
    // Read from the same bytes each time, without a copy (pyarrow reads from a buffer).
    let text = Bytes::from(text);
    let flat_schema = flat.schema().clone();
    let arrow_schema = batch_to_arrow(&flat).schema();
    group.versus(
        "csv_read",
        || {
            let options = acsv::CsvReadOptions::default().with_schema(flat_schema.clone());
            acsv::reader(Cursor::new(text.clone()), "bench".into(), options)
                .unwrap()
                .map(|b| b.unwrap().num_rows())
                .sum::<usize>()
        },
        || {
            arrow_csv::ReaderBuilder::new(arrow_schema.clone())
                .with_header(true)
                .build(Cursor::new(text.clone()))
                .unwrap()
                .map(|b| b.unwrap().num_rows())
                .sum::<usize>()
        },
    );
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = formats
}
criterion_main!(benches);

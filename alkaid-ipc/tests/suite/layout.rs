//! What the bytes look like: compact slices, compact views, alignment, zero-copy reads,
//! realignment of foreign 8-byte-aligned input, metadata on batches and footers.

use std::sync::Arc;

use alkaid_array::{
    ArrayRef, AsArray, Decimal128Array, GenericListBuilder, Int32Array, Int64Array,
    PrimitiveBuilder, RecordBatch, StringArray, StringViewArray,
};
use alkaid_buffer::Buffer;
use alkaid_ipc::{
    Compression, FileReader, FileWriter, IpcErrorKind, Magic, StreamReader, StreamWriter,
    WriteOptions,
};
use alkaid_schema::{DataType, Field, Metadata, Schema};

fn batch_of(column: ArrayRef) -> RecordBatch {
    let field = Field::new("c", column.data_type().clone(), true);
    RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![column]).unwrap()
}

fn stream_bytes(batch: &RecordBatch, options: WriteOptions) -> Vec<u8> {
    let mut writer = StreamWriter::try_new(Vec::new(), batch.schema().clone(), options).unwrap();
    writer.write(batch).unwrap();
    writer.into_inner().unwrap()
}

fn read_one(bytes: &[u8]) -> RecordBatch {
    StreamReader::try_new(bytes)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
}

#[test]
fn a_small_slice_of_a_large_column_writes_a_small_body() {
    let big: Vec<String> = (0..100_000).map(|i| format!("value number {i}")).collect();
    let strings = StringArray::from(big.iter().map(String::as_str).collect::<Vec<_>>());
    let mut builder = GenericListBuilder::<i32, _>::new(PrimitiveBuilder::<
        alkaid_array::types::Int32Type,
    >::with_capacity(0));
    for i in 0..100_000 {
        builder.values().append_value(i);
        builder.values().append_value(i + 1);
        builder.append(true);
    }
    let lists = builder.finish().unwrap();
    for column in [Arc::new(strings) as ArrayRef, Arc::new(lists) as ArrayRef] {
        let whole = batch_of(column.clone());
        let slice = whole.slice(50_000, 1000);
        let bytes = stream_bytes(&slice, WriteOptions::default());
        assert!(bytes.len() < 40_000, "{} bytes for 1000 rows", bytes.len());
        let read = read_one(&bytes);
        assert_eq!(read.num_rows(), 1000);
        assert!(alkaid_data::equal(
            &read.column(0).to_data(),
            &slice.column(0).to_data()
        ));
    }
}

#[test]
fn a_one_percent_slice_of_a_view_column_writes_only_what_its_views_reference() {
    let values: Vec<String> = (0..100_000)
        .map(|i| format!("a string longer than twelve bytes {i}"))
        .collect();
    let views = StringViewArray::from_iter_values(values.iter());
    let whole = batch_of(Arc::new(views));
    let full = stream_bytes(&whole, WriteOptions::default()).len();
    let slice = whole.slice(10_000, 1000);
    let bytes = stream_bytes(&slice, WriteOptions::default());
    assert!(
        bytes.len() * 50 < full,
        "{} of {full} bytes for 1% of the rows",
        bytes.len()
    );
    let read = read_one(&bytes);
    let strings = read.column(0).as_typed::<StringViewArray>().unwrap();
    assert_eq!(strings.value(0), values[10_000]);
    assert_eq!(strings.value(999), values[10_999]);
}

#[test]
fn bodies_are_padded_to_the_chosen_alignment() {
    let batch = batch_of(Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])));
    for alignment in [8, 64] {
        let bytes = stream_bytes(&batch, WriteOptions::default().with_alignment(alignment));
        // Schema message, batch message, end marker: each message length is a multiple.
        let mut at = 0;
        let mut messages = 0;
        while at + 8 <= bytes.len() {
            let meta = i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
            if meta == 0 {
                break;
            }
            assert_eq!((8 + meta) % alignment, 0, "metadata of message {messages}");
            // Body length: whatever lies up to the next marker; buffers are padded.
            let next = (at + 8 + meta..bytes.len())
                .step_by(8)
                .find(|&p| bytes[p..p + 4] == [0xFF; 4])
                .unwrap();
            assert_eq!((next - at) % alignment, 0, "message {messages}");
            at = next;
            messages += 1;
        }
        assert_eq!(messages, 2);
        assert_eq!(read_one(&bytes).num_rows(), 3);
    }
}

#[test]
fn zero_copy_reads_share_the_input_and_realign_only_when_needed() {
    let ints = Int64Array::from((0..1000).collect::<Vec<i64>>());
    let decimals = Decimal128Array::from((0..1000).map(i128::from).collect::<Vec<_>>())
        .with_data_type(DataType::decimal(128, 20, 2).unwrap())
        .unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int64, false),
        Field::new("d", DataType::decimal(128, 20, 2).unwrap(), false),
    ]));
    let batch =
        RecordBatch::try_new(schema.clone(), vec![Arc::new(ints), Arc::new(decimals)]).unwrap();
    let mut writer = FileWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    let bytes = writer.into_inner().unwrap();

    // Aligned input: both columns point into it.
    let input = Buffer::from_slice_ref(&bytes);
    let range = input.as_ptr() as usize..input.as_ptr() as usize + input.len();
    let read = FileReader::from_buffer(input.clone())
        .unwrap()
        .batch(0)
        .unwrap();
    for column in read.columns() {
        let values = column.to_data().buffers()[0].as_ptr() as usize;
        assert!(range.contains(&values), "a column was copied");
    }
    // Input that is only 8-byte aligned (as other implementations often give): the i128
    // values are copied to an aligned buffer; the i64 values still are not.
    let mut shifted = vec![0u8; bytes.len() + 8];
    shifted[8..].copy_from_slice(&bytes);
    let padded = Buffer::from_slice_ref(&shifted);
    let misaligned = padded.slice(8, bytes.len());
    assert!(!misaligned.is_aligned_to(16));
    let range = misaligned.as_ptr() as usize..misaligned.as_ptr() as usize + misaligned.len();
    let read = FileReader::from_buffer(misaligned)
        .unwrap()
        .batch(0)
        .unwrap();
    let ints = read.column(0).to_data().buffers()[0].as_ptr() as usize;
    let decimals = read.column(1).to_data().buffers()[0].as_ptr() as usize;
    assert!(range.contains(&ints));
    assert!(!range.contains(&decimals) && decimals.is_multiple_of(16));
    assert!(alkaid_data::equal(
        &read.column(1).to_data(),
        &batch.column(1).to_data()
    ));
}

#[test]
fn metadata_survives_on_batches_and_footers() {
    let batch = batch_of(Arc::new(Int32Array::from(vec![1, 2])));
    let mut metadata = Metadata::new();
    metadata.insert("chunk", "7");
    let mut writer =
        FileWriter::try_new(Vec::new(), batch.schema().clone(), WriteOptions::default()).unwrap();
    writer.write_with_metadata(&batch, &metadata).unwrap();
    writer.write(&batch).unwrap();
    let mut footer = Metadata::new();
    footer.insert("written-by", "alkaid");
    writer.set_footer_metadata(footer.clone());
    let bytes = writer.into_inner().unwrap();
    assert!(bytes.starts_with(b"ALKAID1\0") && bytes.ends_with(b"ALKAID1"));
    let mut reader = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
    assert_eq!(reader.metadata(), &footer);
    assert_eq!(reader.batch_with_metadata(0).unwrap().1, metadata);
    assert!(reader.batch_with_metadata(1).unwrap().1.is_empty());
    let err = reader.batch(2).unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::InvalidArgument);
}

#[test]
fn arrow_magic_and_compression_round_trip() {
    let batch = batch_of(Arc::new(Int64Array::from(vec![7i64; 10_000])));
    for compression in [Compression::Lz4Frame, Compression::Zstd { level: 9 }] {
        let options = WriteOptions::default()
            .with_magic(Magic::Arrow)
            .with_compression(compression);
        let mut writer = FileWriter::try_new(Vec::new(), batch.schema().clone(), options).unwrap();
        writer.write(&batch).unwrap();
        let bytes = writer.into_inner().unwrap();
        assert!(bytes.starts_with(b"ARROW1\0\0") && bytes.ends_with(b"ARROW1"));
        assert!(
            bytes.len() < 2_000,
            "{compression:?}: {} bytes",
            bytes.len()
        );
        let read = FileReader::from_buffer(Buffer::from(bytes))
            .unwrap()
            .batch(0)
            .unwrap();
        let values = read
            .column(0)
            .as_primitive::<alkaid_array::types::Int64Type>();
        assert_eq!(values.value(9_999), 7);
    }
}

#[test]
fn writers_refuse_what_the_format_cannot_hold() {
    let batch = batch_of(Arc::new(Int32Array::from(vec![1])));
    let other = batch_of(Arc::new(Int64Array::from(vec![1])));
    let mut writer =
        StreamWriter::try_new(Vec::new(), batch.schema().clone(), WriteOptions::default()).unwrap();
    let err = writer.write(&other).unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::InvalidArgument);
    writer.finish().unwrap();
    assert!(writer.write(&batch).is_err());

    let nested: DataType = "Dictionary(Int8, Dictionary(Int8, Utf8))".parse().unwrap();
    let schema = Arc::new(Schema::new(vec![Field::new("d", nested, true)]));
    let err = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("field d"), "{err}");
}

/// A writer that takes a few bytes per call, from one slice or from several, and is
/// sometimes interrupted: messages go out as vectored writes, which must still deliver
/// every byte in order to any `Write`.
struct Trickle {
    out: Vec<u8>,
    calls: usize,
    vectored: bool,
}

impl std::io::Write for Trickle {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(7) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = bytes.len().min(1 + self.calls % 5);
        self.out.extend_from_slice(&bytes[..n]);
        Ok(n)
    }

    fn write_vectored(&mut self, slices: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
        if !self.vectored {
            // The trait's default: the first non-empty slice only.
            let first = slices
                .iter()
                .find(|s| !s.is_empty())
                .map_or(&[][..], |s| &s[..]);
            return self.write(first);
        }
        self.calls += 1;
        if self.calls.is_multiple_of(7) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        // Across slice boundaries, stopping part way into one.
        let mut budget = 3 + self.calls % 11;
        let mut written = 0;
        for slice in slices {
            let n = slice.len().min(budget);
            self.out.extend_from_slice(&slice[..n]);
            written += n;
            budget -= n;
            if budget == 0 {
                break;
            }
        }
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn messages_reach_writers_that_take_a_few_bytes_at_a_time() {
    let words: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
    let batch = batch_of(Arc::new(StringArray::from(
        words.iter().map(String::as_str).collect::<Vec<_>>(),
    )));
    for compression in [Compression::None, Compression::Lz4Frame] {
        let options = WriteOptions::default().with_compression(compression);
        let expected = stream_bytes(&batch, options.clone());
        for vectored in [false, true] {
            let trickle = Trickle {
                out: Vec::new(),
                calls: 0,
                vectored,
            };
            let mut writer =
                StreamWriter::try_new(trickle, batch.schema().clone(), options.clone()).unwrap();
            writer.write(&batch).unwrap();
            let trickle = writer.into_inner().unwrap();
            assert!(trickle.calls > 100, "{} calls", trickle.calls);
            assert_eq!(trickle.out, expected, "{compression:?} vectored {vectored}");
        }
        let read = read_one(&expected);
        assert!(alkaid_data::equal(
            &read.column(0).to_data(),
            &batch.column(0).to_data()
        ));
    }
}

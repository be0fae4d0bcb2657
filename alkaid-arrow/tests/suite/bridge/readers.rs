//! Readers through the bridge: Alkaid batches read by arrow-rs, arrow-rs batches read by
//! Alkaid, source errors passed on.

use std::sync::Arc;

use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};

use super::bridge::{AlkaidReader, ArrowReader};
use super::{arrow_array, arrow_schema};

fn schema() -> SchemaRef {
    Arc::new(
        Schema::new(vec![
            Field::new("n", DataType::Int32, false),
            Field::new("s", DataType::Utf8, true),
        ])
        .with_metadata([("origin", "alkaid")].into_iter().collect()),
    )
}

fn batch(schema: &SchemaRef, start: i32) -> RecordBatch {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![start, start + 1])),
        Arc::new(StringArray::from(vec![Some("x"), None])),
    ];
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

#[test]
fn alkaid_batches_read_by_arrow_rs_with_the_source_error_at_the_end() {
    use arrow_array::RecordBatchReader as _;
    let schema = schema();
    let batches: Vec<Result<RecordBatch, std::io::Error>> = vec![
        Ok(batch(&schema, 0)),
        Ok(batch(&schema, 2)),
        Err(std::io::Error::other("the disk went away")),
    ];
    let mut reader = ArrowReader::new(schema.clone(), batches.into_iter());
    assert_eq!(
        reader.schema().metadata().get("origin").map(String::as_str),
        Some("alkaid")
    );
    let first = reader.next().unwrap().unwrap();
    assert_eq!(first.schema(), reader.schema());
    let numbers = first
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::Int32Array>()
        .unwrap();
    assert_eq!(numbers.values(), &[0, 1]);
    assert_eq!(reader.next().unwrap().unwrap().num_rows(), 2);
    let error = reader.next().unwrap().unwrap_err();
    assert!(matches!(error, arrow_schema::ArrowError::ExternalError(_)));
    assert!(error.to_string().contains("the disk went away"), "{error}");
    assert!(reader.next().is_none());
}

#[test]
fn a_batch_of_another_schema_is_an_error_for_arrow_rs() {
    let other = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int32, false),
        Field::new("renamed", DataType::Utf8, true),
    ]));
    let batches = vec![Ok::<_, std::io::Error>(batch(&other, 0))];
    let mut reader = ArrowReader::new(schema(), batches.into_iter());
    let error = reader.next().unwrap().unwrap_err().to_string();
    assert!(error.contains("renamed"), "{error}");
}

#[test]
fn arrow_rs_readers_read_by_alkaid_with_their_errors() {
    let their_batches: Vec<Result<arrow_array::RecordBatch, arrow_schema::ArrowError>> = vec![
        Ok(arrow_array::RecordBatch::try_from_iter([(
            "v",
            Arc::new(arrow_array::Int64Array::from(vec![1, 2, 3])) as arrow_array::ArrayRef,
        )])
        .unwrap()),
        Err(arrow_schema::ArrowError::ComputeError(
            "the query was cancelled".into(),
        )),
    ];
    let their_schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "v",
        arrow_schema::DataType::Int64,
        false,
    )]));
    let source = arrow_array::RecordBatchIterator::new(their_batches, their_schema);
    let mut reader = AlkaidReader::try_new(source).unwrap();
    assert_eq!(
        reader.schema().field(0).unwrap().data_type(),
        &DataType::Int64
    );
    let first = reader.next().unwrap().unwrap();
    assert_eq!(first.num_rows(), 3);
    let error = reader.next().unwrap().unwrap_err().to_string();
    assert!(error.contains("the query was cancelled"), "{error}");
    assert!(reader.next().is_none());
}

#[test]
fn a_reader_of_a_type_the_format_forbids_is_refused_up_front() {
    let their_schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "t",
        arrow_schema::DataType::Time32(arrow_schema::TimeUnit::Nanosecond),
        true,
    )]));
    let source = arrow_array::RecordBatchIterator::new(Vec::new(), their_schema);
    let error = AlkaidReader::try_new(source).err().unwrap().to_string();
    assert!(error.contains("Time32"), "{error}");
}

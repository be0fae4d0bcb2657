//! The C stream interface between two Alkaid ends: batches, the producer's error message,
//! the end of the stream, and streams that were released or never read.

use std::sync::Arc;

use alkaid_array::ffi_stream::{ArrowArrayStream, StreamReader};
use alkaid_array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use alkaid_schema::{DataType, Field, Schema};

fn batch(schema: &Arc<Schema>, words: &[&str]) -> RecordBatch {
    let column: ArrayRef = Arc::new(StringArray::from(words.to_vec()));
    RecordBatch::try_new(schema.clone(), vec![column]).unwrap()
}

#[test]
fn batches_then_the_producers_error_then_nothing() {
    let schema = Arc::new(Schema::new(vec![Field::new("w", DataType::Utf8, false)]));
    let sliced = batch(&schema, &["a", "b", "c", "d"]).slice(1, 2);
    let batches = vec![Ok(sliced), Err("disk on fire")];
    let mut stream = ArrowArrayStream::export(schema.clone(), batches);
    // SAFETY: a stream this crate exported.
    let mut reader = unsafe { StreamReader::try_new(&mut stream) }.unwrap();
    assert!(stream.release.is_none(), "moved into the reader");
    assert_eq!(reader.schema().as_ref(), schema.as_ref());
    let first = reader.next().unwrap().unwrap();
    let words = first.column(0).as_string::<i32>();
    assert_eq!((words.len(), words.value(0), words.value(1)), (2, "b", "c"));
    let error = reader.next().unwrap().unwrap_err().to_string();
    assert!(
        error.contains("disk on fire") && error.contains("get_next"),
        "{error}"
    );
    assert!(reader.next().is_none());
}

#[test]
fn an_empty_stream_ends_at_once_and_released_ones_are_refused() {
    let schema = Arc::new(Schema::new(vec![Field::new("w", DataType::Utf8, true)]));
    let mut stream = ArrowArrayStream::export(schema, Vec::<Result<RecordBatch, String>>::new());
    // SAFETY: a stream this crate exported.
    let mut reader = unsafe { StreamReader::try_new(&mut stream) }.unwrap();
    assert!(reader.next().is_none());
    // SAFETY: the same struct, now released.
    assert!(unsafe { StreamReader::try_new(&mut stream) }.is_err());
    let mut never = ArrowArrayStream::empty();
    // SAFETY: a released (empty) stream.
    assert!(unsafe { StreamReader::try_new(&mut never) }.is_err());
    // A stream nobody reads frees itself when dropped.
    drop(ArrowArrayStream::export(
        Arc::new(Schema::empty()),
        vec![RecordBatch::try_new_with_rows(
            Arc::new(Schema::empty()),
            vec![],
            3,
        )],
    ));
}

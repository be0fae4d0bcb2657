//! Streams and edits of them shared by the tests that measure what hostile input costs, and
//! a byte source that records its reads.
#![allow(dead_code)] // each test binary uses its own part

use std::sync::Arc;

use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
use alkaid_ipc::{IpcError, StreamReader, StreamWriter, WriteOptions};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};

/// `batches` written as a stream with `options`.
pub fn stream(schema: SchemaRef, batches: &[RecordBatch], options: WriteOptions) -> Vec<u8> {
    let mut writer = StreamWriter::try_new(Vec::new(), schema, options).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.into_inner().unwrap()
}

/// A batch of one nullable `Int32` column holding `0..rows`.
pub fn int_batch(rows: i32) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int32, true)]));
    let column: ArrayRef = Arc::new(Int32Array::from((0..rows).collect::<Vec<_>>()));
    RecordBatch::try_new(schema, vec![column]).unwrap()
}

/// The error reading a stream's first batch gives (its schema must read).
pub fn first_batch_error(bytes: &[u8]) -> IpcError {
    StreamReader::try_new(bytes)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err()
}

/// Overwrites the first little-endian `from` found in `bytes` with `to`.
pub fn replace_i64(bytes: &mut [u8], from: i64, to: i64) {
    let at = bytes
        .windows(8)
        .position(|w| w == from.to_le_bytes())
        .unwrap_or_else(|| panic!("{from} is in the bytes"));
    bytes[at..at + 8].copy_from_slice(&to.to_le_bytes());
}

/// Length of the prefix and metadata of the first message in `bytes` (all of a schema
/// message, which has no body).
pub fn schema_message_len(bytes: &[u8]) -> usize {
    assert_eq!(bytes[..4], [0xFF; 4]);
    8 + i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize
}

/// A stream of one [`int_batch`] of `rows` whose message claims a body of `claimed` bytes;
/// the stream ends after the real body. Give `rows` that pad the body past its one buffer,
/// so that the body's length is found alone in the message.
pub fn lying_body_stream(rows: i32, claimed: i64) -> Vec<u8> {
    let batch = int_batch(rows);
    let mut bytes = stream(batch.schema().clone(), &[batch], WriteOptions::default());
    let start = schema_message_len(&bytes);
    let end = start + schema_message_len(&bytes[start..]);
    let body_len = bytes.len() - end - 8; // the end-of-stream marker follows the body
    replace_i64(&mut bytes[start..end], body_len as i64, claimed);
    bytes
}

/// The framed messages of a valid stream, in order, without the end-of-stream marker.
pub fn messages(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut decoder = alkaid_ipc::Decoder::new();
    decoder.push(bytes);
    let mut out = Vec::new();
    while decoder.next_message().unwrap().is_some() {
        let info = decoder.last_message().unwrap();
        let end = info.offset + info.prefix_bytes + info.metadata_bytes + info.body_bytes;
        out.push(bytes[info.offset..end].to_vec());
    }
    out
}

/// `messages` framed as a stream, with the end-of-stream marker.
pub fn concat_stream(messages: &[&[u8]]) -> Vec<u8> {
    let mut out = messages.concat();
    out.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    out
}

/// A byte source over memory that records every read it serves, as (offset, length).
pub struct CountingSource {
    pub bytes: alkaid_buffer::Buffer,
    pub reads: Vec<(u64, usize)>,
}

impl CountingSource {
    pub fn new(bytes: &[u8]) -> Self {
        Self {
            bytes: alkaid_buffer::Buffer::from(bytes.to_vec()),
            reads: Vec::new(),
        }
    }
}

impl alkaid_ipc::ByteSource for CountingSource {
    fn len(&mut self) -> alkaid_ipc::Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> alkaid_ipc::Result<alkaid_buffer::Buffer> {
        self.reads.push((offset, len));
        Ok(self.bytes.slice(offset as usize, len))
    }
}

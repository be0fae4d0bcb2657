//! A stream held in memory, decoded without copying.

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_schema::{Metadata, SchemaRef};

use crate::error::{IpcError, Result};
use crate::read::framing::{Prefix, body_length, parse_prefix};
use crate::read::options::ReadOptions;
use crate::read::state::{Decoded, ReadState, next_batch, parse_message};

/// Reads an IPC stream that is already in memory (a received message, a memory-mapped
/// file): batches share `bytes`, and a buffer is copied only when it is compressed or
/// misaligned for its type. Decoding a large uncompressed batch costs time in the number of
/// buffers (plus full validation, unless skipped), not in the number of bytes.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
/// use alkaid_buffer::Buffer;
/// use alkaid_ipc::{BufferStreamReader, StreamWriter, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
/// let column: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
/// let mut writer = StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default())?;
/// writer.write(&RecordBatch::try_new(schema, vec![column])?)?;
/// let bytes = Buffer::from(writer.into_inner()?);
///
/// let batch = BufferStreamReader::try_new(bytes.clone())?.next().unwrap()?;
/// let values = batch.column(0).to_data().buffers()[0].clone();
/// assert!(values.shares_allocation_with(&bytes));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BufferStreamReader {
    bytes: Buffer,
    at: usize,
    state: ReadState,
    ended: bool,
}

impl BufferStreamReader {
    /// Opens the stream in `bytes` and reads its schema, with default options.
    ///
    /// # Errors
    /// If the stream does not start with a valid schema message.
    pub fn try_new(bytes: Buffer) -> Result<Self> {
        Self::with_options(bytes, ReadOptions::default())
    }

    /// Opens the stream in `bytes` and reads its schema.
    ///
    /// # Errors
    /// If the stream does not start with a valid schema message.
    pub fn with_options(bytes: Buffer, options: ReadOptions) -> Result<Self> {
        let mut reader = Self {
            bytes,
            at: 0,
            state: ReadState::new(options),
            ended: false,
        };
        match reader.message()? {
            Some(Decoded::Schema(_)) => Ok(reader),
            Some(_) => Err(IpcError::malformed(
                "the stream does not start with a schema",
            )),
            None => Err(IpcError::truncated("the stream ends before its schema")),
        }
    }

    /// The schema of the batches: the stream's, or the columns of it the options select.
    pub fn schema(&self) -> SchemaRef {
        self.state.batch_schema().cloned().expect("read in try_new")
    }

    fn message(&mut self) -> Result<Option<Decoded>> {
        let rest = &self.bytes[self.at..];
        if self.ended || rest.is_empty() || rest == [0xFF; 4] {
            self.ended = true;
            return Ok(None);
        }
        let (header, metadata) = match parse_prefix(rest, &self.state.options)? {
            Some(Prefix::Message { header, metadata }) => (header, metadata),
            Some(Prefix::End) => {
                self.ended = true;
                return Ok(None);
            }
            None => {
                return Err(IpcError::truncated(
                    "the stream ends inside a message prefix",
                ));
            }
        };
        let meta = rest
            .get(header..header + metadata)
            .ok_or_else(|| IpcError::truncated("the stream ends inside message metadata"))?;
        let body_len = body_length(parse_message(meta, &self.state.options)?.bodyLength())?;
        let start = self.at + header + metadata;
        if body_len > self.bytes.len() - start {
            return Err(IpcError::truncated(format!(
                "a {body_len}-byte message body runs past the end of the stream"
            )));
        }
        let meta = self.bytes.slice(self.at + header, metadata);
        let body = self.bytes.slice(start, body_len);
        self.at = start + body_len;
        self.state.decode(&meta, body).map(Some)
    }

    /// The next batch and its custom metadata, or `None` at the end of the stream.
    pub fn next_with_metadata(&mut self) -> Option<Result<(RecordBatch, Metadata)>> {
        let (next, failed) = next_batch(|| self.message());
        self.ended |= failed;
        next
    }
}

impl Iterator for BufferStreamReader {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_with_metadata().map(|r| r.map(|(batch, _)| batch))
    }
}

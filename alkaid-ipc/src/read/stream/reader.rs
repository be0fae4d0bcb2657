//! The stream reader over any `std::io::Read`.

use std::io::Read;

use alkaid_array::RecordBatch;
use alkaid_schema::{Metadata, SchemaRef};

use crate::error::{IpcError, Result};
use crate::read::body::from_read::read_up_to;
use crate::read::framing::{Prefix, body_length, parse_prefix};
use crate::read::options::ReadOptions;
use crate::read::state::{Decoded, ReadState, next_batch, parse_message};

/// Reads an IPC stream from a `Read`, one batch at a time.
///
/// It drives the same decoding core as [`Decoder`](crate::Decoder), but reads each message
/// body straight into its own allocation instead of through the decoder's byte queue. It
/// accepts the end-of-stream marker or a plain end of input, and the framing of streams
/// written before format 0.15 (no continuation marker).
pub struct StreamReader<R: Read> {
    input: R,
    state: ReadState,
    ended: bool,
    metadata: Metadata,
}

impl<R: Read> StreamReader<R> {
    /// Opens a stream and reads its schema, with default options.
    ///
    /// # Errors
    /// If the stream does not start with a valid schema message.
    pub fn try_new(input: R) -> Result<Self> {
        Self::with_options(input, ReadOptions::default())
    }

    /// Opens a stream and reads its schema.
    ///
    /// # Errors
    /// If the stream does not start with a valid schema message.
    pub fn with_options(input: R, options: ReadOptions) -> Result<Self> {
        let mut reader = Self {
            input,
            state: ReadState::new(options),
            ended: false,
            metadata: Metadata::new(),
        };
        match reader.message().map_err(|e| e.context("message 0"))? {
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

    /// The custom metadata of the batch returned last.
    pub fn batch_metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Reads exactly `buf.len()` bytes; `Ok(false)` if the input ended before the first one.
    fn fill(&mut self, buf: &mut [u8]) -> Result<bool> {
        let mut read = 0;
        while read < buf.len() {
            match self.input.read(&mut buf[read..]) {
                Ok(0) if read == 0 => return Ok(false),
                Ok(0) => return Err(IpcError::truncated("the stream ends inside a message")),
                Ok(n) => read += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(true)
    }

    fn message(&mut self) -> Result<Option<Decoded>> {
        if self.ended {
            return Ok(None);
        }
        let mut prefix = [0u8; 8];
        if !self.fill(&mut prefix[..4])? {
            self.ended = true;
            return Ok(None);
        }
        if prefix[..4] == [0xFF; 4] && !self.fill(&mut prefix[4..])? {
            // A lone marker at the end: the 4-byte end of stream of some old writers.
            self.ended = true;
            return Ok(None);
        }
        let read = if prefix[..4] == [0xFF; 4] { 8 } else { 4 };
        let metadata = match parse_prefix(&prefix[..read], &self.state.options)? {
            Some(Prefix::Message { metadata, .. }) => metadata,
            Some(Prefix::End) | None => {
                self.ended = true;
                return Ok(None);
            }
        };
        let meta = read_up_to(&mut self.input, metadata)?;
        if meta.len() != metadata {
            return Err(IpcError::truncated("the stream ends inside a message"));
        }
        let body_len = body_length(parse_message(&meta, &self.state.options)?.bodyLength())?;
        let body = read_up_to(&mut self.input, body_len)?;
        if body.len() != body_len {
            return Err(IpcError::truncated(format!(
                "the stream ends {} bytes into a {body_len}-byte message body",
                body.len()
            )));
        }
        self.state.decode(&meta, body).map(Some)
    }

    /// The next batch and its custom metadata, or `None` at the end of the stream.
    pub fn next_with_metadata(&mut self) -> Option<Result<(RecordBatch, Metadata)>> {
        let (next, failed) = next_batch(|| self.message());
        self.ended |= failed;
        next
    }
}

impl<R: Read> Iterator for StreamReader<R> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let (batch, metadata) = match self.next_with_metadata()? {
            Ok(pair) => pair,
            Err(e) => return Some(Err(e)),
        };
        self.metadata = metadata;
        Some(Ok(batch))
    }
}

//! A stream or file written as buffers instead of into a `Write`, for a carrier that sends
//! them itself (alkaid-ipc-async's writers): each message is its framing in a small buffer
//! of its own, then the batch's buffers as they are (shared, not copied) and their padding.
//! The bytes are the stream or file writer's, byte for byte.

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_schema::{Metadata, SchemaRef};

use super::file::{finish_file, write_magic};
use super::message::{Body, write_message};
use super::options::WriteOptions;
use super::writer::{Output, WriterCore};
use crate::error::{IpcError, Result};

/// What a [`SpoolWriter`] wrote and nobody took yet.
#[derive(Default)]
struct Spool {
    parts: Vec<Buffer>,
    position: u64,
}

impl Spool {
    fn push(&mut self, part: Buffer) {
        self.position += part.len() as u64;
        if !part.is_empty() {
            self.parts.push(part);
        }
    }
}

impl Output for Spool {
    fn position(&self) -> u64 {
        self.position
    }

    fn message(
        &mut self,
        flatbuffer: &[u8],
        body: Option<&Body>,
        alignment: usize,
    ) -> Result<(usize, usize)> {
        // The framing as the writers write it, then the body's buffers as they are.
        let mut head = Vec::new();
        let (meta, _) = write_message(&mut head, flatbuffer, None, alignment)?;
        self.push(Buffer::from(head));
        for part in body.into_iter().flat_map(Body::buffers) {
            self.push(part);
        }
        Ok((meta, body.map_or(0, Body::len)))
    }

    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.push(Buffer::from(bytes.to_vec()));
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An IPC stream or file whose bytes come out as buffers ([`take`](Self::take)) instead of
/// going into a `Write`: the framing of each message in a small buffer, then the batch's own
/// buffers, not copied, and their padding. For a carrier that writes them itself, with
/// vectored writes, asynchronously or later; concatenated, they are what
/// [`StreamWriter`](crate::StreamWriter) or [`FileWriter`](crate::FileWriter) would have
/// written with the same options.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// use alkaid_ipc::{SpoolWriter, StreamWriter, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
/// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
///
/// let mut spool = SpoolWriter::stream(schema.clone(), WriteOptions::default())?;
/// spool.write(&batch)?;
/// spool.finish()?;
/// let bytes: Vec<u8> = spool.take().iter().flat_map(|part| part.iter().copied()).collect();
///
/// let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default())?;
/// writer.write(&batch)?;
/// assert_eq!(bytes, writer.into_inner()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SpoolWriter {
    core: WriterCore<Spool>,
    /// The footer's custom metadata, for a file; `None` for a stream.
    footer: Option<Metadata>,
    finished: bool,
}

impl SpoolWriter {
    /// Starts a stream of batches with `schema`: the schema message is the first part.
    ///
    /// # Errors
    /// As [`StreamWriter::try_new`](crate::StreamWriter::try_new).
    pub fn stream(schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        Ok(Self {
            core: WriterCore::new(Spool::default(), schema, None, options, false)?,
            footer: None,
            finished: false,
        })
    }

    /// Starts a file of batches with `schema`: the magic and the schema message first.
    ///
    /// # Errors
    /// As [`FileWriter::try_new`](crate::FileWriter::try_new).
    pub fn file(schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        let mut out = Spool::default();
        write_magic(&mut out, &options)?;
        Ok(Self {
            core: WriterCore::new(out, schema, None, options, true)?,
            footer: Some(Metadata::new()),
            finished: false,
        })
    }

    /// The schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        self.core.schema()
    }

    /// Custom metadata for a file's footer (a stream has none: ignored).
    pub fn set_footer_metadata(&mut self, metadata: Metadata) {
        if let Some(footer) = &mut self.footer {
            *footer = metadata;
        }
    }

    /// Writes `batch`, after any dictionaries it needs.
    ///
    /// # Errors
    /// As the stream or file writer's `write`.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_with_metadata(batch, &Metadata::new())
    }

    /// Writes `batch` with custom metadata on its message.
    ///
    /// # Errors
    /// As the stream or file writer's `write_with_metadata`.
    pub fn write_with_metadata(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<()> {
        if self.finished {
            return Err(IpcError::invalid_argument("the writer is already finished"));
        }
        self.core.write(batch, metadata)
    }

    /// Writes the end-of-stream marker, and for a file the footer and closing magic.
    /// Finishing twice does nothing the second time.
    ///
    /// # Errors
    /// If the footer cannot be encoded.
    pub fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        match &self.footer {
            Some(metadata) => finish_file(&mut self.core, metadata)?,
            None => self.core.write_end()?,
        }
        self.finished = true;
        Ok(())
    }

    /// The parts written since the last call, in order (none empty).
    pub fn take(&mut self) -> Vec<Buffer> {
        std::mem::take(&mut self.core.out.parts)
    }

    /// Bytes written so far, taken or not.
    pub fn position(&self) -> u64 {
        self.core.out.position
    }
}

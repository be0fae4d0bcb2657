//! The stream writer.

use std::io::{Seek, Write};

use alkaid_array::RecordBatch;
use alkaid_schema::{Metadata, SchemaRef};

use super::options::WriteOptions;
use super::writer::{Counting, WriterCore};
use crate::dictionary::DictionaryIds;
use crate::error::{IpcError, Result};

/// Writes record batches as an IPC stream: the schema, then dictionaries and batches as
/// they come, then an end-of-stream marker from [`finish`](Self::finish).
///
/// Each message goes to `out` in one vectored write, so a `Vec<u8>` grows to the exact
/// length of a message larger than what it already holds. After one large batch the vector
/// is full, and the 8-byte marker doubles it: allocators that move large blocks rather
/// than grow them in place (mimalloc, jemalloc; not glibc) then copy the whole stream
/// (a 257 MB batch: 61 ms into `Vec::new()`, 35 ms into a vector reserved up front, with
/// mimalloc). When the size is roughly known, reserve it.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// use alkaid_ipc::{StreamReader, StreamWriter, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, true)]));
/// let column: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
///
/// let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default())?;
/// writer.write(&batch)?;
/// let bytes = writer.into_inner()?;
///
/// let mut reader = StreamReader::try_new(&bytes[..])?;
/// let read = reader.next().unwrap()?;
/// assert_eq!(read.num_rows(), 3);
/// assert!(reader.next().is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamWriter<W: Write> {
    core: WriterCore<Counting<W>>,
    finished: bool,
}

impl<W: Write> StreamWriter<W> {
    /// Starts a stream of batches with `schema`, writing the schema message.
    ///
    /// # Errors
    /// If writing fails, the schema holds something the format cannot express, or the
    /// options ask for a codec this build leaves out (features `lz4` and `zstd`).
    pub fn try_new(out: W, schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        Self::start(out, schema, None, options)
    }

    /// Starts a stream whose dictionary fields use `ids`: fields given one id share one
    /// dictionary, sent once.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), and if `ids` do not fit `schema`.
    pub fn try_new_with_dictionary_ids(
        out: W,
        schema: SchemaRef,
        ids: DictionaryIds,
        options: WriteOptions,
    ) -> Result<Self> {
        Self::start(out, schema, Some(ids), options)
    }

    fn start(
        out: W,
        schema: SchemaRef,
        ids: Option<DictionaryIds>,
        options: WriteOptions,
    ) -> Result<Self> {
        let out = Counting::new(out);
        Ok(Self {
            core: WriterCore::new(out, schema, ids, options, false)?,
            finished: false,
        })
    }

    /// Writes `batch`, after any dictionaries it needs (new ones, deltas or replacements).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_with_metadata(batch, &Metadata::new())
    }

    /// Writes `batch` with custom metadata on its message.
    pub fn write_with_metadata(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<()> {
        if self.finished {
            return Err(IpcError::invalid_argument("the stream is already finished"));
        }
        self.core.write(batch, metadata)
    }

    /// The output, for callers that move the bytes written so far elsewhere as they go (a
    /// `Vec` drained into a socket after each message; [`SpoolWriter`](crate::SpoolWriter)
    /// does that without the copy into the `Vec`). The writer counts
    /// positions itself, so taking bytes out is safe; writing into it corrupts the stream.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.core.out.inner
    }

    /// The schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        self.core.schema()
    }

    /// Writes the end-of-stream marker and flushes.
    pub fn finish(&mut self) -> Result<()> {
        if !self.finished {
            self.core.write_end()?;
            self.core.out.flush()?;
            self.finished = true;
        }
        Ok(())
    }

    /// Finishes the stream and returns the output.
    pub fn into_inner(mut self) -> Result<W> {
        self.finish()?;
        Ok(self.core.out.inner)
    }
}

impl<W: Write + Seek> StreamWriter<W> {
    /// Writes each large compressed body (from 1 MiB of buffers) while it is compressed:
    /// the compression threads ([`WriteOptions::with_compression_threads`], one at least)
    /// compress the buffers, this thread writes each one as soon as it and those before it
    /// are done, then goes back to write the message's header over the room it left (the
    /// header holds every compressed length, so it comes last; its size does not depend on
    /// them). The write overlaps the compression instead of following it, and each
    /// compressed buffer is dropped once written. The bytes are the same. Without
    /// compression nothing changes.
    ///
    /// For an output that can seek back (a file); taking bytes out of it as they are
    /// written ([`get_mut`](Self::get_mut)) would leave the seek nowhere to go. A write
    /// that fails leaves the message unfinished (room of zeros where its header goes),
    /// and the stream before it as it was.
    ///
    /// [`WriteOptions::with_compression_threads`]: crate::WriteOptions::with_compression_threads
    pub fn write_while_compressing(mut self) -> Self {
        self.core.out.enable_seeking();
        self.core.encoder.defer_compression();
        self
    }
}

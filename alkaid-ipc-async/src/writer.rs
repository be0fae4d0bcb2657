//! IPC streams and files written to a `tokio::io::AsyncWrite`: alkaid-ipc's
//! [`SpoolWriter`] frames each message as buffers (the batch's own, not copied), and the
//! message goes out whole, in vectored writes, before the next is encoded.
//!
//! Compressing a batch takes milliseconds of a core per megabyte: on a runtime's worker it
//! would hold up every task queued there (on a single-threaded runtime, all of them). So a
//! writer with compression encodes each batch on the runtime's blocking threads ([`Encoder`])
//! and awaits it; without compression, encoding only writes metadata and stays where it is.

use std::collections::VecDeque;
use std::io::IoSlice;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{Compression, IpcError, IpcErrorKind, Result, SpoolWriter, WriteOptions};
use alkaid_schema::{Metadata, SchemaRef};
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Slices handed to one vectored write, at most (Linux takes 1,024).
const SLICES: usize = 64;

/// An output, and the parts written to it only in part or not yet.
struct Outbox<W> {
    out: W,
    pending: VecDeque<Buffer>,
    /// Bytes at the front of the first pending part already written to `out`.
    sent: usize,
}

impl<W: AsyncWrite + Unpin> Outbox<W> {
    fn new(out: W) -> Self {
        Self {
            out,
            pending: VecDeque::new(),
            sent: 0,
        }
    }

    /// Sends `spool`'s new parts after what is pending. Each vectored write either happened
    /// or did not when the future is dropped (tokio's `write_vectored` is cancel-safe) and
    /// `pending` and `sent` follow it, so a later call goes on where this one stopped: a
    /// dropped future cuts no byte out of the stream.
    async fn drain(&mut self, spool: &mut SpoolWriter) -> Result<()> {
        self.pending.extend(spool.take());
        let Outbox { out, pending, sent } = self;
        while let Some(first) = pending.front() {
            let n = {
                let slices: Vec<IoSlice<'_>> = std::iter::once(&first[*sent..])
                    .chain(pending.iter().skip(1).map(|part| &part[..]))
                    .take(SLICES)
                    .map(IoSlice::new)
                    .collect();
                out.write_vectored(&slices).await?
            };
            if n == 0 {
                return Err(std::io::Error::from(std::io::ErrorKind::WriteZero).into());
            }
            let mut n = n + *sent;
            *sent = 0;
            while let Some(part) = pending.front() {
                if n < part.len() {
                    *sent = n;
                    break;
                }
                n -= part.len();
                pending.pop_front();
            }
        }
        Ok(())
    }

    /// Ends the output: the messages a cancelled `write` left unwritten first (so that
    /// they are out even if ending fails), then the spool's ending (the end-of-stream
    /// marker, or a file's footer and magic), and a flush.
    async fn finish(&mut self, encoder: &mut Encoder) -> Result<()> {
        let spool = encoder.ready().await?;
        self.drain(spool).await?;
        spool.finish()?;
        self.drain(spool).await?;
        self.out.flush().await?;
        Ok(())
    }
}

/// A [`SpoolWriter`] that encodes compressed batches on the runtime's blocking threads.
///
/// While a batch is encoded there, the spool is with that task. A `write` future dropped
/// while it awaits the task leaves the task in `pending`: the next call waits for it,
/// takes the spool back and writes that batch's messages first, as a `write` dropped while
/// its messages were being written leaves them for the next call.
struct Encoder {
    /// `None` while `pending` holds it, or after a task that held it failed.
    spool: Option<SpoolWriter>,
    pending: Option<tokio::task::JoinHandle<(SpoolWriter, Result<()>)>>,
    schema: SchemaRef,
    /// Footer metadata set since the spool was last ready, for it when it next is.
    footer: Option<Metadata>,
    compresses: bool,
}

impl Encoder {
    fn new(spool: SpoolWriter, options: &WriteOptions) -> Self {
        Self {
            schema: spool.schema().clone(),
            spool: Some(spool),
            pending: None,
            footer: None,
            compresses: options.compression() != Compression::None,
        }
    }

    /// The spool, once the batch being encoded on a blocking thread, if any, is done; that
    /// batch's error, if it failed (the spool is back and can go on, as after a failed
    /// `SpoolWriter::write`).
    async fn ready(&mut self) -> Result<&mut SpoolWriter> {
        if let Some(pending) = self.pending.as_mut() {
            // Cancel-safe: the handle stays in `pending` until the task's result is in.
            let done = pending.await;
            self.pending = None;
            // A panic in a codec, or the runtime shutting down: the spool went with the task.
            let (spool, encoded) = done.map_err(|e| {
                IpcError::new(
                    IpcErrorKind::Io,
                    format!("encoding a batch did not finish: {e}"),
                )
            })?;
            self.spool = Some(spool);
            encoded?;
        }
        let spool = self.spool.as_mut().ok_or_else(|| {
            IpcError::new(
                IpcErrorKind::InvalidArgument,
                "the writer cannot go on: encoding an earlier batch did not finish",
            )
        })?;
        if let Some(footer) = self.footer.take() {
            spool.set_footer_metadata(footer);
        }
        Ok(spool)
    }

    /// Encodes `batch` (and the dictionaries it needs) into the spool: on a blocking
    /// thread if it is compressed and there is a runtime, here otherwise. The spool, with
    /// the batch's messages in it.
    async fn write(
        &mut self,
        batch: &RecordBatch,
        metadata: &Metadata,
    ) -> Result<&mut SpoolWriter> {
        let runtime = self
            .compresses
            .then(tokio::runtime::Handle::try_current)
            .and_then(std::result::Result::ok);
        let Some(runtime) = runtime else {
            let spool = self.ready().await?;
            spool.write_with_metadata(batch, metadata)?;
            return Ok(spool);
        };
        self.ready().await?;
        let mut spool = self.spool.take().expect("ready gave the spool back");
        let (batch, metadata) = (batch.clone(), metadata.clone());
        self.pending = Some(runtime.spawn_blocking(move || {
            let encoded = spool.write_with_metadata(&batch, &metadata);
            (spool, encoded)
        }));
        self.ready().await
    }

    /// Kept until the spool is next [`ready`](Self::ready), which every write and the
    /// finish go through: it may be away with a batch now.
    fn set_footer_metadata(&mut self, metadata: Metadata) {
        self.footer = Some(metadata);
    }
}

/// An IPC stream written to an [`AsyncWrite`]: the schema when it starts, then batches
/// (with the dictionaries they need), then the end-of-stream marker from
/// [`finish`](Self::finish).
///
/// Each message is framed around the batch's own buffers (no copy of its bytes) and
/// written whole, in vectored writes, before `write` returns, so the output's backpressure
/// paces the writer. With compression, each batch is compressed on the runtime's blocking
/// threads, not on the task's worker. Dropping a `write` future at an await leaves the
/// batch partly compressed or its message partly written, and the writer able to go on
/// where it stopped (the next call finishes that batch first); dropping the writer leaves
/// the messages before it intact.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// use alkaid_ipc::{StreamReader, WriteOptions};
/// use alkaid_ipc_async::AsyncStreamWriter;
/// use alkaid_schema::{DataType, Field, Schema};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
/// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// // Any AsyncWrite: here a Vec.
/// let mut writer = AsyncStreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).await?;
/// writer.write(&RecordBatch::try_new(schema, vec![column])?).await?;
/// let bytes = writer.into_inner().await?;
/// assert_eq!(StreamReader::try_new(&bytes[..])?.count(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncStreamWriter<W> {
    encoder: Encoder,
    out: Outbox<W>,
}

impl<W: AsyncWrite + Unpin> AsyncStreamWriter<W> {
    /// Starts a stream of batches with `schema`, writing the schema message.
    ///
    /// # Errors
    /// If writing fails, or the schema holds something the format cannot express.
    pub async fn try_new(out: W, schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        let mut spool = SpoolWriter::stream(schema, options.clone())?;
        let mut out = Outbox::new(out);
        out.drain(&mut spool).await?;
        Ok(Self {
            encoder: Encoder::new(spool, &options),
            out,
        })
    }

    /// Writes `batch`, after any dictionaries it needs.
    ///
    /// # Errors
    /// If the batch does not fit the schema or writing fails.
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_with_metadata(batch, &Metadata::new()).await
    }

    /// Writes `batch` with custom metadata on its message.
    ///
    /// # Errors
    /// As [`write`](Self::write).
    pub async fn write_with_metadata(
        &mut self,
        batch: &RecordBatch,
        metadata: &Metadata,
    ) -> Result<()> {
        let spool = self.encoder.write(batch, metadata).await?;
        self.out.drain(spool).await
    }

    /// The schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        &self.encoder.schema
    }

    /// Writes the end-of-stream marker and flushes the output.
    ///
    /// # Errors
    /// If writing or flushing fails.
    pub async fn finish(&mut self) -> Result<()> {
        self.out.finish(&mut self.encoder).await
    }

    /// Finishes the stream and returns the output.
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub async fn into_inner(mut self) -> Result<W> {
        self.finish().await?;
        Ok(self.out.out)
    }
}

/// An IPC file written to an [`AsyncWrite`]: as [`AsyncStreamWriter`], with the file's
/// magic before and the footer (the index of batches and dictionaries) after, written by
/// [`finish`](Self::finish). The output need not seek: the writer counts positions.
pub struct AsyncFileWriter<W> {
    encoder: Encoder,
    out: Outbox<W>,
}

impl<W: AsyncWrite + Unpin> AsyncFileWriter<W> {
    /// Starts a file of batches with `schema`, writing the magic and the schema message.
    ///
    /// # Errors
    /// If writing fails, or the schema holds something the format cannot express.
    pub async fn try_new(out: W, schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        let mut spool = SpoolWriter::file(schema, options.clone())?;
        let mut out = Outbox::new(out);
        out.drain(&mut spool).await?;
        Ok(Self {
            encoder: Encoder::new(spool, &options),
            out,
        })
    }

    /// Sets the footer's custom metadata.
    pub fn set_footer_metadata(&mut self, metadata: Metadata) {
        self.encoder.set_footer_metadata(metadata);
    }

    /// Writes `batch`, after any dictionaries it needs.
    ///
    /// # Errors
    /// If the batch does not fit the schema (or would replace a dictionary, which a file
    /// cannot), or writing fails.
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_with_metadata(batch, &Metadata::new()).await
    }

    /// Writes `batch` with custom metadata on its message.
    ///
    /// # Errors
    /// As [`write`](Self::write).
    pub async fn write_with_metadata(
        &mut self,
        batch: &RecordBatch,
        metadata: &Metadata,
    ) -> Result<()> {
        let spool = self.encoder.write(batch, metadata).await?;
        self.out.drain(spool).await
    }

    /// The schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        &self.encoder.schema
    }

    /// Writes the footer and the closing magic, and flushes the output.
    ///
    /// # Errors
    /// If writing or flushing fails.
    pub async fn finish(&mut self) -> Result<()> {
        self.out.finish(&mut self.encoder).await
    }

    /// Finishes the file and returns the output.
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub async fn into_inner(mut self) -> Result<W> {
        self.finish().await?;
        Ok(self.out.out)
    }
}

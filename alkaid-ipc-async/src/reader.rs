//! An IPC stream read from a `tokio::io::AsyncRead`, as a `futures::Stream` of batches:
//! the bytes go into alkaid-ipc's push [`Decoder`] as they arrive, which does all the
//! parsing and checking.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use alkaid_array::RecordBatch;
use alkaid_ipc::{Decoded, Decoder, IpcError, IpcErrorKind, ReadOptions, Result};
use alkaid_schema::SchemaRef;
use futures_core::Stream;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};

/// How much is asked of the input at a time.
const CHUNK: usize = 64 << 10;

/// The record batches of an IPC stream arriving through an [`AsyncRead`] (a socket, a
/// pipe, a file), one by one as a [`Stream`].
///
/// Dropping it at any point leaves nothing behind; a stream that ends inside a message is
/// an error that says where that message started.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// use alkaid_ipc::{StreamWriter, WriteOptions};
/// use alkaid_ipc_async::AsyncStreamReader;
/// use alkaid_schema::{DataType, Field, Schema};
/// use futures_util::StreamExt;
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
/// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// let mut writer = StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default())?;
/// writer.write(&RecordBatch::try_new(schema, vec![column])?)?;
/// let bytes = writer.into_inner()?;
///
/// // Any AsyncRead: here a slice of bytes.
/// let mut reader = AsyncStreamReader::try_new(&bytes[..]).await?;
/// assert_eq!(reader.schema().fields().len(), 1);
/// let batch = reader.next().await.unwrap()?;
/// assert_eq!(batch.num_rows(), 3);
/// assert!(reader.next().await.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncStreamReader<R> {
    input: R,
    decoder: Decoder,
    chunk: Box<[u8]>,
    schema: SchemaRef,
    /// The end or an error was returned: nothing more comes.
    done: bool,
}

impl<R: AsyncRead + Unpin> AsyncStreamReader<R> {
    /// Reads the schema message that opens the stream, with default options.
    ///
    /// # Errors
    /// If reading fails, or the stream does not start with a valid schema.
    pub async fn try_new(input: R) -> Result<Self> {
        Self::with_options(input, ReadOptions::default()).await
    }

    /// Reads the schema message that opens the stream, with `options` (columns selected,
    /// validation, limits), which apply to every batch.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), and if the options select a column the schema lacks.
    pub async fn with_options(mut input: R, options: ReadOptions) -> Result<Self> {
        let mut decoder = Decoder::with_options(options);
        let mut chunk = vec![0u8; CHUNK].into_boxed_slice();
        let schema = loop {
            if let Some(Decoded::Schema(schema)) = decoder.next_message()? {
                break schema;
            }
            let n = if decoder.is_ended() {
                0
            } else {
                input.read(&mut chunk).await?
            };
            if n == 0 {
                // Ended (or marked ended) without a schema: the decoder says where.
                decoder.finish()?;
                return Err(IpcError::new(
                    IpcErrorKind::Truncated,
                    "the stream ends before its schema",
                ));
            }
            decoder.push(&chunk[..n]);
        };
        Ok(Self {
            input,
            decoder,
            chunk,
            schema,
            done: false,
        })
    }

    /// The schema of the batches (the columns the options select, when they select some).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Stops for good, handing out `error`.
    fn fail(&mut self, error: IpcError) -> Poll<Option<Result<RecordBatch>>> {
        self.done = true;
        Poll::Ready(Some(Err(error)))
    }
}

impl<R: AsyncRead + Unpin> Stream for AsyncStreamReader<R> {
    type Item = Result<RecordBatch>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            // Whole messages already pushed first: the input is read only when they run out.
            match this.decoder.next_message() {
                Ok(Some(Decoded::Batch(batch, _))) => return Poll::Ready(Some(Ok(batch))),
                Ok(Some(_)) => continue,
                Ok(None) if this.decoder.is_ended() => {
                    this.done = true;
                    return Poll::Ready(None);
                }
                Ok(None) => {}
                Err(e) => return this.fail(e),
            }
            let mut buf = ReadBuf::new(&mut this.chunk);
            if let Err(e) = ready!(Pin::new(&mut this.input).poll_read(cx, &mut buf)) {
                return this.fail(e.into());
            }
            let n = buf.filled().len();
            if n == 0 {
                // The input ended: cleanly between messages, or inside one.
                return match this.decoder.finish() {
                    Ok(()) => {
                        this.done = true;
                        Poll::Ready(None)
                    }
                    Err(e) => this.fail(e),
                };
            }
            this.decoder.push(&this.chunk[..n]);
        }
    }
}

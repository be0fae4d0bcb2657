//! An IPC stream read from a `tokio::io::AsyncRead`, as a `futures::Stream` of batches:
//! the bytes go into alkaid-ipc's push [`Decoder`] as they arrive, which does all the
//! parsing and checking.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use alkaid_array::RecordBatch;
use alkaid_ipc::{Decoded, Decoder, IpcError, IpcErrorKind, ReadOptions, Result};
use alkaid_schema::SchemaRef;
use futures_core::Stream;
use tokio::io::{AsyncRead, ReadBuf};

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
    feed: Feed<R>,
    schema: SchemaRef,
    /// The end or an error was returned: nothing more comes.
    done: bool,
}

/// The input and the decoder its bytes go into.
struct Feed<R> {
    input: R,
    decoder: Decoder,
    chunk: Box<[u8]>,
}

impl<R: AsyncRead + Unpin> Feed<R> {
    /// The next message, reading more input only when the bytes pushed so far hold no
    /// whole one; `None` at the end of the stream (its marker, or the input ending cleanly
    /// between messages). An input that ends inside a message is an error saying where.
    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<Result<Option<Decoded>>> {
        loop {
            match self.decoder.next_message() {
                Ok(Some(message)) => return Poll::Ready(Ok(Some(message))),
                Ok(None) if self.decoder.is_ended() => return Poll::Ready(Ok(None)),
                Ok(None) => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
            // A large body goes straight into its own memory; other bytes through a chunk.
            let (n, direct) = match self.decoder.room() {
                Some(room) => {
                    let mut buf = ReadBuf::new(room);
                    if let Err(e) = ready!(Pin::new(&mut self.input).poll_read(cx, &mut buf)) {
                        return Poll::Ready(Err(e.into()));
                    }
                    (buf.filled().len(), true)
                }
                None => {
                    let mut buf = ReadBuf::new(&mut self.chunk);
                    if let Err(e) = ready!(Pin::new(&mut self.input).poll_read(cx, &mut buf)) {
                        return Poll::Ready(Err(e.into()));
                    }
                    (buf.filled().len(), false)
                }
            };
            if n == 0 {
                return Poll::Ready(self.decoder.finish().map(|()| None));
            }
            match direct {
                true => self.decoder.filled(n),
                false => self.decoder.push(&self.chunk[..n]),
            }
        }
    }
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
    pub async fn with_options(input: R, options: ReadOptions) -> Result<Self> {
        let mut feed = Feed {
            input,
            decoder: Decoder::with_options(options),
            chunk: vec![0u8; CHUNK].into_boxed_slice(),
        };
        // The decoder refuses anything but a schema first.
        let schema = match std::future::poll_fn(|cx| feed.poll_message(cx)).await? {
            Some(Decoded::Schema(schema)) => schema,
            _ => {
                return Err(IpcError::new(
                    IpcErrorKind::Truncated,
                    "the stream ends before its schema",
                ));
            }
        };
        Ok(Self {
            feed,
            schema,
            done: false,
        })
    }

    /// The schema of the batches (the columns the options select, when they select some).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

impl<R: AsyncRead + Unpin> Stream for AsyncStreamReader<R> {
    type Item = Result<RecordBatch>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        while !this.done {
            match ready!(this.feed.poll_message(cx)) {
                Ok(Some(Decoded::Batch(batch, _))) => return Poll::Ready(Some(Ok(batch))),
                // Dictionaries are kept by the decoder for the batches that use them.
                Ok(Some(_)) => {}
                Ok(None) => this.done = true,
                Err(e) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
            }
        }
        Poll::Ready(None)
    }
}

//! Record batches out as FlightData: alkaid-ipc's `MessageEncoder` decides the messages
//! (the schema, then per batch the dictionaries it needs, sent once and then as deltas or
//! replacements, never again per batch), and each message's body goes out as the batch's
//! own buffers.

use std::pin::Pin;

use alkaid_array::RecordBatch;
use alkaid_ipc::{Compression, MessageEncoder, WriteOptions};
use alkaid_schema::SchemaRef;
use bytes::Bytes;
use futures_core::Stream;
use futures_util::{StreamExt, stream};
use tonic::Status;

use crate::error::{FlightError, Result};
use crate::flight_data::FlightData;
use crate::proto::FlightDescriptor;

/// Encodes a schema and its batches as the FlightData messages of one Flight stream.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// use alkaid_flight::{FlightDecoder, FlightEncoder};
/// use alkaid_ipc::WriteOptions;
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
/// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
///
/// let mut encoder = FlightEncoder::new(schema, WriteOptions::default())?;
/// let mut messages = vec![encoder.schema()];
/// messages.extend(encoder.encode(&batch, "first".into())?);
///
/// let mut decoder = FlightDecoder::new();
/// let mut read = Vec::new();
/// for message in messages {
///     if let Some((batch, app_metadata)) = decoder.decode(message)? {
///         read.push((batch.num_rows(), app_metadata));
///     }
/// }
/// assert_eq!(read, [(3, "first".into())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FlightEncoder {
    encoder: MessageEncoder,
    descriptor: Option<FlightDescriptor>,
}

impl FlightEncoder {
    /// An encoder of `schema`'s batches with `options` (compression, dictionary deltas).
    ///
    /// # Errors
    /// If the schema cannot be written.
    pub fn new(schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        Ok(Self {
            encoder: MessageEncoder::new(schema, options)?,
            descriptor: None,
        })
    }

    /// Puts `descriptor` on the first message (a `DoPut` or `DoExchange` names its flight
    /// so).
    pub fn with_descriptor(mut self, descriptor: FlightDescriptor) -> Self {
        self.descriptor = Some(descriptor);
        self
    }

    /// The schema of the batches.
    pub fn schema_ref(&self) -> &SchemaRef {
        self.encoder.schema()
    }

    /// The schema message, which opens the stream.
    pub fn schema(&mut self) -> FlightData {
        let message = FlightData::from_message(self.encoder.schema_message());
        match self.descriptor.take() {
            Some(descriptor) => message.with_descriptor(descriptor),
            None => message,
        }
    }

    /// The messages of `batch`: the dictionaries it needs, then the batch with
    /// `app_metadata`.
    ///
    /// # Errors
    /// If the batch's schema differs from the encoder's, or it cannot be encoded.
    pub fn encode(&mut self, batch: &RecordBatch, app_metadata: Bytes) -> Result<Vec<FlightData>> {
        let mut messages: Vec<FlightData> = self
            .encoder
            .encode(batch, &Default::default())?
            .into_iter()
            .map(FlightData::from_message)
            .collect();
        if let Some(last) = messages.last_mut() {
            last.app_metadata = app_metadata;
        }
        Ok(messages)
    }
}

/// The FlightData of a whole stream: the schema message, then each batch's messages, each
/// batch encoded only when the stream is polled for it (a slow reader slows the encoding,
/// nothing piles up). An error from `batches` or from encoding ends the stream with it.
///
/// Inside a tokio runtime, a batch that is compressed is encoded on the runtime's blocking
/// threads, where it holds up no other task; otherwise it is encoded where the stream is polled.
pub fn encode_stream<S>(
    mut encoder: FlightEncoder,
    batches: S,
) -> Pin<Box<dyn Stream<Item = Result<FlightData>> + Send>>
where
    S: Stream<Item = Result<(RecordBatch, Bytes)>> + Send + Unpin + 'static,
{
    let schema = encoder.schema();
    let rest = stream::unfold(Some((encoder, batches)), |state| async move {
        let (encoder, mut batches) = state?;
        let (encoder, encoded) = match batches.next().await? {
            Ok((batch, app_metadata)) => encode_batch(encoder, batch, app_metadata).await,
            Err(e) => (None, Err(e)),
        };
        let messages = match encoded {
            Ok(messages) => stream::iter(messages.into_iter().map(Ok)).left_stream(),
            Err(e) => stream::iter([Err(e)]).right_stream(),
        };
        Some((messages, encoder.map(|encoder| (encoder, batches))))
    })
    .flatten();
    Box::pin(stream::iter([Ok(schema)]).chain(rest))
}

/// `batch`'s messages, and the encoder back unless encoding failed (which ends the stream).
///
/// Compressing a batch takes milliseconds of one core. On a runtime's worker that would
/// hold up every task queued behind it there, among them the HTTP/2 connection that sends
/// the messages already made (tokio runs the task a message's send wakes on the same
/// worker, after the one that woke it), so a compressing encoder runs on the runtime's
/// blocking threads instead. Without compression encoding only writes metadata, and a
/// thread hop would cost more than it frees.
async fn encode_batch(
    mut encoder: FlightEncoder,
    batch: RecordBatch,
    app_metadata: Bytes,
) -> (Option<FlightEncoder>, Result<Vec<FlightData>>) {
    let compresses = encoder.encoder.options().compression() != Compression::None;
    // Looked up only for a batch that will be compressed.
    let runtime = compresses
        .then(tokio::runtime::Handle::try_current)
        .and_then(Result::ok);
    let (encoder, encoded) = match runtime {
        None => {
            let encoded = encoder.encode(&batch, app_metadata);
            (encoder, encoded)
        }
        Some(runtime) => {
            let encoding = runtime.spawn_blocking(move || {
                let encoded = encoder.encode(&batch, app_metadata);
                (encoder, encoded)
            });
            match encoding.await {
                Ok(done) => done,
                // The encoder went with the task.
                Err(e) => return (None, Err(FlightError::Status(stopped(e)))),
            }
        }
    };
    match encoded {
        Ok(messages) => (Some(encoder), Ok(messages)),
        Err(e) => (None, Err(e)),
    }
}

/// The status of an encoding task that did not finish.
fn stopped(e: tokio::task::JoinError) -> Status {
    if e.is_cancelled() {
        Status::cancelled("encoding a batch was cancelled: the runtime is shutting down")
    } else {
        Status::internal(format!("encoding a batch failed: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use alkaid_array::{ArrayRef, Int64Array};
    use alkaid_ipc::Compression;
    use alkaid_schema::{DataType, Field, Schema};
    use futures_util::FutureExt;

    use super::*;
    use crate::decode::FlightDecoder;

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]))
    }

    /// 8 MiB of values that compress, so compressing them takes a while.
    fn batch() -> RecordBatch {
        let column: ArrayRef = Arc::new(Int64Array::from(
            (0..1 << 20).map(|i| i % 1000).collect::<Vec<i64>>(),
        ));
        RecordBatch::try_new(schema(), vec![column]).unwrap()
    }

    fn encoder(compression: Compression) -> FlightEncoder {
        FlightEncoder::new(
            schema(),
            WriteOptions::default().with_compression(compression),
        )
        .unwrap()
    }

    fn one_batch() -> impl Stream<Item = Result<(RecordBatch, Bytes)>> + Send + Unpin + 'static {
        stream::iter([Ok((batch(), Bytes::from_static(b"meta")))])
    }

    fn current_thread() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    /// Whether another task of a single-threaded runtime ran while the stream encoded its
    /// batch, which it can only do if the encoding left the runtime's one thread.
    fn others_ran_while_encoding(compression: Compression) -> bool {
        current_thread().block_on(async {
            let ran = Arc::new(AtomicBool::new(false));
            let flag = ran.clone();
            let _other = tokio::spawn(async move { flag.store(true, Ordering::SeqCst) });
            let mut messages = encode_stream(encoder(compression), one_batch());
            messages.next().await.unwrap().unwrap();
            assert!(
                !ran.load(Ordering::SeqCst),
                "the schema message is made in place"
            );
            let message = messages.next().await.unwrap().unwrap();
            assert_eq!(message.app_metadata, "meta");
            ran.load(Ordering::SeqCst)
        })
    }

    #[test]
    fn a_compressed_batch_is_encoded_off_the_runtime_thread() {
        assert!(others_ran_while_encoding(Compression::Lz4Frame));
        assert!(others_ran_while_encoding(Compression::Zstd { level: 1 }));
        assert!(!others_ran_while_encoding(Compression::None));
    }

    #[test]
    fn messages_are_the_same_inside_a_runtime_and_outside_any() {
        for compression in [
            Compression::None,
            Compression::Lz4Frame,
            Compression::Zstd { level: 1 },
        ] {
            let outside: Vec<FlightData> = encode_stream(encoder(compression), one_batch())
                .map(Result::unwrap)
                .collect::<Vec<_>>()
                .now_or_never()
                .expect("without a runtime nothing waits");
            let inside: Vec<FlightData> = current_thread().block_on(
                encode_stream(encoder(compression), one_batch())
                    .map(Result::unwrap)
                    .collect(),
            );
            assert_eq!(outside, inside, "{compression:?}");
            let mut decoder = FlightDecoder::new();
            let mut read = Vec::new();
            for message in inside {
                read.extend(decoder.decode(message).unwrap());
            }
            assert_eq!(read.len(), 1);
            let (values, expected) = (read[0].0.column(0).to_data(), batch().column(0).to_data());
            assert!(alkaid_data::equal(&values, &expected), "{compression:?}");
            assert_eq!(read[0].1, "meta");
        }
    }

    #[test]
    fn an_encoding_error_ends_the_stream_inside_a_runtime_too() {
        let other = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, false)]));
        let encoder = FlightEncoder::new(
            other,
            WriteOptions::default().with_compression(Compression::Lz4Frame),
        )
        .unwrap();
        let items: Vec<Result<FlightData>> =
            current_thread().block_on(encode_stream(encoder, one_batch()).collect());
        assert_eq!(items.len(), 2, "the schema, then the error, then nothing");
        assert!(items[0].is_ok());
        assert!(items[1].is_err());
    }

    #[test]
    fn an_encoding_task_that_did_not_finish_is_a_status() {
        current_thread().block_on(async {
            let cancelled = tokio::spawn(std::future::pending::<()>());
            cancelled.abort();
            let status = stopped(cancelled.await.unwrap_err());
            assert_eq!(status.code(), tonic::Code::Cancelled);
            assert!(status.message().contains("shutting down"));
            let panicked = tokio::spawn(async { panic!("boom") });
            let status = stopped(panicked.await.unwrap_err());
            assert_eq!(status.code(), tonic::Code::Internal);
            assert!(status.message().contains("boom"), "{}", status.message());
        });
    }
}

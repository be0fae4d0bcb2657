//! Record batches out as FlightData: alkaid-ipc's `MessageEncoder` decides the messages
//! (the schema, then per batch the dictionaries it needs, sent once and then as deltas or
//! replacements, never again per batch), and each message's body goes out as the batch's
//! own buffers.

use std::pin::Pin;

use alkaid_array::RecordBatch;
use alkaid_ipc::{MessageEncoder, WriteOptions};
use alkaid_schema::SchemaRef;
use bytes::Bytes;
use futures_core::Stream;
use futures_util::{StreamExt, stream};

use crate::error::Result;
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
pub fn encode_stream<S>(
    mut encoder: FlightEncoder,
    batches: S,
) -> Pin<Box<dyn Stream<Item = Result<FlightData>> + Send>>
where
    S: Stream<Item = Result<(RecordBatch, Bytes)>> + Send + Unpin + 'static,
{
    let schema = encoder.schema();
    let rest = stream::unfold(
        (encoder, batches, false),
        |(mut encoder, mut batches, done)| async move {
            if done {
                return None;
            }
            let encoded = match batches.next().await? {
                Ok((batch, app_metadata)) => encoder.encode(&batch, app_metadata),
                Err(e) => Err(e),
            };
            let failed = encoded.is_err();
            let messages = match encoded {
                Ok(messages) => stream::iter(messages.into_iter().map(Ok)).left_stream(),
                Err(e) => stream::iter([Err(e)]).right_stream(),
            };
            Some((messages, (encoder, batches, failed)))
        },
    )
    .flatten();
    Box::pin(stream::iter([Ok(schema)]).chain(rest))
}

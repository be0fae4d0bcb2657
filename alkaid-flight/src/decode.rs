//! FlightData in as record batches: each message's header and body go to alkaid-ipc's
//! decoder (every check of the IPC readers applies), the body's buffers used where they
//! were received.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use alkaid_array::RecordBatch;
use alkaid_ipc::{Decoded, Decoder, ReadOptions};
use alkaid_schema::SchemaRef;
use bytes::Bytes;
use futures_core::Stream;

use crate::error::{FlightError, Result};
use crate::flight_data::FlightData;

/// Decodes the FlightData messages of one stream, in order.
#[derive(Debug, Default)]
pub struct FlightDecoder {
    decoder: Decoder,
}

impl FlightDecoder {
    /// A decoder with default options (full validation).
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder with `options` (validation, limits, columns).
    pub fn with_options(options: ReadOptions) -> Self {
        Self {
            decoder: Decoder::with_options(options),
        }
    }

    /// The schema, once its message has arrived.
    pub fn schema(&self) -> Option<&SchemaRef> {
        self.decoder.schema()
    }

    /// Takes one message: a batch comes back with its app_metadata; the schema, a
    /// dictionary or a message of app_metadata alone give `None`.
    ///
    /// # Errors
    /// If the message is invalid or out of place (a batch before the schema, a second
    /// schema).
    pub fn decode(&mut self, data: FlightData) -> Result<Option<(RecordBatch, Bytes)>> {
        if data.data_header.is_empty() {
            if !data.data_body.is_empty() {
                return Err(FlightError::protocol(
                    "a FlightData message with a body but no header",
                ));
            }
            return Ok(None);
        }
        match self
            .decoder
            .decode_message(&data.data_header, data.data_body.to_buffer())?
        {
            Decoded::Batch(batch, _) => {
                if self.decoder.schema().is_none() {
                    return Err(FlightError::protocol("a record batch before the schema"));
                }
                Ok(Some((batch, data.app_metadata)))
            }
            Decoded::Schema(_) | Decoded::Dictionary { .. } => Ok(None),
        }
    }
}

/// The record batches of a Flight stream (a `DoGet` answer, a `DoPut` or `DoExchange`
/// upload), as a [`Stream`]; [`app_metadata`](Self::app_metadata) gives the metadata of
/// the batch last yielded.
pub struct FlightRecordBatchStream<S> {
    inner: S,
    decoder: FlightDecoder,
    app_metadata: Bytes,
    /// The descriptor of the stream's first message, if it carried one.
    descriptor: Option<crate::proto::FlightDescriptor>,
    first: bool,
    done: bool,
}

impl<S> FlightRecordBatchStream<S>
where
    S: Stream<Item = Result<FlightData>> + Unpin,
{
    /// Batches of the FlightData `inner` yields, decoded with `options`.
    pub fn new(inner: S, options: ReadOptions) -> Self {
        Self {
            inner,
            decoder: FlightDecoder::with_options(options),
            app_metadata: Bytes::new(),
            descriptor: None,
            first: true,
            done: false,
        }
    }

    /// The schema, once its message has arrived.
    pub fn schema(&self) -> Option<&SchemaRef> {
        self.decoder.schema()
    }

    /// The app_metadata of the batch last yielded.
    pub fn app_metadata(&self) -> &Bytes {
        &self.app_metadata
    }

    /// The descriptor the first message carried (a `DoPut` names its flight so).
    pub fn descriptor(&self) -> Option<&crate::proto::FlightDescriptor> {
        self.descriptor.as_ref()
    }

    /// Reads up to the schema message (and any app_metadata-only messages before it).
    ///
    /// # Errors
    /// If the stream ends or fails before its schema.
    pub async fn read_schema(&mut self) -> Result<SchemaRef> {
        use futures_util::StreamExt;
        while self.decoder.schema().is_none() {
            let Some(data) = self.inner.next().await else {
                return Err(FlightError::protocol("the stream ended before its schema"));
            };
            let data = data?;
            self.note_first(&data);
            if self.decoder.decode(data)?.is_some() {
                return Err(FlightError::protocol("a record batch before the schema"));
            }
        }
        Ok(self.decoder.schema().cloned().expect("checked"))
    }

    fn note_first(&mut self, data: &FlightData) {
        if std::mem::take(&mut self.first) {
            self.descriptor = data.flight_descriptor.clone();
        }
    }
}

impl<S> Stream for FlightRecordBatchStream<S>
where
    S: Stream<Item = Result<FlightData>> + Unpin,
{
    type Item = Result<RecordBatch>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        while !this.done {
            let Some(data) = ready!(Pin::new(&mut this.inner).poll_next(cx)) else {
                this.done = true;
                break;
            };
            let decoded = data.and_then(|data| {
                this.note_first(&data);
                this.decoder.decode(data)
            });
            match decoded {
                Ok(Some((batch, app_metadata))) => {
                    this.app_metadata = app_metadata;
                    return Poll::Ready(Some(Ok(batch)));
                }
                Ok(None) => {}
                Err(e) => {
                    // The decoder cannot go on after an invalid message.
                    this.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
            }
        }
        Poll::Ready(None)
    }
}

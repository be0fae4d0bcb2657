//! [`BatchStream`]: what every asynchronous reader of this crate returns, arrow-rs's
//! batches as Alkaid's, as a [`Stream`].

use std::pin::Pin;
use std::task::{Context, Poll};

use alkaid_array::RecordBatch;
use alkaid_arrow::arrow60::{batch_from_arrow, schema_from_arrow};
use alkaid_schema::SchemaRef;
use futures_util::{Stream, StreamExt};

use crate::batches::unpanicked;
use crate::error::{FormatError, Result};

/// What a reader's failure is, before it is placed.
pub(crate) type ReadError = Box<dyn std::error::Error + Send + Sync>;

type ArrowBatches =
    dyn Stream<Item = std::result::Result<arrow_array_60::RecordBatch, ReadError>> + Send;

/// The batches of a file read asynchronously (by ranges, from an object store or any
/// `RangeSource`), in order, each moved from arrow-rs without copying its buffers. Memory is
/// bounded by what one batch needs (for Parquet, one row group's selected column chunks),
/// not by the file.
pub struct BatchStream {
    place: String,
    schema: SchemaRef,
    inner: Pin<Box<ArrowBatches>>,
    next: usize,
    /// A batch failed: nothing more is read.
    ended: bool,
}

impl BatchStream {
    /// The batches `inner` reads from `place`, whose schema is `schema` (arrow-rs's).
    pub(crate) fn new(
        place: String,
        schema: &arrow_schema_60::Schema,
        inner: impl Stream<Item = std::result::Result<arrow_array_60::RecordBatch, ReadError>>
        + Send
        + 'static,
    ) -> Result<Self> {
        let schema = schema_from_arrow(schema).map_err(|e| FormatError::new(&place, e))?;
        Ok(Self {
            place,
            schema: schema.into(),
            inner: Box::pin(inner),
            next: 0,
            ended: false,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl Stream for BatchStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let batch = match unpanicked(|| self.inner.poll_next_unpin(cx)) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(None)) => return Poll::Ready(None),
            Ok(Poll::Ready(Some(batch))) => batch,
            Err(panic) => Err(panic.into()),
        };
        let index = self.next;
        self.next += 1;
        let place = format!("{}: batch {index}", self.place);
        let batch = batch
            .map_err(|e| FormatError::new(&place, e))
            .and_then(|b| batch_from_arrow(&b).map_err(|e| FormatError::new(&place, e)));
        self.ended = batch.is_err();
        Poll::Ready(Some(batch))
    }
}

impl std::fmt::Debug for BatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchStream")
            .field("place", &self.place)
            .field("schema", &self.schema)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

//! [`BatchStream`]: what every asynchronous reader of this crate returns, arrow-rs's
//! batches as Alkaid's, as a [`Stream`]; and [`answer`], the check every such reader makes
//! of what a `RangeSource` hands back.

use std::pin::Pin;
use std::task::{Context, Poll};

use alkaid_array::RecordBatch;
use alkaid_schema::SchemaRef;
use futures_util::{Stream, StreamExt};

use crate::batches::{Placing, unpanicked};
use crate::error::Result;

/// The bytes a source answered for `range`, checked to be as many as asked: a source that
/// answers short or long is an error, not a wrong read.
pub(crate) fn answer(
    range: &std::ops::Range<u64>,
    buffer: alkaid_buffer::Buffer,
) -> std::result::Result<bytes::Bytes, ReadError> {
    if buffer.len() as u64 != range.end - range.start {
        return Err(format!(
            "bytes {}..{} asked for, {} returned",
            range.start,
            range.end,
            buffer.len()
        )
        .into());
    }
    Ok(bytes::Bytes::from_owner(buffer))
}

/// What a reader's failure is, before it is placed.
pub(crate) type ReadError = Box<dyn std::error::Error + Send + Sync>;

type ArrowBatches =
    dyn Stream<Item = std::result::Result<arrow_array_60::RecordBatch, ReadError>> + Send;

/// The batches of a file read asynchronously (by ranges, from an object store or any
/// `RangeSource`), in order, each moved from arrow-rs without copying its buffers. Memory is
/// bounded by what one batch needs (for Parquet, one row group's selected column chunks),
/// not by the file.
pub struct BatchStream {
    placing: Placing,
    inner: Pin<Box<ArrowBatches>>,
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
        Ok(Self {
            placing: Placing::new(place, schema)?,
            inner: Box::pin(inner),
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.placing.schema.clone()
    }
}

impl Stream for BatchStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.placing.ended {
            return Poll::Ready(None);
        }
        let batch = match unpanicked(|| self.inner.poll_next_unpin(cx)) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(None)) => return Poll::Ready(None),
            Ok(Poll::Ready(Some(batch))) => batch,
            Err(panic) => Err(panic.into()),
        };
        Poll::Ready(Some(self.placing.take(batch)))
    }
}

impl std::fmt::Debug for BatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchStream")
            .field("placing", &self.placing)
            .finish_non_exhaustive()
    }
}

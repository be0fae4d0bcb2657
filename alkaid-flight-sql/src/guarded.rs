//! A running query's batches, ended by cancellation or by its time limit, telling the
//! service when the query is over (done, failed, or dropped with its client).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use datafusion::arrow::array::RecordBatch as ArrowBatch;
use futures_core::Stream;
use futures_util::stream::BoxStream;
use tonic::Status;

/// A query's batches under its guards.
pub struct Guarded {
    batches: BoxStream<'static, Result<ArrowBatch, Status>>,
    /// Ready once the query is cancelled.
    cancelled: Pin<Box<dyn Future<Output = ()> + Send>>,
    deadline: Option<(tokio::time::Instant, Duration)>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Called once, when the query is over.
    on_end: Option<Box<dyn FnOnce() + Send>>,
}

impl Guarded {
    /// `batches`, ended when `cancelled` is ready or `limit` has passed from now;
    /// `on_end` is called when the query is over, however it ends.
    pub fn new(
        batches: BoxStream<'static, Result<ArrowBatch, Status>>,
        cancelled: impl Future<Output = ()> + Send + 'static,
        limit: Option<Duration>,
        on_end: impl FnOnce() + Send + 'static,
    ) -> Self {
        Self {
            batches,
            cancelled: Box::pin(cancelled),
            deadline: limit.map(|limit| (tokio::time::Instant::now() + limit, limit)),
            sleep: None,
            on_end: Some(Box::new(on_end)),
        }
    }

    fn end(&mut self) {
        if let Some(on_end) = self.on_end.take() {
            // What the query held (its session, staged writes) goes now, not when the
            // response is dropped.
            self.batches = Box::pin(futures_util::stream::empty());
            on_end();
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.end();
    }
}

impl Stream for Guarded {
    type Item = Result<ArrowBatch, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.on_end.is_none() {
            return Poll::Ready(None);
        }
        if self.cancelled.as_mut().poll(cx).is_ready() {
            self.end();
            return Poll::Ready(Some(Err(Status::cancelled("the query was cancelled"))));
        }
        if let Some((at, limit)) = self.deadline {
            let sleep = self
                .sleep
                .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(at)));
            if sleep.as_mut().poll(cx).is_ready() {
                self.end();
                return Poll::Ready(Some(Err(Status::deadline_exceeded(format!(
                    "the statement ran past its time limit of {limit:?}"
                )))));
            }
        }
        match self.batches.as_mut().poll_next(cx) {
            Poll::Ready(None) => {
                self.end();
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(e))) => {
                self.end();
                Poll::Ready(Some(Err(e)))
            }
            other => other,
        }
    }
}

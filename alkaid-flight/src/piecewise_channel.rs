//! The client's transport: tonic's channel, except that a call whose request carries
//! [`Pending`] messages sends them as a [`PiecewiseBody`] in place of the body tonic
//! encoded (an empty one), so that uploads go out from the batches' own buffers.

use std::task::{Context, Poll};

use tonic::codegen::{Service, http};
use tonic::transport::Channel;

use crate::framing::{Pending, PiecewiseBody, Side};

/// A [`Channel`] that sends `DoPut` and `DoExchange` uploads of a
/// [`FlightClient`](crate::FlightClient) piece by piece; other calls pass as they are.
#[derive(Debug, Clone)]
pub struct PiecewiseChannel {
    channel: Channel,
    max_message_bytes: usize,
}

impl PiecewiseChannel {
    /// `channel`, sending messages of at most `max_message_bytes`.
    pub fn new(channel: Channel, max_message_bytes: usize) -> Self {
        Self {
            channel,
            max_message_bytes,
        }
    }
}

impl Service<http::Request<tonic::body::Body>> for PiecewiseChannel {
    type Response = <Channel as Service<http::Request<tonic::body::Body>>>::Response;
    type Error = <Channel as Service<http::Request<tonic::body::Body>>>::Error;
    type Future = <Channel as Service<http::Request<tonic::body::Body>>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.channel.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<tonic::body::Body>) -> Self::Future {
        let pending = request.extensions_mut().remove::<Pending>();
        if let Some(messages) = pending.and_then(|pending| pending.take()) {
            let body = PiecewiseBody::new(messages, Side::Client, self.max_message_bytes);
            *request.body_mut() = tonic::body::Body::new(body);
        }
        self.channel.call(request)
    }
}

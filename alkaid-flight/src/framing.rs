//! FlightData sent from the batch's own buffers. tonic's codec writes every message into
//! a buffer of its own: a copy of the whole body, into fresh memory whenever a message is
//! larger than what the last one left free. The gRPC framing is simple enough to write
//! here instead: each message goes out as its 5-byte length prefix and header in one small
//! chunk, then the body's large pieces as they are, which hyper and h2 hand to the socket
//! without a copy. Small pieces (validity bitmaps, padding) are gathered into the chunk
//! before them, so that they do not each become an HTTP/2 frame.
//!
//! The methods keep tonic's signatures: a call's messages travel to this body in a
//! [`PiecewiseBody`] extension of its request or response, whose own stream is left
//! empty, and the layer next to the transport (client) or the server's outer service
//! puts this body in place of tonic's.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::{BufMut, Bytes, BytesMut};
use futures_core::Stream;
use http_body::Frame;
use tonic::Status;

use crate::flight_data::FlightData;

/// Pieces shorter than this are copied into the chunk before them.
const GATHER_BELOW: usize = 64 << 10;

/// gRPC's message prefix: a compression flag and the length as a big-endian `u32`.
const PREFIX_BYTES: usize = 5;

/// A call's messages, boxed.
pub(crate) type Messages = Pin<Box<dyn Stream<Item = Result<FlightData, Status>> + Send>>;

/// The encoded length of `message`, or the status that refuses it for being larger than
/// `max_message_bytes` (in the words of tonic's own check, which callers may look for).
pub(crate) fn sendable_len(
    message: &FlightData,
    max_message_bytes: usize,
) -> Result<usize, Status> {
    let len = prost::Message::encoded_len(message);
    if len > max_message_bytes || u32::try_from(len).is_err() {
        return Err(Status::out_of_range(format!(
            "Error, encoded message length too large: found {len} bytes, the limit is: \
             {max_message_bytes} bytes"
        )));
    }
    Ok(len)
}

/// How many messages a server's answer is encoded ahead of the one being sent.
const ENCODED_AHEAD: usize = 2;

/// `messages`, pulled by a task of their own up to [`ENCODED_AHEAD`] messages ahead of
/// the reader, so that encoding (compression above all) overlaps sending instead of
/// waiting for HTTP/2 to take each message before the next is made. The task stops, and
/// drops `messages`, as soon as the reader is gone, even while it waits for a message.
pub(crate) fn encoded_ahead(mut messages: Messages) -> Messages {
    let (sender, receiver) = tokio::sync::mpsc::channel(ENCODED_AHEAD);
    tokio::spawn(async move {
        loop {
            let next = tokio::select! {
                next = futures_util::StreamExt::next(&mut messages) => next,
                () = sender.closed() => return,
            };
            let Some(item) = next else { return };
            let failed = item.is_err();
            if sender.send(item).await.is_err() || failed {
                return;
            }
        }
    });
    Box::pin(futures_util::stream::unfold(
        receiver,
        |mut receiver| async move {
            let item = receiver.recv().await?;
            Some((item, receiver))
        },
    ))
}

/// The messages of a call, waiting in its request's or response's extensions for the
/// layer that writes them as a [`PiecewiseBody`].
#[derive(Clone)]
pub(crate) struct Pending(Arc<Mutex<Option<Messages>>>);

impl Pending {
    pub(crate) fn new(messages: Messages) -> Self {
        Self(Arc::new(Mutex::new(Some(messages))))
    }

    /// The messages, once: the first taker has them.
    pub(crate) fn take(&self) -> Option<Messages> {
        // A poisoned lock still holds the stream, untouched by the panic that poisoned it.
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Which end of the call the body is: a server ends its body with the call's status in
/// trailers, a client ends it plainly (or with an error, which cancels the call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Client,
    Server,
}

/// An HTTP body of gRPC-framed FlightData whose bodies go out as their own pieces.
pub(crate) struct PiecewiseBody {
    messages: Messages,
    side: Side,
    max_message_bytes: usize,
    /// The chunks of the message being sent.
    chunks: VecDeque<Bytes>,
    /// Whether the trailers (server) or the end (client) went out.
    ended: bool,
}

impl PiecewiseBody {
    pub(crate) fn new(messages: Messages, side: Side, max_message_bytes: usize) -> Self {
        Self {
            messages,
            side,
            max_message_bytes,
            chunks: VecDeque::new(),
            ended: false,
        }
    }

    /// The chunks of `message`, or why it cannot be sent.
    fn frame(&mut self, message: &FlightData) -> Result<(), Status> {
        let len = sendable_len(message, self.max_message_bytes)?;
        let mut chunk = BytesMut::with_capacity(PREFIX_BYTES + len - message.data_body.len());
        chunk.put_u8(0);
        chunk.put_u32(len as u32);
        message.encode_before_body(&mut chunk);
        for piece in message.data_body.pieces() {
            if piece.len() < GATHER_BELOW {
                chunk.put_slice(piece);
            } else {
                if !chunk.is_empty() {
                    self.chunks.push_back(chunk.split().freeze());
                }
                self.chunks.push_back(piece.clone());
            }
        }
        if !chunk.is_empty() {
            self.chunks.push_back(chunk.freeze());
        }
        Ok(())
    }

    /// The frame that ends the body: the status in trailers on a server, an error (which
    /// cancels the call) on a client.
    fn end(&mut self, status: Status) -> Option<Result<Frame<Bytes>, Status>> {
        self.ended = true;
        match self.side {
            Side::Server => {
                let mut trailers = tonic::codegen::http::HeaderMap::new();
                Some(
                    status
                        .add_header(&mut trailers)
                        .map(|()| Frame::trailers(trailers)),
                )
            }
            Side::Client if status.code() == tonic::Code::Ok => None,
            Side::Client => Some(Err(status)),
        }
    }
}

impl http_body::Body for PiecewiseBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        if let Some(chunk) = self.chunks.pop_front() {
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        if self.ended {
            return Poll::Ready(None);
        }
        let next = match self.messages.as_mut().poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(next) => next,
        };
        let framed = match next {
            Some(Ok(message)) => self.frame(&message),
            Some(Err(status)) => Err(status),
            None => return Poll::Ready(self.end(Status::ok(""))),
        };
        match framed {
            // A message has at least its prefix: there is a chunk.
            Ok(()) => Poll::Ready(self.chunks.pop_front().map(|chunk| Ok(Frame::data(chunk)))),
            Err(status) => Poll::Ready(self.end(status)),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended && self.chunks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use futures_util::stream;
    use http_body_util::BodyExt;
    use prost::Message;

    use super::*;
    use crate::flight_data::DataBody;

    fn message(pieces: Vec<Bytes>) -> FlightData {
        FlightData {
            flight_descriptor: None,
            data_header: Bytes::from_static(b"a header"),
            app_metadata: Bytes::from_static(b"meta"),
            data_body: DataBody::from_pieces(pieces),
        }
    }

    async fn collect(body: PiecewiseBody) -> (Vec<Bytes>, Option<tonic::codegen::http::HeaderMap>) {
        let mut body = std::pin::pin!(body);
        let mut chunks = Vec::new();
        let mut trailers = None;
        while let Some(frame) = body.frame().await {
            let frame = frame.unwrap();
            match frame.into_data() {
                Ok(data) => chunks.push(data),
                Err(frame) => trailers = frame.into_trailers().ok(),
            }
        }
        (chunks, trailers)
    }

    fn run<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn the_frames_are_tonics_and_large_pieces_go_out_as_they_are() {
        let large = Bytes::from(vec![7u8; GATHER_BELOW]);
        let messages = vec![
            message(vec![
                Bytes::from_static(b"small"),
                large.clone(),
                Bytes::from_static(b"tail"),
            ]),
            message(vec![]),
            message(vec![large.clone(), large.clone()]),
        ];
        let expected: Vec<u8> = messages
            .iter()
            .flat_map(|m| {
                let mut framed = vec![0];
                framed.extend((m.encoded_len() as u32).to_be_bytes());
                framed.extend(m.encode_to_vec());
                framed
            })
            .collect();
        let body = PiecewiseBody::new(
            Box::pin(stream::iter(messages.into_iter().map(Ok))),
            Side::Server,
            1 << 20,
        );
        let (chunks, trailers) = run(collect(body));
        assert_eq!(chunks.concat(), expected);
        // The large pieces are the batch's memory itself.
        let shared = chunks
            .iter()
            .filter(|chunk| chunk.as_ptr() == large.as_ptr())
            .count();
        assert_eq!(shared, 3);
        let trailers = trailers.expect("a server ends with trailers");
        assert_eq!(trailers["grpc-status"], "0");
    }

    #[test]
    fn an_error_ends_a_server_body_with_its_status_and_cancels_a_client_one() {
        let failing = || -> Messages {
            Box::pin(stream::iter([
                Ok(message(vec![Bytes::from_static(b"x")])),
                Err(Status::not_found("no such flight")),
                Ok(message(vec![])),
            ]))
        };
        let (chunks, trailers) = run(collect(PiecewiseBody::new(
            failing(),
            Side::Server,
            1 << 20,
        )));
        assert_eq!(chunks.len(), 1);
        let status = Status::from_header_map(&trailers.unwrap()).unwrap();
        assert_eq!(status.code(), tonic::Code::NotFound);
        assert_eq!(status.message(), "no such flight");

        let mut client = std::pin::pin!(PiecewiseBody::new(failing(), Side::Client, 1 << 20));
        run(async {
            assert!(client.frame().await.unwrap().is_ok());
            let err = client.frame().await.unwrap().unwrap_err();
            assert_eq!(err.code(), tonic::Code::NotFound);
            assert!(client.frame().await.is_none());
        });
    }

    #[test]
    fn a_message_past_the_limit_is_refused_and_nothing_of_it_is_sent() {
        let messages: Messages = Box::pin(stream::iter([
            Ok(message(vec![Bytes::from(vec![1u8; 100])])),
            Ok(message(vec![Bytes::from(vec![1u8; 1000])])),
        ]));
        let (chunks, trailers) = run(collect(PiecewiseBody::new(messages, Side::Server, 500)));
        // The first message whole, nothing of the second.
        let first = message(vec![Bytes::from(vec![1u8; 100])]).encoded_len();
        assert_eq!(chunks.concat().len(), PREFIX_BYTES + first);
        let status = Status::from_header_map(&trailers.unwrap()).unwrap();
        assert_eq!(status.code(), tonic::Code::OutOfRange);
        assert!(status.message().contains("the limit is: 500 bytes"));
    }

    #[test]
    fn messages_encoded_ahead_arrive_in_order_bounded_and_stop_with_their_reader() {
        use futures_util::StreamExt;
        use std::sync::atomic::{AtomicUsize, Ordering};

        run(async {
            // In order, and nothing after an error.
            let items = (0..5).map(|i| match i {
                3 => Err(Status::internal("broke")),
                _ => Ok(message(vec![Bytes::from(vec![i as u8; 10])])),
            });
            let read: Vec<_> = encoded_ahead(Box::pin(stream::iter(items))).collect().await;
            assert_eq!(read.len(), 4);
            for (i, item) in read[..3].iter().enumerate() {
                assert_eq!(item.as_ref().unwrap().data_body.pieces()[0][0], i as u8);
            }
            assert_eq!(read[3].as_ref().unwrap_err().message(), "broke");

            // A reader that takes nothing holds back the encoding.
            let pulled = Arc::new(AtomicUsize::new(0));
            let counter = pulled.clone();
            let endless = stream::repeat_with(move || {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(message(vec![]))
            });
            let unread = encoded_ahead(Box::pin(endless));
            for _ in 0..100 {
                tokio::task::yield_now().await;
            }
            // The channel's messages and the one waiting to go in.
            assert!(pulled.load(Ordering::SeqCst) <= ENCODED_AHEAD + 1);
            assert!(pulled.load(Ordering::SeqCst) >= ENCODED_AHEAD);

            // A source that never yields is dropped once its reader is.
            let (dropped, is_dropped) = tokio::sync::oneshot::channel::<()>();
            let never = stream::pending::<Result<FlightData, Status>>().map(move |item| {
                let _held = &dropped;
                item
            });
            drop(encoded_ahead(Box::pin(never)));
            drop(unread);
            let gone = tokio::time::timeout(std::time::Duration::from_secs(10), is_dropped).await;
            assert!(matches!(gone, Ok(Err(_))), "the source outlived its reader");
        });
    }

    #[test]
    fn pending_messages_are_taken_once() {
        let pending = Pending::new(Box::pin(stream::empty()));
        let copy = pending.clone();
        assert!(pending.take().is_some());
        assert!(copy.take().is_none());
    }
}

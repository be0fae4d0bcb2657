//! Serving a [`FlightService`] on a TCP listener: TLS (with client certificates, if asked),
//! a bearer-token check before any method runs and the basic-auth handshake that hands the
//! token out (`auth.rs`), message size limits, a shutdown signal, and FlightData answers
//! sent from the batches' own buffers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use tokio::net::TcpListener;
use tonic::Status;
use tonic::codegen::{Service, http};
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

use crate::auth::{Auth, User};
use crate::client::{DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_WINDOW_BYTES, window_in_range};
use crate::error::{FlightError, Result};
use crate::framing::{Pending, PiecewiseBody, Side};
use crate::piecewise_service::Piecewise;
use crate::proto::flight_service_server::{FlightService, FlightServiceServer};

/// How a Flight server accepts calls.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    tls: Option<(Vec<u8>, Vec<u8>)>,
    client_ca: Option<Vec<u8>>,
    token: Option<String>,
    basic: Option<(String, String)>,
    users: Vec<(String, String, String)>,
    max_message_bytes: usize,
    window_bytes: u32,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            tls: None,
            client_ca: None,
            token: None,
            basic: None,
            users: Vec::new(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            window_bytes: DEFAULT_WINDOW_BYTES,
        }
    }
}

impl ServerOptions {
    /// Serves over TLS with the certificate chain `cert_pem` and its key `key_pem`.
    pub fn with_tls(mut self, cert_pem: impl Into<Vec<u8>>, key_pem: impl Into<Vec<u8>>) -> Self {
        self.tls = Some((cert_pem.into(), key_pem.into()));
        self
    }

    /// Mutual TLS: with [`with_tls`](Self::with_tls), refuses a client that does not
    /// present a certificate signed by the CA `ca_pem`.
    pub fn with_client_ca(mut self, ca_pem: impl Into<Vec<u8>>) -> Self {
        self.client_ca = Some(ca_pem.into());
        self
    }

    /// Answers every call that lacks `authorization: Bearer <token>` with
    /// `Unauthenticated`, before the method runs.
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Hands the token of [`with_token`](Self::with_token) out by handshake: a `Handshake`
    /// call whose `authorization` header is `Basic` with `user` and `password` is answered
    /// with the header `authorization: Bearer <token>` (pyarrow's
    /// `authenticate_basic_token`, and [`FlightClient::authenticate_basic`]); wrong ones
    /// with `Unauthenticated`. A handshake without basic credentials goes to the service.
    ///
    /// [`FlightClient::authenticate_basic`]: crate::FlightClient::authenticate_basic
    pub fn with_basic_auth(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.basic = Some((user.into(), password.into()));
        self
    }

    /// A user of the basic-auth handshake with a token of their own: a handshake with
    /// `user` and `password` is answered with `authorization: Bearer <token>`, and calls
    /// with `token` are admitted (beside [`with_token`](Self::with_token)'s, and other
    /// users'). For several users, call it once per user.
    pub fn with_user(
        mut self,
        user: impl Into<String>,
        password: impl Into<String>,
        token: impl Into<String>,
    ) -> Self {
        self.users
            .push((user.into(), password.into(), token.into()));
        self
    }

    /// The largest message sent or received, in bytes (256 MiB by default).
    pub fn with_max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// The HTTP/2 flow-control window, per call and per connection: how much a client may
    /// upload ahead of what the service has read ([`DEFAULT_WINDOW_BYTES`] by default;
    /// held between 65,535 bytes and 2 GiB - 1).
    pub fn with_window_bytes(mut self, bytes: u32) -> Self {
        self.window_bytes = window_in_range(bytes);
        self
    }
}

/// Whether a call's request body was cut off by the client (an HTTP/2 reset) rather than
/// ended: tonic ends a request stream the same way in both cases, so a handler that must
/// not take a cancelled upload for a whole one (the directory service's `DoPut`) asks
/// this, found in the request's extensions when the service runs under [`serve`].
#[derive(Debug, Clone, Default)]
pub struct RequestBodyWatch(Arc<AtomicBool>);

impl RequestBodyWatch {
    /// Whether the body ended with an error (a reset, a broken connection).
    pub fn was_cut(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// A request body that records in its watch when it ends with an error.
struct WatchedBody {
    inner: tonic::body::Body,
    watch: RequestBodyWatch,
}

impl http_body::Body for WatchedBody {
    type Data = bytes::Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let frame = ready!(Pin::new(&mut self.inner).poll_frame(cx));
        if let Some(Err(_)) = &frame {
            self.watch.0.store(true, Ordering::Release);
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// A service whose calls are checked by [`Auth`] first, whose requests carry a
/// [`RequestBodyWatch`] and a watched body, and whose responses with [`Pending`] messages
/// send them as a [`PiecewiseBody`] of at most `max_message_bytes` a message.
#[derive(Debug, Clone)]
struct Watched<S> {
    inner: S,
    auth: Arc<Auth>,
    max_message_bytes: usize,
}

impl<S> tonic::server::NamedService for Watched<S>
where
    S: tonic::server::NamedService,
{
    const NAME: &'static str = S::NAME;
}

impl<S, B> Service<http::Request<tonic::body::Body>> for Watched<S>
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<B>>,
    S::Future: Send + 'static,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<tonic::codegen::StdError>,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        if !self.auth.admits(request.uri().path(), request.headers()) {
            let refused = Status::unauthenticated(
                "this server needs the header `authorization: Bearer <token>` with its token",
            );
            return Box::pin(async move { Ok(refused.into_http()) });
        }
        let watch = RequestBodyWatch::default();
        let (mut parts, body) = request.into_parts();
        parts.extensions.insert(watch.clone());
        let body = tonic::body::Body::new(WatchedBody { inner: body, watch });
        let response = self.inner.call(http::Request::from_parts(parts, body));
        let max_message_bytes = self.max_message_bytes;
        Box::pin(async move {
            let mut response = response.await?;
            let pending = response.extensions_mut().remove::<Pending>();
            Ok(match pending.and_then(|pending| pending.take()) {
                Some(messages) => response.map(|_empty| {
                    let body = PiecewiseBody::new(messages, Side::Server, max_message_bytes);
                    tonic::body::Body::new(body)
                }),
                None => response.map(tonic::body::Body::new),
            })
        })
    }
}

/// Serves `service` on `listener` with `options` until `shutdown` completes (calls under
/// way are let finish). Every request carries a [`RequestBodyWatch`].
///
/// # Errors
/// If the TLS configuration is invalid or the server fails.
pub async fn serve<S: FlightService>(
    service: S,
    listener: TcpListener,
    options: ServerOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    if options.basic.is_some() && options.token.is_none() {
        return Err(FlightError::protocol(
            "basic authentication hands out the server's token: set one (with_token)",
        ));
    }
    let mut auth = Auth::default();
    if let Some(token) = options.token {
        if let Some((name, password)) = options.basic {
            let token = token.clone();
            auth.users.push(User {
                name,
                password,
                token,
            });
        }
        auth.tokens.push(token);
    }
    for (name, password, token) in options.users {
        auth.tokens.push(token.clone());
        auth.users.push(User {
            name,
            password,
            token,
        });
    }
    let auth = Arc::new(auth);
    let flight = FlightServiceServer::new(Piecewise {
        service,
        auth: Arc::clone(&auth),
    })
    .max_decoding_message_size(options.max_message_bytes)
    .max_encoding_message_size(options.max_message_bytes);
    let service = Watched {
        inner: flight,
        auth,
        max_message_bytes: options.max_message_bytes,
    };
    let mut server = Server::builder()
        .tcp_nodelay(true)
        .initial_stream_window_size(Some(options.window_bytes))
        .initial_connection_window_size(Some(options.window_bytes))
        .max_frame_size(crate::client::MAX_FRAME_BYTES);
    if let Some((cert, key)) = &options.tls {
        crate::tls_provider::choose();
        let mut tls = ServerTlsConfig::new().identity(Identity::from_pem(cert, key));
        if let Some(ca) = &options.client_ca {
            tls = tls.client_ca_root(Certificate::from_pem(ca));
        }
        server = server.tls_config(tls)?;
    }
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    server
        .add_service(service)
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use futures_util::stream;
    use http_body_util::BodyExt;

    use super::*;
    use crate::flight_data::{DataBody, FlightData};

    /// Answers every call with an empty body, and with `body` pending as messages.
    struct Answer {
        body: Option<Bytes>,
    }

    impl Service<http::Request<tonic::body::Body>> for Answer {
        type Response = http::Response<tonic::body::Body>;
        type Error = std::convert::Infallible;
        type Future = std::future::Ready<Result<Self::Response, Self::Error>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: http::Request<tonic::body::Body>) -> Self::Future {
            let mut response = http::Response::new(tonic::body::Body::empty());
            if let Some(body) = &self.body {
                let message = FlightData {
                    data_header: Bytes::from_static(b"header"),
                    data_body: DataBody::from(body.clone()),
                    ..FlightData::default()
                };
                let messages = Box::pin(stream::iter([Ok(message)]));
                response.extensions_mut().insert(Pending::new(messages));
            }
            std::future::ready(Ok(response))
        }
    }

    #[test]
    fn pending_messages_replace_the_body_and_other_answers_pass_as_they_are() {
        let body = Bytes::from(vec![5u8; 1 << 20]);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for pending in [Some(body.clone()), None] {
            let mut service = Watched {
                auth: Arc::default(),
                inner: Answer {
                    body: pending.clone(),
                },
                max_message_bytes: 2 << 20,
            };
            let request = http::Request::new(tonic::body::Body::empty());
            let response = runtime.block_on(service.call(request)).unwrap();
            assert!(response.extensions().get::<Pending>().is_none());
            let collected = runtime.block_on(response.into_body().collect()).unwrap();
            let trailers = collected.trailers().cloned();
            let chunks = collected.to_bytes();
            match pending {
                Some(body) => {
                    // The prefix and header, then the body's own bytes.
                    assert_eq!(&chunks[chunks.len() - body.len()..], &body[..]);
                    let status = Status::from_header_map(&trailers.unwrap()).unwrap();
                    assert_eq!(status.code(), tonic::Code::Ok);
                }
                None => assert!(chunks.is_empty() && trailers.is_none()),
            }
        }
    }
}

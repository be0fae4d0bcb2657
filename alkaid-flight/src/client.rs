//! The Flight client: every method of the service, with batches in and out as Alkaid
//! record batches.

use std::future::Future;
use std::pin::Pin;
use std::sync::RwLock;
use std::task::{Context, Poll};
use std::time::Duration;

use alkaid_array::RecordBatch;
use alkaid_ipc::{ReadOptions, WriteOptions};
use alkaid_schema::SchemaRef;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use futures_core::Stream;
use futures_util::{StreamExt, TryStreamExt, stream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{mpsc, oneshot};
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use tonic::{Request, Status};

use crate::decode::FlightRecordBatchStream;
use crate::encode::{FlightEncoder, encode_stream};
use crate::error::{FlightError, Result};
use crate::flight_data::FlightData;
use crate::framing::{Messages, Pending, sendable_len};
use crate::piecewise_channel::PiecewiseChannel;
use crate::proto::flight_service_client::FlightServiceClient;
use crate::proto::{
    Action, ActionType, Criteria, Empty, FlightDescriptor, FlightInfo, HandshakeRequest, PollInfo,
    PutResult, Ticket,
};
use crate::schema::schema_from_ipc;

/// The largest message either side takes by default: 256 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 256 << 20;

/// The HTTP/2 flow-control window either side of alkaid-flight opens by default, for each
/// call and for each connection: 16 MiB, what a peer may send ahead of the reader.
///
/// A fixed window rather than hyper's adaptive one: that one estimates the bandwidth only
/// of what a connection receives, and samples less and less often (up to 25 s apart) while
/// little arrives. A connection that served `DoGet`s for a while then takes a `DoPut` at
/// the 64 KiB window it started with, for seconds (measured: 190-240 ms instead of
/// 60-80 per upload of 257 MB, for about 6 s after 8 s of `DoGet`s). 16 MiB is the
/// adaptive window's own ceiling, so the memory a peer can make the receiver hold is what
/// it was.
pub const DEFAULT_WINDOW_BYTES: u32 = 16 << 20;

/// HTTP/2's smallest and largest initial windows; a window of 0 would stall every call.
pub(crate) fn window_in_range(bytes: u32) -> u32 {
    bytes.clamp(65_535, (1 << 31) - 1)
}

/// The largest HTTP/2 frame either side of alkaid-flight accepts: a peer may send a
/// message's bytes in frames of up to this size (HTTP/2's default is 16 KiB).
pub(crate) const MAX_FRAME_BYTES: u32 = 1 << 20;

/// How a [`FlightClient`] connects and what it sends.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    tls_ca: Option<Vec<u8>>,
    tls_domain: Option<String>,
    identity: Option<(Vec<u8>, Vec<u8>)>,
    token: Option<String>,
    max_message_bytes: usize,
    window_bytes: u32,
    connect_timeout: Duration,
    read: ReadOptions,
    write: WriteOptions,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            tls_ca: None,
            tls_domain: None,
            identity: None,
            token: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            window_bytes: DEFAULT_WINDOW_BYTES,
            connect_timeout: Duration::from_secs(20),
            read: ReadOptions::default(),
            write: WriteOptions::default(),
        }
    }
}

impl ClientOptions {
    /// Trusts the certificate authority `ca_pem` (PEM) for `grpc+tls://` servers, whose
    /// certificate must name `domain` (by default, the URI's host).
    pub fn with_tls(mut self, ca_pem: impl Into<Vec<u8>>, domain: Option<String>) -> Self {
        self.tls_ca = Some(ca_pem.into());
        self.tls_domain = domain;
        self
    }

    /// Mutual TLS: presents the certificate chain `cert_pem` and its key `key_pem` to a
    /// `grpc+tls://` server that asks for a client certificate.
    pub fn with_identity(
        mut self,
        cert_pem: impl Into<Vec<u8>>,
        key_pem: impl Into<Vec<u8>>,
    ) -> Self {
        self.identity = Some((cert_pem.into(), key_pem.into()));
        self
    }

    /// Sends `token` as `authorization: Bearer <token>` with every call.
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The largest message sent or received, in bytes (256 MiB by default); a larger one
    /// fails its call with `ResourceExhausted` or `OutOfRange`.
    pub fn with_max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// The HTTP/2 flow-control window, per call and per connection: how much the server
    /// may send ahead of what this client has read ([`DEFAULT_WINDOW_BYTES`] by default;
    /// held between 65,535 bytes and 2 GiB - 1).
    pub fn with_window_bytes(mut self, bytes: u32) -> Self {
        self.window_bytes = window_in_range(bytes);
        self
    }

    /// How long connecting may take (20 s by default).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How received batches are read (validation, columns, limits).
    pub fn with_read_options(mut self, options: ReadOptions) -> Self {
        self.read = options;
        self
    }

    /// How sent batches are written (compression, dictionary deltas).
    pub fn with_write_options(mut self, options: WriteOptions) -> Self {
        self.write = options;
        self
    }
}

/// Adds the bearer token to every call that carries no `authorization` of its own. The
/// token is shared by the clones of a client, so that one obtained by
/// [`FlightClient::authenticate_basic`] serves them all.
#[derive(Debug, Clone, Default)]
pub struct Credentials(Arc<RwLock<Option<MetadataValue<Ascii>>>>);

impl Credentials {
    fn set(&self, token: MetadataValue<Ascii>) {
        *self
            .0
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(token);
    }
}

impl Interceptor for Credentials {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let token = self
            .0
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(token) = token.as_ref()
            && !request.metadata().contains_key("authorization")
        {
            request
                .metadata_mut()
                .insert("authorization", token.clone());
        }
        Ok(request)
    }
}

/// The generated client, with the credentials interceptor, over a channel that sends
/// this crate's uploads piece by piece.
pub type RawClient = FlightServiceClient<InterceptedService<PiecewiseChannel, Credentials>>;

/// A Flight client.
///
/// URIs are Flight's: `grpc://host:port` (or `grpc+tcp://`) in the clear, `grpc+tls://`
/// over TLS; `http://` and `https://` are taken too.
#[derive(Debug, Clone)]
pub struct FlightClient {
    inner: RawClient,
    credentials: Credentials,
    read: ReadOptions,
    write: WriteOptions,
    max_message_bytes: usize,
}

/// The `http(s)://` form of a Flight URI, and whether it is TLS.
fn http_uri(uri: &str) -> Result<(String, bool)> {
    let (scheme, rest) = uri
        .split_once("://")
        .ok_or_else(|| FlightError::protocol(format!("{uri}: not a URI (grpc://host:port)")))?;
    let tls = match scheme {
        "grpc" | "grpc+tcp" | "http" => false,
        "grpc+tls" | "https" => true,
        other => {
            return Err(FlightError::protocol(format!(
                "{uri}: the scheme {other} is not one of grpc, grpc+tcp, grpc+tls, http, https"
            )));
        }
    };
    let scheme = if tls { "https" } else { "http" };
    Ok((format!("{scheme}://{rest}"), tls))
}

impl FlightClient {
    /// Connects to `uri` with default options.
    ///
    /// # Errors
    /// If the URI is invalid or the server cannot be reached.
    pub fn connect(uri: &str) -> impl Future<Output = Result<Self>> + Send + use<> {
        Self::connect_with(uri, ClientOptions::default())
    }

    /// Connects to `uri` with `options`.
    ///
    /// # Errors
    /// If the URI or the options are invalid, or the server cannot be reached.
    pub fn connect_with(
        uri: &str,
        options: ClientOptions,
    ) -> impl Future<Output = Result<Self>> + Send + use<> {
        // Parsed before the future starts, so that it holds no borrow of `uri`.
        let parsed = http_uri(uri);
        async move { Self::connect_parsed(parsed?, options).await }
    }

    async fn connect_parsed((http, tls): (String, bool), options: ClientOptions) -> Result<Self> {
        let mut endpoint = Endpoint::from_shared(http)?
            .connect_timeout(options.connect_timeout)
            .tcp_nodelay(true)
            // hyper's default windows (2 MiB a stream) stall a large transfer on every
            // round trip; see DEFAULT_WINDOW_BYTES for why not the adaptive window.
            .initial_stream_window_size(options.window_bytes)
            .initial_connection_window_size(options.window_bytes)
            .max_frame_size(MAX_FRAME_BYTES);
        if tls {
            let mut config = ClientTlsConfig::new();
            config = match &options.tls_ca {
                Some(ca) => config.ca_certificate(Certificate::from_pem(ca)),
                None => config.with_webpki_roots(),
            };
            if let Some(domain) = &options.tls_domain {
                config = config.domain_name(domain.clone());
            }
            if let Some((cert, key)) = &options.identity {
                config = config.identity(Identity::from_pem(cert, key));
            }
            endpoint = endpoint.tls_config(config)?;
        }
        let channel = endpoint.connect().await?;
        Self::from_channel(channel, options)
    }

    /// A client over a connected `channel`.
    ///
    /// # Errors
    /// If the token is not a valid header value.
    pub fn from_channel(channel: Channel, options: ClientOptions) -> Result<Self> {
        let token = options
            .token
            .as_ref()
            .map(|token| format!("Bearer {token}").parse::<MetadataValue<Ascii>>())
            .transpose()
            .map_err(|_| FlightError::protocol("the token is not a valid header value"))?;
        let credentials = Credentials::default();
        if let Some(token) = token {
            credentials.set(token);
        }
        let channel = PiecewiseChannel::new(channel, options.max_message_bytes);
        let inner = FlightServiceClient::with_interceptor(channel, credentials.clone())
            .max_decoding_message_size(options.max_message_bytes)
            .max_encoding_message_size(options.max_message_bytes);
        Ok(Self {
            inner,
            credentials,
            read: options.read,
            write: options.write,
            max_message_bytes: options.max_message_bytes,
        })
    }

    /// The generated client, for calls this one does not wrap (sending FlightData made by
    /// hand, say).
    pub fn raw(&mut self) -> &mut RawClient {
        &mut self.inner
    }

    /// One handshake message each way: `payload` out, the server's payload back.
    ///
    /// # Errors
    /// If the call fails or the server answers nothing.
    pub async fn handshake(&mut self, payload: Bytes) -> Result<Bytes> {
        let request = stream::iter([HandshakeRequest {
            protocol_version: 0,
            payload,
        }]);
        let mut answers = self.inner.handshake(request).await?.into_inner();
        let answer = answers
            .message()
            .await?
            .ok_or_else(|| FlightError::protocol("the handshake got no answer"))?;
        Ok(answer.payload)
    }

    /// Obtains the server's bearer token by a handshake with HTTP basic credentials (what
    /// Arrow's clients call `authenticate_basic_token`), and sends it with every later call
    /// of this client and its clones. Returns the token.
    ///
    /// # Errors
    /// If the server refuses the credentials or answers no bearer token.
    pub async fn authenticate_basic(&mut self, user: &str, password: &str) -> Result<String> {
        let encoded = STANDARD.encode(format!("{user}:{password}"));
        let basic = format!("Basic {encoded}")
            .parse::<MetadataValue<Ascii>>()
            .map_err(|_| FlightError::protocol("the credentials are not a valid header value"))?;
        let mut request = Request::new(stream::iter(Vec::<HandshakeRequest>::new()));
        request.metadata_mut().insert("authorization", basic);
        let response = self.inner.handshake(request).await?;
        let bearer = response
            .metadata()
            .get("authorization")
            .filter(|value| value.to_str().is_ok_and(|v| v.starts_with("Bearer ")))
            .cloned()
            .ok_or_else(|| FlightError::protocol("the handshake answered no bearer token"))?;
        let mut answers = response.into_inner();
        while answers.message().await?.is_some() {}
        let token = bearer.to_str().unwrap_or_default()["Bearer ".len()..].to_string();
        self.credentials.set(bearer);
        Ok(token)
    }

    /// The flights matching `expression` (empty: all of them).
    ///
    /// # Errors
    /// If the call fails.
    pub async fn list_flights(&mut self, expression: Bytes) -> Result<Vec<FlightInfo>> {
        let answers = self.inner.list_flights(Criteria { expression }).await?;
        Ok(answers.into_inner().try_collect().await?)
    }

    /// The description of the flight `descriptor` names.
    ///
    /// # Errors
    /// If the call fails.
    pub async fn get_flight_info(&mut self, descriptor: FlightDescriptor) -> Result<FlightInfo> {
        Ok(self.inner.get_flight_info(descriptor).await?.into_inner())
    }

    /// The state of a flight being prepared.
    ///
    /// # Errors
    /// If the call fails.
    pub async fn poll_flight_info(&mut self, descriptor: FlightDescriptor) -> Result<PollInfo> {
        Ok(self.inner.poll_flight_info(descriptor).await?.into_inner())
    }

    /// The schema of the flight `descriptor` names.
    ///
    /// # Errors
    /// If the call fails or the schema is invalid.
    pub async fn get_schema(&mut self, descriptor: FlightDescriptor) -> Result<SchemaRef> {
        let answer = self.inner.get_schema(descriptor).await?.into_inner();
        schema_from_ipc(&answer.schema)
    }

    /// The batches of `ticket`'s stream, as they arrive.
    ///
    /// # Errors
    /// If the call fails; the stream's items fail as the stream does.
    pub fn do_get<'a>(
        &'a mut self,
        ticket: &[u8],
    ) -> impl Future<Output = Result<BatchStream>> + Send + use<'a> {
        // Copied before the call starts, so that the future holds no borrow of it.
        let ticket = Ticket {
            ticket: Bytes::copy_from_slice(ticket),
        };
        async move {
            let answers = self.inner.do_get(ticket).await?.into_inner();
            let data: DataStream = Box::pin(answers.map_err(FlightError::from));
            Ok(FlightRecordBatchStream::new(data, self.read.clone()))
        }
    }

    /// Sends `batches` (each with its app_metadata) as the flight `descriptor`, and
    /// returns the server's answers once it has taken them all. A batch that fails on this
    /// side cancels the call, so that the server never takes a stream cut short for a
    /// whole one, and its error comes back.
    ///
    /// # Errors
    /// If the call fails, a batch fails, or the server refuses the stream.
    pub async fn do_put<S>(
        &mut self,
        descriptor: FlightDescriptor,
        schema: SchemaRef,
        batches: S,
    ) -> Result<Vec<PutResult>>
    where
        S: Stream<Item = Result<(RecordBatch, Bytes)>> + Send + Unpin + 'static,
    {
        let encoder = FlightEncoder::new(schema, self.write.clone())?.with_descriptor(descriptor);
        let (outgoing, failed) =
            Outgoing::new(encode_stream(encoder, batches), self.max_message_bytes);
        let call = async {
            let answers = self
                .inner
                .do_put(outgoing.into_request())
                .await?
                .into_inner();
            answers.try_collect::<Vec<PutResult>>().await
        };
        // A failure on this side drops the call, which cancels it on the server.
        tokio::select! {
            answer = call => Ok(answer?),
            Ok(e) = failed => Err(e),
        }
    }

    /// Sends `batches` as the flight `descriptor` and reads what the server sends back at
    /// the same time.
    ///
    /// # Errors
    /// If the call fails; the stream's items fail as the stream does (a batch that fails
    /// on this side cancels the call).
    pub async fn do_exchange<S>(
        &mut self,
        descriptor: FlightDescriptor,
        schema: SchemaRef,
        batches: S,
    ) -> Result<BatchStream>
    where
        S: Stream<Item = Result<(RecordBatch, Bytes)>> + Send + Unpin + 'static,
    {
        let encoder = FlightEncoder::new(schema, self.write.clone())?.with_descriptor(descriptor);
        let (outgoing, failed) =
            Outgoing::new(encode_stream(encoder, batches), self.max_message_bytes);
        let answers = self
            .inner
            .do_exchange(outgoing.into_request())
            .await?
            .into_inner();
        // The server's messages, or this side's failure as soon as it happens (dropping
        // the stream then cancels the call).
        let failure = stream::once(failed).filter_map(|e| async move { e.ok().map(Err) });
        let data = stream::select(answers.map_err(FlightError::from), failure);
        let data: DataStream = Box::pin(data);
        Ok(FlightRecordBatchStream::new(data, self.read.clone()))
    }

    /// Runs the action `action_type` with `body`; its results' bodies.
    ///
    /// # Errors
    /// If the call fails.
    pub fn do_action<'a>(
        &'a mut self,
        action_type: &str,
        body: Bytes,
    ) -> impl Future<Output = Result<Vec<Bytes>>> + Send + use<'a> {
        let action = Action {
            r#type: action_type.to_string(),
            body,
        };
        async move {
            let answers = self.inner.do_action(action).await?.into_inner();
            Ok(answers.map_ok(|result| result.body).try_collect().await?)
        }
    }

    /// The actions the server knows.
    ///
    /// # Errors
    /// If the call fails.
    pub async fn list_actions(&mut self) -> Result<Vec<ActionType>> {
        let answers = self.inner.list_actions(Empty {}).await?.into_inner();
        Ok(answers.try_collect().await?)
    }
}

/// FlightData as a boxed stream.
pub type DataStream = Pin<Box<dyn Stream<Item = Result<FlightData>> + Send>>;

/// The batches a call returns.
pub type BatchStream = FlightRecordBatchStream<DataStream>;

/// The messages of an upload: encoded by a task of their own (so that encoding and
/// sending overlap), two messages ahead at most. On an error (a message larger than the
/// limit among them), the error goes to the caller and the stream never ends, so that the
/// caller cancels the call rather than finishing it.
struct Outgoing {
    messages: mpsc::Receiver<FlightData>,
    /// Set by the encoding task before it stops on an error.
    failed: Arc<AtomicBool>,
}

impl Outgoing {
    fn new(
        mut encoded: Pin<Box<dyn Stream<Item = Result<FlightData>> + Send>>,
        max_message_bytes: usize,
    ) -> (Self, oneshot::Receiver<FlightError>) {
        let (sender, messages) = mpsc::channel(2);
        let (report, failure) = oneshot::channel();
        let failed = Arc::new(AtomicBool::new(false));
        let flag = failed.clone();
        tokio::spawn(async move {
            while let Some(item) = encoded.next().await {
                let item = item.and_then(|data| {
                    sendable_len(&data, max_message_bytes)?;
                    Ok(data)
                });
                match item {
                    Ok(data) => {
                        // The call is over: nobody wants more.
                        if sender.send(data).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        flag.store(true, Ordering::Release);
                        // The caller may have stopped listening; then nobody needs it.
                        let _ = report.send(e);
                        return;
                    }
                }
            }
        });
        (Self { messages, failed }, failure)
    }

    /// The request of a call that uploads these messages: tonic gets an empty stream, and
    /// the [`PiecewiseChannel`] sends the messages from their own buffers.
    fn into_request(self) -> Request<stream::Empty<FlightData>> {
        let mut request = Request::new(stream::empty());
        let messages: Messages = Box::pin(self.map(Ok));
        request.extensions_mut().insert(Pending::new(messages));
        request
    }
}

impl Stream for Outgoing {
    type Item = FlightData;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<FlightData>> {
        match self.messages.poll_recv(cx) {
            // The encoding stopped on an error: never end, the caller cancels the call.
            Poll::Ready(None) if self.failed.load(Ordering::Acquire) => Poll::Pending,
            other => other,
        }
    }
}

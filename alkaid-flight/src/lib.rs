//! Arrow Flight for Alkaid: record batches between services over gRPC, with any Flight
//! peer (pyarrow, Arrow C++ and Java servers, DuckDB and Dremio, arrow-rs).
//!
//! | item | what it does |
//! | --- | --- |
//! | [`FlightClient`] | every Flight method; batches in and out as Alkaid record batches |
//! | [`FlightService`](proto::flight_service_server::FlightService) | the service trait: implement only the methods you offer, the others answer `Unimplemented` |
//! | [`serve`], [`ServerOptions`] | serves a service: TLS, a bearer token, message size limits |
//! | [`DirectoryService`] | a ready service for the IPC files of a directory, read-only unless uploads are allowed |
//! | [`WriteBudget`] | the bytes a server may write: per upload and in all |
//! | [`FlightEncoder`], [`FlightDecoder`], [`FlightData`] | batches to FlightData and back, for services written by hand |
//! | [`proto`] | the protocol's messages and service, generated from `format/Flight.proto` |
//!
//! A batch goes out as alkaid-ipc's messages: the schema once, each dictionary once and
//! then as a delta or a replacement (never again with every batch), and the body's
//! buffers handed to HTTP/2 as they are, not copied into a message buffer (uploads of
//! [`FlightClient`], answers of services run by [`serve`]). A received body is used where
//! it arrived: its buffers are copied only where they are compressed or misaligned for
//! their type.
//!
//! ```
//! use std::sync::Arc;
//! use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
//! use alkaid_flight::{
//!     DirectoryService, FlightClient, FlightDescriptor, ServerOptions, WriteBudget, serve,
//! };
//! use alkaid_schema::{DataType, Field, Schema};
//! use futures_util::{TryStreamExt, stream};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(async {
//! let dir = std::env::temp_dir().join(format!("alkaid-flight-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let address = listener.local_addr()?;
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! // Read-only unless uploads are allowed, each within a budget of bytes.
//! let service = DirectoryService::new(&dir).with_uploads(Some(WriteBudget::new(1 << 20, 1 << 30)));
//! let server = tokio::spawn(serve(service, listener, ServerOptions::default(), async {
//!     let _ = stopped.await;
//! }));
//!
//! let mut client = FlightClient::connect(&format!("grpc://{address}")).await?;
//! let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
//! let column: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
//! let upload = stream::iter([Ok((batch, Default::default()))]);
//! client.do_put(FlightDescriptor::path(["numbers.arrow"]), schema, upload).await?;
//!
//! let batches: Vec<RecordBatch> = client.do_get(b"numbers.arrow").await?.try_collect().await?;
//! assert_eq!(batches[0].num_rows(), 3);
//!
//! let _ = stop.send(());
//! server.await??;
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//! - `tls-aws-lc` (default) or `tls-ring`: the cryptography under TLS (rustls' provider).
//!   One of the two is needed; with `default-features = false`, name one. With both, ring
//!   is used, unless the process installed a rustls provider of its own first.
//! - `lz4`, `zstd` (default): the codecs of compressed bodies, alkaid-ipc's features of the
//!   same names. Without one, a batch compressed with it is an error naming the feature.

#[cfg(not(any(feature = "tls-aws-lc", feature = "tls-ring")))]
compile_error!("alkaid-flight needs a TLS provider: enable its `tls-aws-lc` or `tls-ring` feature");

mod auth;
mod budget;
mod client;
mod codec;
mod decode;
mod directory;
mod encode;
mod error;
mod flight_data;
mod framing;
mod piecewise_channel;
mod piecewise_service;
mod schema;
mod server;
mod shared_maps;
mod tls_provider;
mod upload;

pub mod proto;

pub use budget::{BudgetExceeded, Counted, FILE_BLOCK, WriteAccount, WriteBudget};
pub use client::{
    BatchStream, ClientOptions, Credentials, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_WINDOW_BYTES,
    DataStream, FlightClient, RawClient,
};
pub use codec::FlightCodec;
pub use decode::{FlightDecoder, FlightRecordBatchStream};
pub use directory::{
    DEFAULT_MESSAGE_BYTES, DEFAULT_UPLOAD_BYTES, DEFAULT_WRITTEN_BYTES, DirectoryService,
    upload_read_options,
};
pub use encode::{FlightEncoder, encode_stream};
pub use error::{FlightError, Result};
pub use flight_data::{BODY_ALIGNMENT, DataBody, FlightData};
pub use piecewise_channel::PiecewiseChannel;
pub use proto::{
    Action, ActionType, FlightDescriptor, FlightEndpoint, FlightInfo, PollInfo, PutResult, Ticket,
};
pub use schema::{schema_from_ipc, schema_to_ipc};
pub use server::{RequestBodyWatch, ServerOptions, serve};
pub use upload::{Received, receive_file};

impl FlightDescriptor {
    /// A descriptor naming a flight by `path`.
    pub fn path<S: Into<String>>(path: impl IntoIterator<Item = S>) -> Self {
        Self {
            r#type: proto::flight_descriptor::DescriptorType::Path as i32,
            cmd: bytes::Bytes::new(),
            path: path.into_iter().map(Into::into).collect(),
        }
    }

    /// A descriptor asking for a flight by `command`, which the service interprets.
    pub fn command(command: impl Into<bytes::Bytes>) -> Self {
        Self {
            r#type: proto::flight_descriptor::DescriptorType::Cmd as i32,
            cmd: command.into(),
            path: Vec::new(),
        }
    }
}

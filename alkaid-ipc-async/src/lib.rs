//! IPC streams and files over tokio's async I/O: a stream reader that yields a
//! `futures::Stream` of batches from any `AsyncRead`, and stream and file writers to any
//! `AsyncWrite`.
//!
//! | item | what it does |
//! | --- | --- |
//! | [`AsyncStreamReader`] | batches of a stream as they arrive (a socket, a pipe), with every [`ReadOptions`](alkaid_ipc::ReadOptions) |
//! | [`AsyncStreamWriter`], [`AsyncFileWriter`] | batches out, each message whole before the next, paced by the output |
//!
//! A thin layer: reading goes through alkaid-ipc's push [`Decoder`](alkaid_ipc::Decoder),
//! writing through its [`StreamWriter`](alkaid_ipc::StreamWriter) and
//! [`FileWriter`](alkaid_ipc::FileWriter) into memory, so every check, limit and option
//! of the synchronous readers and writers holds here too. A crate of its own so that users
//! who need no async never compile tokio.
//!
//! ```
//! use std::sync::Arc;
//! use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
//! use alkaid_ipc::WriteOptions;
//! use alkaid_ipc_async::{AsyncStreamReader, AsyncStreamWriter};
//! use alkaid_schema::{DataType, Field, Schema};
//! use futures_util::StreamExt;
//!
//! # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//! let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
//! let batch = RecordBatch::try_new(
//!     schema.clone(),
//!     vec![Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef],
//! )?;
//! // Both ends of an in-memory pipe of 1 KiB.
//! let (client, server) = tokio::io::duplex(1024);
//! let send = async move {
//!     let mut writer = AsyncStreamWriter::try_new(client, schema, WriteOptions::default()).await?;
//!     writer.write(&batch).await?;
//!     writer.finish().await
//! };
//! let receive = async move {
//!     let reader = AsyncStreamReader::try_new(server).await?;
//!     let batches: Vec<_> = reader.collect().await;
//!     Ok::<_, alkaid_ipc::IpcError>(batches.len())
//! };
//! let (sent, received) = tokio::join!(send, receive);
//! sent?;
//! assert_eq!(received?, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//! - `object_store`: files read by range from object stores (S3, GCS, Azure, HTTP).
//! - `lz4`, `zstd` (default): the codecs of compressed bodies, alkaid-ipc's features of the
//!   same names. Without one, a batch compressed with it is an error naming the feature.

mod file_reader;
#[cfg(feature = "object_store")]
mod object_store;
mod reader;
mod source;
mod writer;

pub use file_reader::AsyncFileReader;
#[cfg(feature = "object_store")]
pub use object_store::ObjectStoreSource;
pub use reader::AsyncStreamReader;
pub use source::{Blocking, RangeSource};
pub use writer::{AsyncFileWriter, AsyncStreamWriter};

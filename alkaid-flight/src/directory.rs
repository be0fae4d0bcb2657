//! A ready-made Flight service: the IPC files of one directory, each a flight named by its
//! file name. `ListFlights` lists them with their schemas and row counts, `DoGet` streams
//! a file's batches (read from a memory map that the `DoGet`s of one file share,
//! `shared_maps.rs`, on a thread of their own, a couple of batches ahead of the network at
//! most), and `DoPut`, when the operator allows uploads, writes a new file atomically
//! (`upload.rs`): a failed or cancelled upload leaves nothing behind.
//!
//! Only the directory's own files are served: a name is a plain file name, and what it
//! opens (symlinks resolved) must lie inside the directory, so a symlink that leads out
//! of it is refused rather than followed.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_ipc::{FileReader, ReadOptions, Seekable, WriteOptions};
use alkaid_schema::SchemaRef;
use bytes::Bytes;
use futures_util::{TryStreamExt, stream};
use tokio::sync::mpsc;
use tonic::codegen::BoxStream;
use tonic::{Request, Response, Status, Streaming};

use crate::budget::WriteBudget;
use crate::decode::FlightRecordBatchStream;
use crate::encode::{FlightEncoder, encode_stream};
use crate::error::{FlightError, Result};
use crate::flight_data::FlightData;
use crate::proto::flight_descriptor::DescriptorType;
use crate::proto::flight_service_server::FlightService;
use crate::proto::{
    Criteria, FlightDescriptor, FlightEndpoint, FlightInfo, PutResult, SchemaResult, Ticket,
};
use crate::schema::schema_to_ipc;
use crate::server::RequestBodyWatch;
use crate::shared_maps::{ServedBatches, SharedMaps};
use crate::upload::receive_file;

/// Batches read ahead of the network, at most, per `DoGet`.
const READ_AHEAD: usize = 2;

/// The IPC files of a directory as flights.
///
/// Memory per `DoGet`: at most 2 batches read ahead of the network and 2
/// messages encoded ahead of HTTP/2, plus what HTTP/2 holds unsent within the client's
/// window. Uncompressed, those batches are slices of the file's memory map, which every
/// stream reading the file shares (the page cache's pages, charged once), so a stream
/// costs their metadata and frame headers, not their bytes; with compression each message
/// in flight also holds its compressed buffers. None of it grows with the file's size.
/// The maps of the 4 files served last stay for 10 seconds after their last `DoGet`, so
/// that a file fetched again is not mapped afresh.
///
/// Validation: each batch of a file is validated in full the first time it is served from
/// the file's map; later `DoGet`s of the same map (the file unchanged: same inode, length
/// and modification time) read it with the structural checks only.
///
/// Uploads are off unless [`with_uploads`](Self::with_uploads) turns them on: a `DoPut`
/// is refused with `PermissionDenied`. Allowed, each upload is a new file (never one that
/// exists), its bytes charged to a [`WriteBudget`] (by default
/// [`DEFAULT_UPLOAD_BYTES`] per upload and [`DEFAULT_WRITTEN_BYTES`] in all), and each
/// message of it may decompress to [`DEFAULT_MESSAGE_BYTES`] at most.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use alkaid_flight::{DirectoryService, ServerOptions, serve};
///
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8815").await?;
/// let service = DirectoryService::new("data/");
/// serve(service, listener, ServerOptions::default(), std::future::pending()).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct DirectoryService {
    dir: PathBuf,
    write: WriteOptions,
    read: ReadOptions,
    /// How uploads are read: `read` with the bound on each message's decompressed size.
    upload_read: ReadOptions,
    /// What uploads may write; `None` when they are refused.
    uploads: Option<WriteBudget>,
    /// The maps of the files being read, shared by their `DoGet`s.
    maps: Arc<SharedMaps>,
}

/// The bytes one upload may write by default (1 GiB).
pub const DEFAULT_UPLOAD_BYTES: u64 = 1 << 30;
/// The bytes all uploads together may write by default, since the server started (16 GiB).
pub const DEFAULT_WRITTEN_BYTES: u64 = 16 << 30;
/// The bytes each message a server receives may decompress to, by default (1 GiB): the
/// servers' [`ReadOptions::with_max_decompressed_bytes`].
pub const DEFAULT_MESSAGE_BYTES: usize = 1 << 30;

/// How a server reads what clients send: `options`, with a bound on each message's
/// decompressed size (`options`' own, else [`DEFAULT_MESSAGE_BYTES`]).
///
/// ```
/// use alkaid_flight::{DEFAULT_MESSAGE_BYTES, upload_read_options};
/// use alkaid_ipc::ReadOptions;
///
/// let bounded = upload_read_options(ReadOptions::default());
/// assert_eq!(bounded.max_decompressed_bytes(), Some(DEFAULT_MESSAGE_BYTES));
/// let own = ReadOptions::default().with_max_decompressed_bytes(Some(1 << 20));
/// assert_eq!(upload_read_options(own).max_decompressed_bytes(), Some(1 << 20));
/// ```
pub fn upload_read_options(options: ReadOptions) -> ReadOptions {
    let bound = options
        .max_decompressed_bytes()
        .unwrap_or(DEFAULT_MESSAGE_BYTES);
    options.with_max_decompressed_bytes(Some(bound))
}

impl DirectoryService {
    /// Serves the files of `dir`, read-only.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        let read = ReadOptions::default();
        Self {
            dir: dir.into(),
            write: WriteOptions::default(),
            upload_read: upload_read_options(read.clone()),
            read,
            uploads: None,
            maps: Arc::default(),
        }
    }

    /// Allows uploads (`DoPut`), each a new file of the directory, within `budget`; `None`
    /// refuses them again.
    ///
    /// ```
    /// use alkaid_flight::{DEFAULT_UPLOAD_BYTES, DEFAULT_WRITTEN_BYTES, DirectoryService, WriteBudget};
    ///
    /// let budget = WriteBudget::new(DEFAULT_UPLOAD_BYTES, DEFAULT_WRITTEN_BYTES);
    /// let service = DirectoryService::new("data/").with_uploads(Some(budget));
    /// # drop(service);
    /// ```
    pub fn with_uploads(mut self, budget: Option<WriteBudget>) -> Self {
        self.uploads = budget;
        self
    }

    /// How uploads are written to disk and downloads encoded (compression).
    pub fn with_write_options(mut self, options: WriteOptions) -> Self {
        self.write = options;
        self
    }

    /// How files and uploads are read (validation, limits). Uploads keep a bound on each
    /// message's decompressed size: `options`' own, or [`DEFAULT_MESSAGE_BYTES`] when it
    /// sets none.
    pub fn with_read_options(mut self, options: ReadOptions) -> Self {
        self.upload_read = upload_read_options(options.clone());
        self.read = options;
        self
    }

    /// The file of flight `name`: a plain file name, never a path out of the directory.
    fn path(&self, name: &str) -> Result<PathBuf, Status> {
        let plain = !name.is_empty()
            && name.len() <= 255
            && !name.starts_with('.')
            && !name.contains(['/', '\\', '\0']);
        match plain {
            true => Ok(self.dir.join(name)),
            false => Err(Status::invalid_argument(format!(
                "{name:?} is not a flight name here: a file name, not starting with a dot"
            ))),
        }
    }

    /// The file of flight `name` to read: [`path`](Self::path), which must lead (symlinks
    /// resolved) to a file inside the directory.
    fn readable(&self, name: &str) -> Result<PathBuf, Status> {
        let path = self.path(name)?;
        let inside = match (
            std::fs::canonicalize(&path),
            std::fs::canonicalize(&self.dir),
        ) {
            (Ok(file), Ok(dir)) => file.starts_with(&dir),
            // A file that does not exist is answered as such when it is opened.
            (Err(e), _) if e.kind() == std::io::ErrorKind::NotFound => true,
            (Err(e), _) | (_, Err(e)) => return Err(not_found_or(e.into(), "the flight")),
        };
        match inside {
            true => Ok(path),
            false => Err(Status::permission_denied(format!(
                "flight {name:?} leads outside the served directory"
            ))),
        }
    }

    /// The name a descriptor gives: a path of one element.
    fn name_of(descriptor: &FlightDescriptor) -> Result<&str, Status> {
        match (
            DescriptorType::try_from(descriptor.r#type),
            descriptor.path.as_slice(),
        ) {
            (Ok(DescriptorType::Path), [name]) => Ok(name),
            _ => Err(Status::invalid_argument(
                "this service names flights by a path of one element, the file name",
            )),
        }
    }

    /// The FlightInfo of flight `name`, read on a blocking thread.
    async fn describe(&self, name: &str) -> Result<FlightInfo, Status> {
        let path = self.readable(name)?;
        let (name, read, write) = (name.to_string(), self.read.clone(), self.write.clone());
        tokio::task::spawn_blocking(move || describe(&path, &name, read, &write))
            .await
            .map_err(|e| Status::internal(format!("describing a file: {e}")))?
            .map_err(|e| not_found_or(e, "the flight"))
    }
}

/// `e`, as a status that says `what` was not found when it was not.
fn not_found_or(e: FlightError, what: &str) -> Status {
    match &e {
        FlightError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
            Status::not_found(format!("{what} does not exist"))
        }
        _ => e.into(),
    }
}

fn describe(
    path: &Path,
    name: &str,
    read: ReadOptions,
    write: &WriteOptions,
) -> Result<FlightInfo> {
    let file = File::open(path)?;
    let total_bytes = file.metadata()?.len();
    let mut reader = FileReader::open(Seekable(file), read)?;
    // Row counts come from the file's metadata: their sum is checked, not trusted.
    let mut rows = 0i64;
    for i in 0..reader.num_batches() {
        rows = i64::try_from(reader.batch_rows(i)?)
            .ok()
            .and_then(|batch| rows.checked_add(batch))
            .ok_or_else(|| {
                FlightError::protocol(format!(
                    "{name}: the rows of batches 0 to {i} are more than a 64-bit count holds"
                ))
            })?;
    }
    let descriptor = FlightDescriptor {
        r#type: DescriptorType::Path as i32,
        cmd: Bytes::new(),
        path: vec![name.to_string()],
    };
    Ok(FlightInfo {
        schema: schema_to_ipc(reader.schema(), write)?,
        flight_descriptor: Some(descriptor),
        endpoint: vec![FlightEndpoint {
            ticket: Some(Ticket {
                ticket: Bytes::from(name.as_bytes().to_vec()),
            }),
            location: Vec::new(),
            expiration_time: None,
            app_metadata: Bytes::new(),
        }],
        total_records: rows,
        total_bytes: total_bytes as i64,
        ordered: true,
        app_metadata: Bytes::new(),
    })
}

/// A batch read for a `DoGet`, with its (empty) app_metadata, or the error that ends it.
type Outgoing = Result<(RecordBatch, Bytes)>;

/// The batches of the file at `path`, read from its shared map on a thread of their own
/// and handed over through a channel of [`READ_AHEAD`] places: a slow client slows the
/// reading. Each batch is sent only once the map is known whole after reading it (a file
/// truncated meanwhile ends the stream with an error). A batch is validated in full the
/// first time it is read from its map, and only structurally after that (`shared_maps.rs`).
fn read_file(
    maps: &SharedMaps,
    path: PathBuf,
    options: ReadOptions,
) -> Result<(SchemaRef, mpsc::Receiver<Outgoing>)> {
    let (mut batches, schema) = ServedBatches::open(maps.open(&path)?, options)?;
    let (sender, receiver) = mpsc::channel(READ_AHEAD);
    std::thread::Builder::new()
        .name("alkaid-flight-read".into())
        .spawn(move || {
            for index in 0..batches.len() {
                let item = batches.read(index).map(|b| (b, Bytes::new()));
                let failed = item.is_err();
                // The client went away: stop reading.
                if sender.blocking_send(item).is_err() || failed {
                    return;
                }
            }
        })?;
    Ok((schema, receiver))
}

#[tonic::async_trait]
impl FlightService for DirectoryService {
    async fn list_flights(
        &self,
        _request: Request<Criteria>,
    ) -> Result<Response<BoxStream<FlightInfo>>, Status> {
        let mut names = Vec::new();
        let mut entries = tokio::fs::read_dir(&self.dir).await?;
        while let Some(entry) = entries.next_entry().await? {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().await?.is_file() && self.path(&name).is_ok() {
                names.push(name);
            }
        }
        names.sort();
        let mut infos = Vec::with_capacity(names.len());
        for name in names {
            // Files that are not IPC files are not flights.
            if let Ok(info) = self.describe(&name).await {
                infos.push(Ok(info));
            }
        }
        Ok(Response::new(Box::pin(stream::iter(infos))))
    }

    async fn get_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let name = Self::name_of(request.get_ref())?;
        Ok(Response::new(self.describe(name).await?))
    }

    async fn get_schema(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<SchemaResult>, Status> {
        let name = Self::name_of(request.get_ref())?;
        let info = self.describe(name).await?;
        Ok(Response::new(SchemaResult {
            schema: info.schema,
        }))
    }

    async fn do_get(
        &self,
        request: Request<Ticket>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        let name = std::str::from_utf8(&request.get_ref().ticket)
            .map_err(|_| Status::invalid_argument("a ticket of this service is a file name"))?
            .to_string();
        let path = self.readable(&name)?;
        let (read, maps) = (self.read.clone(), self.maps.clone());
        let (schema, batches) = tokio::task::spawn_blocking(move || read_file(&maps, path, read))
            .await
            .map_err(|e| Status::internal(format!("opening a file: {e}")))?
            .map_err(|e| not_found_or(e, &format!("flight {name:?}")))?;
        let encoder = FlightEncoder::new(schema, self.write.clone()).map_err(Status::from)?;
        let batches = tokio_stream_of(batches);
        let messages = encode_stream(encoder, batches).map_err(Status::from);
        Ok(Response::new(Box::pin(messages)))
    }

    async fn do_put(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<PutResult>>, Status> {
        let Some(budget) = &self.uploads else {
            return Err(Status::permission_denied(
                "this server is read-only: its operator has not allowed uploads",
            ));
        };
        // Under `serve`, a request cut off by the client is told apart from a whole one.
        let watch = request.extensions().get::<RequestBodyWatch>().cloned();
        let data = request.into_inner().map_err(FlightError::from);
        let mut upload = FlightRecordBatchStream::new(data, self.upload_read.clone());
        upload.read_schema().await?;
        let descriptor = upload.descriptor().cloned().ok_or_else(|| {
            Status::invalid_argument("the first message of an upload names its flight")
        })?;
        let path = self.path(Self::name_of(&descriptor)?)?;
        if tokio::fs::symlink_metadata(&path).await.is_ok() {
            return Err(Status::already_exists(format!(
                "flight {:?} exists; uploads never replace a file",
                descriptor.path
            )));
        }
        let write = self.write.clone();
        let received = receive_file(&mut upload, watch.as_ref(), path, write, budget).await?;
        let results = received
            .app_metadata
            .into_iter()
            .map(|app_metadata| Ok(PutResult { app_metadata }));
        Ok(Response::new(Box::pin(stream::iter(results))))
    }
}

/// `receiver` as a stream.
fn tokio_stream_of<T: Send + 'static>(
    receiver: mpsc::Receiver<T>,
) -> impl futures_core::Stream<Item = T> + Send + Unpin {
    Box::pin(stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|item| (item, receiver))
    }))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::{ArrayRef, NullArray};
    use alkaid_ipc::FileWriter;
    use alkaid_schema::{DataType, Field, Schema};

    use super::*;

    #[test]
    fn row_counts_that_overflow_are_an_error() {
        // A Null column has no buffers, so a batch may claim 2^62 rows in a few bytes.
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Null, true)]));
        let column: ArrayRef = Arc::new(NullArray::new(1 << 62));
        let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
        let dir = std::env::temp_dir().join(format!("alkaid-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |batches: usize| {
            let path = dir.join(format!("{batches}.alkaid"));
            let file = File::create(&path).unwrap();
            let options = WriteOptions::default();
            let mut writer = FileWriter::try_new(file, schema.clone(), options).unwrap();
            for _ in 0..batches {
                writer.write(&batch).unwrap();
            }
            writer.finish().unwrap();
            path
        };
        let (read, write_options) = (ReadOptions::default(), WriteOptions::default());
        let one = describe(&write(1), "one", read.clone(), &write_options).unwrap();
        assert_eq!(one.total_records, 1 << 62);
        let err = describe(&write(2), "two", read, &write_options).unwrap_err();
        assert!(
            err.to_string()
                .contains("two: the rows of batches 0 to 1 are more than a 64-bit count"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

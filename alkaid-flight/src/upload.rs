//! An upload received into a file atomically: the batches of a `DoPut` are written to a
//! hidden temporary file beside the named one, which takes the name only once the whole
//! upload is written and synced, and never replaces a file. A failed, cut or cancelled
//! upload leaves nothing behind, and the temporary file is gone before the client hears
//! of the failure. The file's bytes are charged to the server's [`WriteBudget`] as they are
//! written, and given back when the upload fails. The directory service's `DoPut` and
//! Flight SQL's bulk ingestion both receive through [`receive_file`].

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use alkaid_array::RecordBatch;
use alkaid_ipc::{FileDictionaries, FileOutput, FileWriter, WriteOptions};
use alkaid_schema::SchemaRef;
use bytes::Bytes;
use futures_core::Stream;
use futures_util::TryStreamExt;
use tokio::sync::mpsc;

use crate::budget::{BudgetExceeded, Counted, WriteBudget};
use crate::decode::FlightRecordBatchStream;
use crate::error::{FlightError, Result};
use crate::flight_data::FlightData;
use crate::server::RequestBodyWatch;

/// Batches received ahead of the disk, at most.
const WRITE_AHEAD: usize = 2;

/// What [`receive_file`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    /// The rows written.
    pub rows: u64,
    /// Each batch's app_metadata, in order (a `DoPut` answers each batch with it).
    pub app_metadata: Vec<Bytes>,
}

/// Writes the rest of `upload` (its schema read already, or read here) to a new IPC file
/// at `path`, atomically, with `options`, its bytes charged to `budget` (one write).
/// `watch` (from the request's extensions under [`serve`](crate::serve)) tells an upload
/// cut off by its client from a whole one.
///
/// # Errors
/// If the upload is malformed, cut off or cancelled, a file has the name already, the
/// file would pass the budget, or writing fails; in each case no file is left at `path`
/// or beside it, and the budget has its bytes back.
pub async fn receive_file<S>(
    upload: &mut FlightRecordBatchStream<S>,
    watch: Option<&RequestBodyWatch>,
    path: PathBuf,
    options: WriteOptions,
    budget: &WriteBudget,
) -> Result<Received>
where
    S: Stream<Item = Result<FlightData>> + Send + Unpin,
{
    let schema = upload.read_schema().await?;
    let (sender, receiver) = mpsc::channel(WRITE_AHEAD);
    let budget = budget.clone();
    let writing =
        tokio::task::spawn_blocking(move || write_file(path, schema, options, &budget, receiver));
    let mut received = Received::default();
    let arrived = async {
        while let Some(batch) = upload.try_next().await? {
            received.app_metadata.push(upload.app_metadata().clone());
            received.rows += batch.num_rows() as u64;
            if sender.send(Some(batch)).await.is_err() {
                // The writing stopped; its error is reported below.
                return Ok(());
            }
        }
        if watch.is_some_and(RequestBodyWatch::was_cut) {
            return Err(FlightError::protocol(
                "the upload was cancelled by its client",
            ));
        }
        // The whole upload arrived: the file may take its name.
        let _ = sender.send(None).await;
        Ok::<(), FlightError>(())
    }
    .await;
    // Dropping the sender without the end (here, or with this future when the client
    // goes away) makes the writing remove its file.
    drop(sender);
    // The writing is awaited even when the upload failed, so that its temporary file is
    // gone before the client hears of the failure.
    let written = writing.await;
    arrived?;
    written.map_err(|e| FlightError::protocol(format!("writing the upload: {e}")))??;
    Ok(received)
}

/// A temporary upload file, removed unless it was committed under its name.
struct Upload {
    temporary: PathBuf,
    committed: bool,
}

impl Drop for Upload {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// Distinguishes temporary files of uploads started at the same instant.
static UPLOADS: AtomicU64 = AtomicU64::new(0);

/// What the writing thread of an upload receives: `None` says the upload is whole.
type Arrival = Option<RecordBatch>;

/// Writes the batches that arrive on `batches` into a temporary file beside `path`, then,
/// once the end is announced and all are written and synced, gives it `path`'s name
/// (unless a file has it already). A channel that closes before the end (the client went
/// away, the stream was bad) leaves nothing, and gives `budget` its bytes back.
fn write_file(
    path: PathBuf,
    schema: SchemaRef,
    options: WriteOptions,
    budget: &WriteBudget,
    batches: mpsc::Receiver<Arrival>,
) -> Result<()> {
    let account = budget.account();
    let written = write_counted(path, schema, options, &account, batches);
    written.map_err(|e| {
        account.refund();
        match BudgetExceeded::find(&e) {
            Some(exceeded) => FlightError::Status(tonic::Status::resource_exhausted(format!(
                "the upload: {exceeded}"
            ))),
            None => e,
        }
    })
}

/// [`write_file`]'s work, each byte charged to `account`.
fn write_counted(
    path: PathBuf,
    schema: SchemaRef,
    options: WriteOptions,
    account: &crate::budget::WriteAccount,
    mut batches: mpsc::Receiver<Arrival>,
) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(
        ".{name}.upload-{}-{}",
        std::process::id(),
        UPLOADS.fetch_add(1, Ordering::Relaxed)
    ));
    let mut upload = Upload {
        temporary,
        committed: false,
    };
    let file = File::create_new(&upload.temporary)?;
    // A client's stream may replace its dictionaries; the file takes each batch, unified
    // onto the dictionary it holds.
    let options = options.with_file_dictionaries(FileDictionaries::Unify);
    // Received bodies sit at the start of memory of their own: at some file positions the
    // copy into the page cache would stall, which `FileOutput` steps around.
    let counted = Counted::new(file, account)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::StorageFull, e))?;
    let out = BufWriter::new(FileOutput::new(counted));
    // A large compressed body is written while it is compressed (a seek back for its
    // header).
    let mut writer = FileWriter::try_new(out, schema, options)?.write_while_compressing();
    loop {
        match batches.blocking_recv() {
            Some(Some(batch)) => writer.write(&batch)?,
            Some(None) => break,
            None => return Err(FlightError::protocol("the upload was cut short")),
        }
    }
    let file = writer
        .into_inner()?
        .into_inner()
        .map_err(|e| FlightError::Io(e.into_error()))?
        .into_inner()
        .into_inner();
    file.sync_all()?;
    // A link fails where the name is taken: the upload never replaces a file.
    std::fs::hard_link(&upload.temporary, &path)?;
    upload.committed = true;
    std::fs::remove_file(&upload.temporary)?;
    Ok(())
}

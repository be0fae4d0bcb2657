//! Bulk ingestion (`CommandStatementIngest`): the uploaded batches become a new IPC file
//! of a directory table, received atomically by alkaid-flight's [`receive_file`] (nothing
//! half-written is ever visible; what was acknowledged is synced to disk).
//!
//! A new table is a directory made under a hidden name and renamed into place once its
//! first file is whole; appending adds a file to a directory table of IPC files (a table
//! that is one file, or of another format, is refused rather than rewritten, and so is a
//! directory that leads out of the served one through a symlink); replacing (only where
//! the operator allowed it) writes the new table aside, then swaps it in by two renames,
//! so a query sees the old rows or the new ones (or, between the renames, no table),
//! never a mix. The file's bytes are charged to the server's write budget.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use alkaid_flight::{
    FlightData, FlightError, FlightRecordBatchStream, RequestBodyWatch, WriteBudget, receive_file,
};
use alkaid_ipc::WriteOptions;
use futures_core::Stream;
use tonic::Status;

use crate::proto::CommandStatementIngest;
use crate::proto::command_statement_ingest::table_definition_options::{
    TableExistsOption, TableNotExistOption,
};
use crate::tables::{CATALOG, DirectoryTables, SCHEMA};

/// Distinguishes the files and directories of ingestions started at the same instant.
static INGESTS: AtomicU64 = AtomicU64::new(0);

/// A name no other ingestion of this process, or of another, takes.
fn unique(prefix: &str) -> String {
    let n = INGESTS.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{prefix}-{nanos}-{}-{n}", std::process::id())
}

/// What to do with the table, decided before the upload is read.
enum Plan {
    /// Create it: write into `staging`, then rename that to `target`.
    Create { staging: PathBuf, target: PathBuf },
    /// Add a file to the directory `target`.
    Append { target: PathBuf },
    /// Write the new table into `staging`, then swap it with `old`.
    Replace {
        staging: PathBuf,
        old: PathBuf,
        old_is_dir: bool,
        target: PathBuf,
    },
}

/// Checks the command's table name: a plain name, in the one catalog and schema.
fn table_name(command: &CommandStatementIngest) -> Result<&str, Status> {
    if command.temporary {
        return Err(Status::unimplemented("temporary tables are not offered"));
    }
    if command.transaction_id.is_some() {
        return Err(Status::unimplemented("transactions are not offered"));
    }
    if command.catalog.as_deref().is_some_and(|c| c != CATALOG)
        || command.schema.as_deref().is_some_and(|s| s != SCHEMA)
    {
        return Err(Status::not_found(format!(
            "tables are in catalog {CATALOG:?}, schema {SCHEMA:?}"
        )));
    }
    let name = command.table.as_str();
    let plain = !name.is_empty()
        && name.len() <= 200
        && !name.starts_with(['.', '_'])
        && !name.contains(['/', '\\', '\0'])
        && name != "..";
    if !plain {
        return Err(Status::invalid_argument(format!(
            "{name:?} is not a table name here: a file name, not starting with `.` or `_`"
        )));
    }
    Ok(name)
}

/// The plan for `command` over the directory's current tables.
async fn plan(tables: &DirectoryTables, command: &CommandStatementIngest) -> Result<Plan, Status> {
    let name = table_name(command)?;
    let Some(dir) = tables.local_dir() else {
        return Err(Status::permission_denied(
            "the tables of this server are in an object store, and read-only",
        ));
    };
    let options = command.table_definition_options.unwrap_or_default();
    let if_exists = TableExistsOption::try_from(options.if_exists).unwrap_or_default();
    let if_not_exist = TableNotExistOption::try_from(options.if_not_exist).unwrap_or_default();
    let target = dir.join(name);
    let staging = dir.join(unique(&format!(".{name}.ingest")));
    let existing = tables
        .entry(name)
        .await
        .map_err(|e| Status::failed_precondition(e.to_string()))?;
    match (existing, if_exists) {
        (None, _) => match if_not_exist {
            TableNotExistOption::Fail => Err(Status::not_found(format!("no table {name:?}"))),
            _ => Ok(Plan::Create { staging, target }),
        },
        (Some(_), TableExistsOption::Fail | TableExistsOption::Unspecified) => {
            Err(Status::already_exists(format!(
                "table {name:?} exists (ingest in append or replace mode)"
            )))
        }
        (Some(entry), TableExistsOption::Append) => {
            let path = dir.join(&entry.name);
            let inside = std::fs::canonicalize(&path).is_ok_and(|real| real.starts_with(dir));
            if !inside {
                return Err(Status::permission_denied(format!(
                    "table {name:?} leads outside the served directory"
                )));
            }
            if !entry.is_dir {
                return Err(Status::failed_precondition(format!(
                    "table {name:?} is the one file {}: ingestion appends to tables that are \
                     directories of IPC files",
                    entry.name
                )));
            }
            let (format, _) = alkaid_datafusion::TableFormat::of(&format!("{}/", path.display()));
            if format != alkaid_datafusion::TableFormat::Ipc {
                return Err(Status::failed_precondition(format!(
                    "table {name:?} is a directory of {format:?} files: ingestion writes IPC files"
                )));
            }
            Ok(Plan::Append { target: path })
        }
        (Some(old), TableExistsOption::Replace) => Ok(Plan::Replace {
            staging,
            old: dir.join(&old.name),
            old_is_dir: old.is_dir,
            target,
        }),
    }
}

/// The file to write for `plan`.
fn file_of(plan: &Plan) -> PathBuf {
    let file = format!("{}.arrow", unique("part"));
    match plan {
        Plan::Create { staging, .. } | Plan::Replace { staging, .. } => staging.join(file),
        Plan::Append { target } => target.join(file),
    }
}

/// Receives `upload` into the table `command` names, as its plan says, its bytes charged
/// to `budget`; the rows written.
pub async fn ingest<S>(
    tables: &DirectoryTables,
    command: &CommandStatementIngest,
    upload: &mut FlightRecordBatchStream<S>,
    watch: Option<&RequestBodyWatch>,
    options: WriteOptions,
    budget: &WriteBudget,
) -> Result<u64, Status>
where
    S: Stream<Item = alkaid_flight::Result<FlightData>> + Send + Unpin,
{
    let plan = plan(tables, command).await?;
    if let Plan::Create { staging, .. } | Plan::Replace { staging, .. } = &plan {
        std::fs::create_dir(staging)?;
    }
    let file = file_of(&plan);
    let received = receive_file(upload, watch, file, options, budget).await;
    let committed = received.and_then(|received| {
        commit(&plan)?;
        Ok(received.rows)
    });
    // A staging directory left by a failure goes (after a success it was renamed away).
    if let Plan::Create { staging, .. } | Plan::Replace { staging, .. } = &plan {
        let _ = std::fs::remove_dir_all(staging);
    }
    committed.map_err(|e| match e {
        FlightError::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists => {
            Status::already_exists(format!("table {:?} was created meanwhile", command.table))
        }
        e => e.into(),
    })
}

/// Makes what `plan` wrote the table.
fn commit(plan: &Plan) -> Result<(), FlightError> {
    match plan {
        Plan::Append { .. } => Ok(()),
        Plan::Create { staging, target } => {
            // A table made meanwhile under the name wins; this one is dropped (so does
            // anything else there, a dangling symlink included).
            if std::fs::symlink_metadata(target).is_ok() {
                return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists).into());
            }
            std::fs::rename(staging, target)?;
            sync_dir(target.parent())
        }
        Plan::Replace {
            staging,
            old,
            old_is_dir,
            target,
        } => {
            let parent = target.parent().unwrap_or(Path::new("."));
            let aside = parent.join(unique(".replaced"));
            std::fs::rename(old, &aside)?;
            if let Err(e) = std::fs::rename(staging, target) {
                // Put the old table back: the replacement failed, nothing changed.
                let _ = std::fs::rename(&aside, old);
                return Err(e.into());
            }
            sync_dir(Some(parent))?;
            match old_is_dir {
                true => std::fs::remove_dir_all(&aside)?,
                false => std::fs::remove_file(&aside)?,
            }
            Ok(())
        }
    }
}

/// Syncs a directory, so that a rename in it outlives a crash.
fn sync_dir(dir: Option<&Path>) -> Result<(), FlightError> {
    if let Some(dir) = dir {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

//! An Arrow Flight SQL server over DataFusion and Alkaid: every file and subdirectory of
//! a directory is a table (IPC and Parquet read by Alkaid, CSV and newline-delimited JSON
//! by DataFusion), queried by any Flight SQL client (the ADBC drivers, the JDBC driver
//! behind BI tools), with results streamed as Arrow batches and nothing turned into rows.
//!
//! | item | what it does |
//! | --- | --- |
//! | [`FlightSqlService`], [`SqlServiceOptions`] | the service: statements, prepared statements, metadata, bulk ingestion, cancellation, the operator's limits; served by [`alkaid_flight::serve`] (TLS, tokens, basic auth) |
//! | [`DirectoryTables`] | the directory's tables (local, or under an object-store URL) as a DataFusion schema, looked up per query |
//! | [`Command`], [`Packed`] | Flight SQL's commands, packed in and unpacked from `google.protobuf.Any` |
//! | [`proto`] | the protocol's messages, generated from `format/FlightSql.proto` |
//!
//! ```
//! use alkaid_flight_sql::proto::CommandStatementQuery;
//! use alkaid_flight_sql::{Command, FlightSqlService, Packed, SqlServiceOptions};
//!
//! let dir = std::env::temp_dir();
//! let service = FlightSqlService::new(&dir, SqlServiceOptions::default())?;
//! // What a client puts in a descriptor's `cmd`: the command in an `Any`.
//! let cmd = CommandStatementQuery { query: "SELECT 1".into(), transaction_id: None }.pack();
//! assert!(matches!(Command::unpack(&cmd)?, Command::CommandStatementQuery(_)));
//! # drop(service);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Safe to put on a network
//! A server is read-only unless its operator allows writes
//! ([`SqlServiceOptions::with_writes`]), and every limit is on by default (each query's
//! time and memory, all queries' memory, bound parameters, what a client's message may
//! decompress to, the bytes written). Where writes are allowed, statements add rows to a
//! directory table (`INSERT INTO`) and new files inside the directory (`COPY … TO`): every
//! path is checked on what is actually opened (after DataFusion's own parsing of the URL,
//! symlinks resolved), nothing replaces an existing file, and what a statement writes is
//! staged and takes its names only once the whole statement succeeded. DDL and session
//! statements are refused, since they would reach files outside the directory.
//! A client's session options (Flight's `SetSessionOptions`) reach only the catalog and
//! schema (this server's one of each) and an allowlist of DataFusion settings (time zone,
//! batch size, identifier folding, float literals as decimals), never the file system or
//! a limit. Substrait plans are taken when the crate is built with its `substrait`
//! feature (DataFusion's consumer; they read tables by name only, and write nothing);
//! transactions are not offered (`GetSqlInfo` says so, and answers every id the
//! specification defines). Tables under
//! an object-store URL ([`FlightSqlService::from_url`]) are read-only. No answer names the
//! served directory's path.

mod client_sessions;
mod command;
mod confined;
mod execution;
mod expiring;
mod flight_service;
mod guarded;
mod ingest;
mod memory;
mod metadata;
mod options;
mod parameters;
mod placeholders;
mod service;
mod session;
mod sql_info;
mod statements;
mod status;
mod substrait;
mod tables;
mod write_plan;
mod xdbc_types;

pub mod proto;

pub use command::{Command, Packed};
pub use options::{
    DEFAULT_PARAMETER_BYTES, DEFAULT_PARAMETER_ROWS, DEFAULT_QUERY_MEMORY, DEFAULT_QUERY_TIME,
    DEFAULT_SERVER_MEMORY, DEFAULT_SPILL_BYTES, SqlServiceOptions,
};
pub use service::FlightSqlService;
pub use tables::{CATALOG, DirectoryTables, Entry, SCHEMA};

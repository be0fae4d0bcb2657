//! What the operator decides: whether clients may write, and the limits every statement
//! runs under. Everything that listens is safe by default: no writes, and every limit on.

use std::time::Duration;

use alkaid_flight::{DEFAULT_UPLOAD_BYTES, DEFAULT_WRITTEN_BYTES, upload_read_options};
use alkaid_ipc::{ReadOptions, WriteOptions};

/// A query's time limit by default (5 minutes).
pub const DEFAULT_QUERY_TIME: Duration = Duration::from_secs(300);
/// The memory a query's operators may hold by default (1 GiB).
pub const DEFAULT_QUERY_MEMORY: usize = 1 << 30;
/// The memory all running queries' operators may hold together by default (4 GiB).
pub const DEFAULT_SERVER_MEMORY: usize = 4 << 30;
/// The bytes all queries may spill to temporary files together by default (16 GiB).
pub const DEFAULT_SPILL_BYTES: u64 = 16 << 30;
/// The bytes of parameters a client may bind to a prepared statement by default (16 MiB).
pub const DEFAULT_PARAMETER_BYTES: usize = 16 << 20;
/// The rows of parameters a client may bind to a prepared statement by default.
pub const DEFAULT_PARAMETER_ROWS: usize = 10_000;

/// How a [`FlightSqlService`](crate::FlightSqlService) runs statements, and what it
/// lets clients do.
///
/// By default clients may only read, and every limit is on: each query's time
/// ([`DEFAULT_QUERY_TIME`]) and memory ([`DEFAULT_QUERY_MEMORY`], with
/// [`DEFAULT_SERVER_MEMORY`] for all queries together and [`DEFAULT_SPILL_BYTES`] of
/// temporary files), the parameters bound to a prepared statement
/// ([`DEFAULT_PARAMETER_BYTES`], [`DEFAULT_PARAMETER_ROWS`]), what each message a client
/// sends may decompress to ([`DEFAULT_MESSAGE_BYTES`](alkaid_flight::DEFAULT_MESSAGE_BYTES)), and, once writes are allowed, the
/// bytes one statement and all of them together may write ([`DEFAULT_UPLOAD_BYTES`],
/// [`DEFAULT_WRITTEN_BYTES`]).
///
/// ```
/// use std::time::Duration;
/// use alkaid_flight_sql::SqlServiceOptions;
///
/// let options = SqlServiceOptions::default()
///     .with_writes(true)
///     .with_query_time_limit(Some(Duration::from_secs(60)))
///     .with_write_limits(256 << 20, 4 << 30);
/// assert!(options.writes());
/// assert!(!SqlServiceOptions::default().writes());
/// ```
#[derive(Debug, Clone)]
pub struct SqlServiceOptions {
    pub(crate) query_time_limit: Option<Duration>,
    pub(crate) query_memory_limit: Option<usize>,
    pub(crate) server_memory_limit: Option<usize>,
    pub(crate) spill_limit: u64,
    pub(crate) statement_timeout: Duration,
    pub(crate) max_statements: usize,
    pub(crate) writes: bool,
    pub(crate) replace: bool,
    pub(crate) write_per_statement: u64,
    pub(crate) write_in_all: u64,
    pub(crate) parameter_bytes: usize,
    pub(crate) parameter_rows: usize,
    pub(crate) write: WriteOptions,
    pub(crate) read: ReadOptions,
    pub(crate) int96_as_microseconds: bool,
}

impl Default for SqlServiceOptions {
    fn default() -> Self {
        Self {
            query_time_limit: Some(DEFAULT_QUERY_TIME),
            query_memory_limit: Some(DEFAULT_QUERY_MEMORY),
            server_memory_limit: Some(DEFAULT_SERVER_MEMORY),
            spill_limit: DEFAULT_SPILL_BYTES,
            statement_timeout: Duration::from_secs(600),
            max_statements: 4096,
            writes: false,
            replace: false,
            write_per_statement: DEFAULT_UPLOAD_BYTES,
            write_in_all: DEFAULT_WRITTEN_BYTES,
            parameter_bytes: DEFAULT_PARAMETER_BYTES,
            parameter_rows: DEFAULT_PARAMETER_ROWS,
            write: WriteOptions::default(),
            read: upload_read_options(ReadOptions::default()),
            int96_as_microseconds: false,
        }
    }
}

impl SqlServiceOptions {
    /// Lets clients write: `INSERT INTO` a directory table, `COPY … TO` a new path inside
    /// the directory, bulk ingestion that creates a table or appends to one. Off by
    /// default: each is refused with `PermissionDenied`. Nothing a client writes ever
    /// replaces a file, whatever this says (see [`with_replace`](Self::with_replace)).
    pub fn with_writes(mut self, allowed: bool) -> Self {
        self.writes = allowed;
        self
    }

    /// Whether clients may write.
    pub fn writes(&self) -> bool {
        self.writes
    }

    /// With writes allowed, also lets bulk ingestion replace a table (its `replace`
    /// mode), the one operation that removes a table's files. Off by default.
    pub fn with_replace(mut self, allowed: bool) -> Self {
        self.replace = allowed;
        self
    }

    /// Ends a statement that has not finished `limit` after it began (a query's
    /// `DoGet`, an update's `DoPut`) with `DeadlineExceeded`, leaving nothing it wrote;
    /// [`DEFAULT_QUERY_TIME`] by default, `None` for no limit.
    pub fn with_query_time_limit(mut self, limit: Option<Duration>) -> Self {
        self.query_time_limit = limit;
        self
    }

    /// The memory each query's operators may hold (sorts, joins, aggregates), in bytes;
    /// beyond it the query spills where it can, or fails with `ResourceExhausted`, and the
    /// others go on. [`DEFAULT_QUERY_MEMORY`] by default, `None` for no limit of its own.
    pub fn with_query_memory_limit(mut self, bytes: Option<usize>) -> Self {
        self.query_memory_limit = bytes;
        self
    }

    /// The memory all running queries' operators may hold together, in bytes
    /// ([`DEFAULT_SERVER_MEMORY`] by default, `None` for no limit).
    pub fn with_server_memory_limit(mut self, bytes: Option<usize>) -> Self {
        self.server_memory_limit = bytes;
        self
    }

    /// The bytes all queries together may spill to temporary files
    /// ([`DEFAULT_SPILL_BYTES`] by default).
    pub fn with_spill_limit(mut self, bytes: u64) -> Self {
        self.spill_limit = bytes;
        self
    }

    /// The bytes one statement (or one bulk ingestion) may write, and all of them
    /// together since the server started ([`DEFAULT_UPLOAD_BYTES`] and
    /// [`DEFAULT_WRITTEN_BYTES`] by default). A statement that would pass either fails
    /// with `ResourceExhausted` and leaves nothing.
    pub fn with_write_limits(mut self, per_statement: u64, in_all: u64) -> Self {
        self.write_per_statement = per_statement;
        self.write_in_all = in_all;
        self
    }

    /// The parameters a client may bind to a prepared statement: at most `bytes` of
    /// messages and `rows` rows ([`DEFAULT_PARAMETER_BYTES`] and
    /// [`DEFAULT_PARAMETER_ROWS`] by default). More is refused with `ResourceExhausted`.
    pub fn with_parameter_limits(mut self, bytes: usize, rows: usize) -> Self {
        self.parameter_bytes = bytes;
        self.parameter_rows = rows;
        self
    }

    /// How long a prepared statement or a planned query is kept unused (10 minutes by
    /// default), and how many of each at most (4096).
    pub fn with_statements(mut self, timeout: Duration, max: usize) -> Self {
        self.statement_timeout = timeout;
        self.max_statements = max;
        self
    }

    /// How results are encoded (compression) and ingested files written.
    pub fn with_write_options(mut self, options: WriteOptions) -> Self {
        self.write = options;
        self
    }

    /// How uploads (parameters, ingestion) are read (validation, limits). A bound on each
    /// message's decompressed size is kept: `options`' own, or
    /// [`DEFAULT_MESSAGE_BYTES`](alkaid_flight::DEFAULT_MESSAGE_BYTES)
    /// when it sets none.
    pub fn with_read_options(mut self, options: ReadOptions) -> Self {
        self.read = upload_read_options(options);
        self
    }

    /// Reads Parquet tables' INT96 timestamps (Impala's, Hive's, Spark's) in
    /// microseconds, Spark's resolution, rather than in nanoseconds, where a value past
    /// 2262 is an error (off by default).
    pub fn with_int96_as_microseconds(mut self, microseconds: bool) -> Self {
        self.int96_as_microseconds = microseconds;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_is_on_and_writes_off_by_default() {
        let options = SqlServiceOptions::default();
        assert!(!options.writes && !options.replace);
        assert_eq!(options.query_time_limit, Some(DEFAULT_QUERY_TIME));
        assert_eq!(options.query_memory_limit, Some(DEFAULT_QUERY_MEMORY));
        assert_eq!(options.server_memory_limit, Some(DEFAULT_SERVER_MEMORY));
        assert_eq!(options.spill_limit, DEFAULT_SPILL_BYTES);
        assert_eq!(options.write_per_statement, DEFAULT_UPLOAD_BYTES);
        assert_eq!(options.write_in_all, DEFAULT_WRITTEN_BYTES);
        assert_eq!(options.parameter_bytes, DEFAULT_PARAMETER_BYTES);
        assert_eq!(options.parameter_rows, DEFAULT_PARAMETER_ROWS);
        assert_eq!(
            options.read.max_decompressed_bytes(),
            Some(alkaid_flight::DEFAULT_MESSAGE_BYTES)
        );
        // Read options without a bound keep the default one.
        let own = options.with_read_options(ReadOptions::default());
        assert_eq!(
            own.read.max_decompressed_bytes(),
            Some(alkaid_flight::DEFAULT_MESSAGE_BYTES)
        );
    }
}

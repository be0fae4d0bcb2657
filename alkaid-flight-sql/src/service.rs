//! The Flight SQL service: Flight's calls, each carrying a Flight SQL command, answered
//! by DataFusion over the directory's tables and streamed as Alkaid batches.
//!
//! | call | commands |
//! | --- | --- |
//! | `GetFlightInfo`, `GetSchema` | statements, prepared statements, every metadata command |
//! | `DoGet` | a statement's ticket (its handle), a metadata command |
//! | `DoPut` | updates (`INSERT`, `COPY`), prepared statements' parameters and updates, bulk ingestion |
//! | `DoAction` | create and close prepared statements, `CancelFlightInfo`, `CancelQuery` |
//!
//! Every query runs in a session of its own, with the memory limit of
//! [`SqlServiceOptions::with_query_memory_limit`]; its batches stream under the time
//! limit of [`SqlServiceOptions::with_query_time_limit`] and stop when it is cancelled.

use std::future::Future;
use std::path::{Component, Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use alkaid_arrow::arrow59::{batch_from_arrow, batch_to_arrow, schema_from_arrow};
use alkaid_datafusion::register_alkaid_format;
use alkaid_flight::proto::flight_service_server::FlightService;
use alkaid_flight::proto::{
    ActionType, CancelFlightInfoRequest, CancelFlightInfoResult, CancelStatus, Criteria,
    FlightEndpoint, FlightInfo, HandshakeRequest, HandshakeResponse, PollInfo, PutResult,
    Result as ActionResult, SchemaResult,
};
use alkaid_flight::{
    Action, FlightData, FlightDescriptor, FlightEncoder, FlightError, FlightRecordBatchStream,
    RequestBodyWatch, Ticket, encode_stream, schema_to_ipc,
};
use alkaid_ipc::{ReadOptions, WriteOptions};
use bytes::Bytes;
use datafusion::arrow::array::RecordBatch as ArrowBatch;
use datafusion::arrow::datatypes::SchemaRef as ArrowSchemaRef;
use datafusion::catalog::{
    CatalogProvider, CatalogProviderList, MemoryCatalogProvider, MemoryCatalogProviderList,
};
use datafusion::common::ScalarValue;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::cache::cache_manager::CacheManagerConfig;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::logical_expr::LogicalPlan;
use datafusion::object_store::ObjectStore;
use datafusion::prelude::{DataFrame, SQLOptions, SessionConfig, SessionContext};
use futures_core::Stream;
use futures_util::{StreamExt, TryStreamExt, stream};
use prost::Message;
use tonic::codegen::BoxStream;
use tonic::{Request, Response, Status, Streaming};

use crate::command::{Command, Packed};
use crate::ingest::ingest;
use crate::metadata;
use crate::proto::*;
use crate::sql_info;
use crate::statements::{Pending, Prepared, Statements};
use crate::status::status;
use crate::tables::{CATALOG, DirectoryTables, SCHEMA};
use crate::xdbc_types;

/// How a [`FlightSqlService`] runs queries and holds statements.
#[derive(Debug, Clone)]
pub struct SqlServiceOptions {
    query_time_limit: Option<Duration>,
    query_memory_limit: Option<usize>,
    statement_timeout: Duration,
    max_statements: usize,
    write: WriteOptions,
    read: ReadOptions,
}

impl Default for SqlServiceOptions {
    fn default() -> Self {
        Self {
            query_time_limit: None,
            query_memory_limit: None,
            statement_timeout: Duration::from_secs(600),
            max_statements: 4096,
            write: WriteOptions::default(),
            read: ReadOptions::default(),
        }
    }
}

impl SqlServiceOptions {
    /// Ends a query that has not finished streaming `limit` after its `DoGet` began
    /// (`DeadlineExceeded`); none by default.
    pub fn with_query_time_limit(mut self, limit: Duration) -> Self {
        self.query_time_limit = Some(limit);
        self
    }

    /// The memory each query's operators may hold (sorts, joins, aggregates), in bytes;
    /// beyond it the query fails with `ResourceExhausted` and the others go on. None by
    /// default.
    pub fn with_query_memory_limit(mut self, bytes: usize) -> Self {
        self.query_memory_limit = Some(bytes);
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

    /// How uploads (parameters, ingestion) are read (validation, limits).
    pub fn with_read_options(mut self, options: ReadOptions) -> Self {
        self.read = options;
        self
    }
}

/// A Flight SQL server over the tables of a directory.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use alkaid_flight::{ServerOptions, serve};
/// use alkaid_flight_sql::{FlightSqlService, SqlServiceOptions};
///
/// let service = FlightSqlService::new("data/", SqlServiceOptions::default())?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:32010").await?;
/// serve(service, listener, ServerOptions::default(), std::future::pending()).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct FlightSqlService {
    inner: Arc<Inner>,
}

struct Inner {
    tables: Arc<DirectoryTables>,
    /// The session every query's starts from (functions, formats, the tables' catalog),
    /// built once: building one takes longer than a small query.
    base: SessionState,
    statements: Statements,
    options: SqlServiceOptions,
}

impl std::fmt::Debug for FlightSqlService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlightSqlService")
            .field("tables", &self.inner.tables.location())
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

/// The session configuration every query runs with.
fn config() -> SessionConfig {
    SessionConfig::new()
        .with_default_catalog_and_schema(CATALOG, SCHEMA)
        .with_create_default_catalog_and_schema(false)
        .with_information_schema(false)
}

/// What a statement may be: queries and DML (`INSERT`, `COPY`), never DDL (which would
/// reach files outside the directory) or session statements.
fn sql_options() -> SQLOptions {
    SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_statements(false)
        .with_allow_dml(true)
}

/// The runtime every query's starts from. DataFusion's cache of directory listings is
/// off: it keeps a directory table's first listing for good, so a file added to the
/// directory would never be read; [`DirectoryTables`] lists on each lookup and keeps
/// opened tables while their files are unchanged instead.
fn runtime() -> std::io::Result<Arc<RuntimeEnv>> {
    let caches = CacheManagerConfig::default().with_list_files_cache_limit(0);
    RuntimeEnvBuilder::new()
        .with_cache_manager(caches)
        .build_arc()
        .map_err(std::io::Error::other)
}

/// A session state over `runtime` with DataFusion's functions and the service's
/// configuration.
fn state_builder(runtime: &Arc<RuntimeEnv>) -> SessionStateBuilder {
    SessionStateBuilder::new()
        .with_config(config())
        .with_default_features()
        .with_runtime_env(Arc::clone(runtime))
}

impl FlightSqlService {
    /// Serves the tables of the local directory `dir` (see [`DirectoryTables`]).
    ///
    /// # Errors
    /// If `dir` is not a readable directory.
    pub fn new(dir: impl Into<PathBuf>, options: SqlServiceOptions) -> std::io::Result<Self> {
        let dir = std::fs::canonicalize(dir.into())?;
        std::fs::read_dir(&dir)?;
        let runtime = runtime()?;
        let tables = DirectoryTables::new(&dir, state_builder(&runtime).build());
        Self::serving(tables, runtime, options)
    }

    /// Serves the tables under `url` (`s3://bucket/data/`, `gs://…`, `az://…`,
    /// `http(s)://…`, `file:///…`), read through the object store of the URL's scheme
    /// built from `store_options` (`object_store`'s keys, such as `aws_endpoint` or
    /// `AWS_ACCESS_KEY_ID`; credentials the store finds itself need none). The tables are
    /// read-only: updates and bulk ingestion are refused.
    ///
    /// # Errors
    /// If the URL does not parse, names no store this build has, or the store's options
    /// are wrong. Nothing is listed yet: a missing bucket is a query's error.
    pub fn from_url<K, V>(
        url: &str,
        store_options: impl IntoIterator<Item = (K, V)>,
        options: SqlServiceOptions,
    ) -> std::io::Result<Self>
    where
        K: AsRef<str>,
        V: Into<String>,
    {
        let invalid = |e: &dyn std::fmt::Display| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{url}: {e}"))
        };
        let parsed = url::Url::parse(url).map_err(|e| invalid(&e))?;
        let (store, _) =
            object_store::parse_url_opts(&parsed, store_options).map_err(|e| invalid(&e))?;
        Self::in_store(url, Arc::from(store), options)
    }

    /// Serves the tables under `url` in `store`, the object store of the URL's scheme and
    /// authority (read-only, as [`FlightSqlService::from_url`]).
    ///
    /// # Errors
    /// If `url` does not parse.
    pub fn in_store(
        url: &str,
        store: Arc<dyn ObjectStore>,
        options: SqlServiceOptions,
    ) -> std::io::Result<Self> {
        let runtime = runtime()?;
        let listing = ListingTableUrl::parse(url).map_err(std::io::Error::other)?;
        runtime.register_object_store(listing.object_store().as_ref(), Arc::clone(&store));
        let tables = DirectoryTables::in_store(url, store, state_builder(&runtime).build())
            .map_err(std::io::Error::other)?;
        Self::serving(tables, runtime, options)
    }

    fn serving(
        tables: DirectoryTables,
        runtime: Arc<RuntimeEnv>,
        options: SqlServiceOptions,
    ) -> std::io::Result<Self> {
        let tables = Arc::new(tables);
        let catalog = MemoryCatalogProvider::new();
        catalog
            .register_schema(SCHEMA, tables.clone())
            .map_err(std::io::Error::other)?;
        let catalogs = MemoryCatalogProviderList::new();
        catalogs.register_catalog(CATALOG.to_string(), Arc::new(catalog));
        let catalogs: Arc<dyn CatalogProviderList> = Arc::new(catalogs);
        let state = state_builder(&runtime).with_catalog_list(catalogs).build();
        let ctx = SessionContext::new_with_state(state);
        register_alkaid_format(&ctx);
        let base = ctx.state();
        let statements = Statements::new(options.max_statements, options.statement_timeout);
        Ok(Self {
            inner: Arc::new(Inner {
                tables,
                base,
                statements,
                options,
            }),
        })
    }

    /// A session for one query: a copy of the base session, with a memory pool of its
    /// own when queries have a memory limit.
    fn session(&self) -> Result<SessionContext, Status> {
        let base = self.inner.base.clone();
        let Some(limit) = self.inner.options.query_memory_limit else {
            return Ok(SessionContext::new_with_state(base));
        };
        let runtime = RuntimeEnvBuilder::from_runtime_env(base.runtime_env())
            .with_memory_limit(limit, 1.0)
            .build_arc()
            .map_err(status)?;
        let state = SessionStateBuilder::new_from_existing(base)
            .with_runtime_env(runtime)
            .build();
        Ok(SessionContext::new_with_state(state))
    }

    /// `sql` planned in a session of its own, with `parameters` (a row) bound.
    async fn plan(
        &self,
        sql: &str,
        parameters: Option<Vec<ScalarValue>>,
    ) -> Result<DataFrame, Status> {
        let ctx = self.session()?;
        let frame = ctx
            .sql_with_options(sql, sql_options())
            .await
            .map_err(status)?;
        self.check_writes(frame.logical_plan())?;
        match parameters {
            Some(values) => frame.with_param_values(values).map_err(status),
            None => Ok(frame),
        }
    }

    /// Refuses a `COPY` to anywhere but under the served directory, and every write
    /// when the tables are in an object store.
    fn check_writes(&self, plan: &LogicalPlan) -> Result<(), Status> {
        let tables = &self.inner.tables;
        let mut refused = None;
        let _ = plan.apply(|node| {
            match (node, tables.local_dir()) {
                (LogicalPlan::Copy(copy), Some(dir)) if !inside(dir, &copy.output_url) => {
                    refused = Some(format!(
                        "COPY writes only under the served directory {}: {:?} is not",
                        dir.display(),
                        copy.output_url
                    ));
                }
                (LogicalPlan::Copy(_) | LogicalPlan::Dml(_), None) => {
                    refused = Some(format!("the tables in {} are read-only", tables.location()));
                }
                _ => return Ok(TreeNodeRecursion::Continue),
            }
            Ok(TreeNodeRecursion::Stop)
        });
        match refused {
            Some(message) => Err(Status::permission_denied(message)),
            None => Ok(()),
        }
    }

    /// The frames of a prepared statement: one per bound parameter row (one without
    /// parameters when none are bound).
    fn prepared_frames(&self, handle: &[u8]) -> Result<Vec<DataFrame>, Status> {
        let prepared = self.inner.statements.prepared(handle)?;
        // The plan made when the statement was prepared (its writes checked then), in a
        // session of this execution's own (its memory limit), the parameters bound into it.
        let frame = |row: Option<Vec<ScalarValue>>| -> Result<DataFrame, Status> {
            let frame = DataFrame::new(self.session()?.state(), prepared.plan.clone());
            match row {
                Some(values) => frame.with_param_values(values).map_err(status),
                None => Ok(frame),
            }
        };
        match &prepared.parameters {
            None => Ok(vec![frame(None)?]),
            Some(parameters) => parameter_rows(parameters)?
                .into_iter()
                .map(|row| frame(Some(row)))
                .collect(),
        }
    }

    /// The FlightInfo of a query whose result has `schema`, fetched by `ticket`.
    fn flight_info(
        &self,
        descriptor: FlightDescriptor,
        schema: &ArrowSchemaRef,
        ticket: Bytes,
    ) -> Result<FlightInfo, Status> {
        Ok(FlightInfo {
            schema: self.ipc_schema(schema)?,
            flight_descriptor: Some(descriptor),
            endpoint: vec![FlightEndpoint {
                ticket: Some(Ticket { ticket }),
                location: Vec::new(),
                expiration_time: None,
                app_metadata: Bytes::new(),
            }],
            total_records: -1,
            total_bytes: -1,
            ordered: false,
            app_metadata: Bytes::new(),
        })
    }

    /// `schema` as an encapsulated IPC schema message.
    fn ipc_schema(&self, schema: &ArrowSchemaRef) -> Result<Bytes, Status> {
        let ours = schema_from_arrow(schema).map_err(|e| Status::internal(e.to_string()))?;
        Ok(schema_to_ipc(Arc::new(ours), &self.inner.options.write)?)
    }

    /// The result schema of a metadata command, and its rows.
    async fn metadata(
        &self,
        command: &Command,
        rows: bool,
    ) -> Result<(ArrowSchemaRef, Option<ArrowBatch>), Status> {
        let timeout_ms =
            i32::try_from(self.inner.options.statement_timeout.as_millis()).unwrap_or(i32::MAX);
        let arrow = |e: datafusion::arrow::error::ArrowError| Status::internal(e.to_string());
        let (schema, batch) = match command {
            Command::CommandGetSqlInfo(c) => {
                let batch = rows
                    .then(|| {
                        let read_only = self.inner.tables.local_dir().is_none();
                        sql_info::answer(&c.info, timeout_ms, read_only)
                    })
                    .transpose()
                    .map_err(arrow)?;
                (sql_info::schema(), batch)
            }
            Command::CommandGetCatalogs(c) => (
                metadata::catalogs_schema(),
                rows.then(|| metadata::catalogs(c)),
            ),
            Command::CommandGetDbSchemas(c) => (
                metadata::db_schemas_schema(),
                rows.then(|| metadata::db_schemas(c)),
            ),
            Command::CommandGetTableTypes(c) => (
                metadata::table_types_schema(),
                rows.then(|| metadata::table_types(c)),
            ),
            Command::CommandGetXdbcTypeInfo(c) => {
                let batch = rows
                    .then(|| xdbc_types::answer(c.data_type))
                    .transpose()
                    .map_err(arrow)?;
                (metadata::xdbc_type_info_schema(), batch)
            }
            Command::CommandGetPrimaryKeys(_) => (
                metadata::primary_keys_schema(),
                rows.then(|| metadata::empty(metadata::primary_keys_schema())),
            ),
            Command::CommandGetExportedKeys(_)
            | Command::CommandGetImportedKeys(_)
            | Command::CommandGetCrossReference(_) => {
                let schema = metadata::foreign_keys_schema();
                (schema.clone(), rows.then(|| metadata::empty(schema)))
            }
            Command::CommandGetTables(c) => {
                let schema = metadata::tables_schema(c.include_schema);
                let batch = match rows {
                    true => Some(metadata::tables(c, self.listed_tables(c).await?).map_err(arrow)?),
                    false => None,
                };
                (schema, batch)
            }
            other => {
                return Err(Status::invalid_argument(format!(
                    "{} is not a metadata command",
                    other.name()
                )));
            }
        };
        Ok((schema, batch))
    }

    /// The directory's tables for `GetTables`, with their schemas when asked for (a table
    /// whose files do not open is listed without one only when schemas are not asked
    /// for, and left out when they are: one bad file does not hide the others).
    async fn listed_tables(
        &self,
        command: &CommandGetTables,
    ) -> Result<Vec<(String, Option<Bytes>)>, Status> {
        if !metadata::tables_asked(command) {
            return Ok(Vec::new());
        }
        let entries = self.inner.tables.entries().await.map_err(status)?;
        let mut listed: Vec<(String, Option<Bytes>)> = Vec::new();
        for entry in entries {
            if listed.last().is_some_and(|(name, _)| *name == entry.table) {
                continue;
            }
            if !metadata::table_wanted(command, &entry.table) {
                continue;
            }
            if !command.include_schema {
                listed.push((entry.table, None));
                continue;
            }
            if let Ok(table) = self.inner.tables.open(&entry).await {
                let schema = self.ipc_schema(&table.schema())?;
                listed.push((entry.table, Some(schema)));
            }
        }
        Ok(listed)
    }

    /// A planned query's batches as Alkaid batches: the frames one after the other, under
    /// the time limit, stopped by cancellation; forgotten by the registry when done.
    fn run(
        &self,
        handle: Bytes,
        pending: Pending,
        cancelled: tokio::sync::watch::Receiver<bool>,
        schema: ArrowSchemaRef,
    ) -> Result<BoxStream<FlightData>, Status> {
        let deadline = self
            .inner
            .options
            .query_time_limit
            .map(|limit| (tokio::time::Instant::now() + limit, limit));
        let frames = stream::iter(pending.frames)
            .then(|frame| async move { frame.execute_stream().await })
            .try_flatten()
            .map_err(status);
        let mut cancelled = cancelled;
        let cancelled = Box::pin(async move {
            // A dropped sender (the registry forgot the query) is no cancellation.
            if cancelled.wait_for(|stop| *stop).await.is_err() {
                std::future::pending::<()>().await;
            }
        });
        let batches = Guarded {
            batches: Box::pin(frames),
            cancelled,
            deadline,
            sleep: None,
            finish: Some((self.inner.clone(), handle)),
        };
        let ours = batches.map(|batch| {
            let batch = batch?;
            let ours = batch_from_arrow(&batch).map_err(|e| Status::internal(e.to_string()))?;
            Ok::<_, FlightError>((ours, Bytes::new()))
        });
        let schema = schema_from_arrow(&schema).map_err(|e| Status::internal(e.to_string()))?;
        let encoder = FlightEncoder::new(Arc::new(schema), self.inner.options.write.clone())?;
        let messages = encode_stream(encoder, Box::pin(ours)).map_err(Status::from);
        Ok(Box::pin(messages))
    }

    /// Runs the update `sql` (with `parameters`), returning the rows it changed.
    async fn update(&self, sql: &str, parameters: Option<Vec<ScalarValue>>) -> Result<i64, Status> {
        let frame = self.plan(sql, parameters).await?;
        let batches = frame.collect().await.map_err(status)?;
        Ok(changed_rows(&batches))
    }
}

/// Whether `url` is a local path under `dir` (no `..`, no other scheme).
fn inside(dir: &Path, url: &str) -> bool {
    let path = url.strip_prefix("file://").unwrap_or(url);
    if path.contains("://") {
        return false;
    }
    let path = Path::new(path);
    path.is_absolute()
        && !path.components().any(|c| matches!(c, Component::ParentDir))
        && path.starts_with(dir)
}

/// The rows changed by an update: DataFusion answers `INSERT` and `COPY` with one
/// `count` column; other statements changed none.
fn changed_rows(batches: &[ArrowBatch]) -> i64 {
    use datafusion::arrow::array::{Array, UInt64Array};
    batches
        .iter()
        .filter(|b| b.num_columns() == 1 && b.schema().field(0).name() == "count")
        .filter_map(|b| b.column(0).as_any().downcast_ref::<UInt64Array>().cloned())
        .map(|counts| counts.iter().flatten().sum::<u64>() as i64)
        .sum()
}

/// Each row of bound parameters as the values of `$1`, `$2`, ….
fn parameter_rows(parameters: &ArrowBatch) -> Result<Vec<Vec<ScalarValue>>, Status> {
    (0..parameters.num_rows())
        .map(|row| {
            parameters
                .columns()
                .iter()
                .map(|column| ScalarValue::try_from_array(column, row))
                .collect::<datafusion::common::Result<Vec<_>>>()
                .map_err(status)
        })
        .collect()
}

/// A query's batches, ended by cancellation or its deadline; tells the registry when the
/// query is over (done, failed, or dropped with its client).
struct Guarded {
    batches: Pin<Box<dyn Stream<Item = Result<ArrowBatch, Status>> + Send>>,
    /// Ready once the query is cancelled.
    cancelled: Pin<Box<dyn Future<Output = ()> + Send>>,
    deadline: Option<(tokio::time::Instant, Duration)>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    finish: Option<(Arc<Inner>, Bytes)>,
}

impl Guarded {
    fn end(&mut self) {
        if let Some((inner, handle)) = self.finish.take() {
            inner.statements.finish(&handle);
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.end();
    }
}

impl Stream for Guarded {
    type Item = Result<ArrowBatch, Status>;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        if self.finish.is_none() {
            return Poll::Ready(None);
        }
        if self.cancelled.as_mut().poll(cx).is_ready() {
            self.end();
            return Poll::Ready(Some(Err(Status::cancelled("the query was cancelled"))));
        }
        if let Some((at, limit)) = self.deadline {
            let sleep = self
                .sleep
                .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(at)));
            if sleep.as_mut().poll(cx).is_ready() {
                self.end();
                return Poll::Ready(Some(Err(Status::deadline_exceeded(format!(
                    "the query ran past its time limit of {limit:?}"
                )))));
            }
        }
        match self.batches.as_mut().poll_next(cx) {
            Poll::Ready(None) => {
                self.end();
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(e))) => {
                self.end();
                Poll::Ready(Some(Err(e)))
            }
            other => other,
        }
    }
}

/// The command a descriptor carries.
fn command_of(descriptor: &FlightDescriptor) -> Result<Command, Status> {
    if descriptor.cmd.is_empty() {
        return Err(Status::invalid_argument(
            "a Flight SQL descriptor carries a command (this server names no flights by path)",
        ));
    }
    Command::unpack(&descriptor.cmd)
}

/// One `PutResult` carrying `message`.
fn put_result(message: Bytes) -> Response<BoxStream<PutResult>> {
    let result = PutResult {
        app_metadata: message,
    };
    Response::new(Box::pin(stream::iter([Ok(result)])))
}

/// One action result carrying `body`.
fn action_result(body: Bytes) -> Response<BoxStream<ActionResult>> {
    Response::new(Box::pin(stream::iter([Ok(ActionResult { body })])))
}

/// The actions offered.
const ACTIONS: [(&str, &str); 5] = [
    (
        "CreatePreparedStatement",
        "prepares a statement: ActionCreatePreparedStatementRequest",
    ),
    (
        "ClosePreparedStatement",
        "closes a prepared statement: ActionClosePreparedStatementRequest",
    ),
    (
        "CancelFlightInfo",
        "cancels a query: CancelFlightInfoRequest",
    ),
    (
        "CancelQuery",
        "cancels a query (deprecated): ActionCancelQueryRequest",
    ),
    ("EndTransaction", "refused: transactions are not offered"),
];

#[tonic::async_trait]
impl FlightService for FlightSqlService {
    async fn handshake(
        &self,
        _request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<BoxStream<HandshakeResponse>>, Status> {
        // Credentials, when the server has them, are checked by `serve` before this; a
        // handshake that reaches here has nothing to exchange.
        Ok(Response::new(Box::pin(stream::empty())))
    }

    async fn list_flights(
        &self,
        _request: Request<Criteria>,
    ) -> Result<Response<BoxStream<FlightInfo>>, Status> {
        Err(Status::unimplemented(
            "a Flight SQL server lists tables with CommandGetTables, not flights",
        ))
    }

    async fn get_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let descriptor = request.into_inner();
        let command = command_of(&descriptor)?;
        let frames = match &command {
            Command::CommandStatementQuery(query) => {
                if query.transaction_id.is_some() {
                    return Err(Status::unimplemented("transactions are not offered"));
                }
                vec![self.plan(&query.query, None).await?]
            }
            Command::CommandPreparedStatementQuery(prepared) => {
                self.prepared_frames(&prepared.prepared_statement_handle)?
            }
            Command::CommandStatementSubstraitPlan(_) => {
                return Err(Status::unimplemented(
                    "Substrait plans are not offered: send SQL",
                ));
            }
            metadata_command => {
                let (schema, _) = self.metadata(metadata_command, false).await?;
                let info = self.flight_info(descriptor, &schema, metadata_command.pack())?;
                return Ok(Response::new(info));
            }
        };
        let schema: ArrowSchemaRef = match frames.first() {
            Some(frame) => Arc::new(frame.schema().as_arrow().clone()),
            None => {
                return Err(Status::invalid_argument(
                    "the prepared statement has no parameter rows bound",
                ));
            }
        };
        let handle = self.inner.statements.plan(Pending { frames })?;
        let ticket = TicketStatementQuery {
            statement_handle: handle,
        }
        .pack();
        Ok(Response::new(
            self.flight_info(descriptor, &schema, ticket)?,
        ))
    }

    async fn poll_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<PollInfo>, Status> {
        let descriptor = request.get_ref().clone();
        let info = self.get_flight_info(request).await?.into_inner();
        Ok(Response::new(PollInfo {
            info: Some(info),
            flight_descriptor: Some(descriptor),
            progress: Some(1.0),
            expiration_time: None,
        }))
    }

    async fn get_schema(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<SchemaResult>, Status> {
        let command = command_of(request.get_ref())?;
        let schema = match &command {
            Command::CommandStatementQuery(query) => {
                let frame = self.plan(&query.query, None).await?;
                Arc::new(frame.schema().as_arrow().clone())
            }
            Command::CommandPreparedStatementQuery(prepared) => {
                let sql = self
                    .inner
                    .statements
                    .prepared(&prepared.prepared_statement_handle)?
                    .sql;
                let frame = self.plan(&sql, None).await?;
                Arc::new(frame.schema().as_arrow().clone())
            }
            other => self.metadata(other, false).await?.0,
        };
        Ok(Response::new(SchemaResult {
            schema: self.ipc_schema(&schema)?,
        }))
    }

    async fn do_get(
        &self,
        request: Request<Ticket>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        let command = Command::unpack(&request.get_ref().ticket)?;
        if let Command::TicketStatementQuery(ticket) = &command {
            let handle = ticket.statement_handle.clone();
            let (pending, cancelled) = self.inner.statements.start(&handle)?;
            let schema = match pending.frames.first() {
                Some(frame) => Arc::new(frame.schema().as_arrow().clone()),
                None => return Err(Status::internal("a planned query without a plan")),
            };
            return Ok(Response::new(self.run(handle, pending, cancelled, schema)?));
        }
        let (schema, batch) = self.metadata(&command, true).await?;
        let batches: Vec<ArrowBatch> = batch.into_iter().collect();
        let ours = batches
            .iter()
            .map(|b| {
                batch_from_arrow(b)
                    .map(|b| (b, Bytes::new()))
                    .map_err(|e| FlightError::protocol(e.to_string()))
            })
            .collect::<Vec<_>>();
        let schema = schema_from_arrow(&schema).map_err(|e| Status::internal(e.to_string()))?;
        let encoder = FlightEncoder::new(Arc::new(schema), self.inner.options.write.clone())?;
        let messages = encode_stream(encoder, stream::iter(ours)).map_err(Status::from);
        Ok(Response::new(Box::pin(messages)))
    }

    async fn do_put(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<PutResult>>, Status> {
        let watch = request.extensions().get::<RequestBodyWatch>().cloned();
        let data = request.into_inner().map_err(FlightError::from);
        let mut upload = FlightRecordBatchStream::new(data, self.inner.options.read.clone());
        // The first message names the command; an update sends a schema and no batches.
        let schema = upload.read_schema().await;
        let descriptor = upload.descriptor().cloned().ok_or_else(|| {
            Status::invalid_argument(
                "the first message of a DoPut carries the command's descriptor",
            )
        })?;
        let command = command_of(&descriptor)?;
        match command {
            Command::CommandStatementUpdate(update) => {
                if update.transaction_id.is_some() {
                    return Err(Status::unimplemented("transactions are not offered"));
                }
                let count = self.update(&update.query, None).await?;
                Ok(put_result(
                    DoPutUpdateResult {
                        record_count: count,
                    }
                    .encode_to_vec()
                    .into(),
                ))
            }
            Command::CommandStatementIngest(command) => {
                schema?;
                let tables = &self.inner.tables;
                let write = self.inner.options.write.clone();
                let rows = ingest(tables, &command, &mut upload, watch.as_ref(), write).await?;
                let rows = i64::try_from(rows).unwrap_or(i64::MAX);
                Ok(put_result(
                    DoPutUpdateResult { record_count: rows }
                        .encode_to_vec()
                        .into(),
                ))
            }
            Command::CommandPreparedStatementQuery(prepared) => {
                schema?;
                let handle = prepared.prepared_statement_handle;
                let parameters = collect_arrow(&mut upload).await?;
                self.inner.statements.bind(&handle, parameters)?;
                let answer = DoPutPreparedStatementResult {
                    prepared_statement_handle: Some(handle),
                };
                Ok(put_result(answer.encode_to_vec().into()))
            }
            Command::CommandPreparedStatementUpdate(prepared) => {
                let statement = self
                    .inner
                    .statements
                    .prepared(&prepared.prepared_statement_handle)?;
                let rows = match schema {
                    Ok(_) => {
                        let parameters = collect_arrow(&mut upload).await?;
                        parameter_rows(&parameters)?
                    }
                    Err(_) => Vec::new(),
                };
                let mut count = 0;
                if rows.is_empty() {
                    count = self.update(&statement.sql, None).await?;
                }
                for row in rows {
                    count += self.update(&statement.sql, Some(row)).await?;
                }
                Ok(put_result(
                    DoPutUpdateResult {
                        record_count: count,
                    }
                    .encode_to_vec()
                    .into(),
                ))
            }
            other => Err(Status::invalid_argument(format!(
                "{} is not a command for DoPut",
                other.name()
            ))),
        }
    }

    async fn do_action(
        &self,
        request: Request<Action>,
    ) -> Result<Response<BoxStream<ActionResult>>, Status> {
        let action = request.into_inner();
        match action.r#type.as_str() {
            "CreatePreparedStatement" => {
                let request = ActionCreatePreparedStatementRequest::unpack(&action.body)?;
                if request.transaction_id.is_some() {
                    return Err(Status::unimplemented("transactions are not offered"));
                }
                let frame = self.plan(&request.query, None).await?;
                let dataset_schema = Arc::new(frame.schema().as_arrow().clone());
                let parameters = parameter_schema(frame.logical_plan())?;
                let handle = self.inner.statements.prepare(Prepared {
                    sql: request.query,
                    plan: frame.logical_plan().clone(),
                    parameters: None,
                })?;
                let result = ActionCreatePreparedStatementResult {
                    prepared_statement_handle: handle,
                    dataset_schema: self.ipc_schema(&dataset_schema)?,
                    parameter_schema: match parameters {
                        Some(schema) => self.ipc_schema(&schema)?,
                        None => Bytes::new(),
                    },
                };
                Ok(action_result(result.pack()))
            }
            "ClosePreparedStatement" => {
                let request = ActionClosePreparedStatementRequest::unpack(&action.body)?;
                self.inner
                    .statements
                    .close(&request.prepared_statement_handle);
                Ok(Response::new(Box::pin(stream::empty())))
            }
            "CancelFlightInfo" => {
                let request =
                    CancelFlightInfoRequest::decode(action.body.as_ref()).map_err(|e| {
                        Status::invalid_argument(format!(
                            "a malformed CancelFlightInfoRequest: {e}"
                        ))
                    })?;
                let cancelled = self.cancel(request.info.as_ref());
                let status = match cancelled {
                    true => CancelStatus::Cancelled,
                    false => CancelStatus::NotCancellable,
                };
                let result = CancelFlightInfoResult {
                    status: status as i32,
                };
                Ok(action_result(result.encode_to_vec().into()))
            }
            "CancelQuery" => {
                let request = ActionCancelQueryRequest::unpack(&action.body)?;
                let info = FlightInfo::decode(request.info.as_ref()).map_err(|e| {
                    Status::invalid_argument(format!("a malformed FlightInfo: {e}"))
                })?;
                use crate::proto::action_cancel_query_result::CancelResult;
                let result = match self.cancel(Some(&info)) {
                    true => CancelResult::Cancelled,
                    false => CancelResult::NotCancellable,
                };
                let result = ActionCancelQueryResult {
                    result: result as i32,
                };
                Ok(action_result(result.pack()))
            }
            "BeginTransaction" | "EndTransaction" | "BeginSavepoint" | "EndSavepoint" => {
                Err(Status::unimplemented("transactions are not offered"))
            }
            "CreatePreparedSubstraitPlan" => Err(Status::unimplemented(
                "Substrait plans are not offered: send SQL",
            )),
            other => Err(Status::invalid_argument(format!(
                "{other:?} is not an action of this server"
            ))),
        }
    }

    async fn list_actions(
        &self,
        _request: Request<alkaid_flight::proto::Empty>,
    ) -> Result<Response<BoxStream<ActionType>>, Status> {
        let actions = ACTIONS.map(|(name, description)| {
            Ok(ActionType {
                r#type: name.to_string(),
                description: description.to_string(),
            })
        });
        Ok(Response::new(Box::pin(stream::iter(actions))))
    }
}

impl FlightSqlService {
    /// Cancels the queries of `info`'s tickets; whether one was pending or running.
    fn cancel(&self, info: Option<&FlightInfo>) -> bool {
        let Some(info) = info else {
            return false;
        };
        let mut any = false;
        for endpoint in &info.endpoint {
            let Some(ticket) = &endpoint.ticket else {
                continue;
            };
            if let Ok(Command::TicketStatementQuery(t)) = Command::unpack(&ticket.ticket) {
                any |= self.inner.statements.cancel(&t.statement_handle);
            }
        }
        any
    }
}

/// The parameters of `plan` as a schema of `$1`, `$2`, … in order, `None` when it has none.
fn parameter_schema(plan: &LogicalPlan) -> Result<Option<ArrowSchemaRef>, Status> {
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let types = plan.get_parameter_types().map_err(status)?;
    if types.is_empty() {
        return Ok(None);
    }
    let mut named: Vec<(usize, String, DataType)> = types
        .into_iter()
        .map(|(name, data_type)| {
            let position = name.trim_start_matches('$').parse().unwrap_or(usize::MAX);
            (position, name, data_type.unwrap_or(DataType::Null))
        })
        .collect();
    named.sort();
    let fields: Vec<Field> = named
        .into_iter()
        .map(|(_, name, data_type)| Field::new(name, data_type, true))
        .collect();
    Ok(Some(Arc::new(Schema::new(fields))))
}

/// The rest of `upload` as one arrow-rs batch (parameter rows are few).
async fn collect_arrow<S>(upload: &mut FlightRecordBatchStream<S>) -> Result<ArrowBatch, Status>
where
    S: Stream<Item = alkaid_flight::Result<FlightData>> + Send + Unpin,
{
    let schema = upload.read_schema().await?;
    let mut batches = Vec::new();
    while let Some(batch) = upload.try_next().await? {
        batches.push(batch_to_arrow(&batch));
    }
    let arrow_schema = Arc::new(alkaid_arrow::arrow59::schema_to_arrow(&schema));
    datafusion::arrow::compute::concat_batches(&arrow_schema, &batches)
        .map_err(|e| Status::invalid_argument(format!("the parameters: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_targets_must_lie_under_the_directory() {
        let dir = Path::new("/srv/data");
        assert!(inside(dir, "/srv/data/out.parquet"));
        assert!(inside(dir, "file:///srv/data/sub/out.csv"));
        assert!(!inside(dir, "/srv/data/../etc/passwd"));
        assert!(!inside(dir, "/srv/database/x"));
        assert!(!inside(dir, "out.parquet"));
        assert!(!inside(dir, "s3://bucket/srv/data/x"));
    }
}

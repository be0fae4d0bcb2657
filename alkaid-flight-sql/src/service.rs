//! The Flight SQL service: what it holds, how it is made, and the work behind its calls
//! (the calls themselves, Flight's trait, are `flight_service.rs`).
//!
//! | call | commands |
//! | --- | --- |
//! | `GetFlightInfo`, `GetSchema` | statements, prepared statements, every metadata command |
//! | `DoGet` | a statement's ticket (its handle), a metadata command |
//! | `DoPut` | updates (`INSERT`, `COPY`), prepared statements' parameters and updates, bulk ingestion |
//! | `DoAction` | create and close prepared statements, `CancelFlightInfo`, `CancelQuery`, session options (`SetSessionOptions`, `GetSessionOptions`, `CloseSession`) |
//! | `Handshake` | answered at once (credentials are checked by `serve` before it) |
//!
//! Every execution of a statement runs in a session of its own (`session.rs`), under the
//! limits of [`SqlServiceOptions`]: its time, its memory, what it may write.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use alkaid_arrow::arrow59::{batch_from_arrow, schema_from_arrow};
use alkaid_datafusion::{register_alkaid_format, register_variant_functions};
use alkaid_flight::proto::{FlightEndpoint, FlightInfo};
use alkaid_flight::{
    FlightData, FlightDescriptor, FlightEncoder, FlightError, Ticket, encode_stream, schema_to_ipc,
};
use bytes::Bytes;
use datafusion::arrow::array::RecordBatch as ArrowBatch;
use datafusion::arrow::datatypes::SchemaRef as ArrowSchemaRef;
use datafusion::catalog::{
    CatalogProvider, CatalogProviderList, MemoryCatalogProvider, MemoryCatalogProviderList,
};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::SessionState;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::object_store::ObjectStore;
use datafusion::prelude::SessionContext;
use futures_util::{StreamExt, TryStreamExt};
use tonic::Status;
use tonic::codegen::BoxStream;

use crate::client_sessions::{Caller, ClientSessions};
use crate::command::{Command, Packed};
use crate::confined::{STAGING, Served};
use crate::execution::{Execution, Statement, result_schema};
use crate::guarded::Guarded;
use crate::metadata;
use crate::options::SqlServiceOptions;
use crate::proto::*;
use crate::session::{Sessions, Source, runtime, state_builder};
use crate::sql_info;
use crate::statements::{Pending, Prepared, Statements};
use crate::status::{Redactor, status};
use crate::tables::{CATALOG, DirectoryTables, SCHEMA};
use crate::xdbc_types;

/// A Flight SQL server over the tables of a directory.
///
/// Read-only unless its options allow writes ([`SqlServiceOptions::with_writes`]), with
/// every limit on by default; see [`SqlServiceOptions`].
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
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub tables: Arc<DirectoryTables>,
    pub sessions: Sessions,
    pub clients: ClientSessions,
    /// `GetSqlInfo`'s facts, made once.
    pub sql_info: Vec<(u32, sql_info::Value)>,
    pub statements: Statements,
    pub options: SqlServiceOptions,
    pub redactor: Redactor,
}

impl std::fmt::Debug for FlightSqlService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlightSqlService")
            .field("tables", &self.inner.tables.location())
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl FlightSqlService {
    /// Serves the tables of the local directory `dir` (see [`DirectoryTables`]).
    ///
    /// # Errors
    /// If `dir` is not a readable directory.
    pub fn new(dir: impl Into<PathBuf>, options: SqlServiceOptions) -> std::io::Result<Self> {
        let given = dir.into();
        let served = Arc::new(Served::new(&given)?);
        std::fs::read_dir(served.dir())?;
        remove_abandoned_staging(served.dir());
        let runtime = runtime(Some(&served), options.spill_limit).map_err(std::io::Error::other)?;
        let tables = DirectoryTables::new(served.dir(), state_builder(&runtime, &options).build());
        let redactor = Redactor::new(&[given.as_path(), served.dir()]);
        Self::serving(tables, runtime, Some(served), redactor, options)
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
        let runtime = runtime(None, options.spill_limit).map_err(std::io::Error::other)?;
        let listing = ListingTableUrl::parse(url).map_err(std::io::Error::other)?;
        runtime.register_object_store(listing.object_store().as_ref(), Arc::clone(&store));
        let tables =
            DirectoryTables::in_store(url, store, state_builder(&runtime, &options).build())
                .map_err(std::io::Error::other)?;
        Self::serving(tables, runtime, None, Redactor::default(), options)
    }

    fn serving(
        tables: DirectoryTables,
        runtime: Arc<RuntimeEnv>,
        served: Option<Arc<Served>>,
        redactor: Redactor,
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
        let state = state_builder(&runtime, &options)
            .with_catalog_list(catalogs)
            .build();
        let ctx = SessionContext::new_with_state(state);
        register_alkaid_format(&ctx);
        register_variant_functions(&ctx);
        let sessions = Sessions::new(ctx.state(), served, &options);
        let statements = Statements::new(options.max_statements, options.statement_timeout);
        let clients = ClientSessions::new(
            sessions.base(),
            options.max_statements,
            options.statement_timeout,
        );
        let server = sql_info::Server {
            statement_timeout_ms: i32::try_from(options.statement_timeout.as_millis())
                .unwrap_or(i32::MAX),
            read_only: !sessions.writable(),
        };
        let sql_info = sql_info::facts(server, &sessions.base());
        Ok(Self {
            inner: Arc::new(Inner {
                tables,
                sessions,
                clients,
                sql_info,
                statements,
                options,
                redactor,
            }),
        })
    }

    /// The bytes statements and bulk ingestion have written since the server started
    /// (what failed was given back).
    pub fn written_bytes(&self) -> u64 {
        self.inner.sessions.budget().written()
    }

    /// The memory the running queries' operators hold now, in bytes.
    pub fn query_memory(&self) -> usize {
        self.inner.sessions.memory_reserved()
    }

    /// `work`, ended with `DeadlineExceeded` when the statements' time limit passes
    /// first (dropping it leaves nothing it wrote).
    pub(crate) async fn timed<T>(
        &self,
        work: impl Future<Output = Result<T, Status>>,
    ) -> Result<T, Status> {
        match self.inner.options.query_time_limit {
            None => work.await,
            Some(limit) => tokio::time::timeout(limit, work).await.unwrap_or_else(|_| {
                Err(Status::deadline_exceeded(format!(
                    "the statement ran past its time limit of {limit:?}; nothing it wrote was \
                     kept"
                )))
            }),
        }
    }

    /// A fresh execution of a statement, in a client's session state (`None`: the
    /// server's).
    pub(crate) fn execution(&self, client: Option<Arc<SessionState>>) -> Result<Execution, Status> {
        self.inner.sessions.execution(client)
    }

    /// `caller`'s session state, when their session has settings of its own.
    fn client_state(&self, caller: &Caller) -> Option<Arc<SessionState>> {
        self.inner.clients.state(caller)
    }

    /// A query for `GetFlightInfo`: `source` planned in `caller`'s session and its writes
    /// checked.
    pub(crate) async fn query(
        &self,
        source: Source<'_>,
        caller: &Caller,
    ) -> Result<Pending, Status> {
        let session = self.client_state(caller);
        let plan = self.inner.sessions.plan(source, session.as_deref());
        let statement = Statement {
            plan: self.timed(plan).await?,
            parameters: None,
        };
        Ok(Pending {
            schema: statement.schema()?,
            statement,
            session,
        })
    }

    /// A prepared statement's query for `GetFlightInfo`: its plan and the parameters
    /// bound to it.
    pub(crate) fn prepared_query(&self, handle: &[u8]) -> Result<Pending, Status> {
        let prepared = self.inner.statements.prepared(handle)?;
        let statement = Statement {
            plan: self.inner.sessions.check(prepared.plan)?,
            parameters: prepared.parameters,
        };
        Ok(Pending {
            schema: statement.schema()?,
            statement,
            session: prepared.session,
        })
    }

    /// Prepares `source` in `caller`'s session: planned once, its writes checked.
    pub(crate) async fn prepare(
        &self,
        source: Source<'_>,
        caller: &Caller,
    ) -> Result<(Prepared, ArrowSchemaRef), Status> {
        let session = self.client_state(caller);
        let plan = self.inner.sessions.plan(source, session.as_deref());
        let plan = self.timed(plan).await?;
        let schema = result_schema(&plan);
        let prepared = Prepared {
            plan,
            parameters: None,
            session,
        };
        Ok((prepared, schema))
    }

    /// Runs the update `sql` in `caller`'s session; the rows it changed.
    pub(crate) async fn update(&self, sql: &str, caller: &Caller) -> Result<i64, Status> {
        let session = self.client_state(caller);
        self.timed(async {
            let plan = self
                .inner
                .sessions
                .plan(Source::Sql(sql), session.as_deref());
            let plan = plan.await?;
            let execution = self.execution(session)?;
            let statement = Statement {
                plan,
                parameters: None,
            };
            execution.update(statement).await
        })
        .await
    }

    /// Runs the prepared update `prepared` once per row of `parameters` (once when there
    /// are none, or no rows), in one execution; the rows changed.
    pub(crate) async fn prepared_update(
        &self,
        prepared: &Prepared,
        parameters: Option<ArrowBatch>,
    ) -> Result<i64, Status> {
        self.timed(async {
            let execution = self.execution(prepared.session.clone())?;
            let statement = Statement {
                plan: self.inner.sessions.check(prepared.plan.clone())?,
                parameters: parameters.filter(|rows| rows.num_rows() > 0),
            };
            execution.update(statement).await
        })
        .await
    }

    /// A planned query's batches as Flight messages: run under the time limit, stopped by
    /// cancellation, forgotten by the registry when done.
    pub(crate) fn run(
        &self,
        handle: Bytes,
        pending: Pending,
        cancelled: tokio::sync::watch::Receiver<bool>,
    ) -> Result<BoxStream<FlightData>, Status> {
        let Pending {
            statement,
            schema,
            session,
        } = pending;
        // In a session of its own, its writes checked again: files may have appeared
        // since it was planned.
        let statement = Statement {
            plan: self.inner.sessions.check(statement.plan)?,
            ..statement
        };
        let execution = self.execution(session)?;
        let mut cancelled = cancelled;
        let cancelled = async move {
            // A dropped sender (the registry forgot the query) is no cancellation.
            if cancelled.wait_for(|stop| *stop).await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let inner = Arc::clone(&self.inner);
        let batches = Guarded::new(
            execution.run(statement),
            cancelled,
            self.inner.options.query_time_limit,
            move || inner.statements.finish(&handle),
        );
        self.encoded(&schema, batches.boxed())
    }

    /// `batches` of `schema` as Flight messages.
    pub(crate) fn encoded(
        &self,
        schema: &ArrowSchemaRef,
        batches: BoxStream<ArrowBatch>,
    ) -> Result<BoxStream<FlightData>, Status> {
        let declared = Arc::clone(schema);
        let ours = batches.map(move |batch| {
            let mut batch = batch?;
            // The plan's schema may call a column nullable that the batches, computed,
            // know to have no nulls (`SELECT arrow_typeof(now())`): they are sent under
            // the schema the client was told, which admits them.
            let stricter = batch.schema();
            if stricter != declared {
                batch = batch.with_schema(Arc::clone(&declared)).map_err(|_| {
                    Status::internal(format!(
                        "a batch of schema {stricter} where {declared} was declared"
                    ))
                })?;
            }
            let ours = batch_from_arrow(&batch).map_err(|e| Status::internal(e.to_string()))?;
            Ok::<_, FlightError>((ours, Bytes::new()))
        });
        let schema = schema_from_arrow(schema).map_err(|e| Status::internal(e.to_string()))?;
        let encoder = FlightEncoder::new(Arc::new(schema), self.inner.options.write.clone())?;
        Ok(Box::pin(
            encode_stream(encoder, Box::pin(ours)).map_err(Status::from),
        ))
    }

    /// The FlightInfo of a query whose result has `schema`, fetched by `ticket`.
    pub(crate) fn flight_info(
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
    pub(crate) fn ipc_schema(&self, schema: &ArrowSchemaRef) -> Result<Bytes, Status> {
        let ours = schema_from_arrow(schema).map_err(|e| Status::internal(e.to_string()))?;
        Ok(schema_to_ipc(Arc::new(ours), &self.inner.options.write)?)
    }

    /// The result schema of a metadata command, and its rows.
    pub(crate) async fn metadata(
        &self,
        command: &Command,
        rows: bool,
    ) -> Result<(ArrowSchemaRef, Option<ArrowBatch>), Status> {
        let arrow = |e: datafusion::arrow::error::ArrowError| Status::internal(e.to_string());
        let (schema, batch) = match command {
            Command::CommandGetSqlInfo(c) => {
                let batch = rows
                    .then(|| sql_info::answer(&c.info, &self.inner.sql_info))
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

    /// Cancels the queries of `info`'s tickets; whether one was pending or running.
    pub(crate) fn cancel(&self, info: Option<&FlightInfo>) -> bool {
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

/// Removes what statements of server processes that are gone left staged (a write cut
/// short by the process's end), so that it does not hold the disk for good. A process
/// that is still running keeps its own.
fn remove_abandoned_staging(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir.join(STAGING)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name.split('-').next().and_then(|p| p.parse::<u32>().ok());
        let alive = pid.is_some_and(|pid| {
            pid == std::process::id() || std::path::Path::new(&format!("/proc/{pid}")).exists()
        });
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The parameters of `plan` as a schema of `$1`, `$2`, … in order, `None` when it has none.
pub(crate) fn parameter_schema(
    plan: &datafusion::logical_expr::LogicalPlan,
) -> Result<Option<ArrowSchemaRef>, Status> {
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

/// The command a descriptor carries.
pub(crate) fn command_of(descriptor: &FlightDescriptor) -> Result<Command, Status> {
    if descriptor.cmd.is_empty() {
        return Err(Status::invalid_argument(
            "a Flight SQL descriptor carries a command (this server names no flights by path)",
        ));
    }
    Command::unpack(&descriptor.cmd)
}

/// A query's ticket: its handle, packed.
pub(crate) fn ticket(handle: Bytes) -> Bytes {
    TicketStatementQuery {
        statement_handle: handle,
    }
    .pack()
}

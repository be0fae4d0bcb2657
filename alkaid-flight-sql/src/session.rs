//! The sessions statements run in. One base session is built when the service starts
//! (functions, formats, the tables' catalog: building one takes longer than a small
//! query), and every statement is planned in it; each execution of a statement runs in a
//! task context of its own from it, with its own memory pool inside the server's
//! ([`QueryPool`]) and its own view of the local file system ([`ConfinedStore`], with the
//! execution's staged writes when writes are allowed), so that one execution's memory,
//! files and failure are its own.

use std::sync::Arc;

use alkaid_flight::WriteBudget;
use datafusion::common::Result;
use datafusion::execution::cache::cache_manager::CacheManagerConfig;
use datafusion::execution::disk_manager::DiskManagerBuilder;
use datafusion::execution::object_store::ObjectStoreRegistry;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::{SessionState, SessionStateBuilder, TaskContext};
use datafusion::logical_expr::LogicalPlan;
use datafusion::object_store::ObjectStore;
use datafusion::prelude::{SQLOptions, SessionConfig};
use tonic::Status;
use url::Url;

use crate::confined::{ConfinedStore, Served, StagedWrites};
use crate::execution::Execution;
use crate::memory::{QueryPool, ServerPool};
use crate::options::SqlServiceOptions;
use crate::placeholders;
use crate::proto::SubstraitPlan;
use crate::status::{refused, status};
use crate::substrait;
use crate::tables::{CATALOG, SCHEMA};
use crate::write_plan::{self, WriteRules};

/// What a statement may be: queries and DML (`INSERT`, `COPY`), never DDL (which would
/// reach files outside the directory) or session statements.
fn sql_options() -> SQLOptions {
    SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_statements(false)
        .with_allow_dml(true)
}

/// The session configuration every statement runs with (and tables are opened with):
/// INT96 in microseconds when `options` ask, through DataFusion's own option, which
/// alkaid-datafusion's Parquet tables follow.
pub fn config(options: &SqlServiceOptions) -> SessionConfig {
    let mut config = SessionConfig::new()
        .with_default_catalog_and_schema(CATALOG, SCHEMA)
        .with_create_default_catalog_and_schema(false)
        .with_information_schema(false);
    if options.int96_as_microseconds {
        config.options_mut().execution.parquet.coerce_int96 = Some("us".into());
    }
    config
}

/// The runtime every statement's starts from: the local file system confined to the
/// served directory (`served`; `None` when the tables are in an object store, and no
/// local file may be touched), temporary files bounded by `spill_limit`. DataFusion's
/// cache of directory listings is off: it keeps a directory table's first listing for
/// good, so a file added to the directory would never be read; [`DirectoryTables`]
/// lists on each lookup and keeps opened tables while their files are unchanged instead.
///
/// [`DirectoryTables`]: crate::DirectoryTables
pub fn runtime(served: Option<&Arc<Served>>, spill_limit: u64) -> Result<Arc<RuntimeEnv>> {
    let caches = CacheManagerConfig::default().with_list_files_cache_limit(0);
    let spill = DiskManagerBuilder::default().with_max_temp_directory_size(spill_limit);
    let runtime = RuntimeEnvBuilder::new()
        .with_cache_manager(caches)
        .with_disk_manager_builder(spill)
        .build_arc()?;
    let local: Arc<dyn ObjectStore> = Arc::new(ConfinedStore::new(served.cloned(), None));
    runtime.register_object_store(&local_url(), local);
    Ok(runtime)
}

/// The URL DataFusion finds the local file system's store under.
fn local_url() -> Url {
    Url::parse("file://").expect("a URL")
}

/// A session state over `runtime` with DataFusion's functions and the service's
/// configuration.
pub fn state_builder(
    runtime: &Arc<RuntimeEnv>,
    options: &SqlServiceOptions,
) -> SessionStateBuilder {
    SessionStateBuilder::new()
        .with_config(config(options))
        .with_default_features()
        .with_runtime_env(Arc::clone(runtime))
}

/// What a client sends to be planned.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// SQL text.
    Sql(&'a str),
    /// A Substrait plan.
    Substrait(&'a SubstraitPlan),
}

/// What every execution's session is made from.
#[derive(Debug)]
pub struct Sessions {
    base: Arc<SessionState>,
    served: Option<Arc<Served>>,
    memory: Arc<ServerPool>,
    query_memory: Option<usize>,
    budget: WriteBudget,
    writes: bool,
}

impl Sessions {
    /// Sessions from `base`, over `served` (`None`: tables in an object store), as
    /// `options` say.
    pub fn new(
        base: SessionState,
        served: Option<Arc<Served>>,
        options: &SqlServiceOptions,
    ) -> Self {
        Self {
            base: Arc::new(base),
            served,
            memory: Arc::new(ServerPool::new(options.server_memory_limit)),
            query_memory: options.query_memory_limit,
            budget: WriteBudget::new(options.write_per_statement, options.write_in_all),
            writes: options.writes,
        }
    }

    /// What statements and ingestion may write, together.
    pub fn budget(&self) -> &WriteBudget {
        &self.budget
    }

    /// The served directory, `None` when the tables are in an object store.
    pub fn served(&self) -> Option<&Arc<Served>> {
        self.served.as_ref()
    }

    /// Whether clients may write.
    pub fn writes(&self) -> bool {
        self.writes
    }

    /// Whether clients may write here: allowed, and the tables are local.
    pub fn writable(&self) -> bool {
        self.writes && self.served.is_some()
    }

    /// The memory all running queries hold now.
    pub fn memory_reserved(&self) -> usize {
        self.memory.reserved()
    }

    /// The server's own session state, which clients' sessions start from.
    pub fn base(&self) -> Arc<SessionState> {
        Arc::clone(&self.base)
    }

    /// A session for one execution of a statement, from `client`'s session state (the
    /// server's when `None`).
    pub fn execution(&self, client: Option<Arc<SessionState>>) -> Result<Execution, Status> {
        let state = client.unwrap_or_else(|| Arc::clone(&self.base));
        let base = state.runtime_env();
        let mut runtime = RuntimeEnvBuilder::from_runtime_env(base)
            .with_memory_pool(Arc::new(QueryPool::new(self.query_memory, &self.memory)));
        let staged = match (&self.served, self.writes) {
            (Some(served), true) => Some(Arc::new(StagedWrites::new(
                Arc::clone(served),
                &self.budget,
            ))),
            _ => None,
        };
        if let Some(writes) = &staged {
            let local = ConfinedStore::new(self.served.clone(), Some(Arc::clone(writes)));
            runtime = runtime.with_object_store_registry(Arc::new(ExecutionStores {
                local: Arc::new(local),
                rest: Arc::clone(&base.object_store_registry),
            }));
        }
        let runtime = runtime.build_arc().map_err(status)?;
        // Not a session of its own, only a task context: building a session registers
        // every function anew, which costs more than a small query.
        let task = Arc::new(TaskContext::from(state.as_ref()).with_runtime(runtime));
        Ok(Execution::new(state, task, staged))
    }

    /// `source` planned (in `client`'s session state, the base session's when `None`:
    /// planning reads the catalog, never a file's bytes), a statement this server runs,
    /// its writes checked.
    ///
    /// # Errors
    /// If it does not parse or plan, is not a statement this server runs, or writes what
    /// it may not.
    pub async fn plan(
        &self,
        source: Source<'_>,
        client: Option<&SessionState>,
    ) -> Result<LogicalPlan, Status> {
        let state = client.unwrap_or(&self.base);
        let plan = match source {
            Source::Sql(sql) => {
                let sql = placeholders::numbered(sql).map_err(Status::invalid_argument)?;
                state.create_logical_plan(&sql).await.map_err(status)?
            }
            Source::Substrait(plan) => substrait::logical(state, plan).await?,
        };
        sql_options().verify_plan(&plan).map_err(status)?;
        self.check(plan)
    }

    /// `plan` with its writes checked (again, for a plan made earlier: files may have
    /// appeared since).
    ///
    /// # Errors
    /// If it writes what it may not.
    pub fn check(&self, plan: LogicalPlan) -> Result<LogicalPlan, Status> {
        let rules = WriteRules {
            served: self.served.as_deref(),
            allowed: self.writes,
        };
        write_plan::checked(plan, rules).map_err(refused)
    }
}

/// One execution's object stores: the local file system through its own
/// [`ConfinedStore`], every other store as the base session has it.
#[derive(Debug)]
struct ExecutionStores {
    local: Arc<dyn ObjectStore>,
    rest: Arc<dyn ObjectStoreRegistry>,
}

impl ObjectStoreRegistry for ExecutionStores {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        match url.scheme() {
            // The local file system stays confined.
            "file" => None,
            _ => self.rest.register_store(url, store),
        }
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        match url.scheme() {
            "file" => Ok(Arc::clone(&self.local)),
            _ => self.rest.get_store(url),
        }
    }
}

//! Alkaid tables on a Ballista cluster: the client, the scheduler and every executor use
//! Alkaid's codecs around Ballista's own, so that a query over [`AlkaidTable`]s is
//! planned by the scheduler and its scans run on the executors through Alkaid's reader.
//!
//! The `alkaid-ballista` binary (this crate, feature `ballista`) runs a scheduler or an
//! executor with those codecs:
//!
//! ```text
//! alkaid-ballista scheduler --port 50050 --executors 2
//! alkaid-ballista executor --port 50051 --grpc-port 50052 --scheduler-port 50050 --work-dir /tmp/e1
//! ```
//!
//! A client connects with [`remote_context`] and registers tables as on one machine:
//!
//! ```no_run
//! use alkaid_datafusion::AlkaidContextExt;
//! # #[allow(dead_code)]
//! # async fn run() -> datafusion::common::Result<()> {
//! use alkaid_datafusion::ballista::{remote_context, session_config};
//! let ctx = remote_context("df://127.0.0.1:50050", session_config()).await?;
//! ctx.register_alkaid("t", "/data/events/").await?;
//! let batches = ctx.sql("SELECT count(*) FROM t").await?.collect().await?;
//! assert_eq!(batches[0].num_rows(), 1);
//! # Ok(()) }
//! ```
//!
//! Every process must reach the table's files at the same URL: a shared file system, or an
//! object store registered in each process's runtime.
//!
//! [`AlkaidTable`]: crate::AlkaidTable

use std::net::SocketAddr;
use std::sync::Arc;

use ballista::extension::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};

use crate::{AlkaidLogicalCodec, AlkaidPhysicalCodec, register_alkaid_format};

/// Alkaid's logical codec around Ballista's.
pub fn logical_codec() -> Arc<dyn LogicalExtensionCodec> {
    Arc::new(AlkaidLogicalCodec::new(Arc::new(
        BallistaLogicalExtensionCodec::default(),
    )))
}

/// Alkaid's physical codec around Ballista's.
pub fn physical_codec() -> Arc<dyn PhysicalExtensionCodec> {
    Arc::new(AlkaidPhysicalCodec::new(Arc::new(
        BallistaPhysicalExtensionCodec::default(),
    )))
}

/// A Ballista client's session configuration with Alkaid's codecs, to adjust (target
/// partitions, batch size) before [`remote_context`].
pub fn session_config() -> SessionConfig {
    SessionConfig::new_with_ballista()
        .with_ballista_logical_extension_codec(logical_codec())
        .with_ballista_physical_extension_codec(physical_codec())
}

/// A session with `config` (from [`session_config`]) whose queries run on the Ballista
/// cluster whose scheduler is at `url` (`df://host:port`), with Alkaid's format
/// registered ([`register_alkaid_format`]).
///
/// # Errors
/// If `url` is not a scheduler URL.
pub async fn remote_context(url: &str, config: SessionConfig) -> Result<SessionContext> {
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .build();
    let ctx = SessionContext::remote_with_state(url, state).await?;
    register_alkaid_format(&ctx);
    Ok(ctx)
}

/// Runs a Ballista scheduler with Alkaid's codecs on `listener` until the process ends.
/// `on_ready` is called once `executors` executors have registered (at once when 0).
///
/// # Errors
/// If the scheduler does not start or its service fails.
pub async fn run_scheduler(
    listener: tokio::net::TcpListener,
    executors: usize,
    on_ready: impl FnOnce() + Send + 'static,
) -> Result<()> {
    let address = listener.local_addr()?;
    let mut config = SchedulerConfig::default()
        .with_hostname(address.ip().to_string())
        .with_port(address.port());
    config.bind_host = address.ip().to_string();
    config.override_logical_codec = Some(logical_codec());
    config.override_physical_codec = Some(physical_codec());
    config.min_ready_executors = executors;
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(ballista_error)?;
    let scheduler =
        create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::new(config))
            .await
            .map_err(ballista_error)?;
    let watched = scheduler.clone();
    tokio::spawn(async move {
        // Executors register within seconds of starting; polling a flag this cheap
        // every 50 ms costs nothing.
        while !watched.is_ready() {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        on_ready();
    });
    start_grpc_service_with_listener(listener, scheduler)
        .await
        .map_err(ballista_error)
}

/// Where a Ballista executor listens, and the scheduler it serves.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The executor's Flight service (where other executors and clients fetch results).
    pub flight: SocketAddr,
    /// The executor's gRPC service (where the scheduler sends tasks).
    pub grpc_port: u16,
    /// The scheduler's address.
    pub scheduler: SocketAddr,
    /// Where shuffle files go (a temporary directory when `None`).
    pub work_dir: Option<String>,
    /// How many tasks run at once (the machine's cores when 0).
    pub slots: usize,
}

/// Runs a Ballista executor with Alkaid's codecs until the process ends.
///
/// # Errors
/// If the executor does not start (its ports are taken, the scheduler cannot be reached).
pub async fn run_executor(options: ExecutorOptions) -> Result<()> {
    let mut config = ExecutorProcessConfig {
        bind_host: options.flight.ip().to_string(),
        external_host: Some(options.flight.ip().to_string()),
        port: options.flight.port(),
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler.ip().to_string(),
        scheduler_port: options.scheduler.port(),
        work_dir: options.work_dir,
        override_logical_codec: Some(logical_codec()),
        override_physical_codec: Some(physical_codec()),
        ..ExecutorProcessConfig::default()
    };
    if options.slots > 0 {
        config.vcores = options.slots;
    }
    start_executor_process(Arc::new(config))
        .await
        .map_err(ballista_error)
}

/// A Ballista error as a DataFusion error.
fn ballista_error(error: ballista_core::error::BallistaError) -> DataFusionError {
    DataFusionError::External(Box::new(error))
}

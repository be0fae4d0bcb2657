//! What the server holds between calls: prepared statements (SQL and bound parameters)
//! and queries planned by `GetFlightInfo` that wait for their `DoGet` or are streaming.
//! Each is found by an opaque handle; both are bounded in number and forgotten after the
//! statement timeout unused, so clients that never close cannot grow the server.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef as ArrowSchemaRef;
use datafusion::execution::SessionState;
use datafusion::logical_expr::LogicalPlan;
use tokio::sync::watch;
use tonic::Status;

use crate::execution::Statement;
use crate::expiring::Expiring;

/// A prepared statement.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Its plan, made once when it was prepared; each execution binds its parameters
    /// into a copy instead of parsing and planning the SQL again.
    pub plan: LogicalPlan,
    /// The parameter values bound by the client's last `DoPut`, one row per execution.
    pub parameters: Option<RecordBatch>,
    /// The client's session state it was prepared in, which its executions run in
    /// (`None`: the server's).
    pub session: Option<Arc<SessionState>>,
}

/// A query planned by `GetFlightInfo`, before its `DoGet`: the statement alone (its plan
/// and parameters), so that a query waiting costs its plan, not a session; its `DoGet`
/// runs it in a session of its own.
pub struct Pending {
    /// What runs.
    pub statement: Statement,
    /// Its result's schema.
    pub schema: ArrowSchemaRef,
    /// The client's session state it was planned in, which it runs in (`None`: the
    /// server's).
    pub session: Option<Arc<SessionState>>,
}

/// Tells a running query to stop; its receiver is polled beside the query's batches.
pub type Cancel = watch::Sender<bool>;

/// Handles to prepared statements and queries.
pub struct Statements {
    prepared: Expiring<Bytes, Prepared>,
    pending: Expiring<Bytes, Pending>,
    running: Mutex<HashMap<Bytes, Cancel>>,
    counter: AtomicU64,
    /// Makes handles unguessable across server runs.
    seed: u64,
}

impl Statements {
    /// At most `limit` prepared statements and `limit` pending queries, each forgotten
    /// after `timeout` unused.
    pub fn new(limit: usize, timeout: Duration) -> Self {
        Self {
            prepared: Expiring::new(limit, timeout),
            pending: Expiring::new(limit, timeout),
            running: Mutex::default(),
            counter: AtomicU64::new(0),
            seed: RandomState::new().hash_one(Instant::now()),
        }
    }

    /// A fresh handle.
    fn handle(&self) -> Bytes {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let tag = RandomState::new().hash_one((self.seed, n));
        let mut handle = Vec::with_capacity(16);
        handle.extend_from_slice(&n.to_be_bytes());
        handle.extend_from_slice(&tag.to_be_bytes());
        Bytes::from(handle)
    }

    /// Prepares `statement`, returning its handle.
    pub fn prepare(&self, statement: Prepared) -> Result<Bytes, Status> {
        let handle = self.handle();
        self.prepared
            .insert(handle.clone(), statement, "prepared statement")?;
        Ok(handle)
    }

    /// The prepared statement of `handle` (its expiry restarted).
    pub fn prepared(&self, handle: &[u8]) -> Result<Prepared, Status> {
        self.prepared
            .with(handle, false, |prepared| prepared.clone())
            .ok_or_else(|| {
                Status::not_found("no such prepared statement: closed, expired, or never made here")
            })
    }

    /// Binds `parameters` to the prepared statement of `handle` (one that expired but is
    /// not forgotten yet lives again).
    pub fn bind(&self, handle: &[u8], parameters: RecordBatch) -> Result<(), Status> {
        self.prepared
            .with(handle, true, |prepared| {
                prepared.parameters = Some(parameters)
            })
            .ok_or_else(|| Status::not_found("no such prepared statement"))
    }

    /// Closes the prepared statement of `handle`; closing one twice is not an error.
    pub fn close(&self, handle: &[u8]) {
        self.prepared.remove(handle);
    }

    /// Keeps a planned query for its `DoGet`, returning its handle.
    pub fn plan(&self, query: Pending) -> Result<Bytes, Status> {
        let handle = self.handle();
        self.pending
            .insert(handle.clone(), query, "query waiting for its DoGet")?;
        Ok(handle)
    }

    /// Takes the planned query of `handle` to run it, with what cancels it; a query runs
    /// once.
    pub fn start(&self, handle: &Bytes) -> Result<(Pending, watch::Receiver<bool>), Status> {
        let query = self.pending.take(handle).ok_or_else(|| {
            Status::not_found(
                "no such query: fetched already, cancelled, expired, or never planned here",
            )
        })?;
        let (cancel, cancelled) = watch::channel(false);
        self.running
            .lock()
            .expect("no panics while held")
            .insert(handle.clone(), cancel);
        Ok((query, cancelled))
    }

    /// Forgets the running query of `handle` (it ended).
    pub fn finish(&self, handle: &[u8]) {
        self.running
            .lock()
            .expect("no panics while held")
            .remove(handle);
    }

    /// Cancels the query of `handle`: a pending one is forgotten, a running one told to
    /// stop. Whether there was such a query.
    pub fn cancel(&self, handle: &[u8]) -> bool {
        let pending = self.pending.remove(handle);
        let running = self
            .running
            .lock()
            .expect("no panics while held")
            .remove(handle);
        if let Some(cancel) = &running {
            let _ = cancel.send(true);
        }
        pending.is_some() || running.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement() -> Prepared {
        let plan = LogicalPlan::EmptyRelation(datafusion::logical_expr::EmptyRelation {
            produce_one_row: true,
            schema: Arc::new(datafusion::common::DFSchema::empty()),
        });
        Prepared {
            plan,
            parameters: None,
            session: None,
        }
    }

    #[test]
    fn handles_are_distinct_bounded_and_expire() {
        let statements = Statements::new(2, Duration::from_millis(200));
        let a = statements.prepare(statement()).unwrap();
        let b = statements.prepare(statement()).unwrap();
        assert_ne!(a, b);
        let full = statements.prepare(statement()).unwrap_err();
        assert_eq!(full.code(), tonic::Code::ResourceExhausted);
        statements.close(&a);
        statements.close(&a);
        assert_eq!(
            statements.prepared(&a).unwrap_err().code(),
            tonic::Code::NotFound
        );
        assert!(statements.prepared(&b).is_ok());
        std::thread::sleep(Duration::from_millis(250));
        assert!(statements.prepared(&b).is_err(), "expired");
        // Expired entries make room.
        statements.prepare(statement()).unwrap();
        statements.prepare(statement()).unwrap();
    }

    fn pending() -> Pending {
        Pending {
            statement: Statement {
                plan: statement().plan,
                parameters: None,
            },
            schema: Arc::new(datafusion::arrow::datatypes::Schema::empty()),
            session: None,
        }
    }

    #[test]
    fn a_cancelled_query_is_gone_or_told_to_stop() {
        let statements = Statements::new(4, Duration::from_secs(60));
        let handle = statements.plan(pending()).unwrap();
        assert!(statements.cancel(&handle));
        assert!(statements.start(&handle).is_err());
        let handle = statements.plan(pending()).unwrap();
        let (_, cancelled) = statements.start(&handle).unwrap();
        assert!(statements.start(&handle).is_err(), "a query runs once");
        assert!(statements.cancel(&handle));
        assert!(*cancelled.borrow());
        assert!(!statements.cancel(&handle));
    }
}

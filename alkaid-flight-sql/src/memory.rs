//! Memory for queries: each query's operators (sorts, joins, aggregates, what they
//! buffer) may hold up to the limit of one query, and all running queries together up to
//! the server's limit, so that many clients at once cannot take more than one client
//! alone could take several times over. A query that would pass either fails with
//! `ResourceExhausted` (or spills, where its operator can), and the others go on.

use std::fmt;
use std::sync::Arc;

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{
    GreedyMemoryPool, MemoryLimit, MemoryPool, MemoryReservation,
};

/// One query's memory pool: its own limit, inside the server's shared one.
#[derive(Debug)]
pub struct QueryPool {
    query: GreedyMemoryPool,
    query_limit: usize,
    server: Arc<ServerPool>,
}

/// The memory all running queries share.
#[derive(Debug)]
pub struct ServerPool {
    pool: GreedyMemoryPool,
    limit: usize,
}

impl ServerPool {
    /// At most `limit` bytes for all queries together (`None`: no limit).
    pub fn new(limit: Option<usize>) -> Self {
        let limit = limit.unwrap_or(usize::MAX);
        Self {
            pool: GreedyMemoryPool::new(limit),
            limit,
        }
    }

    /// The bytes the queries hold now.
    pub fn reserved(&self) -> usize {
        self.pool.reserved()
    }
}

impl QueryPool {
    /// A query's pool of at most `limit` bytes (`None`: the server's limit alone) in
    /// `server`.
    pub fn new(limit: Option<usize>, server: &Arc<ServerPool>) -> Self {
        let query_limit = limit.unwrap_or(usize::MAX);
        Self {
            query: GreedyMemoryPool::new(query_limit),
            query_limit,
            server: Arc::clone(server),
        }
    }
}

impl fmt::Display for QueryPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a query's memory ({} of {} bytes; all queries {} of {})",
            self.query.reserved(),
            self.query_limit,
            self.server.pool.reserved(),
            self.server.limit
        )
    }
}

impl MemoryPool for QueryPool {
    fn name(&self) -> &str {
        "alkaid query"
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.query.grow(reservation, additional);
        self.server.pool.grow(reservation, additional);
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.query.shrink(reservation, shrink);
        self.server.pool.shrink(reservation, shrink);
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        self.query.try_grow(reservation, additional).map_err(|e| {
            DataFusionError::ResourcesExhausted(format!(
                "the query passed its memory limit of {} bytes ({})",
                self.query_limit,
                e.strip_backtrace()
            ))
        })?;
        if let Err(e) = self.server.pool.try_grow(reservation, additional) {
            self.query.shrink(reservation, additional);
            return Err(DataFusionError::ResourcesExhausted(format!(
                "the server's queries together hold their memory limit of {} bytes: try \
                 again later ({})",
                self.server.limit,
                e.strip_backtrace()
            )));
        }
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.query.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        MemoryLimit::Finite(self.query_limit.min(self.server.limit))
    }
}

#[cfg(test)]
mod tests {
    use datafusion::execution::memory_pool::MemoryConsumer;

    use super::*;

    #[test]
    fn a_query_is_held_to_its_own_limit_and_all_queries_to_the_servers() {
        let server = Arc::new(ServerPool::new(Some(150)));
        let a: Arc<dyn MemoryPool> = Arc::new(QueryPool::new(Some(100), &server));
        let b: Arc<dyn MemoryPool> = Arc::new(QueryPool::new(Some(100), &server));
        let ra = MemoryConsumer::new("a").register(&a);
        let rb = MemoryConsumer::new("b").register(&b);
        ra.try_grow(90).unwrap();
        let own = ra.try_grow(20).unwrap_err().to_string();
        assert!(own.contains("its memory limit of 100 bytes"), "{own}");
        let shared = rb.try_grow(70).unwrap_err().to_string();
        assert!(
            shared.contains("together hold their memory limit of 150"),
            "{shared}"
        );
        assert_eq!(b.reserved(), 0, "a refused request takes nothing");
        rb.try_grow(60).unwrap();
        assert_eq!(server.reserved(), 150);
        drop(ra);
        assert_eq!(
            server.reserved(),
            60,
            "a query's memory goes back when it ends"
        );
        rb.try_grow(40).unwrap();
    }
}

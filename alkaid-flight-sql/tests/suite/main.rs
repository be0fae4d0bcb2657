//! The integration tests of alkaid-flight-sql, as one test binary: each file is a module,
//! so the crate and its dependencies are linked once.

#[path = "../../../alkaid-flight/tests/support/certificates.rs"]
mod certificates;
#[path = "../../../alkaid-ipc-async/tests/moto/mod.rs"]
mod moto;
// moto's module holds a copy of its own, out of reach.
#[allow(clippy::duplicate_mod)]
#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod python;

mod adbc;
mod attacks;
mod dbapi;
mod hostile;
mod jdbc;
mod measured;
mod memory;
mod protocol;
mod server;
mod sessions;
mod sql_client;
mod store;
#[cfg(feature = "substrait")]
mod substrait;
mod tls;
mod writes;

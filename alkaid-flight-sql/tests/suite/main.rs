//! The integration tests of alkaid-flight-sql, as one test binary: each file is a module,
//! so the crate and its dependencies are linked once.

#[path = "../../../alkaid-flight/tests/support/certificates.rs"]
mod certificates;
#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod python;

mod adbc;
mod protocol;
mod server;
mod tls;

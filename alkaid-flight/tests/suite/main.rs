//! The integration tests of alkaid-flight, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once.

#[path = "../../../alkaid-ipc/tests/support/batches.rs"]
mod batches;
#[path = "../support/certificates.rs"]
mod certificates;
#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;
#[path = "../peers/mod.rs"]
mod peers;

mod attacks;
mod auth;
mod faults;
mod providers;
mod pyarrow;
mod service;

//! The integration tests of alkaid-datafusion, as one test binary: each file is a module, so the
//! crate and its dependencies are linked once.

#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod python;
#[path = "../tables/mod.rs"]
mod tables;

mod ballista;
mod codec;
mod differential;
mod evolving;
mod parquet;
mod sql;
mod variant;

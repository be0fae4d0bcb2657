//! The integration tests of alkaid-ipc-async, as one test binary: each file is a module, so the
//! crate and its dependencies are linked once.

#[path = "../../../alkaid-ipc/tests/support/batches.rs"]
mod batches;
#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;
#[path = "../moto/mod.rs"]
mod moto;
#[path = "../ranges/mod.rs"]
mod ranges;

mod async_io;
mod ranged_file;
mod s3;

//! The integration tests of alkaid-compute, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once.

#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;
#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod peer_python;
#[path = "../support/reference.rs"]
mod reference;

mod arrow_oracle;
mod cast;
mod properties;
mod pyarrow_compute;
mod sort;
mod string;

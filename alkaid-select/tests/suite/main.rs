//! The integration tests of alkaid-select, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once.

#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;

mod combine;
mod concat;
mod filter;
mod take;

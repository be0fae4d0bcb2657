//! The integration tests of alkaid-arrow, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once. The bridge tests are written once under `bridge/` and run
//! once per arrow-rs release (`bridge_59`, `bridge_60`).
// bridge/ is compiled twice on purpose: once per arrow-rs release (bridge_59, bridge_60).
#![allow(clippy::duplicate_mod)]

#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;

mod arrow_ipc;
mod bridge_59;
mod bridge_60;
mod c_data_array;
mod c_data_schema;

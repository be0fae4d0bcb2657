//! The integration tests of alkaid-ipc, as one test binary: each file is a module, so the crate and
//! its dependencies are linked once. Four tests need a process of their own and are binaries beside
//! this one: `hostile.rs` and `limits.rs` count allocations with a global allocator, `resident.rs`
//! measures the process's resident memory, and `mapping_reuse.rs` uses the process-wide shelf of
//! mappings.

#[path = "../support/batches.rs"]
mod batches;
#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;
#[path = "../support/held.rs"]
mod held;
#[path = "../support/python.rs"]
mod python;
#[path = "../support/mod.rs"]
mod support;

mod conformance;
mod dictionaries;
mod file_select;
mod layout;
mod message_encoder;
mod peers;
mod projection;
mod pyarrow_fixtures;
mod round_trip;
mod strict_validation;
mod unify;
mod write_while_compressing;
mod writes;

//! The integration tests of alkaid-compute, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once.

#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;
#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod peer_python;
#[path = "../support/reference.rs"]
mod reference;

mod aggregate_pyarrow;
mod arrow_oracle;
mod bitwise;
mod cast;
mod conditional;
mod conditional_pyarrow;
mod math;
mod math_pyarrow;
mod nested;
mod properties;
mod pyarrow_compute;
mod row_merge;
mod sort;
mod string;
mod temporal_pyarrow;
mod variant;
mod with_offset;

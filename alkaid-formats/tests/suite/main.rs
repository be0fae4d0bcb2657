//! The integration tests of alkaid-formats, as one test binary: each file is a module, so the
//! crate and its dependencies are linked once.

#[path = "../../../alkaid-data/tests/common/mod.rs"]
mod common;
#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod python;

mod csv_direct;
mod errors;
mod parquet_corpus;
mod pruning;
mod pyarrow;
mod ranged_text;
mod variant_corpus;

//! The integration tests of alkaid-data, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once. `ffi_leaks.rs` counts with a global allocator of its own,
//! so it is a binary of its own.

#[path = "../common/mod.rs"]
mod common;

mod ffi;
mod ffi_device;
mod properties;
mod validation;

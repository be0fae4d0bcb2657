//! The integration tests of alkaid-array, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once.

mod arrays;
mod display;
mod dynamic;
mod ffi_device_stream;
mod ffi_stream;
mod variant_peer;

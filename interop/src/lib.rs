//! Nothing to use: this crate holds the tests (`tests/`) that exchange data with arrow-rs
//! through the C data interface in one process. It lives apart so that only these tests
//! compile arrow-rs's `ffi` modules, and never the whole `arrow` crate.

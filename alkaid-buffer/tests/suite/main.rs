//! The integration tests of alkaid-buffer, as one test binary: each file is a module, so the crate
//! and its dependencies are linked once. `memory_accounting.rs` reads a process-wide counter, so it
//! is a binary of its own.

mod bit_kernels;
mod foreign_memory;

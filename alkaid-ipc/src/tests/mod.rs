//! Tests that build IPC bytes by hand with the crate's own message writers, so they live
//! inside the crate rather than under `alkaid-ipc/tests/`.

mod big_endian;

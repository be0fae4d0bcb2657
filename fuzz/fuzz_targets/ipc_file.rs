//! The file reader over fuzzer bytes (see `alkaid_fuzz::ipc_file`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::ipc_file(data));

//! The zero-copy readers over fuzzer bytes (see `alkaid_fuzz::ipc_zero_copy`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::ipc_zero_copy(data));

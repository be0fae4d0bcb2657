//! The stream readers over fuzzer bytes (see `alkaid_fuzz::ipc_stream`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::ipc_stream(data));

//! alkaid-formats' json reader over fuzzer bytes (see `alkaid_fuzz::json`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::json(data));

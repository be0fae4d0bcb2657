//! alkaid-formats' csv reader over fuzzer bytes (see `alkaid_fuzz::csv`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::csv(data));

//! alkaid-formats' parquet reader over fuzzer bytes (see `alkaid_fuzz::parquet`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::parquet(data));

//! alkaid-formats' parquet reader over fuzzer bytes (see `alkaid_fuzz::parquet`). arrow-rs
//! panics the reader catches are logged once per place, not crashes
//! (`alkaid_fuzz::report_caught_panics`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    alkaid_fuzz::report_caught_panics();
    alkaid_fuzz::parquet(data)
});

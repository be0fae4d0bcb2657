//! Integration JSON over fuzzer bytes (see `alkaid_fuzz::integration_json`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::integration_json(data));

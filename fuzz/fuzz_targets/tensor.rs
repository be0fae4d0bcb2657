//! Tensor and sparse tensor messages over fuzzer bytes (see `alkaid_fuzz::tensor`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::tensor(data));

//! `ArrayData` validation over fuzzer-chosen parts (see `alkaid_fuzz::array_data`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::array_data(data));

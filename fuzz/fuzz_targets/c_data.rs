//! The C data interface import of schemas and arrays (see `alkaid_fuzz::c_data`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::c_data(data));

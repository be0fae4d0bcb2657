//! Text cast to every type it parses into (see `alkaid_fuzz::cast_text`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::cast_text(data));

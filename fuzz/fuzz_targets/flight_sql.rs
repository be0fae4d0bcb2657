//! The Flight SQL service in process over fuzzer bytes (see `alkaid_fuzz::flight_sql`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alkaid_fuzz::flight_sql(data));

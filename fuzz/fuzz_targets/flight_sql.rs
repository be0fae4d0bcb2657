//! The Flight SQL service in process over fuzzer bytes (see `alkaid_fuzz::flight_sql`).
//! Panics the service catches (arrow-rs's inside its Parquet reads) are logged once per
//! place, not crashes (`alkaid_fuzz::report_caught_panics`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    alkaid_fuzz::report_caught_panics();
    alkaid_fuzz::flight_sql(data)
});

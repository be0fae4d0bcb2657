//! Flight SQL's messages, generated from `format/FlightSql.proto` by
//! `alkaid-flight-codegen` (committed; its test checks that regenerating changes nothing).
//! (The result schemas in the comments are written `list<utf8>`, not HTML.)

#![allow(
    missing_docs,
    clippy::all,
    unused_qualifications,
    rustdoc::invalid_html_tags
)]

include!("generated/arrow.flight.protocol.sql.rs");

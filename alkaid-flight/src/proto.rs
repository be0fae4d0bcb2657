//! The Flight protocol's messages and service, generated from `format/Flight.proto` by
//! `alkaid-flight-codegen` (committed; CI checks that regenerating changes nothing).
//! `FlightData` is this crate's own [`FlightData`](crate::FlightData).

#![allow(missing_docs, clippy::all, unused_qualifications)]

include!("generated/arrow.flight.protocol.rs");

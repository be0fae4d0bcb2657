//! Regenerates `alkaid-flight/src/generated/arrow.flight.protocol.rs` from
//! `format/Flight.proto`: protox (a protobuf compiler in Rust, so no system `protoc`)
//! parses the file, tonic-prost-build writes the messages and the service. `.ci/run` runs
//! it and fails if the committed file changes.
//!
//! `FlightData` is not generated: alkaid-flight writes it by hand (`src/flight_data.rs`)
//! so that a message's body goes from the batch's buffers onto the wire without being
//! joined into one vector first, and comes back as the received bytes themselves.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let format = crate_dir.join("../../format");
    let out = crate_dir.join("../src/generated");
    let descriptors = protox::compile(["Flight.proto"], [&format])?;
    tonic_prost_build::configure()
        .out_dir(&out)
        .build_client(true)
        .build_server(true)
        .build_transport(false)
        // The server trait's methods all have a default body that answers Unimplemented,
        // so a service implements only what it offers.
        .generate_default_stubs(true)
        // Prost's encoding, with the message's whole length reserved before it is written
        // (a FlightData body arrives in many pieces; see src/codec.rs).
        .codec_path("crate::codec::FlightCodec")
        .bytes(".")
        .extern_path(".arrow.flight.protocol.FlightData", "crate::FlightData")
        .emit_rerun_if_changed(false)
        .compile_fds(descriptors)?;
    println!("wrote {}", out.join("arrow.flight.protocol.rs").display());
    Ok(())
}

//! Regenerates `alkaid-flight/src/generated/arrow.flight.protocol.rs` from
//! `format/Flight.proto`: protox (a protobuf compiler in Rust, so no system `protoc`)
//! parses the file, tonic-prost-build writes the messages and the service. Its test (run by
//! the workspace's `cargo test`) generates into a scratch folder and fails if the result is
//! not the committed file.
//!
//! `FlightData` is not generated: alkaid-flight writes it by hand (`src/flight_data.rs`)
//! so that a message's body goes from the batch's buffers onto the wire without being
//! joined into one vector first, and comes back as the received bytes themselves.

use std::path::{Path, PathBuf};

/// The generated file's name, in the output folder.
const GENERATED: &str = "arrow.flight.protocol.rs";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes the Flight protocol's code into `out`.
fn generate(out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let format = crate_dir().join("../../format");
    let descriptors = protox::compile(["Flight.proto"], [&format])?;
    tonic_prost_build::configure()
        .out_dir(out)
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
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = crate_dir().join("../src/generated");
    generate(&out)?;
    println!("wrote {}", out.join(GENERATED).display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_code_is_what_the_generator_writes() {
        let scratch =
            std::env::temp_dir().join(format!("alkaid-flight-codegen-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        generate(&scratch).unwrap();
        let fresh = std::fs::read_to_string(scratch.join(GENERATED)).unwrap();
        let _ = std::fs::remove_dir_all(&scratch);
        let committed =
            std::fs::read_to_string(crate_dir().join("../src/generated").join(GENERATED)).unwrap();
        assert!(
            fresh == committed,
            "alkaid-flight/src/generated/{GENERATED} is stale (format/Flight.proto or this \
             generator changed): run `cargo run -p alkaid-flight-codegen` and commit the result"
        );
    }
}

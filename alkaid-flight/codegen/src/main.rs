//! Regenerates `alkaid-flight/src/generated/arrow.flight.protocol.rs` from
//! `format/Flight.proto`, and `alkaid-flight-sql/src/generated/arrow.flight.protocol.sql.rs`
//! from `format/FlightSql.proto`: protox (a protobuf compiler in Rust, so no system
//! `protoc`) parses the files, tonic-prost-build writes the messages and Flight's service
//! (Flight SQL is messages only: they travel inside Flight's calls). Its test (run by the
//! workspace's `cargo test`) generates into a scratch folder and fails if a result is not
//! the committed file.
//!
//! `FlightData` is not generated: alkaid-flight writes it by hand (`src/flight_data.rs`)
//! so that a message's body goes from the batch's buffers onto the wire without being
//! joined into one vector first, and comes back as the received bytes themselves.

use std::path::{Path, PathBuf};

/// The generated files' names, and the folder of the workspace each is committed in.
const GENERATED: [(&str, &str); 2] = [
    ("arrow.flight.protocol.rs", "alkaid-flight/src/generated"),
    (
        "arrow.flight.protocol.sql.rs",
        "alkaid-flight-sql/src/generated",
    ),
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes the Flight protocol's code into `flight`, Flight SQL's into `sql`.
fn generate(flight: &Path, sql: &Path) -> Result<(), Box<dyn std::error::Error>> {
    generate_flight(flight)?;
    generate_sql(sql)
}

/// Flight SQL's messages: plain prost messages with `bytes::Bytes` for bytes fields.
fn generate_sql(out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let format = crate_dir().join("../../format");
    let descriptors = protox::compile(["FlightSql.proto"], [&format])?;
    tonic_prost_build::configure()
        .out_dir(out)
        .build_client(false)
        .build_server(false)
        .bytes(".")
        .emit_rerun_if_changed(false)
        .compile_fds(descriptors)?;
    Ok(())
}

/// Flight's messages and service.
fn generate_flight(out: &Path) -> Result<(), Box<dyn std::error::Error>> {
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

/// The committed folder of generated file `i`.
fn committed(i: usize) -> PathBuf {
    crate_dir().join("../..").join(GENERATED[i].1)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    generate(&committed(0), &committed(1))?;
    for (i, (name, _)) in GENERATED.iter().enumerate() {
        println!("wrote {}", committed(i).join(name).display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_code_is_what_the_generator_writes() {
        let scratch =
            std::env::temp_dir().join(format!("alkaid-flight-codegen-{}", std::process::id()));
        let (flight, sql) = (scratch.join("flight"), scratch.join("sql"));
        std::fs::create_dir_all(&flight).unwrap();
        std::fs::create_dir_all(&sql).unwrap();
        generate(&flight, &sql).unwrap();
        for (i, (name, folder)) in GENERATED.iter().enumerate() {
            let fresh = [&flight, &sql][i].join(name);
            let fresh = std::fs::read_to_string(fresh).unwrap();
            let committed = std::fs::read_to_string(committed(i).join(name)).unwrap();
            assert!(
                fresh == committed,
                "{folder}/{name} is stale (format/ or this generator changed): run \
                 `cargo run -p alkaid-flight-codegen` and commit the result"
            );
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }
}

//! What a large message body costs in resident memory. Large bodies read from a `Read` go
//! into an anonymous mapping of their declared length, which the allocator never sees, so
//! the counting allocator of `limits.rs` cannot measure them: this measures the process's
//! peak resident memory instead, in a binary of its own so that no other test runs beside
//! it (Linux only: it reads `/proc/self`).
#![cfg(target_os = "linux")]

mod support;

use alkaid_ipc::{IpcErrorKind, StreamReader, WriteOptions};
use support::{first_batch_error, int_batch, lying_body_stream, stream};

const MIB: usize = 1 << 20;

/// A field of `/proc/self/status` given in kB, in bytes.
fn status(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"));
    let kb: usize = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kb * 1024
}

/// How far the resident memory rose above its level before `f` at its peak during `f`.
fn peak_rise<T>(f: impl FnOnce() -> T) -> (T, usize) {
    // Writing 5 resets the peak to the current level (Linux 4.0 on).
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let before = status("VmRSS:");
    let out = f();
    (out, status("VmHWM:").saturating_sub(before))
}

#[test]
fn a_mapped_body_is_resident_only_as_its_bytes_arrive() {
    // 64 MiB claimed for a 4 MiB body: mapped, and only what arrived (plus at most a huge
    // page past it) is ever resident.
    let lying = lying_body_stream((1 << 20) + 3, 64 << 20);
    let (err, rise) = peak_rise(|| first_batch_error(&lying));
    assert_eq!(err.kind(), IpcErrorKind::Truncated, "{err}");
    assert!(
        rise < 4 * MIB + 4 * MIB,
        "{rise} bytes resident for a 4 MiB input"
    );

    // The measurement sees mapped memory: an honest 48 MiB body is resident while read.
    let honest = int_batch(12 << 20);
    let bytes = stream(honest.schema().clone(), &[honest], WriteOptions::default());
    drop(bytes.clone()); // the vector's own pages are resident before the measurement
    let (rows, rise) = peak_rise(|| {
        StreamReader::try_new(&bytes[..])
            .unwrap()
            .map(|batch| batch.unwrap().num_rows())
            .sum::<usize>()
    });
    assert_eq!(rows, 12 << 20);
    assert!(
        rise >= 40 * MIB,
        "only {rise} bytes resident for a 48 MiB body"
    );
}

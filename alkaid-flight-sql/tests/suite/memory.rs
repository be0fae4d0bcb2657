//! The server's memory under clients that stop reading: a result streams only as fast as
//! its client takes it (HTTP/2 flow control, then a channel of two encoded messages back
//! to DataFusion's stream), so a stalled client costs the server about one flow-control
//! window, never its result's size.
//!
//! Measured in a child process of this test binary that runs the server alone, so that
//! the resident memory read from `/proc/self/status` is the server's and not the other
//! tests'.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use alkaid_flight::ServerOptions;
use alkaid_flight_sql::SqlServiceOptions;

use crate::measured::{in_child, status_bytes};
use crate::python::python_with;
use crate::server::Server;

/// Set in the child run.
const CHILD: &str = "ALKAID_FLIGHT_SQL_MEMORY_CHILD";
const TEST: &str = "memory::clients_that_stop_reading_cost_the_server_a_bounded_amount";

/// Clients that stop reading, at once.
const STALLED: u64 = 8;
/// Each one's result: 10⁸ int64 rows, 800 MB were it held.
const LONG: &str = "SELECT value FROM generate_series(1, 100000000)";
/// What a stalled stream may hold on the server: its HTTP/2 window (16 MiB, alkaid-flight's
/// default), two encoded messages and the batches in DataFusion's pipeline, with room.
const PER_STREAM: u64 = 24 << 20;

#[cfg(target_os = "linux")]
#[test]
fn clients_that_stop_reading_cost_the_server_a_bounded_amount() {
    let Some(python) = python_with("pyarrow.flight") else {
        return;
    };
    if !in_child(TEST, CHILD, "stalled streams") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        SqlServiceOptions::default(),
        ServerOptions::default(),
    );
    // One query first, so that what the first use allocates is in the baseline.
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/stalled_readers.py");
    // One client, one query, to its end.
    let one_query = |sql: &str| {
        let out = Command::new(&python)
            .args([
                script.as_os_str(),
                server.uri.as_ref(),
                "1".as_ref(),
                sql.as_ref(),
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    one_query("SELECT 1");
    let before = status_bytes("VmRSS:");
    let mut clients = Command::new(&python)
        .args([
            script.as_os_str(),
            server.uri.as_ref(),
            STALLED.to_string().as_ref(),
            LONG.as_ref(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(clients.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "stalled");
    // Long enough for an unbounded producer to run far ahead (DataFusion generates
    // hundreds of MB a second), short enough for the test.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let stalled = status_bytes("VmRSS:");
    let peak = status_bytes("VmHWM:");
    drop(clients.stdin.take());
    let _ = clients.wait();
    let grown = peak.saturating_sub(before);
    println!(
        "{STALLED} stalled streams: resident {} MiB before, {} MiB stalled, peak {} MiB",
        before >> 20,
        stalled >> 20,
        peak >> 20
    );
    assert!(
        grown <= STALLED * PER_STREAM,
        "{STALLED} stalled streams grew the server by {} MiB, over {} MiB",
        grown >> 20,
        (STALLED * PER_STREAM) >> 20
    );
    // And it goes on serving.
    one_query("SELECT 2");
}

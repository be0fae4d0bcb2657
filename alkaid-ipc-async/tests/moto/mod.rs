#![allow(dead_code)] // Each test file uses its own part of this module.

//! A real S3-protocol server for the tests: moto's server mode (`pip install
//! "moto[server]"`), started on a free port of 127.0.0.1 and stopped when dropped.
//!
//! Python is `$ALKAID_PYTHON`, else the CI virtualenv (`target/ci-venv`), else `python3`.
//! When the server cannot start, the test says why and passes without it, unless
//! `ALKAID_REQUIRE_MOTO` is set (as `.ci/run` sets it): then that is a failure.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod python;
use python::python;

pub struct Moto {
    child: Child,
    address: SocketAddr,
}

impl Moto {
    /// Starts the server, or says why it could not.
    pub fn start() -> Result<Self, String> {
        let python = python();
        // A port the system had free a moment ago.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port on 127.0.0.1: {e}"))?
            .port();
        let mut child = Command::new(&python)
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{} could not run: {e}", python.display()))?;
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "`{} -m moto.server` exited ({status}): is moto[server] installed?",
                    python.display()
                ));
            }
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                // Listening; ready once it answers a request (the list of buckets).
                if request(address, "GET /", &[]).is_ok_and(|a| a.starts_with("HTTP/1.1 200")) {
                    return Ok(Self { child, address });
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
        Err("moto's server did not listen within 30 s".into())
    }

    /// The server, or `None` after printing why it could not start (a failure when
    /// `ALKAID_REQUIRE_MOTO` is set).
    pub fn start_or_skip(test: &str) -> Option<Self> {
        match Self::start() {
            Ok(moto) => Some(moto),
            Err(reason) if std::env::var_os("ALKAID_REQUIRE_MOTO").is_some() => {
                panic!("{test}: the S3 server is required and could not start: {reason}")
            }
            Err(reason) => {
                // Straight to the terminal: the test harness captures eprintln!.
                let _ = writeln!(std::io::stderr(), "SKIPPED {test}: no S3 server: {reason}");
                None
            }
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Creates bucket `name` (moto takes unsigned requests that write).
    pub fn create_bucket(&self, name: &str) {
        self.put(name, &[]);
    }

    /// Stores `bytes` at `key` of `bucket`.
    pub fn put_object(&self, bucket: &str, key: &str, bytes: &[u8]) {
        self.put(&format!("{bucket}/{key}"), bytes);
    }

    /// One unsigned `PUT /path` with `body`, which must succeed. A connection refused or
    /// reset is tried again, up to 20 times over about 10 s: the server may still be
    /// settling just after it started to listen.
    fn put(&self, path: &str, body: &[u8]) {
        let mut last = None;
        for _ in 0..20 {
            match request(self.address, &format!("PUT /{path}"), body) {
                Ok(answer) => {
                    assert!(answer.starts_with("HTTP/1.1 200"), "PUT /{path}: {answer}");
                    return;
                }
                Err(e) => last = Some(e),
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        panic!("PUT /{path}: {last:?}");
    }

    /// The environment variables that point an S3 client at this server.
    pub fn environment(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request (`METHOD /path`) with `body`, and the whole answer.
fn request(address: SocketAddr, line: &str, body: &[u8]) -> std::io::Result<String> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "{line} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        address,
        body.len()
    )?;
    stream.write_all(body)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    Ok(String::from_utf8_lossy(&answer).into_owned())
}

#![allow(dead_code)] // Each test file uses its own part of this module.

//! The peers of the Flight tests: pyarrow's Flight (`tests/pyarrow_flight.py`) as a server
//! or a client in a process of its own, and Alkaid's directory service on a runtime of the
//! test. Python is `$ALKAID_PYTHON`, else the CI virtualenv (`target/ci-venv`), else
//! `python3`; without pyarrow's Flight a test says why and passes, unless
//! `ALKAID_REQUIRE_PYARROW` is set (as `.ci/run` sets it).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use alkaid_flight::{DirectoryService, FlightClient, FlightError, ServerOptions, serve};
use futures_util::TryStreamExt;

#[path = "../../../alkaid-ipc/tests/support/python.rs"]
mod python;
pub use python::python;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pyarrow_flight.py")
}

/// Whether pyarrow's Flight can run; if not, says why (a failure when
/// `ALKAID_REQUIRE_PYARROW` is set).
pub fn pyarrow_or_skip(test: &str) -> bool {
    let check = Command::new(python())
        .args(["-c", "import pyarrow.flight"])
        .output();
    let reason = match check {
        Ok(out) if out.status.success() => return true,
        Ok(out) => String::from_utf8_lossy(&out.stderr).into_owned(),
        Err(e) => format!("{}: {e}", python().display()),
    };
    if std::env::var_os("ALKAID_REQUIRE_PYARROW").is_some() {
        panic!("{test}: pyarrow's Flight is required: {reason}");
    }
    // Straight to the terminal: the test harness captures eprintln!.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: no pyarrow.flight: {reason}"
    );
    false
}

/// pyarrow's Flight server, stopped when dropped.
pub struct PyServer {
    child: Child,
    pub port: u16,
}

impl PyServer {
    /// Starts it on `dir` with the script's `extra` arguments (`--token T`, `--tls C K`).
    pub fn start(dir: &Path, extra: &[&str]) -> Self {
        let mut child = Command::new(python())
            .arg(script())
            .arg("server")
            .arg(dir)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python runs");
        let stdout = child.stdout.take().expect("piped");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the pyarrow server starts within 60 s");
        let port = line
            .trim()
            .strip_prefix("ready ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the pyarrow server said {line:?}"));
        Self { child, port }
    }

    pub fn uri(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    /// Waits up to `timeout` for the process to end on its own; its exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let start = std::time::Instant::now();
        while start.elapsed() < timeout {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for PyServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs pyarrow's client with `args` (bounded: killed after 300 s).
pub fn py_client(args: &[&str]) -> Output {
    let mut child = Command::new(python())
        .arg(script())
        .arg("client")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_secs(300) {
        if let Ok(Some(_)) = child.try_wait() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("pyarrow's client did not finish within 300 s");
}

/// A multi-thread runtime for the tests (after the TLS provider a child run asks for is
/// installed: see `providers.rs`).
pub fn runtime() -> tokio::runtime::Runtime {
    crate::providers::install();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Alkaid's directory service on `runtime`, on a free port of 127.0.0.1, stopped when
/// the returned guard is dropped.
pub struct AlkaidServer {
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: Option<mpsc::Receiver<()>>,
}

impl AlkaidServer {
    pub fn start(
        runtime: &tokio::runtime::Runtime,
        service: DirectoryService,
        options: ServerOptions,
    ) -> Self {
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (finished, done) = mpsc::channel();
        runtime.spawn(async move {
            let result = serve(service, listener, options, async {
                let _ = stopped.await;
            })
            .await;
            if let Err(e) = result {
                eprintln!("the server failed: {e}");
            }
            let _ = finished.send(());
        });
        Self {
            port,
            stop: Some(stop),
            done: Some(done),
        }
    }

    pub fn uri(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }
}

impl Drop for AlkaidServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(done) = self.done.take() {
            let _ = done.recv_timeout(Duration::from_secs(10));
        }
    }
}

/// A fresh directory under the target directory's temporary space.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("flight")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The error of fetching `ticket`: from the call itself, or from the stream it answers.
pub async fn get_error(client: &mut FlightClient, ticket: &[u8]) -> FlightError {
    match client.do_get(ticket).await {
        Err(e) => e,
        Ok(stream) => match stream.try_collect::<Vec<_>>().await {
            Err(e) => e,
            Ok(batches) => panic!("{} batches where an error was expected", batches.len()),
        },
    }
}

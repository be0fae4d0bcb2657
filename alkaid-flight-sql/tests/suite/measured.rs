//! What the tests that measure the server share: running one test alone in a child
//! process of this test binary (so that the memory read from `/proc/self/status` is its
//! server's, not the other tests'), reading that memory, running a Python client script
//! within a deadline, and a directory's files to compare before and after.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Whether this is the child run of `test` (its environment has `marker`); in the parent,
/// runs the child, checks that it passed, and prints its lines that start with `shown`.
pub fn in_child(test: &str, marker: &str, shown: &str) -> bool {
    if std::env::var_os(marker).is_some() {
        return true;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture"])
        .env(marker, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("test result: ok. 1 passed"), "{stdout}");
    for measured in stdout.lines().filter(|l| l.contains(shown)) {
        println!("{measured}");
    }
    false
}

/// A line of `/proc/self/status` (`VmRSS:`, `VmHWM:`), in bytes.
pub fn status_bytes(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(key)).unwrap();
    let kib: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kib << 10
}

/// Runs `python` on the script `tests/NAME` with `args`, which must succeed within
/// `limit`.
pub fn run_script(python: &Path, name: &str, args: &[&str], limit: Duration) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    let mut child = Command::new(python)
        .arg(script)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "{name} did not finish within {limit:?}; it printed:\n{}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{name} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every file under `dir` (symlinks not followed) and its bytes, or where it leads; a
/// directory as `<dir>`.
pub fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            let bytes = if kind.is_symlink() {
                std::fs::read_link(&path)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else if kind.is_dir() {
                pending.push(path.clone());
                b"<dir>".to_vec()
            } else {
                std::fs::read(&path).unwrap()
            };
            files.insert(path, bytes);
        }
    }
    files
}

//! The Python the tests start their peers with: `$ALKAID_PYTHON`, else the CI
//! virtualenv (`ci-venv` in the target directory, `target/ci-venv` unless
//! `CARGO_TARGET_DIR` says otherwise), else `python3`.

use std::path::PathBuf;

/// The Python to run.
pub fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("ALKAID_PYTHON") {
        return python.into();
    }
    // CARGO_TARGET_TMPDIR is the target directory's `tmp`.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("..");
    let venv = target.join("ci-venv/bin/python");
    if venv.exists() {
        return venv;
    }
    "python3".into()
}

/// [`python`], if it imports `modules` (as `import` takes them: `"pyarrow, duckdb"`).
/// Without them the test says so and passes, unless `ALKAID_REQUIRE_PYARROW` is set (CI
/// sets it): there it is a failure.
#[allow(dead_code)] // not every test binary that includes this file asks
pub fn python_with(modules: &str) -> Option<PathBuf> {
    let python = python();
    let ok = std::process::Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("ALKAID_REQUIRE_PYARROW").is_none(),
            "{} cannot import {modules}",
            python.display()
        );
        eprintln!("skipped: {} cannot import {modules}", python.display());
        return None;
    }
    Some(python)
}

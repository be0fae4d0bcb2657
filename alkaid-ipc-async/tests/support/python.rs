//! The Python the tests start their peers with: `$ALKAID_PYTHON`, else the CI
//! virtualenv (`target/ci-venv`), else `python3`.

use std::path::PathBuf;

/// The Python to run.
pub fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("ALKAID_PYTHON") {
        return python.into();
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/ci-venv/bin/python");
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

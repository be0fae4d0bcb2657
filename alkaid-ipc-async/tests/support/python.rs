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

//! Alkaid's errors as Python exceptions: `alkaid.AlkaidError`, a `ValueError`, with the
//! error's message (which names what was wrong and where).

use std::fmt::Display;

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;

create_exception!(
    alkaid,
    AlkaidError,
    PyValueError,
    "Data that Alkaid refused: malformed, invalid or not of the expected type."
);

/// `error` as an [`AlkaidError`].
pub fn to_py(error: impl Display) -> PyErr {
    AlkaidError::new_err(error.to_string())
}

/// `error` as an [`AlkaidError`] whose message starts with `context` (a row, a field);
/// the message of `error` follows without its exception's name.
pub(crate) fn within(context: impl Display, error: PyErr) -> PyErr {
    let text = error.to_string();
    let message = match text.split_once(": ") {
        Some((name, rest)) if !name.contains(' ') => rest,
        _ => &text,
    };
    to_py(format!("{context}: {message}"))
}

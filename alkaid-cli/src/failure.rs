//! [`Failure`]: what every command returns when the input or the work fails. A leaf that
//! the commands import, so that none of them imports `main.rs` back.

use std::fmt;

/// A failure of the input or of the work: one line for standard error.
#[derive(Debug)]
pub struct Failure(String);

impl Failure {
    /// A failure described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! failure_from {
    ($($error:ty),*) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Self {
                Self(e.to_string())
            }
        }
    )*};
}
failure_from!(
    alkaid_ipc::IpcError,
    alkaid_array::ArrayError,
    alkaid_data::DataError,
    alkaid_select::SelectError,
    alkaid_compute::ComputeError,
    alkaid_integration::IntegrationError
);

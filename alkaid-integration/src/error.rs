//! [`IntegrationError`]: what is wrong with an integration JSON file, and where.

use std::fmt;

/// Why a JSON file could not be read or written, with the place: a path such as
/// `batch 2 > column "prices" > children > "item" > DATA`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegrationError {
    message: String,
}

impl IntegrationError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The same error placed inside `place`.
    pub fn context(self, place: impl fmt::Display) -> Self {
        Self {
            message: format!("{place} > {}", self.message),
        }
    }
}

impl fmt::Display for IntegrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IntegrationError {}

macro_rules! from_error {
    ($($error:ty),*) => {$(
        impl From<$error> for IntegrationError {
            fn from(e: $error) -> Self {
                Self::new(e.to_string())
            }
        }
    )*};
}
from_error!(
    alkaid_schema::SchemaError,
    alkaid_schema::json::JsonError,
    alkaid_data::DataError,
    alkaid_array::ArrayError,
    alkaid_ipc::IpcError,
    alkaid_buffer::BufferError
);

/// The result of this crate's operations.
pub type Result<T, E = IntegrationError> = std::result::Result<T, E>;

//! [`IntegrationError`]: what is wrong with an integration JSON file, and where.

use std::fmt;
use std::sync::Arc;

/// Why a JSON file could not be read or written, with the place: a path such as
/// `batch 2 > column "prices" > children > "item" > DATA`; the lower layer's error it
/// came from, when it came from one, is its [`source`](std::error::Error::source).
/// Two errors are equal when they say the same.
#[derive(Debug, Clone)]
pub struct IntegrationError {
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl IntegrationError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// The same error placed inside `place`.
    pub fn context(self, place: impl fmt::Display) -> Self {
        Self {
            message: format!("{place} > {}", self.message),
            source: self.source,
        }
    }
}

impl PartialEq for IntegrationError {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message
    }
}

impl Eq for IntegrationError {}

impl fmt::Display for IntegrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IntegrationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

macro_rules! from_error {
    ($($error:ty),*) => {$(
        impl From<$error> for IntegrationError {
            fn from(e: $error) -> Self {
                Self {
                    message: e.to_string(),
                    source: Some(Arc::new(e)),
                }
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

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn a_lower_layers_error_stays_the_source_through_context() {
        let lower = alkaid_schema::SchemaError::FieldNotFound {
            name: "x".to_string(),
        };
        let error = IntegrationError::from(lower.clone()).context("batch 0");
        assert_eq!(error.to_string(), format!("batch 0 > {lower}"));
        let source = error.source().expect("a source");
        assert_eq!(source.to_string(), lower.to_string());
        assert!(IntegrationError::new("plain").source().is_none());
    }
}

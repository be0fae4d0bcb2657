//! [`BridgeError`]: why a conversion between Alkaid and arrow-rs did not happen.

use std::fmt;

use alkaid_array::ArrayError;
use alkaid_data::DataError;
use alkaid_schema::SchemaError;

/// A conversion that could not be made, naming what was wrong.
///
/// Alkaid to arrow-rs never fails for types and arrays (every Alkaid type exists in
/// arrow-rs); the errors come from the other direction, where arrow-rs accepts some things
/// that the format does not (a `Time32` in microseconds, a decimal of precision 0), and from
/// readers whose source fails.
#[derive(Debug)]
#[non_exhaustive]
pub enum BridgeError {
    /// An arrow-rs type with no Alkaid equivalent, or parameters the format forbids.
    Type(SchemaError),
    /// An arrow-rs array whose buffers do not make a valid Alkaid array.
    Data(DataError),
    /// A batch whose columns do not match its schema.
    Array(ArrayError),
    /// An array whose type is not the type its field declares.
    Mismatch {
        /// What the field (or the caller) declared.
        expected: String,
        /// What the array is.
        found: String,
    },
    /// The source of a reader failed; its message.
    Source(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Type(e) => write!(f, "arrow-rs type not representable in Alkaid: {e}"),
            Self::Data(e) => write!(f, "arrow-rs array not valid as an Alkaid array: {e}"),
            Self::Array(e) => write!(f, "arrow-rs batch not valid as an Alkaid batch: {e}"),
            Self::Mismatch { expected, found } => {
                write!(f, "expected an array of type {expected}, found {found}")
            }
            Self::Source(e) => write!(f, "the batch source failed: {e}"),
        }
    }
}

impl std::error::Error for BridgeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Type(e) => Some(e),
            Self::Data(e) => Some(e),
            Self::Array(e) => Some(e),
            Self::Mismatch { .. } => None,
            Self::Source(e) => Some(e.as_ref()),
        }
    }
}

impl From<SchemaError> for BridgeError {
    fn from(e: SchemaError) -> Self {
        Self::Type(e)
    }
}

impl From<DataError> for BridgeError {
    fn from(e: DataError) -> Self {
        Self::Data(e)
    }
}

impl From<ArrayError> for BridgeError {
    fn from(e: ArrayError) -> Self {
        Self::Array(e)
    }
}

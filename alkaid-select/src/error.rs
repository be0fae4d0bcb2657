//! The one error type of this crate.

use std::fmt;

use alkaid_array::ArrayError;
use alkaid_data::DataError;

/// What a selection kernel could not do, and why.
#[derive(Debug)]
#[non_exhaustive]
pub enum SelectError {
    /// The inputs do not fit together: different types or schemas, no inputs at all.
    Mismatch(String),
    /// The result cannot be represented: dictionary keys or offsets would overflow.
    Overflow(String),
    /// An input array is not valid.
    Data(DataError),
    /// A record batch could not be assembled.
    Array(ArrayError),
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::Mismatch(message) | SelectError::Overflow(message) => f.write_str(message),
            SelectError::Data(e) => write!(f, "{e}"),
            SelectError::Array(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SelectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SelectError::Data(e) => Some(e),
            SelectError::Array(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DataError> for SelectError {
    fn from(e: DataError) -> Self {
        SelectError::Data(e)
    }
}

impl From<ArrayError> for SelectError {
    fn from(e: ArrayError) -> Self {
        SelectError::Array(e)
    }
}

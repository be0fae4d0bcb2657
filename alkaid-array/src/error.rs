//! [`ArrayError`]: what can go wrong building typed arrays and record batches.

use std::fmt;

use alkaid_data::DataError;
use alkaid_schema::{DataType, SchemaError};

/// An error from a typed array or a record batch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArrayError {
    /// The array data is not valid.
    Data(DataError),
    /// A schema lookup or type failed.
    Schema(SchemaError),
    /// A typed array was asked to hold data of another type.
    TypeMismatch {
        /// The type the typed array holds.
        expected: String,
        /// The type of the data given.
        found: DataType,
    },
    /// Parts of different lengths.
    LengthMismatch {
        /// What has the wrong length, e.g. `column "price"` or `validity`.
        what: String,
        /// The length it should have.
        expected: usize,
        /// Its length.
        found: usize,
    },
    /// A column or record batch does not fit its schema.
    ColumnMismatch {
        /// Which column, e.g. `column 2 ("price")`.
        column: String,
        /// What is wrong.
        reason: String,
    },
    /// A Variant's bytes, or shredded parts, that do not read.
    Variant(crate::variant::VariantError),
    /// A timestamp's time zone that does not resolve.
    Timezone {
        /// The zone as the type names it.
        name: String,
        /// Why it does not resolve.
        reason: String,
    },
}

impl fmt::Display for ArrayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Data(e) => write!(f, "{e}"),
            Self::Schema(e) => write!(f, "{e}"),
            Self::TypeMismatch { expected, found } => {
                write!(f, "expected {expected} data, found {found}")
            }
            Self::LengthMismatch {
                what,
                expected,
                found,
            } => {
                write!(f, "expected {what} of length {expected}, found {found}")
            }
            Self::ColumnMismatch { column, reason } => write!(f, "{column}: {reason}"),
            Self::Timezone { name, reason } => write!(f, "time zone {name:?}: {reason}"),
            Self::Variant(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ArrayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Data(e) => Some(e),
            Self::Schema(e) => Some(e),
            Self::Variant(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DataError> for ArrayError {
    fn from(e: DataError) -> Self {
        Self::Data(e)
    }
}

impl From<SchemaError> for ArrayError {
    fn from(e: SchemaError) -> Self {
        Self::Schema(e)
    }
}

impl From<crate::variant::VariantError> for ArrayError {
    fn from(e: crate::variant::VariantError) -> Self {
        Self::Variant(e)
    }
}

//! The one error type of this crate.

use std::fmt;

use alkaid_array::ArrayError;
use alkaid_data::DataError;
use alkaid_schema::SchemaError;
use alkaid_select::SelectError;

/// What a compute kernel could not do, and why.
///
/// Callers branch on the variant (an expression evaluator turns [`Overflow`](Self::Overflow)
/// and [`DivideByZero`](Self::DivideByZero) into SQL errors, and [`Unsupported`](Self::Unsupported)
/// into a planning error); the message is for people and names the types, rows and values.
#[derive(Debug)]
#[non_exhaustive]
pub enum ComputeError {
    /// The kernel does not take these types (or this combination of them).
    Unsupported {
        /// The kernel, e.g. `lt`.
        kernel: &'static str,
        /// What it was given and why that does not work.
        message: String,
    },
    /// Two array inputs of different lengths, or group ids or a mask of the wrong length.
    LengthMismatch {
        /// What has the wrong length, e.g. `right input` or `mask`.
        what: &'static str,
        /// The length it should have.
        expected: usize,
        /// Its length.
        found: usize,
    },
    /// A result does not fit its type (checked arithmetic, sums, decimal precision,
    /// dates out of range).
    Overflow {
        /// The row (of the output) where it happened; `None` for a whole-array result
        /// such as a sum.
        row: Option<usize>,
        /// The operation and its operands.
        message: String,
    },
    /// An integer or decimal division or remainder by zero.
    DivideByZero {
        /// The row where it happened.
        row: usize,
    },
    /// A value that does not convert to the type a strict cast asks for (text that is not a
    /// number, a number out of the target's range).
    Cast {
        /// The row of the value.
        row: usize,
        /// The value, its type and the target type.
        message: String,
    },
    /// An argument out of its range: a group id past the number of groups, a bad timezone.
    InvalidArgument(String),
    /// An input array is not valid.
    Data(DataError),
    /// An array could not be assembled.
    Array(ArrayError),
    /// A selection step (gathering dictionary values, expanding runs) failed.
    Select(SelectError),
}

impl ComputeError {
    /// An [`Overflow`](Self::Overflow) at `row`: the text or bytes written so far no longer
    /// fit 32-bit offsets.
    pub(crate) fn offsets_overflow(row: usize) -> Self {
        Self::Overflow {
            row: Some(row),
            message: "the result exceeds the 2 GiB that 32-bit offsets address; use a large \
                      or view type"
                .into(),
        }
    }

    /// An [`Unsupported`](Self::Unsupported) error.
    pub(crate) fn unsupported(kernel: &'static str, message: impl Into<String>) -> Self {
        Self::Unsupported {
            kernel,
            message: message.into(),
        }
    }

    /// The row this error is about, if it is about one.
    pub fn row(&self) -> Option<usize> {
        match self {
            Self::Overflow { row, .. } => *row,
            Self::DivideByZero { row } | Self::Cast { row, .. } => Some(*row),
            _ => None,
        }
    }
}

impl fmt::Display for ComputeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported { kernel, message } => write!(f, "{kernel}: {message}"),
            Self::LengthMismatch {
                what,
                expected,
                found,
            } => write!(f, "expected {what} of length {expected}, found {found}"),
            Self::Overflow {
                row: Some(row),
                message,
            } => {
                write!(f, "overflow at row {row}: {message}")
            }
            Self::Overflow { row: None, message } => write!(f, "overflow: {message}"),
            Self::DivideByZero { row } => write!(f, "division by zero at row {row}"),
            Self::Cast { row, message } => write!(f, "cast failed at row {row}: {message}"),
            Self::InvalidArgument(message) => f.write_str(message),
            Self::Data(e) => write!(f, "{e}"),
            Self::Array(e) => write!(f, "{e}"),
            Self::Select(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ComputeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Data(e) => Some(e),
            Self::Array(e) => Some(e),
            Self::Select(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DataError> for ComputeError {
    fn from(e: DataError) -> Self {
        Self::Data(e)
    }
}

impl From<ArrayError> for ComputeError {
    fn from(e: ArrayError) -> Self {
        Self::Array(e)
    }
}

impl From<SelectError> for ComputeError {
    fn from(e: SelectError) -> Self {
        Self::Select(e)
    }
}

impl From<SchemaError> for ComputeError {
    fn from(e: SchemaError) -> Self {
        Self::Array(ArrayError::Schema(e))
    }
}

impl From<alkaid_array::variant::VariantError> for ComputeError {
    fn from(e: alkaid_array::variant::VariantError) -> Self {
        Self::Array(ArrayError::Variant(e))
    }
}

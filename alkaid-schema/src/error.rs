//! [`SchemaError`]: what can be wrong with a type, a field, a schema or a type's text.

use std::fmt;

/// An error from building, looking up, merging or parsing types and schemas.
///
/// Callers branch on the variant; the `Display` text is for people and names the type, field
/// or position involved.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// A data type's parameters do not form a valid type, e.g. a `Decimal32` with precision
    /// 12 or a map whose entries are not a two-field struct.
    InvalidType {
        /// The type being built, e.g. "Decimal32" or "Map".
        type_name: &'static str,
        /// What is wrong, as "expected X, found Y".
        reason: String,
    },
    /// No field has this name.
    FieldNotFound {
        /// The name looked up.
        name: String,
    },
    /// More than one field has this name, so a lookup by name cannot choose.
    AmbiguousField {
        /// The name looked up.
        name: String,
        /// Indices of every field with the name.
        indices: Vec<usize>,
    },
    /// A field index is past the end.
    IndexOutOfBounds {
        /// The index asked for.
        index: usize,
        /// The number of fields.
        len: usize,
    },
    /// Two schemas (or fields, or metadata) cannot be merged.
    MergeConflict {
        /// Where the conflict is, e.g. `field "a" > child "b"` or `schema metadata "k"`.
        path: String,
        /// What conflicts.
        reason: String,
    },
    /// Type text could not be parsed.
    Parse {
        /// Byte offset in the text where the problem was found.
        position: usize,
        /// What was expected and found there.
        message: String,
    },
    /// An extension type could not be built from or applied to a field.
    Extension {
        /// The extension type's name.
        name: String,
        /// Why.
        reason: String,
    },
}

impl SchemaError {
    pub(crate) fn invalid(type_name: &'static str, reason: impl Into<String>) -> Self {
        Self::InvalidType {
            type_name,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidType { type_name, reason } => {
                write!(f, "invalid {type_name} type: {reason}")
            }
            Self::FieldNotFound { name } => write!(f, "no field named {name:?}"),
            Self::AmbiguousField { name, indices } => {
                write!(
                    f,
                    "{} fields are named {name:?} (at indices {indices:?})",
                    indices.len()
                )
            }
            Self::IndexOutOfBounds { index, len } => {
                write!(f, "field index {index} is out of bounds for {len} fields")
            }
            Self::MergeConflict { path, reason } => write!(f, "cannot merge {path}: {reason}"),
            Self::Parse { position, message } => write!(f, "at byte {position}: {message}"),
            Self::Extension { name, reason } => write!(f, "extension type {name:?}: {reason}"),
        }
    }
}

impl std::error::Error for SchemaError {}

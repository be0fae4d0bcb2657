//! The canonical extension types without parameters (`arrow.uuid`, `arrow.json`,
//! `arrow.bool8`), and the helpers every canonical type shares.

use std::any::Any;
use std::sync::Arc;

use super::{ExtensionFactory, ExtensionType};
use crate::{DataType, SchemaError};

pub(super) fn storage_error(name: &str, expected: &str, found: &DataType) -> SchemaError {
    SchemaError::Extension {
        name: name.to_string(),
        reason: format!("expected {expected} storage, found {found}"),
    }
}

/// Accepts an absent or empty description (and `{}`, which some writers use).
pub(super) fn check_no_parameters(name: &str, metadata: Option<&str>) -> Result<(), SchemaError> {
    match metadata.map(str::trim) {
        None | Some("") | Some("{}") => Ok(()),
        Some(other) => Err(SchemaError::Extension {
            name: name.to_string(),
            reason: format!("expected no parameters, found {other:?}"),
        }),
    }
}

/// Defines a canonical type without parameters, from its name and the storage types it
/// accepts; its description is absent (`None`), as the older canonical types write it.
macro_rules! canonical_without_parameters {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $expected:literal, $accepts:pat) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $ty;

        canonical_with_storage_rule!($ty, $name, None, |storage: &DataType| match storage {
            $accepts => Ok(()),
            other => Err(storage_error($name, $expected, other)),
        });
    };
}

canonical_without_parameters!(
    /// `arrow.uuid`: 16-byte UUIDs stored as `FixedSizeBinary(16)`.
    Uuid, "arrow.uuid", "FixedSizeBinary(16)", DataType::FixedSizeBinary(16)
);
canonical_without_parameters!(
    /// `arrow.json`: JSON text stored as `Utf8`, `LargeUtf8` or `Utf8View`.
    Json, "arrow.json", "Utf8, LargeUtf8 or Utf8View", DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
);
canonical_without_parameters!(
    /// `arrow.bool8`: booleans stored one per byte as `Int8` (0 false, anything else true).
    Bool8, "arrow.bool8", "Int8", DataType::Int8
);

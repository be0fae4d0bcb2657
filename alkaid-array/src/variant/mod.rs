//! Parquet's Variant: self-describing binary values, and arrays of them
//! (`arrow.parquet.variant`).
//!
//! A Variant is two byte strings: a *metadata* dictionary of field names and a *value*
//! that names fields by their index in it. Values are the spec's primitives (integers,
//! floats, decimals, dates, times, timestamps, text, bytes, UUIDs), objects and arrays.
//! Parquet's VariantEncoding.md defines the bytes; VariantShredding.md how a column may
//! also hold parts of its values in typed columns (`typed_value`), which
//! [`VariantArray`] puts back together.
//!
//! | item | what it is |
//! | --- | --- |
//! | [`VariantMetadata`] | the field-name dictionary, checked when read |
//! | [`Variant`], [`VariantObject`], [`VariantList`] | a value, read in place; `try_new` checks it whole |
//! | [`ValueEncoder`], [`MetadataBuilder`] | writing values, objects and arrays in place |
//! | [`json_to_variant`], [`variant_to_json`] | JSON text to and from Variant |
//! | [`VariantPath`] | a path into a value (`a.b[2]`) |
//! | [`VariantArray`] | a column of Variants, shredded or not, value by value or at a path |
//!
//! ```
//! use alkaid_array::variant::{json_to_variant, variant_to_json, Variant, VariantMetadata};
//!
//! let (metadata, value) = json_to_variant(r#"{"name": "ada", "langs": ["en", "fr"], "born": 1815}"#)?;
//! let metadata = VariantMetadata::try_new(&metadata)?;
//! let variant = Variant::try_new(metadata, &value)?;
//! let born = variant.as_object().unwrap().get("born")?;
//! assert_eq!(born, Some(Variant::Int16(1815)));
//! assert_eq!(variant_to_json(variant)?, r#"{"born":1815,"langs":["en","fr"],"name":"ada"}"#);
//! # Ok::<(), alkaid_array::variant::VariantError>(())
//! ```

mod array;
mod build;
mod json;
mod metadata;
mod nested;
mod path;
mod unshred;
mod validate;
mod value;

use std::fmt;

pub use array::{VariantArray, VariantBytes, VariantColumnBuilder, VariantRow};
pub use build::{FieldNames, ListEncoder, MetadataBuilder, ObjectEncoder, ValueEncoder};
pub use json::{json_to_variant, variant_to_json, write_variant_json};
pub use metadata::{EMPTY_METADATA, VariantMetadata};
pub use nested::{VariantList, VariantObject};
pub use path::{PathSegment, VariantPath};
pub use value::{MAX_DEPTH, Variant, encoded_len};

/// What is wrong with a Variant's bytes or with a value being written: which part, where
/// in the value (a path such as `$.tags[2]`, when known), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantError {
    part: &'static str,
    at: Option<String>,
    reason: String,
}

impl VariantError {
    pub(crate) fn metadata(reason: String) -> Self {
        Self {
            part: "metadata",
            at: None,
            reason,
        }
    }

    pub(crate) fn value(reason: String) -> Self {
        Self {
            part: "value",
            at: None,
            reason,
        }
    }

    /// The same error, placed at `path` (kept if already placed deeper).
    pub(crate) fn at(mut self, path: &str) -> Self {
        self.at.get_or_insert_with(|| path.to_string());
        self
    }

    /// Why, without the place.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Variant {}", self.part)?;
        if let Some(at) = &self.at {
            write!(f, " at {at}")?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for VariantError {}

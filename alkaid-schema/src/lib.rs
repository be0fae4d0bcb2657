//! The type system of Alkaid: data types, fields, schemas, metadata and extension types.
//!
//! This crate depends on no other Alkaid crate; every other layer depends on it.
//!
//! | type | what it is |
//! | --- | --- |
//! | [`DataType`] | every logical type of the format, with checked parameter types ([`DecimalType`], [`MapType`], [`UnionType`], [`RunEndEncodedType`]) |
//! | [`PhysicalType`] | the memory layout a type uses; [`DataType::to_physical`] is the one mapping |
//! | [`Field`], [`Fields`] | a named, typed, nullable column or child, with [`Metadata`] |
//! | [`Schema`] | the fields of a record batch; lookup, projection, [merging](merge) |
//! | [`extension`] | extension annotations under `ALKAID:` and `ARROW:`, user extension types, a registry |
//! | [`json`] | a small, hostile-input-safe JSON reader for extension descriptions and `arrow.json` values |
//! | [`ffi`] | the C data interface's `ArrowSchema`: fields exported to and imported from other libraries |
//!
//! Data types have one text notation: [`Display`](std::fmt::Display) writes it and
//! [`FromStr`](std::str::FromStr) reads it back (see the notation table in
//! [`DataType`]'s `Display` implementation source, `datatype/display.rs`).
//!
//! # Example
//! ```
//! use alkaid_schema::{DataType, Field, IntegerType, Schema, TimeUnit};
//!
//! let schema = Schema::new(vec![
//!     Field::new("time", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), false),
//!     Field::new("city", DataType::dictionary(IntegerType::Int16, DataType::Utf8), true),
//!     Field::new("readings", DataType::list(DataType::Float64), true),
//! ]);
//! assert_eq!(
//!     schema.to_string(),
//!     "time: Timestamp(ms, \"UTC\") not null, city: Dictionary(Int16, Utf8), readings: List(item: Float64)"
//! );
//! let readings = schema.field_with_name("readings")?;
//! assert_eq!(readings.data_type(), &"List(item: Float64)".parse::<DataType>()?);
//! # Ok::<(), alkaid_schema::SchemaError>(())
//! ```
// Unsafe code is refused everywhere but the C data interface, which cannot do without it.
#![deny(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

#[cfg(any(test, feature = "proptest"))]
pub mod arbitrary;
mod datatype;
mod error;
pub mod extension;
pub mod ffi;
mod field;
pub mod json;
pub mod merge;
mod metadata;
mod schema;

pub use datatype::{
    DataType, DecimalType, DecimalWidth, IntegerType, IntervalUnit, MAX_PARSE_DEPTH, MapType,
    NativeKind, PhysicalType, RunEndEncodedType, RunEndType, TimeUnit, UnionMode, UnionType,
};
pub use error::SchemaError;
pub use field::{Field, FieldRef, Fields};
pub use metadata::Metadata;
pub use schema::{Schema, SchemaRef};

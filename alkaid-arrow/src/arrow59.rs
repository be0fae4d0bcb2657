//! The bridge to arrow-rs 59 (the `arrow-59` feature): every function here takes or
//! returns the types of the `arrow-*` crates of release 59.

use arrow_array_59 as arrow_array;
use arrow_buffer_59 as arrow_buffer;
use arrow_data_59 as arrow_data;
use arrow_schema_59 as arrow_schema;

// The bridge is written once, under src/bridge/, and compiled once per supported release
// with the names above pointing at that release's crates.
#[path = "bridge/arrays.rs"]
mod arrays;
#[path = "bridge/buffers.rs"]
mod buffers;
#[path = "bridge/readers.rs"]
mod readers;
#[path = "bridge/types.rs"]
mod types;

pub use arrays::{
    array_from_arrow, array_to_arrow, batch_from_arrow, batch_to_arrow, data_from_arrow,
    data_from_arrow_with, data_to_arrow,
};
pub use buffers::{buffer_from_arrow, buffer_to_arrow, nulls_from_arrow, nulls_to_arrow};
pub use readers::{AlkaidReader, ArrowReader};
pub use types::{
    data_type_from_arrow, data_type_to_arrow, field_from_arrow, field_to_arrow, schema_from_arrow,
    schema_to_arrow,
};

//! The direct bridge to arrow-rs 59: types, arrays, batches and readers both ways, buffers
//! shared. The tests are written once under bridge/ and run for each release.
#![cfg(feature = "arrow-59")]

use alkaid_arrow::arrow59 as bridge;
use arrow_array_59 as arrow_array;
use arrow_buffer_59 as arrow_buffer;
use arrow_data_59 as arrow_data;
use arrow_schema_59 as arrow_schema;

use crate::common;

#[path = "bridge/arrays.rs"]
mod arrays;
#[path = "bridge/readers.rs"]
mod readers;
#[path = "bridge/types.rs"]
mod types;

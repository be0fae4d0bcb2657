//! The direct bridge to arrow-rs 60: types, arrays, batches and readers both ways, buffers
//! shared. The tests are written once under bridge/ and run for each release.

use alkaid_arrow::arrow60 as bridge;
use arrow_array_60 as arrow_array;
use arrow_buffer_60 as arrow_buffer;
use arrow_data_60 as arrow_data;
use arrow_schema_60 as arrow_schema;

use crate::common;

#[path = "bridge/arrays.rs"]
mod arrays;
#[path = "bridge/readers.rs"]
mod readers;
#[path = "bridge/types.rs"]
mod types;

//! Zero-copy conversions between Alkaid and arrow-rs, for engines built on arrow-rs
//! (DataFusion, Ballista, and others) that want Alkaid's readers, writers and services.
//!
//! | Alkaid | arrow-rs | to arrow-rs | from arrow-rs |
//! | --- | --- | --- | --- |
//! | `DataType`, `Field`, `Schema` | the same names | [`data_type_to_arrow`](arrow60::data_type_to_arrow), [`field_to_arrow`](arrow60::field_to_arrow), [`schema_to_arrow`](arrow60::schema_to_arrow) | [`data_type_from_arrow`](arrow60::data_type_from_arrow), … |
//! | `Buffer`, `NullBuffer` | the same names | [`buffer_to_arrow`](arrow60::buffer_to_arrow), [`nulls_to_arrow`](arrow60::nulls_to_arrow) | [`buffer_from_arrow`](arrow60::buffer_from_arrow), [`nulls_from_arrow`](arrow60::nulls_from_arrow) |
//! | `ArrayData`, `ArrayRef` | the same names | [`data_to_arrow`](arrow60::data_to_arrow), [`array_to_arrow`](arrow60::array_to_arrow) | [`data_from_arrow`](arrow60::data_from_arrow), [`array_from_arrow`](arrow60::array_from_arrow) |
//! | `RecordBatch` | `RecordBatch` | [`batch_to_arrow`](arrow60::batch_to_arrow) | [`batch_from_arrow`](arrow60::batch_from_arrow) |
//! | an iterator of batches | `RecordBatchReader` | [`ArrowReader`](arrow60::ArrowReader) | [`AlkaidReader`](arrow60::AlkaidReader) |
//!
//! # Zero copy
//! Arrays cross by sharing memory: each side wraps the other's buffers, keeping them alive
//! through the owner they came with, so a conversion costs O(number of buffers) whatever
//! the length of the array, and the data pointers are the same on both sides. The one
//! copy: arrow-rs wants binary views and 256-bit decimals aligned to 16 bytes, where the
//! format (and Alkaid) accept 4 and 8, so such a buffer wrapped from an 8-byte aligned
//! IPC body is copied on its way to arrow-rs. Alkaid's own allocations are 64-byte
//! aligned and never copied.
//!
//! Arrays from arrow-rs are checked structurally (buffer counts, sizes, alignment: also
//! O(number of buffers)) and trust arrow-rs for their values, which its safe constructors
//! validate; [`data_from_arrow_with`](arrow60::data_from_arrow_with) validates fully for
//! arrays built with arrow-rs's `unsafe` constructors from untrusted bytes.
//!
//! # arrow-rs versions
//! One module per supported arrow-rs release, each behind a cargo feature, both usable at
//! once: [`arrow60`] (feature `arrow-60`, on by default; the newest release) and
//! [`arrow59`] (feature `arrow-59`; what DataFusion 55 is built on). A user of an older
//! arrow-rs converts through the C data interface, which every release since 1.0 speaks:
//! export with `alkaid_data::ffi::ArrowArray::export` and
//! `alkaid_schema::ffi::ArrowSchema::try_export`, import with arrow-rs's `from_ffi`, and
//! the other way with arrow-rs's `to_ffi` and `alkaid_data::ffi::import_array`. That path
//! also shares buffers, at the cost of the C structures' allocations and release callbacks.
//!
//! # Example
//! ```
//! # #[cfg(feature = "arrow-60")] {
//! use std::sync::Arc;
//! use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
//! use alkaid_arrow::arrow60::{batch_from_arrow, batch_to_arrow};
//! use alkaid_schema::{DataType, Field, Schema};
//!
//! let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
//! let column: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(3)]));
//! let batch = RecordBatch::try_new(schema, vec![column.clone()])?;
//!
//! let theirs = batch_to_arrow(&batch); // an arrow_array::RecordBatch
//! assert_eq!(theirs.num_rows(), 3);
//! assert_eq!(theirs.column(0).null_count(), 1);
//! // The same memory: arrow-rs's values start where Alkaid's do.
//! let ours_ptr = column.to_data().buffers()[0].as_ptr();
//! assert_eq!(theirs.column(0).to_data().buffers()[0].as_ptr(), ours_ptr);
//!
//! let back = batch_from_arrow(&theirs)?;
//! assert_eq!(back.column(0).to_data().buffers()[0].as_ptr(), ours_ptr);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![doc(test(attr(deny(warnings))))]
// src/bridge/ is compiled once per supported arrow-rs release, on purpose: the same code
// against each release's types (see arrow59.rs and arrow60.rs).
#![allow(clippy::duplicate_mod)]

mod error;

#[cfg(feature = "arrow-59")]
pub mod arrow59;
#[cfg(feature = "arrow-60")]
pub mod arrow60;

pub use error::BridgeError;

//! Selection kernels: the operations query engines run in their inner loops to pick and
//! combine rows.
//!
//! | kernel | what it does |
//! | --- | --- |
//! | [`concat()`], [`concat_batches`] | arrays (or batches) one after another; dictionaries that differ are merged |
//! | [`filter()`], [`filter_record_batch`], [`FilterPredicate`] | the slots a boolean mask selects; one prepared mask for every column |
//! | [`take()`], [`take_record_batch`] | the slots (or rows) at integer indices, nulls and repeats allowed; out-of-range indices are errors (checked at no measurable cost, so there is no unchecked variant) |
//! | [`interleave`], [`zip`], [`nullif`] | slots picked from several arrays; a choice between two sides by mask (either side may be a scalar); slots made null by mask, for every type |
//!
//! Every kernel takes every type of the format, nested to any depth and sliced at any
//! level. Results share their input's memory where the layout allows: dictionaries are
//! kept, and views keep pointing into their data buffers, except that a result that keeps
//! less than a quarter of its input's slots and whose views reference less than a quarter
//! of the bytes those buffers hold (when they hold at least 64 KiB) gets the referenced
//! bytes copied into new buffers, so that a small selection does not keep a large column
//! alive.
//!
//! Depends on alkaid-array and the layers below; not on alkaid-ipc.
//!
//! # Example
//! ```
//! use alkaid_array::{Array, AsArray, Int32Array};
//! use alkaid_array::types::Int32Type;
//! use alkaid_select::concat;
//!
//! let a = Int32Array::from(vec![Some(1), None]);
//! let b = Int32Array::from(vec![3, 4, 5]);
//! let tail = b.slice(1, 2); // an ArrayRef
//! let joined = concat(&[&a as &dyn Array, tail.as_ref()])?;
//! let values: Vec<Option<i32>> = joined.as_primitive::<Int32Type>().iter().collect();
//! assert_eq!(values, [Some(1), None, Some(4), Some(5)]);
//! # Ok::<(), alkaid_select::SelectError>(())
//! ```
#![doc(test(attr(deny(warnings))))]

mod batch;
mod concat;
mod error;
mod filter;
mod interleave;
mod take;
mod zip;

pub use concat::{concat, concat_batches, concat_data};
pub use error::SelectError;
pub use filter::{FilterPredicate, filter, filter_record_batch};
pub use interleave::interleave;
pub use take::{take, take_record_batch};
pub use zip::{nullif, zip};

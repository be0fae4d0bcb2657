//! Type-erased array data: the layout table, validation and equality.
//!
//! Every higher layer and every reader of untrusted bytes relies on this crate. It depends on
//! `alkaid-buffer` and `alkaid-schema` only.
//!
//! | item | what it is |
//! | --- | --- |
//! | [`ArrayData`] | an array of any type: buffers, validity, children, dictionary; O(1) slice |
//! | [`layout`] | the spec's table of buffers per layout, written once for everyone |
//! | [`ffi`] | the C data interface's `ArrowArray`: arrays shared with other libraries in one process, without copies |
//! | [`ValidationLevel`] | structural, full and strict checks, with errors that name the child path |
//! | [`equal()`](fn@equal) | logical equality of two arrays, slot by slot |
//! | [`concat()`](fn@concat), [`compact_views`] | arrays joined end to end, for every layout; view arrays' referenced bytes copied out |
//!
//! # Example
//! ```
//! use alkaid_buffer::Buffer;
//! use alkaid_data::{ArrayData, DataErrorKind};
//! use alkaid_schema::DataType;
//!
//! let list_type: DataType = "List(item: Int32)".parse()?;
//! let items = ArrayData::builder(DataType::Int32)
//!     .len(4)
//!     .buffers(vec![Buffer::from_slice_ref(&[1i32, 2, 3, 4])])
//!     .build()?;
//! let lists = ArrayData::builder(list_type.clone())
//!     .len(2)
//!     .buffers(vec![Buffer::from_slice_ref(&[0i32, 3, 4])])
//!     .children(vec![items.clone()])
//!     .build()?;
//! assert_eq!(lists.children()[0].len(), 4);
//!
//! // An offset past the child is caught, and the error says where.
//! let bad = ArrayData::builder(list_type)
//!     .len(2)
//!     .buffers(vec![Buffer::from_slice_ref(&[0i32, 3, 9])])
//!     .children(vec![items])
//!     .build()
//!     .unwrap_err();
//! assert_eq!(bad.kind(), DataErrorKind::Offsets);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![doc(test(attr(deny(warnings))))]

// The test support shared with the integration tests names this crate by its name.
#[cfg(test)]
extern crate self as alkaid_data;

mod concat;
mod data;
mod empty;
pub mod equal;
mod error;
pub mod ffi;
mod layout;
mod runs;
mod validate;
mod views;

pub use concat::{concat, concat_with};
pub use data::{ArrayData, ArrayDataBuilder, ArrayDataParts};
pub use equal::equal;
pub use error::{DataError, DataErrorKind};
pub use layout::{BufferSpec, BufferSpecs, ChildSpec, Layout, layout};
pub use runs::run_span;
pub use validate::ValidationLevel;
pub use views::{compact_views, referenced_view_bytes};

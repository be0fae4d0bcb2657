//! Aligned, shared buffers, typed views and bitmaps: the bottom layer of Alkaid.
//!
//! This crate knows nothing about data types or arrays; it is the layer an engine can embed
//! alone (`examples/tiny_engine.rs` is such an engine: a filter and a sum over typed
//! buffers and bitmaps). It depends on no other Alkaid crate (only on `half` for `f16`).
//!
//! | type | what it is |
//! | --- | --- |
//! | [`Buffer`] | immutable bytes with shared ownership; O(1) clone and slice; wraps foreign memory without copying |
//! | [`MutableBuffer`] | growable, 64-byte aligned bytes that freeze into a [`Buffer`] without copying |
//! | [`ScalarBuffer<T>`] | a [`Buffer`] checked once and viewed as `&[T]` |
//! | [`OffsetBuffer<O>`] | `i32`/`i64` offsets, checked non-negative and non-decreasing |
//! | [`BooleanBuffer`] | a packed bitmap at any bit offset |
//! | [`NullBuffer`] | a validity bitmap with its null count cached |
//! | [`builder`] | [`BooleanBufferBuilder`](builder::BooleanBufferBuilder), [`NullBufferBuilder`](builder::NullBufferBuilder) |
//! | [`native`] | [`NativeType`] and the fixed-width values: [`i256`](native::i256), [`f16`](native::f16), intervals, [`ByteView`](native::ByteView) |
//! | [`bitmap`] | bit kernels at any offset: chunks, set-bit indices and runs, `and`/`or`/`xor`/`not`, counting |
//! | [`memory`] | how much Alkaid allocated; pools and tallies that count shared memory once |
//!
//! Memory that Alkaid allocates is aligned to [`ALIGNMENT`] (64) bytes and padded to a multiple
//! of it, as the format recommends. Memory it wraps is used where it lies, so typed views
//! check alignment and return [`BufferError`] rather than reading misaligned data.
//!
//! # Example
//! ```
//! use alkaid_buffer::{Buffer, BooleanBuffer, MutableBuffer, NullBuffer, ScalarBuffer};
//!
//! // Build values in an aligned mutable buffer, then freeze them without copying.
//! let mut values = MutableBuffer::new();
//! values.extend_from_slice(&[10i32, 20, 30, 40]);
//! let values: ScalarBuffer<i32> = Buffer::from(values).try_into()?;
//!
//! // A validity bitmap: slot 2 is null.
//! let nulls = NullBuffer::from(vec![true, true, false, true]);
//!
//! // Slicing is O(1) and shares memory, for values and bits alike.
//! let (values, nulls) = (values.slice(1, 3), nulls.slice(1, 3));
//! let present: Vec<i32> = nulls.valid_indices().map(|i| values[i]).collect();
//! assert_eq!(present, [20, 40]);
//! assert_eq!(nulls.null_count(), 1);
//!
//! // Bit kernels work at any offset.
//! let selected = BooleanBuffer::from(vec![true, false, true]);
//! assert_eq!((&selected & nulls.validity()).count_set_bits(), 2);
//! # Ok::<(), alkaid_buffer::BufferError>(())
//! ```
#![doc(test(attr(deny(warnings))))]

mod alloc;
pub mod bitmap;
mod boolean;
mod buffer;
pub mod builder;
mod error;
pub mod memory;
mod mutable;
pub mod native;
mod null;
mod offset;
mod scalar;
mod storage;

pub use alloc::ALIGNMENT;
pub use boolean::BooleanBuffer;
pub use buffer::Buffer;
pub use error::BufferError;
pub use mutable::MutableBuffer;
pub use native::NativeType;
pub use null::NullBuffer;
pub use offset::{OffsetBuffer, OffsetSize};
pub use scalar::ScalarBuffer;

//! Parquet, with arrow-rs's `parquet` crate: [`read`] a file (or [`read_bytes`]) as Alkaid
//! batches, with a projection, a choice of row groups and a row limit; [`ParquetWriter`]
//! and [`write()`] with a codec, row-group size, dictionary encoding, statistics and
//! key-value metadata. The Arrow schema is stored in the file, so that pyarrow (and this
//! reader) read back the same types: dictionaries, time zones, large and view types.
//!
//! Every file is hostile until checked: its footer and page index are walked before
//! arrow-rs decodes them (`footer.rs`, `thrift.rs`: a size the bytes cannot hold is
//! refused rather than reserved), every column chunk must lie inside the file, and
//! everything arrow-rs does with the file (the footer, the page index, pruning, the
//! ranged reader's loads, decoding) runs inside a guard that turns its panics into errors.

mod footer;
mod int96;
mod int96_scan;
mod leaves;
mod mistyped;
mod pages;
mod prune;
mod read;
mod remote;
mod repair;
mod thrift;
mod variant;
mod write;

pub use read::{ParquetReadOptions, read, read_bytes, read_with};
#[cfg(feature = "object_store")]
pub use remote::read_object;
pub use remote::read_source;
pub use write::{Codec, ParquetWriter, Statistics, WriteOptions, write};

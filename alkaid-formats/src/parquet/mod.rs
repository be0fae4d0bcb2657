//! Parquet, with arrow-rs's `parquet` crate: [`read`] a file (or [`read_bytes`]) as Alkaid
//! batches, with a projection, a choice of row groups and a row limit; [`ParquetWriter`]
//! and [`write()`] with a codec, row-group size, dictionary encoding, statistics and
//! key-value metadata. The Arrow schema is stored in the file, so that pyarrow (and this
//! reader) read back the same types: dictionaries, time zones, large and view types.

mod prune;
mod read;
mod remote;
mod write;

pub use read::{ReadOptions, read, read_bytes, read_with};
#[cfg(feature = "object_store")]
pub use remote::read_object;
pub use remote::read_source;
pub use write::{Codec, ParquetWriter, Statistics, WriteOptions, write};

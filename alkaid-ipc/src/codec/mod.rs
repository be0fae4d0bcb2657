//! The codecs of compressed bodies: LZ4 frames and zstd, buffer by buffer
//! (`compression.rs`). The LZ4 frame format is written and read here (`lz4_frame.rs`) over
//! block codecs (`lz4_block.rs`: lz4_flex, or the C library with feature `lz4-c`); zstd is
//! the C library's (`zstd.rs`). A build without feature `lz4` or `zstd` has stand-ins of the
//! same names (`absent.rs`) that fail, naming the feature. Codec work is spread over threads
//! by `parallel.rs`; a body compressed as it is written, block by block for LZ4, by
//! `in_order.rs`.

mod absent;
mod compression;
mod in_order;
#[cfg(feature = "lz4")]
mod lz4_block;
#[cfg(feature = "lz4")]
mod lz4_frame;
#[cfg(not(feature = "lz4"))]
use absent::lz4 as lz4_frame;
mod parallel;
#[cfg(feature = "zstd")]
mod zstd;
#[cfg(not(feature = "zstd"))]
use absent::zstd;

pub use compression::Compression;
pub(crate) use compression::{Compressor, Decompressor, DecompressorPool};
pub(crate) use in_order::compress_in_order;
pub(crate) use parallel::round_robin;

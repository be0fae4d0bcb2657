//! The IPC stream and file formats: record batches to bytes and back, compatible with every
//! Arrow implementation.
//!
//! | item | what it does |
//! | --- | --- |
//! | [`StreamWriter`], [`FileWriter`] | write batches as a stream or as a file (magic `ALKAID1`, or `ARROW1` with [`Magic::Arrow`]) |
//! | [`FileOutput`] | a file as the writers' output: the slices whose copy into the file's pages would stall (a mapped stream converted to a file) go through a small buffer |
//! | [`SpoolWriter`] | the same bytes as buffers (the batch's own, not copied), for a carrier that writes them itself |
//! | [`WriteOptions`] | alignment 8 or 64, [`Compression`] (LZ4 frame, zstd), dictionary deltas, threads |
//! | [`Decoder`] | push-based (sans-IO) stream decoding, for async and network code |
//! | [`StreamReader`] | a stream from any `Read`, legacy framing included |
//! | [`BufferStreamReader`] | a stream already in memory, zero-copy |
//! | [`FileReader`] | random access to the batches of a file; zero-copy over a [`Buffer`](alkaid_buffer::Buffer) |
//! | [`FileMap`] | a file's bytes through a memory map guarded against the file shrinking (an error from [`FileMap::check`], not a crash) |
//! | [`ReadOptions`] | full validation (default) or, `unsafe`, structural only; nullability checks; only some columns ([`ReadOptions::with_columns`]), the others neither decompressed nor validated; decompression threads |
//! | [`Tensor`], [`SparseTensor`] | tensor and sparse tensor messages ([`read_tensor`], [`write_tensor`], ...), zero-copy |
//!
//! Every decoded batch is fully validated before it is handed out; every error names what
//! was wrong and where (message, column path, buffer).
//!
//! # Limits on untrusted input
//! Readers treat every byte as hostile. Beyond validation, they bound what input can make
//! them do; `tests/limits.rs` tests each bound.
//!
//! | what | bound | error kind |
//! | --- | --- | --- |
//! | nesting of fields | [`MAX_FIELD_DEPTH`] (64) levels | `LimitExceeded` |
//! | a message's metadata, a file's footer | 64 MiB ([`ReadOptions::with_max_metadata_bytes`]) | `LimitExceeded` |
//! | tables in one flatbuffer (fields, types, dictionary encodings) | 2^20, so about 500,000 fields per schema | `Malformed` |
//! | flatbuffer depth | 3 tables per level of fields, plus 16 | `Malformed` |
//! | field nodes, buffers and variadic counts of a batch | exactly as many as the schema uses | `Malformed` |
//! | memory for a message read from a `Read` | committed as bytes arrive: below 4 MiB, a vector of at most twice the bytes received plus 1 MiB; from 4 MiB, an anonymous mapping of the declared length (address space only; on Linux advised to use 2 MiB pages unless [`set_huge_pages`] says otherwise), resident only as far as the bytes received plus one page, or a mapping kept from a dropped buffer (at most 5/4 of the length plus 2 MiB, already resident; see [`set_mapping_cache_limit`]) | `Truncated` |
//! | bytes pushed into a [`Decoder`] | held until their message is complete; a body of 4 MiB or more whose metadata has arrived moves into a mapping as above, resident only as far as pushed | `Truncated`, from [`Decoder::finish`] |
//! | buffers of a file or of memory | inside the body and the file; read from there, never allocated ahead | `Malformed` |
//! | a compressed buffer's declared size | allocated up front only when at most 256 times its compressed size plus 1 MiB (from 4 MiB, as a mapping committed as the codec writes); past that, memory grows with what the codec really produces, and a difference from the declared size is an error | `Malformed` |
//! | what one message's compressed buffers decompress to, together | unbounded by default (each buffer's output must equal its declaration); [`ReadOptions::with_max_decompressed_bytes`] bounds it, checked against the declared sizes before a buffer is decompressed (the Flight servers set 1 GiB) | `LimitExceeded` |
//!
//! A length costs nothing by itself: every byte that a batch's lengths call for must be in
//! its body, so memory follows the input. Layouts without buffers (`Null`, structs with no
//! fields) may declare any length; callers that loop over rows bound that themselves.
//!
//! # Features
//! - `lz4`, `zstd` (default): the codecs of compressed bodies (LZ4 frames in Rust by
//!   lz4_flex; zstd by the C library, built from source). Without one, reading or writing
//!   a body compressed with it is an [`IpcErrorKind::Unsupported`] error that names the
//!   feature ([`Compression::is_available`] says which a build has); nothing else changes.
//! - `lz4-c`: LZ4 blocks are decompressed by the reference C library (built from source
//!   by the `cc` crate, as zstd's already is) instead of lz4_flex: LZ4 reads take about
//!   0.85 of the time. Compression stays with lz4_flex, which compresses faster.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
//! use alkaid_ipc::{Compression, StreamReader, StreamWriter, WriteOptions};
//! use alkaid_schema::{Field, Schema};
//!
//! let fields: Vec<Field> = vec!["id: Int32".parse()?, "name: Utf8".parse()?];
//! let schema = Arc::new(Schema::new(fields));
//! let columns: Vec<ArrayRef> = vec![
//!     Arc::new(Int32Array::from(vec![1, 2, 3])),
//!     Arc::new(StringArray::from(vec!["ant", "bee", "cat"])),
//! ];
//! let batch = RecordBatch::try_new(schema.clone(), columns)?;
//!
//! let options = WriteOptions::default().with_compression(Compression::ZSTD);
//! let mut writer = StreamWriter::try_new(Vec::new(), schema, options)?;
//! writer.write(&batch.slice(1, 2))?; // sliced batches are written compactly
//! let bytes = writer.into_inner()?;
//!
//! let batches: Vec<RecordBatch> = StreamReader::try_new(&bytes[..])?.collect::<Result<_, _>>()?;
//! assert_eq!(batches[0].num_rows(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![doc(test(attr(deny(warnings))))]

mod codec;
mod dictionary;
mod error;
mod file_map;
mod fill;
mod mapping;
mod path;
mod read;
mod schema;
mod tensor;
#[cfg(test)]
mod tests;
mod write;

/// Code generated by `flatc` from `format/*.fbs` (see `generate.sh`); not edited by hand.
#[allow(
    missing_docs,
    unused_imports,
    dead_code,
    unused_qualifications,
    unsafe_op_in_unsafe_fn,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    mismatched_lifetime_syntaxes,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
#[rustfmt::skip]
mod generated;

pub(crate) use generated::org::apache::arrow::flatbuf as fb;

pub use codec::Compression;
pub use dictionary::DictionaryIds;
pub use error::{IpcError, IpcErrorKind, Result};
pub use file_map::FileMap;
pub use mapping::{
    cached_mapping_bytes, release_mapping_cache, set_huge_pages, set_mapping_cache_limit,
};
pub use read::{
    BatchPlan, BufferStreamReader, ByteSource, Decoded, Decoder, Fetch, FileDecoder, FileOpening,
    FileReader, MessageInfo, Opened, ReadOptions, RowPart, Seekable, Step, StreamReader,
};
pub use schema::MAX_FIELD_DEPTH;
pub use tensor::{
    CompressedAxis, CooIndex, CsfIndex, CsxIndex, SparseIndex, SparseTensor, Tensor,
    read_sparse_tensor, read_tensor, row_major_strides, write_sparse_tensor, write_tensor,
};
pub use write::{
    EncodedMessage, FileDictionaries, FileOutput, FileWriter, Magic, MessageEncoder, MessageKind,
    SpoolWriter, StreamWriter, WriteOptions,
};

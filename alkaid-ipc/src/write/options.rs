//! Options of the stream and file writers.

use crate::compression::Compression;

/// The 8 bytes that open and the bytes that close an IPC file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Magic {
    /// `ALKAID1`: the Alkaid name, the default.
    #[default]
    Alkaid,
    /// `ARROW1`: so that Arrow readers (pyarrow, arrow-rs, DuckDB, ...) open the file.
    Arrow,
}

impl Magic {
    /// The magic bytes, without padding.
    pub fn bytes(self) -> &'static [u8] {
        match self {
            Magic::Alkaid => b"ALKAID1",
            Magic::Arrow => b"ARROW1",
        }
    }
}

/// How a writer lays out and compresses messages.
///
/// ```
/// use alkaid_ipc::{Compression, Magic, WriteOptions};
/// let options = WriteOptions::default()
///     .with_compression(Compression::Zstd { level: 1 })
///     .with_alignment(64)
///     .with_magic(Magic::Arrow);
/// assert_eq!(options.alignment(), 64);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    alignment: usize,
    compression: Compression,
    compression_threads: usize,
    dictionary_deltas: bool,
    magic: Magic,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            alignment: 8,
            compression: Compression::None,
            compression_threads: 1,
            dictionary_deltas: true,
            magic: Magic::Alkaid,
        }
    }
}

impl WriteOptions {
    /// Pads metadata and every body buffer to `alignment` bytes: 8 (the format's minimum,
    /// the default) or 64 (for readers that want SIMD-friendly buffers in place).
    ///
    /// # Panics
    /// If `alignment` is neither 8 nor 64.
    pub fn with_alignment(mut self, alignment: usize) -> Self {
        assert!(
            alignment == 8 || alignment == 64,
            "IPC alignment must be 8 or 64, not {alignment}"
        );
        self.alignment = alignment;
        self
    }

    /// Compresses body buffers with `compression`.
    pub fn with_compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// Compresses the buffers of one message on up to `threads` threads (1, the default,
    /// compresses on the caller's thread). The codec dominates compressed writes.
    pub fn with_compression_threads(mut self, threads: usize) -> Self {
        self.compression_threads = threads.max(1);
        self
    }

    /// Whether a stream may send a dictionary that extends the previous one as a delta
    /// (default true); otherwise it sends a replacement.
    pub fn with_dictionary_deltas(mut self, deltas: bool) -> Self {
        self.dictionary_deltas = deltas;
        self
    }

    /// The magic of files (streams have none).
    pub fn with_magic(mut self, magic: Magic) -> Self {
        self.magic = magic;
        self
    }

    /// Padding of metadata and buffers, in bytes.
    pub fn alignment(&self) -> usize {
        self.alignment
    }

    /// The buffer compression.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Threads used to compress one message.
    pub fn compression_threads(&self) -> usize {
        self.compression_threads
    }

    /// Whether dictionary deltas may be sent.
    pub fn dictionary_deltas(&self) -> bool {
        self.dictionary_deltas
    }

    /// The file magic.
    pub fn magic(&self) -> Magic {
        self.magic
    }
}

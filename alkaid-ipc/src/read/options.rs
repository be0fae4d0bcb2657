//! Options of the readers.

/// How readers check what they decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    pub(crate) full_validation: bool,
    pub(crate) max_metadata_bytes: usize,
    pub(crate) check_nullability: bool,
    pub(crate) decompression_threads: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            full_validation: true,
            max_metadata_bytes: 64 << 20,
            check_nullability: false,
            decompression_threads: 1,
        }
    }
}

impl ReadOptions {
    /// Skips the full validation of decoded batches and dictionaries (offsets, UTF-8, views,
    /// dictionary keys, union type ids, run ends) and takes null counts from the messages
    /// instead of counting bitmaps, keeping only the structural checks (lengths, buffer
    /// sizes, alignment), which cost time in the number of buffers, not bytes.
    ///
    /// # Safety
    /// The input must be trusted to be valid, null counts included: safe code reading the
    /// decoded arrays relies on full validity (strings are read without re-checking UTF-8,
    /// offsets without bounds checks) and may read out of bounds if it is not. Use it only for bytes this process
    /// wrote itself or received from a producer that validates.
    pub unsafe fn skip_full_validation(mut self) -> Self {
        self.full_validation = false;
        self
    }

    /// The largest message metadata (flatbuffer) accepted, in bytes; 64 MiB by default.
    /// Bodies are bounded by the input itself.
    pub fn with_max_metadata_bytes(mut self, bytes: usize) -> Self {
        self.max_metadata_bytes = bytes;
        self
    }

    /// Refuses nulls in fields that are not nullable, at any depth (a null inside a null
    /// struct slot does not count), naming the field's path. Off by default: the format
    /// calls nullability metadata, pyarrow and Arrow C++ read such data, and so does
    /// Alkaid unless asked.
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// assert!(!ReadOptions::default().check_nullability());
    /// assert!(ReadOptions::default().with_nullability_check(true).check_nullability());
    /// ```
    pub fn with_nullability_check(mut self, check: bool) -> Self {
        self.check_nullability = check;
        self
    }

    /// Decompresses the buffers of each compressed message on up to `threads` threads (1,
    /// the default, decompresses on the caller's thread, one buffer after another). The
    /// buffers of a message are handed out round robin, so the gain depends on how evenly
    /// the columns divide; uncompressed input is unaffected.
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// assert_eq!(ReadOptions::default().decompression_threads(), 1);
    /// assert_eq!(ReadOptions::default().with_decompression_threads(0).decompression_threads(), 1);
    /// ```
    pub fn with_decompression_threads(mut self, threads: usize) -> Self {
        self.decompression_threads = threads.max(1);
        self
    }

    /// How many threads decompress one message's buffers.
    pub fn decompression_threads(&self) -> usize {
        self.decompression_threads
    }

    /// Whether nulls in non-nullable fields are refused.
    pub fn check_nullability(&self) -> bool {
        self.check_nullability
    }

    /// Whether batches are fully validated (the default).
    pub fn full_validation(&self) -> bool {
        self.full_validation
    }
}

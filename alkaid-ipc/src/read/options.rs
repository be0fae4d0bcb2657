//! Options of the readers.

/// How readers check what they decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    pub(crate) full_validation: bool,
    pub(crate) strict_validation: bool,
    pub(crate) max_metadata_bytes: usize,
    pub(crate) check_nullability: bool,
    pub(crate) decompression_threads: usize,
    pub(crate) columns: Option<Columns>,
    pub(crate) fetch_gap: usize,
    pub(crate) footer_prefetch: usize,
    pub(crate) concurrent_fetches: usize,
    pub(crate) max_decompressed_bytes: Option<usize>,
}

/// The top-level columns a reader decodes, as the caller named them (resolved against the
/// schema when it arrives).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Columns {
    Indices(Vec<usize>),
    Names(Vec<String>),
    /// Names, of which those no field has are left out.
    PresentNames(Vec<String>),
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            full_validation: true,
            strict_validation: false,
            max_metadata_bytes: 64 << 20,
            check_nullability: false,
            decompression_threads: 1,
            columns: None,
            fetch_gap: 64 << 10,
            footer_prefetch: 64 << 10,
            concurrent_fetches: 8,
            max_decompressed_bytes: None,
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

    /// Validates every batch at [`ValidationLevel::Strict`] instead of full validation, as
    /// `RecordBatch::validate` does at that level: the data layer's strict checks
    /// (decimals within their precision, `Date64` whole days, times within a day, a map's
    /// entries not nullable: what Arrow C++'s full validation also checks), nulls in
    /// non-nullable fields at any depth, and `arrow.json` values that are JSON; an error
    /// names the field. A caller that wants strict validation then reads every value once
    /// rather than twice. A dictionary's values get the strict checks with each batch that
    /// uses them, as part of its column. Off by default; no effect when full validation is
    /// skipped.
    ///
    /// [`ValidationLevel::Strict`]: alkaid_data::ValidationLevel::Strict
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// assert!(!ReadOptions::default().strict_validation());
    /// assert!(ReadOptions::default().with_strict_validation(true).strict_validation());
    /// ```
    pub fn with_strict_validation(mut self, strict: bool) -> Self {
        self.strict_validation = strict;
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

    /// Decodes only the top-level columns at `indices` of the schema, in that order (an
    /// index may repeat): the batches, and the schema the reader reports, hold those columns
    /// alone. The other columns' buffers are not decompressed, validated or copied, and a
    /// dictionary that only they use is not decoded. An index past the schema's end is an
    /// error when the schema is read.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use alkaid_array::{Int32Array, RecordBatch, StringArray};
    /// use alkaid_ipc::{ReadOptions, StreamReader, StreamWriter, WriteOptions};
    /// use alkaid_schema::{DataType, Field, Schema};
    ///
    /// let schema = Arc::new(Schema::new(vec![
    ///     Field::new("id", DataType::Int32, false),
    ///     Field::new("name", DataType::Utf8, false),
    /// ]));
    /// let batch = RecordBatch::try_new(schema.clone(), vec![
    ///     Arc::new(Int32Array::from(vec![1, 2])),
    ///     Arc::new(StringArray::from(vec!["a", "b"])),
    /// ])?;
    /// let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default())?;
    /// writer.write(&batch)?;
    /// let bytes = writer.into_inner()?;
    ///
    /// let options = ReadOptions::default().with_columns([1]);
    /// let mut reader = StreamReader::with_options(&bytes[..], options)?;
    /// assert_eq!(reader.schema().fields()[0].name(), "name");
    /// let read = reader.next().unwrap()?;
    /// assert_eq!(read.num_columns(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_columns(mut self, indices: impl IntoIterator<Item = usize>) -> Self {
        self.columns = Some(Columns::Indices(indices.into_iter().collect()));
        self
    }

    /// As [`with_columns`](Self::with_columns), naming the columns: each name must belong
    /// to exactly one top-level field.
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// let options = ReadOptions::default().with_column_names(["b", "a"]);
    /// assert_ne!(options, ReadOptions::default());
    /// ```
    pub fn with_column_names(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.columns = Some(Columns::Names(names.into_iter().map(Into::into).collect()));
        self
    }

    /// As [`with_column_names`](Self::with_column_names), but a name that no field has is
    /// left out instead of refused: for a table over files that gained or lost columns,
    /// where the reader's schema says which of the names a file has. A name that several
    /// fields have is still refused.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use alkaid_array::{Int32Array, RecordBatch};
    /// use alkaid_ipc::{ReadOptions, StreamReader, StreamWriter, WriteOptions};
    /// use alkaid_schema::{DataType, Field, Schema};
    ///
    /// let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, false)]));
    /// let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int32Array::from(vec![1]))])?;
    /// let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default())?;
    /// writer.write(&batch)?;
    /// let bytes = writer.into_inner()?;
    ///
    /// let options = ReadOptions::default().with_present_column_names(["added_later", "id"]);
    /// let reader = StreamReader::with_options(&bytes[..], options)?;
    /// assert_eq!(reader.schema().fields().len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_present_column_names(
        mut self,
        names: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.columns = Some(Columns::PresentNames(
            names.into_iter().map(Into::into).collect(),
        ));
        self
    }

    /// When a file reader reads only some columns of a batch from a [`ByteSource`], the
    /// byte ranges of their buffers that lie at most `bytes` apart are read as one (64 KiB
    /// by default): fewer reads, a few unneeded bytes. From memory (a [`Buffer`]) every
    /// read is a slice and the gap changes nothing.
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// assert_eq!(ReadOptions::default().fetch_gap(), 64 << 10);
    /// assert_eq!(ReadOptions::default().with_fetch_gap(0).fetch_gap(), 0);
    /// ```
    ///
    /// [`ByteSource`]: crate::ByteSource
    /// [`Buffer`]: alkaid_buffer::Buffer
    pub fn with_fetch_gap(mut self, bytes: usize) -> Self {
        self.fetch_gap = bytes;
        self
    }

    /// Up to how many bytes apart two needed ranges of a file are read as one.
    pub fn fetch_gap(&self) -> usize {
        self.fetch_gap
    }

    /// How many bytes at the end of a file a file reader fetches first (64 KiB by
    /// default, at least 18): enough to hold the footer of most files, so that opening a
    /// remote file takes one request, and a second only when its footer is larger.
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// assert_eq!(ReadOptions::default().footer_prefetch(), 64 << 10);
    /// assert_eq!(ReadOptions::default().with_footer_prefetch(4096).footer_prefetch(), 4096);
    /// ```
    pub fn with_footer_prefetch(mut self, bytes: usize) -> Self {
        self.footer_prefetch = bytes;
        self
    }

    /// How many bytes at the end of a file are fetched first.
    pub fn footer_prefetch(&self) -> usize {
        self.footer_prefetch
    }

    /// How many byte ranges a reader of a source that serves several at once (an object
    /// store, through alkaid-ipc-async) asks for at the same time: 8 by default, at
    /// least 1. Synchronous sources read one range after another.
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// assert_eq!(ReadOptions::default().concurrent_fetches(), 8);
    /// assert_eq!(ReadOptions::default().with_concurrent_fetches(0).concurrent_fetches(), 1);
    /// ```
    pub fn with_concurrent_fetches(mut self, requests: usize) -> Self {
        self.concurrent_fetches = requests.max(1);
        self
    }

    /// The most bytes the compressed buffers of one message may decompress to, together
    /// (`None`, the default: as many as they declare, each buffer's output checked against
    /// its declaration). A buffer whose declared size would take a message past it is an
    /// error naming the buffer and the limit, before anything of it is decompressed: a
    /// few megabytes of zstd can declare, and honestly decompress to, tens of gigabytes,
    /// which a server reading its clients' bytes must not be made to allocate. The Flight
    /// servers set it by default. Only the buffers a reader decodes count (a projection's
    /// left-out columns are not decompressed).
    ///
    /// ```
    /// use alkaid_ipc::ReadOptions;
    /// assert_eq!(ReadOptions::default().max_decompressed_bytes(), None);
    /// let bounded = ReadOptions::default().with_max_decompressed_bytes(Some(1 << 30));
    /// assert_eq!(bounded.max_decompressed_bytes(), Some(1 << 30));
    /// ```
    pub fn with_max_decompressed_bytes(mut self, bytes: Option<usize>) -> Self {
        self.max_decompressed_bytes = bytes;
        self
    }

    /// The most bytes one message's compressed buffers may decompress to, if bounded.
    pub fn max_decompressed_bytes(&self) -> Option<usize> {
        self.max_decompressed_bytes
    }

    /// How many ranges are fetched at the same time, at most.
    pub fn concurrent_fetches(&self) -> usize {
        self.concurrent_fetches
    }

    /// How many threads decompress one message's buffers.
    pub fn decompression_threads(&self) -> usize {
        self.decompression_threads
    }

    /// Whether nulls in non-nullable fields are refused.
    pub fn check_nullability(&self) -> bool {
        self.check_nullability
    }

    /// Whether full validation adds the strict checks.
    pub fn strict_validation(&self) -> bool {
        self.strict_validation
    }

    /// Whether batches are fully validated (the default).
    pub fn full_validation(&self) -> bool {
        self.full_validation
    }
}

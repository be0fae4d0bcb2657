//! Options of the stream and file writers.

use alkaid_schema::extension::Namespace;

use crate::codec::Compression;

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

/// What a file writer does with a batch whose dictionary differs from the one the file
/// holds for that id and does not extend it (a file holds one dictionary per id, which may
/// grow by deltas; a stream may replace dictionaries and takes every batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileDictionaries {
    /// Refuse the batch, as Arrow C++ and arrow-rs do; the file written so far stays
    /// whole. Keys and dictionaries are written as they are.
    #[default]
    Refuse,
    /// Append the batch's dictionary to the file's (a delta) and move its keys past the
    /// file's values; the same dictionary again reuses what was appended for it. The rows
    /// read back are the rows written, the keys differ. Ordered dictionaries, and
    /// dictionaries whose values hold dictionaries, are still refused.
    Unify,
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
    file_dictionaries: FileDictionaries,
    magic: Magic,
    namespace: Namespace,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            alignment: 8,
            compression: Compression::None,
            compression_threads: 1,
            dictionary_deltas: true,
            file_dictionaries: FileDictionaries::Refuse,
            magic: Magic::Alkaid,
            namespace: Namespace::Alkaid,
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

    /// The magic of files (streams have none), and with it the namespace of reserved
    /// metadata keys: [`Magic::Arrow`] also writes `ARROW:` keys, so that Arrow readers see
    /// extension types (call [`with_namespace`](Self::with_namespace) after this to choose
    /// otherwise).
    pub fn with_magic(mut self, magic: Magic) -> Self {
        self.magic = magic;
        self.namespace = match magic {
            Magic::Alkaid => Namespace::Alkaid,
            Magic::Arrow => Namespace::Arrow,
        };
        self
    }

    /// The namespace of the reserved metadata keys written, at every level (schema,
    /// fields at any depth, messages, footer): [`Namespace::Arrow`] writes every `ALKAID:`
    /// key (such as `ALKAID:extension:name`) as the `ARROW:` key of the same name, so that
    /// pyarrow and other Arrow readers recognise extension types. Streams have no magic, so
    /// this is how a stream is written for Arrow readers. Readers accept both.
    ///
    /// ```
    /// use alkaid_ipc::{Magic, WriteOptions};
    /// use alkaid_schema::extension::Namespace;
    /// let stream = WriteOptions::default().with_namespace(Namespace::Arrow);
    /// assert_eq!(stream.namespace(), Namespace::Arrow);
    /// assert_eq!(WriteOptions::default().with_magic(Magic::Arrow).namespace(), Namespace::Arrow);
    /// ```
    pub fn with_namespace(mut self, namespace: Namespace) -> Self {
        self.namespace = namespace;
        self
    }

    /// The namespace of reserved metadata keys.
    pub fn namespace(&self) -> Namespace {
        self.namespace
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

    /// What a file writer does when a batch's dictionary differs from the file's
    /// ([`FileDictionaries::Refuse`] by default; streams take every dictionary).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use alkaid_array::{ArrayRef, DictionaryArray, Int8Array, RecordBatch, StringArray};
    /// use alkaid_array::types::Int8Type;
    /// use alkaid_ipc::{FileDictionaries, FileReader, FileWriter, WriteOptions};
    /// use alkaid_buffer::Buffer;
    /// use alkaid_schema::{Field, Schema};
    ///
    /// let batch = |values: Vec<&str>| {
    ///     let values: ArrayRef = Arc::new(StringArray::from(values));
    ///     let keys = Int8Array::from(vec![0, 1]);
    ///     let column: ArrayRef = Arc::new(DictionaryArray::<Int8Type>::try_new(keys, values).unwrap());
    ///     let field = Field::new("d", column.data_type().clone(), false);
    ///     RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![column]).unwrap()
    /// };
    /// let (first, second) = (batch(vec!["a", "b"]), batch(vec!["c", "d"]));
    /// let options = WriteOptions::default().with_file_dictionaries(FileDictionaries::Unify);
    /// let mut writer = FileWriter::try_new(Vec::new(), first.schema().clone(), options)?;
    /// writer.write(&first)?;
    /// writer.write(&second)?; // refused with FileDictionaries::Refuse
    /// let mut reader = FileReader::from_buffer(Buffer::from(writer.into_inner()?))?;
    /// let read = reader.batch(1)?;
    /// assert_eq!(alkaid_array::display::pretty_format_batches(&[read], None).to_string(),
    ///     alkaid_array::display::pretty_format_batches(&[second], None).to_string());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_file_dictionaries(mut self, policy: FileDictionaries) -> Self {
        self.file_dictionaries = policy;
        self
    }

    /// What a file writer does when a batch's dictionary differs from the file's.
    pub fn file_dictionaries(&self) -> FileDictionaries {
        self.file_dictionaries
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

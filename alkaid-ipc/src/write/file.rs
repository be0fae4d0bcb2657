//! The file writer.

use std::io::{Seek, Write};

use alkaid_array::RecordBatch;
use alkaid_schema::{Metadata, SchemaRef};
use flatbuffers::FlatBufferBuilder;

use super::options::WriteOptions;
use super::writer::{Counting, Output, WriterCore};
use crate::dictionary::DictionaryIds;
use crate::error::{IpcError, Result};
use crate::fb;
use crate::schema::{encode_metadata, encode_schema};

/// Writes record batches as an IPC file: magic, the stream of messages, and a footer that
/// indexes every dictionary and batch, so readers can read any batch directly.
///
/// Files start and end with `ALKAID1`; [`Magic::Arrow`](crate::Magic::Arrow) writes
/// `ARROW1` so Arrow tools open them. A file holds one dictionary per id, which later
/// batches may only extend (deltas); a batch with a different dictionary is an error.
///
/// Into a `Vec<u8>`, the footer grows the vector after a large last batch as the
/// end-of-stream marker does for a [`StreamWriter`](crate::StreamWriter): reserve the size
/// up front when it is roughly known. Into a file, wrap it in a
/// [`FileOutput`](crate::FileOutput) (and a `BufWriter` around that): a batch read from a
/// memory-mapped stream lands 8 bytes after where it lies, where the kernel's copy runs at
/// two thirds of its speed unless staged. With compression, into an output that seeks,
/// [`write_while_compressing`](Self::write_while_compressing) overlaps the write of each
/// large body with its compression.
pub struct FileWriter<W: Write> {
    core: WriterCore<Counting<W>>,
    metadata: Metadata,
    finished: bool,
}

impl<W: Write> FileWriter<W> {
    /// Starts a file of batches with `schema`.
    ///
    /// # Errors
    /// If writing fails, the schema holds something the format cannot express, or the
    /// options ask for a codec this build leaves out (features `lz4` and `zstd`).
    pub fn try_new(out: W, schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        Self::start(out, schema, None, options)
    }

    /// Starts a file whose dictionary fields use `ids`: fields given one id share one
    /// dictionary, stored once.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), and if `ids` do not fit `schema`.
    pub fn try_new_with_dictionary_ids(
        out: W,
        schema: SchemaRef,
        ids: DictionaryIds,
        options: WriteOptions,
    ) -> Result<Self> {
        Self::start(out, schema, Some(ids), options)
    }

    fn start(
        out: W,
        schema: SchemaRef,
        ids: Option<DictionaryIds>,
        options: WriteOptions,
    ) -> Result<Self> {
        let mut out = Counting::new(out);
        write_magic(&mut out, &options)?;
        Ok(Self {
            core: WriterCore::new(out, schema, ids, options, true)?,
            metadata: Metadata::new(),
            finished: false,
        })
    }

    /// Custom metadata for the footer.
    pub fn set_footer_metadata(&mut self, metadata: Metadata) {
        self.metadata = metadata;
    }

    /// Writes `batch`, after any dictionaries (or dictionary deltas) it needs.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_with_metadata(batch, &Metadata::new())
    }

    /// Writes `batch` with custom metadata on its message.
    pub fn write_with_metadata(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<()> {
        if self.finished {
            return Err(IpcError::invalid_argument("the file is already finished"));
        }
        self.core.write(batch, metadata)
    }

    /// The output, for callers that move the bytes written so far elsewhere as they go (a
    /// `Vec` drained into a socket after each message; [`SpoolWriter`](crate::SpoolWriter)
    /// does that without the copy into the `Vec`). The writer counts
    /// positions itself, so taking bytes out is safe; writing into it corrupts the file.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.core.out.inner
    }

    /// The schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        self.core.schema()
    }

    /// Writes the end-of-stream marker, the footer and the closing magic, and flushes.
    pub fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        finish_file(&mut self.core, &self.metadata)?;
        self.finished = true;
        Ok(())
    }

    /// Finishes the file and returns the output.
    pub fn into_inner(mut self) -> Result<W> {
        self.finish()?;
        Ok(self.core.out.inner)
    }
}

impl<W: Write + Seek> FileWriter<W> {
    /// Writes each large compressed body (from 1 MiB of buffers) while it is compressed:
    /// the compression threads ([`WriteOptions::with_compression_threads`], one at least)
    /// compress the buffers, this thread writes each one as soon as it and those before it
    /// are done, then goes back to write the message's header over the room it left (the
    /// header holds every compressed length, so it comes last; its size does not depend on
    /// them). The write overlaps the compression instead of following it, and each
    /// compressed buffer is dropped once written. The bytes are the same. Without
    /// compression nothing changes.
    ///
    /// For an output that can seek back (a file); taking bytes out of it as they are
    /// written ([`get_mut`](Self::get_mut)) would leave the seek nowhere to go. A write
    /// that fails leaves the message unfinished (room of zeros where its header goes),
    /// and the file before it as it was.
    ///
    /// [`WriteOptions::with_compression_threads`]: crate::WriteOptions::with_compression_threads
    pub fn write_while_compressing(mut self) -> Self {
        self.core.out.enable_seeking();
        self.core.encoder.defer_compression();
        self
    }
}

/// A file's magic, padded to 8 bytes.
pub(crate) fn write_magic(out: &mut impl Output, options: &WriteOptions) -> Result<()> {
    let magic = options.magic().bytes();
    out.bytes(magic)?;
    out.bytes(&[0u8; 8][..8 - magic.len()])?;
    Ok(())
}

/// Writes the end-of-stream marker, the footer indexing every block `core` wrote, and the
/// closing magic, and flushes.
pub(crate) fn finish_file<O: Output>(core: &mut WriterCore<O>, metadata: &Metadata) -> Result<()> {
    core.write_end()?;
    let mut fbb = FlatBufferBuilder::new();
    let encoding = core.encoder.schema_encoding();
    let schema = encode_schema(
        &mut fbb,
        core.encoder.schema(),
        core.encoder.ids(),
        encoding,
    );
    let dictionaries = fbb.create_vector(&core.dictionary_blocks);
    let batches = fbb.create_vector(&core.batch_blocks);
    let custom_metadata = encode_metadata(&mut fbb, metadata, encoding.namespace);
    let footer = fb::Footer::create(
        &mut fbb,
        &fb::FooterArgs {
            version: fb::MetadataVersion::V5,
            schema: Some(schema),
            dictionaries: Some(dictionaries),
            recordBatches: Some(batches),
            custom_metadata,
        },
    );
    fbb.finish(footer, None);
    let footer = fbb.finished_data();
    let len = i32::try_from(footer.len())
        .map_err(|_| IpcError::invalid_argument("the footer is larger than 2 GiB"))?;
    let out = &mut core.out;
    let start = out.position();
    let mut write = || -> std::io::Result<()> {
        out.bytes(footer)?;
        out.bytes(&len.to_le_bytes())?;
        out.bytes(core.encoder.options().magic().bytes())?;
        out.flush()
    };
    write().map_err(|e| IpcError::from(e).context(format!("writing the footer at byte {start}")))
}

//! Opening an input of any supported form: a file (`ALKAID1` or `ARROW1` magic, found by
//! looking) or a stream (with or without the continuation marker, any byte order), from a
//! path (memory-mapped, so file batches are read without copying) or from standard input.

use std::fs::File;
use std::io::Read;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_ipc::{BufferStreamReader, FileReader, ReadOptions};
use alkaid_schema::{Metadata, SchemaRef};

use crate::failure::Failure;

/// An opened input: its bytes and how to read them.
pub enum Input {
    /// A file: random access to its batches.
    File(FileReader<Buffer>),
    /// A stream: batches in order.
    Stream(BufferStreamReader),
}

/// The bytes of `path` (`-` for standard input): a read-only memory map of a file.
pub fn bytes(path: &str) -> Result<Buffer, Failure> {
    if path == "-" {
        let mut all = Vec::new();
        std::io::stdin()
            .read_to_end(&mut all)
            .map_err(|e| Failure::new(format!("reading standard input: {e}")))?;
        return Ok(Buffer::from(all));
    }
    let file = File::open(path).map_err(|e| Failure::new(format!("{path}: {e}")))?;
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    if length == 0 {
        return Ok(Buffer::empty());
    }
    // SAFETY: the map is read-only and private to this process; another process truncating
    // the file while it is mapped is outside what the tool defends against (as for every
    // memory-mapped reader), and is documented in the help.
    let map =
        unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Failure::new(format!("{path}: {e}")))?;
    Ok(Buffer::from_owner(map))
}

/// Whether `bytes` start with a file magic.
pub fn is_file(bytes: &[u8]) -> bool {
    bytes.starts_with(b"ALKAID1") || bytes.starts_with(b"ARROW1")
}

impl Input {
    /// Opens `path` (`-` for standard input) as a file or a stream, reading only the
    /// top-level `columns` named, in that order, when some are.
    pub fn open(path: &str, columns: Option<&[String]>) -> Result<Self, Failure> {
        let bytes = bytes(path)?;
        let place = |e: alkaid_ipc::IpcError| Failure::new(format!("{path}: {e}"));
        let options = match columns {
            Some(names) => ReadOptions::default().with_column_names(names),
            None => ReadOptions::default(),
        };
        if is_file(&bytes) {
            Ok(Input::File(
                FileReader::open(bytes, options).map_err(place)?,
            ))
        } else {
            Ok(Input::Stream(
                BufferStreamReader::with_options(bytes, options).map_err(place)?,
            ))
        }
    }

    /// The schema.
    pub fn schema(&self) -> SchemaRef {
        match self {
            Input::File(file) => file.schema(),
            Input::Stream(stream) => stream.schema(),
        }
    }

    /// "file" or "stream".
    pub fn kind(&self) -> &'static str {
        match self {
            Input::File(_) => "file",
            Input::Stream(_) => "stream",
        }
    }

    /// Every batch in order, with its message's custom metadata; stops at the first error.
    pub fn batches(
        &mut self,
    ) -> Box<dyn Iterator<Item = Result<(RecordBatch, Metadata), Failure>> + '_> {
        match self {
            Input::File(file) => {
                let count = file.num_batches();
                // The file reader's errors already say which batch.
                Box::new((0..count).map(move |i| {
                    file.batch_with_metadata(i)
                        .map_err(|e| Failure::new(e.to_string()))
                }))
            }
            Input::Stream(stream) => {
                let mut index = 0;
                Box::new(std::iter::from_fn(move || {
                    let next = stream.next_with_metadata()?;
                    let i = index;
                    index += 1;
                    Some(next.map_err(|e| Failure::new(format!("batch {i}: {e}"))))
                }))
            }
        }
    }
}

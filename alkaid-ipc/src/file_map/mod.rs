//! A file's bytes as a [`Buffer`] without copying them: a read-only memory map, guarded so
//! that a file shrinking under it is an error rather than a crash.
//!
//! Why a guard. A memory map reads the file's pages as they are touched. If another process
//! truncates the file meanwhile, touching a page past the new end raises `SIGBUS`, which
//! ends a process that has no handler for it (as it ends pyarrow's and arrow-rs's readers of
//! a memory-mapped file). On Linux, [`FileMap`] registers each map with a process-wide
//! `SIGBUS` handler ([`guard`]), installed with the first map: a fault inside a registered
//! map puts zero-filled memory over the rest of that map, so the access that faulted and
//! every later one read zeros, and records that the file shrank; [`FileMap::check`] reports
//! it. A fault anywhere else goes to the handler that was there before (or to the default
//! action, which ends the process as it would have). The kernel's own reads of a map (a
//! `write` to a socket from its bytes) never raise the signal: they fail with `EFAULT`.
//!
//! What a reader of a map does, then: decode and validate what it needs, and ask
//! [`FileMap::check`] before it trusts the result (it also compares the file's length
//! with the map's, since a batch of fixed-width values is decoded without reading them). A batch decoded after the file shrank may
//! hold zeros where the file's bytes were (or fail validation on them); `check` turns that
//! into a `Truncated` [`IpcError`] naming the shrinking. Bytes of the map that a caller still holds
//! read as zeros from then on, so a check after the last use of them is the one that counts.
//!
//! Where a map cannot be guarded (not Linux, or the handler's table of maps is full), the
//! file is read into memory instead: slower for a large file, never a crash.

mod guard;

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use alkaid_buffer::Buffer;

use crate::error::{IpcError, Result};

/// The bytes of a file, memory-mapped where that can be done safely (see the module notes).
///
/// # Examples
/// ```
/// use alkaid_ipc::{FileMap, FileReader, ReadOptions};
/// # let dir = std::env::temp_dir().join(format!("alkaid-file-map-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// # let path = dir.join("t.arrow");
/// # use std::sync::Arc;
/// # use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// # use alkaid_schema::{DataType, Field, Schema};
/// # let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
/// # let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// # let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
/// # let file = std::fs::File::create(&path)?;
/// # let mut writer = alkaid_ipc::FileWriter::try_new(file, schema, Default::default())?;
/// # writer.write(&batch)?;
/// # writer.finish()?;
/// let map = FileMap::open(&path)?;
/// let reader = FileReader::open(map.buffer().clone(), ReadOptions::default())?;
/// for batch in reader {
///     let batch = batch?;
///     map.check()?; // the file did not shrink while the batch was read
///     assert_eq!(batch.num_rows(), 3);
/// }
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct FileMap {
    bytes: Buffer,
    /// The guarded map the bytes lie in; `None` where they were read into memory.
    map: Option<Arc<guard::GuardedMap>>,
}

impl std::fmt::Debug for FileMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileMap")
            .field("len", &self.bytes.len())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

impl FileMap {
    /// Maps the file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::of(&File::open(path)?)
    }

    /// Maps `file` from its start to its current end. An empty file is an empty buffer.
    pub fn of(file: &File) -> Result<Self> {
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(FileMap {
                bytes: Buffer::empty(),
                map: None,
            });
        }
        let len = usize::try_from(len).map_err(|_| {
            IpcError::limit(format!(
                "a file of {len} bytes does not fit in this process's address space"
            ))
        })?;
        match guard::GuardedMap::new(file, len)? {
            Some(map) => {
                let map = Arc::new(map);
                let bytes = Buffer::from_owner(guard::SharedMap(map.clone()));
                Ok(FileMap {
                    bytes,
                    map: Some(map),
                })
            }
            None => Ok(FileMap {
                bytes: Buffer::from(read_all(file, len)?),
                map: None,
            }),
        }
    }

    /// The file's bytes, as they were when it was mapped (or read).
    pub fn buffer(&self) -> &Buffer {
        &self.bytes
    }

    /// Whether the bytes lie in a guarded memory map (rather than having been read).
    pub fn is_mapped(&self) -> bool {
        self.map.is_some()
    }

    /// `Ok` if the file is still as long as its map and no read of the map has found a
    /// page missing; an error saying the file shrank otherwise (bytes read from the map
    /// since then may be zeros). One `fstat` and an atomic load.
    pub fn check(&self) -> Result<()> {
        match &self.map {
            Some(map) if map.shrank() => Err(IpcError::truncated(format!(
                "the file shrank below the {} bytes it had when it was memory-mapped; \
                 what was read of it since may be zeros",
                self.bytes.len()
            ))),
            _ => Ok(()),
        }
    }
}

/// Bytes already in memory (standard input, say), which never shrink.
impl From<Buffer> for FileMap {
    fn from(bytes: Buffer) -> Self {
        FileMap { bytes, map: None }
    }
}

/// The first `len` bytes of `file` read into memory; fewer if it ends sooner.
fn read_all(file: &File, len: usize) -> Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(len)
        .map_err(|_| IpcError::limit(format!("no memory for a file of {len} bytes")))?;
    file.take(len as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests;

//! Opening a file from its end: one fetch of its last bytes (64 KiB by default,
//! [`ReadOptions::with_footer_prefetch`]), which usually hold the whole footer, and a
//! second of the rest of the footer only when it is larger. A remote file opens in at most
//! two requests; nothing else of it is read until a batch is.

use std::ops::Range;

use alkaid_buffer::Buffer;

use crate::error::{IpcError, Result};
use crate::read::file::decoder::{FileDecoder, check_fetched};
use crate::read::framing::MAGICS;
use crate::read::options::ReadOptions;

/// Smallest file: 8 bytes of leading magic, 4 of footer length, 6 of trailing magic.
const SMALLEST_FILE: u64 = 18;

/// A file being opened: fetch [`range`](Self::range) and hand its bytes to
/// [`resume`](Self::resume), until it gives the [`FileDecoder`].
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// use alkaid_ipc::{FileOpening, FileWriter, Opened, ReadOptions, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
/// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default())?;
/// writer.write(&RecordBatch::try_new(schema, vec![column])?)?;
/// let file = writer.into_inner()?;
///
/// let mut opening = FileOpening::new(file.len() as u64, ReadOptions::default())?;
/// let decoder = loop {
///     let range = opening.range();
///     let bytes = file[range.start as usize..range.end as usize].to_vec();
///     match opening.resume(bytes.into())? {
///         Opened::Ready(decoder) => break *decoder,
///         Opened::Fetch(more) => opening = more,
///     }
/// };
/// assert_eq!(decoder.num_batches(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FileOpening {
    file_len: u64,
    options: ReadOptions,
    /// What is to be fetched next.
    range: Range<u64>,
    /// The bytes fetched before, which run from `range.end` to the end of the file.
    later: Option<Buffer>,
}

/// What opening needs next.
#[derive(Debug)]
pub enum Opened {
    /// The footer is read: the file is open (boxed: a decoder is several times the size
    /// of an opening).
    Ready(Box<FileDecoder>),
    /// The footer is longer than the bytes fetched: fetch the rest.
    Fetch(FileOpening),
}

impl FileOpening {
    /// Starts opening a file of `file_len` bytes.
    ///
    /// # Errors
    /// If the file is too short to be an IPC file.
    pub fn new(file_len: u64, options: ReadOptions) -> Result<Self> {
        if file_len < SMALLEST_FILE {
            return Err(IpcError::truncated(format!(
                "{file_len} bytes are too few for an IPC file"
            )));
        }
        let suffix = (options.footer_prefetch as u64).clamp(SMALLEST_FILE, file_len);
        Ok(Self {
            file_len,
            options,
            range: file_len - suffix..file_len,
            later: None,
        })
    }

    /// The bytes of the file to fetch next.
    pub fn range(&self) -> Range<u64> {
        self.range.clone()
    }

    /// Goes on with `fetched`, the bytes of [`range`](Self::range).
    ///
    /// # Errors
    /// If the bytes are not of the range's length, or the file's end, footer or schema is
    /// invalid.
    pub fn resume(self, fetched: Buffer) -> Result<Opened> {
        let Self {
            file_len,
            options,
            range,
            later,
        } = self;
        check_fetched(std::slice::from_ref(&range), std::slice::from_ref(&fetched))?;
        // The bytes from `range.start` to the end of the file. Only a footer longer than
        // the first fetch is joined, once: metadata, never a body.
        let tail = match later {
            None => fetched,
            Some(later) => Buffer::from([&fetched[..], &later[..]].concat()),
        };
        let magic = MAGICS
            .into_iter()
            .find(|m| tail.ends_with(m))
            .ok_or_else(|| {
                IpcError::malformed(format!(
                    "the file does not end with ALKAID1 or ARROW1 (its last bytes are {:?})",
                    String::from_utf8_lossy(&tail[tail.len() - 7..])
                ))
            })?;
        let tail_len = 4 + magic.len();
        let at = tail.len() - tail_len;
        let footer_len = i32::from_le_bytes(tail[at..at + 4].try_into().expect("4 bytes"));
        let footer_len = u64::try_from(footer_len)
            .ok()
            .filter(|&n| n > 0 && n + (tail_len as u64) + 8 <= file_len)
            .ok_or_else(|| IpcError::malformed(format!("footer length {footer_len}")))?;
        if footer_len > options.max_metadata_bytes as u64 {
            return Err(IpcError::limit(format!(
                "the footer is {footer_len} bytes, more than the metadata limit of {}",
                options.max_metadata_bytes
            )));
        }
        let footer_start = file_len - tail_len as u64 - footer_len;
        if footer_start < range.start {
            return Ok(Opened::Fetch(Self {
                file_len,
                options,
                range: footer_start..range.start,
                later: Some(tail),
            }));
        }
        let footer = tail.slice((footer_start - range.start) as usize, footer_len as usize);
        FileDecoder::from_footer(footer, footer_start, magic, file_len, options)
            .map(|decoder| Opened::Ready(Box::new(decoder)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_fetch_is_refused() {
        let opening = FileOpening::new(100, ReadOptions::default()).unwrap();
        assert_eq!(opening.range(), 0..100);
        let err = opening.resume(Buffer::from(vec![0u8; 99])).unwrap_err();
        assert!(
            err.to_string().contains("99 bytes for bytes 0..100"),
            "{err}"
        );
    }

    #[test]
    fn the_first_fetch_is_the_suffix_or_the_whole_file() {
        let options = ReadOptions::default().with_footer_prefetch(1000);
        assert_eq!(
            FileOpening::new(5000, options.clone()).unwrap().range(),
            4000..5000
        );
        assert_eq!(FileOpening::new(700, options).unwrap().range(), 0..700);
        let tiny = ReadOptions::default().with_footer_prefetch(0);
        assert_eq!(FileOpening::new(5000, tiny).unwrap().range(), 4982..5000);
        assert!(FileOpening::new(17, ReadOptions::default()).is_err());
    }
}

//! Page headers, which arrow-rs reads as it decodes, kept from making it spin. arrow-rs
//! reads a page header with a Thrift reader whose skip of a value ignores a short read
//! (`ThriftReadInputProtocol::skip_bytes` copies "up to" the length), and does not check
//! a list's declared size against the bytes left there: a page header near the end of a
//! column chunk that lists 2^31 doubles makes it skip 2^31 times past the end, minutes of
//! work for a few bytes of file (found by the `parquet` fuzz target).
//!
//! Two guards, one for each way arrow-rs reads: a synchronous reader's source is wrapped
//! so that reading past the end of the file is an error rather than nothing
//! ([`EndIsAnError`]), which stops such a skip at once; a ranged reader's fetched column
//! chunks have their page headers walked before arrow-rs sees them ([`check_pages`]),
//! refusing a header that declares more than the chunk holds.

use std::io::Read;
use std::sync::Arc;

use bytes::Bytes;
use parquet::errors::Result;
use parquet::file::reader::{ChunkReader, Length};

use super::thrift::{i32_field, walk_struct};

/// A source whose readers fail at the end of the file instead of reading nothing; shared,
/// so that a second reader of the same file (the INT96 check) goes through it too.
pub(crate) struct EndIsAnError<R>(pub Arc<R>);

impl<R> Clone for EndIsAnError<R> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<R: ChunkReader> Length for EndIsAnError<R> {
    fn len(&self) -> u64 {
        self.0.len()
    }
}

impl<R: ChunkReader> ChunkReader for EndIsAnError<R> {
    type T = NoReadPastTheEnd<R::T>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        Ok(NoReadPastTheEnd(self.0.get_read(start)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.0.get_bytes(start, length)
    }
}

/// A reader for which the end is an error: arrow-rs reads page headers through it, and a
/// header never ends the file (the footer follows).
pub(crate) struct NoReadPastTheEnd<T>(T);

impl<T: Read> Read for NoReadPastTheEnd<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.read(buf)? {
            0 if !buf.is_empty() => Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a page header runs past the end of the file",
            )),
            read => Ok(read),
        }
    }
}

/// Walks the page headers of `chunk` (a column chunk's bytes, or a page's, as fetched):
/// each header, then the page it announces, to the end. Only a header that declares more
/// than the bytes after it hold is refused; where the walk cannot tell (a header cut off
/// by the fetch, a layout it does not follow), it stops and leaves the bytes to arrow-rs.
///
/// # Errors
/// The header that declares too much, and where it is.
pub(crate) fn check_pages(chunk: &[u8]) -> std::result::Result<(), String> {
    let mut at = 0usize;
    while at < chunk.len() {
        let header = match walk_struct(&chunk[at..]) {
            Ok(header) => header,
            Err(refused) if refused.oversized => {
                return Err(format!("the page header at byte {at}: {}", refused.message));
            }
            Err(_) => return Ok(()),
        };
        // PageHeader's field 3: the page's compressed size.
        let Some(size) =
            i32_field(&chunk[at..at + header], 3).and_then(|size| usize::try_from(size).ok())
        else {
            return Ok(());
        };
        at = at.saturating_add(header).saturating_add(size);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page header: `type` (1), uncompressed size (2), compressed size (3) of `size`.
    fn header(size: u8) -> Vec<u8> {
        vec![0x15, 0x00, 0x15, size * 2, 0x15, size * 2, 0x00]
    }

    #[test]
    fn pages_are_walked_header_by_header_and_only_impossible_ones_refused() {
        let mut chunk = header(3);
        chunk.extend([1, 2, 3]);
        chunk.extend(header(2));
        chunk.extend([4, 5]);
        assert_eq!(check_pages(&chunk), Ok(()));
        // A header that lists 2^31 doubles where a few bytes are left.
        let mut hostile = chunk.clone();
        hostile.extend([
            0x15, 0x00, 0x15, 0x02, 0x15, 0x02, 0x19, 0xf7, 0x80, 0x80, 0x80, 0x80, 0x08,
        ]);
        let err = check_pages(&hostile).unwrap_err();
        assert!(err.starts_with("the page header at byte 19:"), "{err}");
        assert!(err.contains("declares 2147483648 elements"), "{err}");
        // Cut off by the fetch: left to arrow-rs.
        let mut cut = chunk;
        cut.extend([0x15, 0x00, 0x15]);
        assert_eq!(check_pages(&cut), Ok(()));
    }

    #[test]
    fn reading_past_the_end_is_an_error() {
        let mut reader = EndIsAnError(Arc::new(Bytes::from_static(b"abc")))
            .get_read(1)
            .unwrap();
        let mut out = Vec::new();
        let err = reader.read_to_end(&mut out).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        assert_eq!(out, b"bc");
        // What arrow-rs's skip does: a copy of more than is left now fails.
        let mut reader = EndIsAnError(Arc::new(Bytes::from_static(b"abc")))
            .get_read(0)
            .unwrap();
        let copied = std::io::copy(&mut (&mut reader).take(8), &mut std::io::sink());
        assert!(copied.is_err());
    }
}

//! Sources of byte ranges for the async file reader: anything that can fetch a range of
//! an object of known length (an object store, an HTTP server, memory, a local file).

use std::future::{Future, ready};
use std::ops::Range;
use std::sync::Mutex;

use alkaid_buffer::Buffer;
use alkaid_ipc::{ByteSource, IpcError, IpcErrorKind, Result};

/// An object whose bytes are fetched by range, asynchronously.
///
/// The reader asks for several ranges at once (up to
/// [`ReadOptions::with_concurrent_fetches`](alkaid_ipc::ReadOptions::with_concurrent_fetches)),
/// so `fetch` takes `&self`; each returned [`Buffer`] is owned on its own, so that the
/// columns a caller keeps hold only the ranges they came from.
pub trait RangeSource: Send + Sync {
    /// The object's size, in bytes.
    fn size(&self) -> impl Future<Output = Result<u64>> + Send;

    /// The bytes of `range`, which is not empty and lies inside the object. A source that
    /// returns fewer or more bytes gets an error from the reader, not a wrong read.
    fn fetch(&self, range: Range<u64>) -> impl Future<Output = Result<Buffer>> + Send;

    /// The bytes of each of `ranges` (none empty, each inside the object), fetching up to
    /// `concurrency` at a time; by default one [`fetch`](Self::fetch) per range. A source
    /// that serves many ranges at once cheaper than one by one (a local file opened once)
    /// overrides it.
    fn fetch_many(
        &self,
        ranges: Vec<Range<u64>>,
        concurrency: usize,
    ) -> impl Future<Output = Vec<Result<Buffer>>> + Send {
        use futures_util::StreamExt;
        futures_util::stream::iter(ranges)
            .map(move |range| self.fetch(range))
            .buffered(concurrency.max(1))
            .collect()
    }

    /// The object's size and its last `n` bytes (all of it when it is shorter), in one
    /// request where the source can make one (a suffix range of HTTP); by default
    /// [`size`](Self::size), then [`fetch`](Self::fetch).
    fn fetch_suffix(&self, n: u64) -> impl Future<Output = Result<(u64, Buffer)>> + Send {
        async move {
            let len = self.size().await?;
            let start = len - n.min(len);
            let bytes = match start < len {
                true => self.fetch(start..len).await?,
                false => Buffer::empty(),
            };
            Ok((len, bytes))
        }
    }
}

/// A source behind a pointer (`&T` for several readers over one source, `Arc<T>` for
/// tasks) is the source it points at.
macro_rules! forward_source {
    ($($pointer:ty),*) => {$(
        impl<T: RangeSource + ?Sized> RangeSource for $pointer {
            fn size(&self) -> impl Future<Output = Result<u64>> + Send {
                (**self).size()
            }

            fn fetch(&self, range: Range<u64>) -> impl Future<Output = Result<Buffer>> + Send {
                (**self).fetch(range)
            }

            fn fetch_suffix(&self, n: u64) -> impl Future<Output = Result<(u64, Buffer)>> + Send {
                (**self).fetch_suffix(n)
            }

            fn fetch_many(
                &self,
                ranges: Vec<Range<u64>>,
                concurrency: usize,
            ) -> impl Future<Output = Vec<Result<Buffer>>> + Send {
                (**self).fetch_many(ranges, concurrency)
            }
        }
    )*};
}

forward_source!(&T, std::sync::Arc<T>);

/// Memory: every fetch is a slice, no copy.
impl RangeSource for Buffer {
    fn size(&self) -> impl Future<Output = Result<u64>> + Send {
        ready(Ok(self.len() as u64))
    }

    fn fetch(&self, range: Range<u64>) -> impl Future<Output = Result<Buffer>> + Send {
        ready(slice(self, range))
    }
}

/// `range` of `bytes`, or an error if it lies outside.
fn slice(bytes: &Buffer, range: Range<u64>) -> Result<Buffer> {
    let end = usize::try_from(range.end)
        .ok()
        .filter(|&e| e <= bytes.len());
    match (usize::try_from(range.start), end) {
        (Ok(start), Some(end)) if start <= end => Ok(bytes.slice(start, end - start)),
        _ => Err(IpcError::new(
            IpcErrorKind::InvalidArgument,
            format!(
                "bytes {}..{} of an object of {} bytes",
                range.start,
                range.end,
                bytes.len()
            ),
        )),
    }
}

/// A synchronous [`ByteSource`] (a [`Seekable`](alkaid_ipc::Seekable) file, say) as a
/// range source: each fetch runs on the calling task, one at a time. Fine for local
/// files and memory; a source that can block for long belongs on a blocking thread.
#[derive(Debug)]
pub struct Blocking<S>(Mutex<S>);

impl<S: ByteSource> Blocking<S> {
    /// Wraps `source`.
    pub fn new(source: S) -> Self {
        Self(Mutex::new(source))
    }

    /// The wrapped source.
    pub fn into_inner(self) -> S {
        self.0
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn with<T>(&self, f: impl FnOnce(&mut S) -> Result<T>) -> Result<T> {
        // A panic inside another fetch leaves the source as it was between reads, each of
        // which seeks first: it is still usable.
        let mut source = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut source)
    }
}

impl<S: ByteSource + Send> RangeSource for Blocking<S> {
    fn size(&self) -> impl Future<Output = Result<u64>> + Send {
        ready(self.with(|source| source.len()))
    }

    fn fetch(&self, range: Range<u64>) -> impl Future<Output = Result<Buffer>> + Send {
        ready(self.with(|source| {
            let len = usize::try_from(range.end - range.start).map_err(|_| {
                IpcError::new(IpcErrorKind::InvalidArgument, "a range larger than memory")
            })?;
            source.read_at(range.start, len)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn memory_and_blocking_sources_serve_ranges_and_suffixes() {
        let bytes = Buffer::from((0..100u8).collect::<Vec<u8>>());
        let cursor = alkaid_ipc::Seekable(std::io::Cursor::new((0..100u8).collect::<Vec<_>>()));
        let blocking = Blocking::new(cursor);
        block_on(async {
            assert_eq!(bytes.size().await.unwrap(), 100);
            assert_eq!(&bytes.fetch(10..13).await.unwrap()[..], &[10, 11, 12]);
            assert!(bytes.fetch(90..101).await.is_err());
            let (len, tail) = bytes.fetch_suffix(3).await.unwrap();
            assert_eq!((len, &tail[..]), (100, &[97u8, 98, 99][..]));
            let (len, all) = bytes.fetch_suffix(1000).await.unwrap();
            assert_eq!((len, all.len()), (100, 100));

            assert_eq!(blocking.size().await.unwrap(), 100);
            assert_eq!(&blocking.fetch(10..13).await.unwrap()[..], &[10, 11, 12]);
            let (len, tail) = blocking.fetch_suffix(2).await.unwrap();
            assert_eq!((len, &tail[..]), (100, &[98u8, 99][..]));
        });
        assert_eq!(blocking.into_inner().0.into_inner().len(), 100);
    }
}

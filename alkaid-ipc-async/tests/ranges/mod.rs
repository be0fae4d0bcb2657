#![allow(dead_code)] // Each test file uses its own part of this module.

//! Range sources for the tests: one that records what it is asked for, and ones that
//! misbehave (short answers, failures, a wrong length, a copy per fetch).

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid_buffer::Buffer;
use alkaid_ipc::Result;
use alkaid_ipc_async::RangeSource;

#[path = "../../../alkaid-ipc/tests/support/held.rs"]
pub mod held;

pub fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// A source that records every request to `S` as (offset, length), and yields to the
/// runtime before each, as a network source would.
pub struct Counting<S> {
    inner: S,
    log: Mutex<Vec<(u64, usize)>>,
    /// Calls that asked for several ranges at once: the reader's round trips.
    rounds: AtomicUsize,
}

impl<S: RangeSource> Counting<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            log: Mutex::new(Vec::new()),
            rounds: AtomicUsize::new(0),
        }
    }

    /// Round trips: `fetch_many` and `fetch_suffix` calls.
    pub fn rounds(&self) -> usize {
        self.rounds.load(Ordering::Relaxed)
    }

    pub fn log(&self) -> Vec<(u64, usize)> {
        self.log.lock().unwrap().clone()
    }

    pub fn requests(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    pub fn bytes(&self) -> usize {
        self.log().iter().map(|r| r.1).sum()
    }
}

impl<S: RangeSource> RangeSource for Counting<S> {
    async fn size(&self) -> Result<u64> {
        self.inner.size().await
    }

    async fn fetch(&self, range: Range<u64>) -> Result<Buffer> {
        tokio::task::yield_now().await;
        self.log
            .lock()
            .unwrap()
            .push((range.start, (range.end - range.start) as usize));
        self.inner.fetch(range).await
    }

    async fn fetch_many(&self, ranges: Vec<Range<u64>>, concurrency: usize) -> Vec<Result<Buffer>> {
        self.rounds.fetch_add(1, Ordering::Relaxed);
        let mut answers = Vec::with_capacity(ranges.len());
        for range in ranges {
            answers.push(self.fetch(range).await);
        }
        let _ = concurrency;
        answers
    }

    async fn fetch_suffix(&self, n: u64) -> Result<(u64, Buffer)> {
        self.rounds.fetch_add(1, Ordering::Relaxed);
        tokio::task::yield_now().await;
        let (len, bytes) = self.inner.fetch_suffix(n).await?;
        self.log
            .lock()
            .unwrap()
            .push((len - bytes.len() as u64, bytes.len()));
        Ok((len, bytes))
    }
}

/// How a [`Misbehaving`] source misbehaves.
enum Fault {
    /// Request `n` (from 0) gets one byte fewer than it asked for.
    ShortAt(usize),
    /// Request `n` fails.
    FailingAt(usize),
    /// The source says it is this long.
    LyingLength(u64),
    /// Every answer is a fresh copy, owned apart (as an object store's responses are).
    Copying,
}

pub struct Misbehaving {
    bytes: Buffer,
    fault: Fault,
    requests: AtomicUsize,
}

impl Misbehaving {
    fn new(bytes: Buffer, fault: Fault) -> Self {
        Self {
            bytes,
            fault,
            requests: AtomicUsize::new(0),
        }
    }

    pub fn short_at(bytes: Buffer, n: usize) -> Self {
        Self::new(bytes, Fault::ShortAt(n))
    }

    pub fn failing_at(bytes: Buffer, n: usize) -> Self {
        Self::new(bytes, Fault::FailingAt(n))
    }

    pub fn lying_length(bytes: Buffer, len: u64) -> Self {
        Self::new(bytes, Fault::LyingLength(len))
    }

    pub fn copying(bytes: Buffer) -> Self {
        Self::new(bytes, Fault::Copying)
    }
}

impl RangeSource for Misbehaving {
    async fn size(&self) -> Result<u64> {
        match self.fault {
            Fault::LyingLength(len) => Ok(len),
            _ => Ok(self.bytes.len() as u64),
        }
    }

    async fn fetch(&self, range: Range<u64>) -> Result<Buffer> {
        tokio::task::yield_now().await;
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        let bytes = self.bytes.fetch(range).await?;
        match self.fault {
            Fault::ShortAt(at) if at == n => Ok(bytes.slice(0, bytes.len() - 1)),
            Fault::FailingAt(at) if at == n => {
                Err(std::io::Error::other("the network went away").into())
            }
            Fault::Copying => Ok(Buffer::from(bytes.to_vec())),
            _ => Ok(bytes),
        }
    }
}

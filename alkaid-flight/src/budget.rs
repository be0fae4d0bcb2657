//! How many bytes a server may write to its disk: each write (an upload, a statement) and
//! all of them together since the server started. A client that may write can otherwise
//! fill the disk; a budget turns that into an error naming the limit, and the bytes of a
//! write that failed are given back (its files are removed).
//!
//! A write holds a [`WriteAccount`], charged before each piece reaches the disk; a file is
//! written through [`Counted`], which charges the bytes by which the file grows.

use std::io::{IoSlice, Seek, SeekFrom, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What one file costs the disk at least, whatever it holds: a file is charged this
/// much when it is made, so that many small writes cannot make files without bound.
pub const FILE_BLOCK: u64 = 4096;

/// The bytes a server may write: at most `per_write` for one write, and `in_all` for all
/// of them together since the server started (both in bytes). Clones share the count.
/// Each file counts as at least [`FILE_BLOCK`] bytes.
///
/// ```
/// use alkaid_flight::WriteBudget;
///
/// let budget = WriteBudget::new(100, 150);
/// let first = budget.account();
/// first.charge(80)?;
/// assert!(first.charge(30).is_err(), "more than 100 bytes in one write");
/// let second = budget.account();
/// assert!(second.charge(80).is_err(), "more than 150 bytes in all");
/// first.refund();
/// second.charge(80)?;
/// assert_eq!(budget.written(), 80);
/// # Ok::<(), alkaid_flight::BudgetExceeded>(())
/// ```
#[derive(Debug, Clone)]
pub struct WriteBudget {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    per_write: u64,
    in_all: u64,
    written: AtomicU64,
}

/// A budget's limits were reached: the write that asked for more is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetExceeded {
    /// The limit reached, in bytes.
    pub limit: u64,
    /// Whether it is the limit of all writes together (else of one write).
    pub in_all: bool,
}

impl std::fmt::Display for BudgetExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.in_all {
            true => write!(
                f,
                "the server has written its limit of {} bytes in all since it started \
                 (the operator sets it)",
                self.limit
            ),
            false => write!(
                f,
                "a write may write at most {} bytes (the operator sets the limit)",
                self.limit
            ),
        }
    }
}

impl std::error::Error for BudgetExceeded {}

impl BudgetExceeded {
    /// The budget's refusal somewhere in `e`'s chain of causes (through I/O errors, which
    /// hide what they wrap from `source()`), if it is there.
    pub fn find<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a BudgetExceeded> {
        let mut next = Some(e);
        while let Some(e) = next {
            if let Some(exceeded) = e.downcast_ref::<BudgetExceeded>() {
                return Some(exceeded);
            }
            let wrapped = e
                .downcast_ref::<std::io::Error>()
                .and_then(std::io::Error::get_ref)
                .map(|inner| inner as &(dyn std::error::Error + 'static));
            next = wrapped.or_else(|| e.source());
        }
        None
    }
}

impl WriteBudget {
    /// At most `per_write` bytes in one write and `in_all` bytes in all.
    pub fn new(per_write: u64, in_all: u64) -> Self {
        Self {
            shared: Arc::new(Shared {
                per_write,
                in_all,
                written: AtomicU64::new(0),
            }),
        }
    }

    /// No limit.
    pub fn unlimited() -> Self {
        Self::new(u64::MAX, u64::MAX)
    }

    /// The account of one write.
    pub fn account(&self) -> WriteAccount {
        WriteAccount {
            budget: self.clone(),
            written: AtomicU64::new(0),
        }
    }

    /// The bytes written in all and not given back.
    pub fn written(&self) -> u64 {
        self.shared.written.load(Ordering::Relaxed)
    }

    /// The limit of one write, in bytes.
    pub fn per_write(&self) -> u64 {
        self.shared.per_write
    }

    /// The limit of all writes together, in bytes.
    pub fn in_all(&self) -> u64 {
        self.shared.in_all
    }
}

/// What one write has taken of its [`WriteBudget`].
#[derive(Debug)]
pub struct WriteAccount {
    budget: WriteBudget,
    written: AtomicU64,
}

impl WriteAccount {
    /// Takes `bytes` more, or refuses them (taking nothing) when they pass a limit.
    ///
    /// # Errors
    /// When this write or all writes together would pass their limit.
    pub fn charge(&self, bytes: u64) -> Result<(), BudgetExceeded> {
        let shared = &self.budget.shared;
        let mine = self.written.fetch_add(bytes, Ordering::Relaxed);
        if mine.saturating_add(bytes) > shared.per_write {
            self.written.fetch_sub(bytes, Ordering::Relaxed);
            return Err(BudgetExceeded {
                limit: shared.per_write,
                in_all: false,
            });
        }
        let all = shared.written.fetch_add(bytes, Ordering::Relaxed);
        if all.saturating_add(bytes) > shared.in_all {
            shared.written.fetch_sub(bytes, Ordering::Relaxed);
            self.written.fetch_sub(bytes, Ordering::Relaxed);
            return Err(BudgetExceeded {
                limit: shared.in_all,
                in_all: true,
            });
        }
        Ok(())
    }

    /// The bytes this write has taken.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// Gives back everything this write took: its files were removed.
    pub fn refund(&self) {
        let mine = self.written.swap(0, Ordering::Relaxed);
        self.budget
            .shared
            .written
            .fetch_sub(mine, Ordering::Relaxed);
    }
}

/// A file written under a [`WriteAccount`]: each write is charged, before it reaches the
/// file, the bytes by which it makes the file longer (a writer that goes back to fill in a
/// header is not charged twice).
#[derive(Debug)]
pub struct Counted<'a, W> {
    inner: W,
    account: &'a WriteAccount,
    position: u64,
    end: u64,
}

impl<'a, W> Counted<'a, W> {
    /// `inner`, empty and positioned at its start, charged to `account`: a new file, which
    /// costs [`FILE_BLOCK`] bytes at once.
    ///
    /// # Errors
    /// If the account cannot take a file.
    pub fn new(inner: W, account: &'a WriteAccount) -> Result<Self, BudgetExceeded> {
        account.charge(FILE_BLOCK)?;
        Ok(Self {
            inner,
            account,
            position: 0,
            end: FILE_BLOCK,
        })
    }

    /// The file.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Charges a write of `len` bytes at the current position.
    fn charge(&mut self, len: usize) -> std::io::Result<()> {
        let end = self.position.saturating_add(len as u64);
        if end > self.end {
            self.account
                .charge(end - self.end)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::StorageFull, e))?;
            self.end = end;
        }
        Ok(())
    }
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.charge(buf.len())?;
        let written = self.inner.write(buf)?;
        self.position += written as u64;
        Ok(written)
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
        self.charge(bufs.iter().map(|b| b.len()).sum())?;
        let written = self.inner.write_vectored(bufs)?;
        self.position += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Seek> Seek for Counted<'_, W> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.position = self.inner.seek(to)?;
        Ok(self.position)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    #[test]
    fn a_file_is_charged_what_it_grows_by_and_refused_past_its_limit() {
        let budget = WriteBudget::new(FILE_BLOCK + 10, 100_000);
        let account = budget.account();
        let mut file = Counted::new(Cursor::new(Vec::new()), &account).unwrap();
        // A file costs a block however little it holds.
        file.write_all(b"12345678").unwrap();
        assert_eq!(account.written(), FILE_BLOCK);
        file.write_all(&[0; 4096]).unwrap();
        // Going back to fill in a header costs nothing more.
        file.seek(SeekFrom::Start(0)).unwrap();
        file.write_all(b"ab").unwrap();
        assert_eq!(account.written(), FILE_BLOCK + 8);
        file.seek(SeekFrom::End(0)).unwrap();
        let err = file.write_all(b"xyz").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);
        assert!(err.to_string().contains("at most 4106 bytes"), "{err}");
        // Nothing of the refused write reached the file.
        let written = file.into_inner().into_inner();
        assert_eq!(&written[..8], b"ab345678");
        assert_eq!(written.len(), 8 + 4096);
        assert_eq!(budget.written(), FILE_BLOCK + 8);
        account.refund();
        assert_eq!(budget.written(), 0);
        // A budget too small for one file refuses it at once.
        let small = WriteBudget::new(100, 100);
        let refused = Counted::new(Cursor::new(Vec::<u8>::new()), &small.account()).unwrap_err();
        assert_eq!(refused.limit, 100);
    }

    #[test]
    fn writes_together_are_held_to_the_limit_in_all() {
        let budget = WriteBudget::new(60, 100);
        let (a, b) = (budget.account(), budget.account());
        a.charge(60).unwrap();
        let refused = b.charge(41).unwrap_err();
        assert_eq!(
            refused,
            BudgetExceeded {
                limit: 100,
                in_all: true
            }
        );
        assert_eq!(b.written(), 0, "a refused charge takes nothing");
        b.charge(40).unwrap();
        assert_eq!(budget.written(), 100);
        assert!(WriteBudget::unlimited().account().charge(u64::MAX).is_ok());
    }
}

//! Memory for large message bodies, decompressed buffers and the compressed buffers a
//! writer makes (from 4 MiB each): anonymous mappings, advised to use huge pages, and kept
//! for reuse when the buffers made from them are dropped.
//!
//! Why mappings. A large body is written into fresh memory, whose first touch costs more
//! than the copy itself: the kernel maps and zeroes every 4 KiB page (257 MB into fresh
//! `malloc` memory: 172 ms, into a reused buffer: 18 ms). An anonymous mapping of the whole
//! declared length commits nothing until written (a lying length costs address space
//! only), and on Linux it can be advised to use 2 MiB pages: 512 times fewer faults. A 143
//! MB stream read in 98 ms that way took 25 ms. Huge pages have a price: where the kernel
//! has no free 2 MiB page at hand and its `defrag` setting is `madvise`, a fault may
//! compact memory on the spot. [`set_huge_pages`] turns the advice off.
//!
//! Why reuse. On a virtual machine whose host takes back the memory its guest frees (free
//! page reporting, as Firecracker guests and other microVMs use), memory freed two seconds
//! ago faults again on the host when touched: mapping, filling and unmapping 256 MiB took
//! 31–33 ms back to back and 106–732 ms after a pause of 3 s on this project's machine,
//! while filling a kept mapping again took 10 ms. So a mapping whose buffer is dropped
//! goes onto a process-wide shelf, and the next body or buffer of a fitting size takes it
//! from there. The shelf holds at most [`set_mapping_cache_limit`] bytes (1 GiB unless
//! set), oldest out first; what it holds stays resident until taken or released
//! ([`release_mapping_cache`]). A reused mapping still holds its last buffer's bytes: every
//! caller fills what it hands out, and a buffer made from one ([`Mapping::into_buffer`])
//! covers only the length asked for.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use alkaid_buffer::Buffer;

use crate::error::Result;

/// Below this, memory comes from a growing vector (a mapping's system calls would cost
/// more than they save); from it, from a mapping.
pub(crate) const MAPPED: usize = 4 << 20;

/// Mappings are made in multiples of this, the size of a huge page, so that bodies of
/// nearly equal length fit each other's mappings and no mapping ends in small pages.
const STEP: usize = 2 << 20;

/// What the shelf holds unless [`set_mapping_cache_limit`] says otherwise: the large buffers
/// of a batch of a few hundred megabytes, which a reader of such batches holds anyway while
/// it works.
const DEFAULT_LIMIT: usize = 1 << 30;

static HUGE_PAGES: AtomicBool = AtomicBool::new(true);

static SHELF: Mutex<Shelf> = Mutex::new(Shelf::new(DEFAULT_LIMIT));

/// Whether message bodies of 4 MiB and more read from a `Read` (by [`StreamReader`] and by
/// [`FileReader`] over a [`Seekable`]) or pushed into a [`Decoder`], and buffers of 4 MiB
/// and more decompressed by a reader or compressed by a writer, ask the kernel for 2 MiB
/// pages; on by default, for
/// the whole process. A hint that only Linux takes; without it a 257 MB stream reads about
/// four times slower on a machine where first touches of memory are costly, with it a read
/// can stall while the kernel compacts memory to find huge pages (see the module notes).
/// Mappings already kept for reuse keep the advice they were made with.
///
/// [`StreamReader`]: crate::StreamReader
/// [`FileReader`]: crate::FileReader
/// [`Seekable`]: crate::Seekable
/// [`Decoder`]: crate::Decoder
pub fn set_huge_pages(enabled: bool) {
    HUGE_PAGES.store(enabled, Ordering::Relaxed);
}

/// How many bytes of memory freed by dropped buffers (large message bodies, decompressed
/// and compressed buffers, as for [`set_huge_pages`]) the process keeps for the next ones: 1 GiB by
/// default; 0 keeps none. Kept memory stays resident; a lower limit releases what is over
/// it at once. Reuse spares the cost of faulting fresh memory in, which on virtual
/// machines whose host takes freed memory back (free page reporting) can be ten times the
/// cost of filling it.
pub fn set_mapping_cache_limit(bytes: usize) {
    let released = shelf().set_limit(bytes);
    drop(released);
}

/// Releases the memory kept for reuse (see [`set_mapping_cache_limit`]) back to the
/// system, and says how many bytes that was.
pub fn release_mapping_cache() -> usize {
    let released = shelf().empty();
    released.iter().map(|map| map.len()).sum()
}

/// How many bytes of memory are kept for reuse now (see [`set_mapping_cache_limit`]).
pub fn cached_mapping_bytes() -> usize {
    shelf().held()
}

/// Writable memory of at least [`MAPPED`] bytes, seen as exactly the length asked for.
#[derive(Debug)]
pub(crate) struct Mapping {
    map: memmap2::MmapMut,
    len: usize,
}

impl Mapping {
    /// Shortens the bytes seen to `len` (no longer than they are), for memory asked for by
    /// the most a result can take (a codec's worst case) before it is known how much it does.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// The bytes as an immutable buffer of the length asked for; their memory goes back to
    /// the shelf when the last buffer sharing it is dropped.
    ///
    /// # Errors
    /// If the system refuses to make the memory read-only.
    pub(crate) fn into_buffer(self) -> Result<Buffer> {
        let read_only = self.map.make_read_only()?;
        Ok(Buffer::from_owner(Shelved(Some(read_only))).slice(0, self.len))
    }
}

impl Deref for Mapping {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map[..self.len]
    }
}

impl DerefMut for Mapping {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.map[..self.len]
    }
}

/// Memory for `len` bytes that arrive later, when `len` is at least [`MAPPED`]: a kept
/// mapping that fits, or else a fresh one (address space only until written); `None` below
/// [`MAPPED`] or when the system refuses the address space (the caller then grows a
/// vector).
pub(crate) fn mapping(len: usize) -> Option<Mapping> {
    if len < MAPPED {
        return None;
    }
    let kept = shelf().take(len);
    // A kept mapping that cannot be made writable again is unmapped, and a fresh one made.
    if let Some(map) = kept.and_then(|map| map.make_mut().ok()) {
        return Some(Mapping { map, len });
    }
    let map = memmap2::MmapMut::map_anon(len.checked_next_multiple_of(STEP)?).ok()?;
    #[cfg(target_os = "linux")]
    if HUGE_PAGES.load(Ordering::Relaxed) {
        // A hint: where huge pages are off or unavailable, the kernel uses small ones.
        let _ = map.advise(memmap2::Advice::HugePage);
    }
    Some(Mapping { map, len })
}

fn shelf() -> MutexGuard<'static, Shelf> {
    // The shelf's state is consistent between statements, so a panic elsewhere while it
    // was held leaves nothing half done.
    SHELF.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The read-only memory under a buffer; on drop it goes onto the shelf.
struct Shelved(Option<memmap2::Mmap>);

impl AsRef<[u8]> for Shelved {
    fn as_ref(&self) -> &[u8] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl Drop for Shelved {
    fn drop(&mut self) {
        if let Some(map) = self.0.take() {
            let released = shelf().put(map);
            // Unmapped here, after the lock is let go.
            drop(released);
        }
    }
}

/// Mappings kept for reuse, oldest first, within a limit of bytes.
#[derive(Debug)]
struct Shelf {
    limit: usize,
    maps: Vec<memmap2::Mmap>,
}

impl Shelf {
    const fn new(limit: usize) -> Self {
        Shelf {
            limit,
            maps: Vec::new(),
        }
    }

    /// The bytes held: a few mappings at most, so summed when asked.
    fn held(&self) -> usize {
        self.maps.iter().map(|map| map.len()).sum()
    }

    /// The smallest kept mapping of at least `len` bytes, if it is not much larger: a
    /// mapping in use holds all its pages, so a small body does not take a large mapping.
    fn take(&mut self, len: usize) -> Option<memmap2::Mmap> {
        let most = len.saturating_add(len / 4).saturating_add(STEP);
        let (index, _) = self
            .maps
            .iter()
            .enumerate()
            .filter(|(_, map)| (len..=most).contains(&map.len()))
            .min_by_key(|(_, map)| map.len())?;
        Some(self.maps.remove(index))
    }

    /// Keeps `map`, releasing the oldest mappings while the limit is passed; what is
    /// released is returned, to be unmapped by the caller.
    fn put(&mut self, map: memmap2::Mmap) -> Vec<memmap2::Mmap> {
        if map.len() > self.limit {
            return vec![map];
        }
        self.maps.push(map);
        self.trim()
    }

    /// Sets the limit, returning what no longer fits.
    fn set_limit(&mut self, limit: usize) -> Vec<memmap2::Mmap> {
        self.limit = limit;
        self.trim()
    }

    /// Returns everything held; the limit stays as it was.
    fn empty(&mut self) -> Vec<memmap2::Mmap> {
        std::mem::take(&mut self.maps)
    }

    fn trim(&mut self) -> Vec<memmap2::Mmap> {
        let mut released = Vec::new();
        while self.held() > self.limit {
            released.push(self.maps.remove(0));
        }
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(len: usize) -> memmap2::Mmap {
        memmap2::MmapMut::map_anon(len)
            .unwrap()
            .make_read_only()
            .unwrap()
    }

    fn lens(shelf: &Shelf) -> Vec<usize> {
        shelf.maps.iter().map(|map| map.len()).collect()
    }

    #[test]
    fn the_smallest_fitting_mapping_is_taken() {
        let mut shelf = Shelf::new(100 * STEP);
        for len in [4 * STEP, 3 * STEP, 8 * STEP] {
            assert!(shelf.put(map(len)).is_empty());
        }
        assert_eq!(shelf.held(), 15 * STEP);
        // 5 MiB fits the 6 MiB and the 8 MiB ones: the smaller is taken.
        assert_eq!(shelf.take(5 << 20).map(|m| m.len()), Some(3 * STEP));
        assert_eq!(lens(&shelf), [4 * STEP, 8 * STEP]);
        assert_eq!(shelf.held(), 12 * STEP);
    }

    #[test]
    fn a_mapping_much_larger_than_asked_for_stays_kept() {
        let mut shelf = Shelf::new(100 * STEP);
        assert!(shelf.put(map(16 * STEP)).is_empty());
        // 16 MiB is more than 5/4 of 4 MiB plus a step.
        assert!(shelf.take(4 << 20).is_none());
        // A length larger than every kept mapping takes none.
        assert!(shelf.take(17 * STEP).is_none());
        assert_eq!(shelf.take(13 * STEP).map(|m| m.len()), Some(16 * STEP));
        assert_eq!(shelf.held(), 0);
    }

    #[test]
    fn past_the_limit_the_oldest_are_released() {
        let mut shelf = Shelf::new(10 * STEP);
        assert!(shelf.put(map(4 * STEP)).is_empty());
        assert!(shelf.put(map(3 * STEP)).is_empty());
        let released = shelf.put(map(5 * STEP));
        assert_eq!(
            released.iter().map(|m| m.len()).collect::<Vec<_>>(),
            [4 * STEP]
        );
        assert_eq!(lens(&shelf), [3 * STEP, 5 * STEP]);
        assert_eq!(shelf.held(), 8 * STEP);
        // A mapping larger than the whole limit is not kept at all.
        assert_eq!(shelf.put(map(11 * STEP)).len(), 1);
        assert_eq!(shelf.held(), 8 * STEP);
    }

    #[test]
    fn lowering_the_limit_releases_at_once_and_zero_keeps_nothing() {
        let mut shelf = Shelf::new(10 * STEP);
        assert!(shelf.put(map(4 * STEP)).is_empty());
        assert!(shelf.put(map(3 * STEP)).is_empty());
        assert_eq!(shelf.set_limit(3 * STEP).len(), 1);
        assert_eq!(lens(&shelf), [3 * STEP]);
        assert_eq!(shelf.empty().len(), 1);
        assert_eq!((shelf.held(), shelf.limit), (0, 3 * STEP));
        assert!(shelf.set_limit(0).is_empty());
        assert_eq!(shelf.put(map(STEP)).len(), 1);
        assert_eq!(shelf.held(), 0);
    }

    #[test]
    fn a_mapping_is_seen_as_the_length_asked_for() {
        assert!(mapping(MAPPED - 1).is_none());
        let len = MAPPED + 4099;
        let mut memory = mapping(len).unwrap();
        assert_eq!(memory.len(), len);
        assert!(memory.map.len() >= len && memory.map.len().is_multiple_of(STEP));
        memory.fill(7);
        let buffer = memory.into_buffer().unwrap();
        assert_eq!(buffer.len(), len);
        assert!(buffer.iter().all(|&b| b == 7));
        assert_eq!(buffer.as_ptr() as usize % 64, 0);
    }
}

//! Memory for large message bodies and buffers, and reading bodies from a `std::io::Read`
//! into it.
//!
//! Two rules shape this. A declared length is hostile until the bytes arrive, so the memory
//! that holds them is committed as they arrive, never ahead of them. And a large body is
//! written into fresh memory, whose first touch costs more than the copy itself: the kernel
//! maps and zeroes every 4 KiB page (257 MB into fresh `malloc` memory: 172 ms, into a
//! reused buffer: 18 ms). Large bodies therefore go into an anonymous mapping of their
//! whole declared length, which commits nothing until written, advised on Linux to use
//! 2 MiB pages: 512 times fewer faults. A 143 MB stream read in 98 ms that way took 25 ms.
//! Small reads grow a vector instead, where a mapping's system calls would cost more than
//! they save.
//!
//! Huge pages have a price: where the kernel has no free 2 MiB page at hand and its
//! `defrag` setting is `madvise` (a common default), a fault compacts memory on the spot:
//! a copy into such memory stalled once for 420 ms on this project's machine. [`set_huge_pages`] turns the advice off for
//! callers to whom a rare stall matters more than throughput.

use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use alkaid_buffer::Buffer;

use crate::error::Result;

static HUGE_PAGES: AtomicBool = AtomicBool::new(true);

/// Whether message bodies of 4 MiB and more read from a `Read` (by [`StreamReader`] and by
/// [`FileReader`] over a [`Seekable`]) or pushed into a [`Decoder`], and decompressed
/// buffers of 4 MiB and more, ask the kernel for 2 MiB pages; on by default, for
/// the whole process. A hint that only Linux takes; without it a 257 MB stream reads about
/// four times slower on a machine where first touches of memory are costly, with it a read
/// can stall while the kernel compacts memory to find huge pages (see the module notes).
///
/// [`StreamReader`]: crate::StreamReader
/// [`FileReader`]: crate::FileReader
/// [`Seekable`]: crate::Seekable
/// [`Decoder`]: crate::Decoder
pub fn set_huge_pages(enabled: bool) {
    HUGE_PAGES.store(enabled, Ordering::Relaxed);
}

/// Below this, reads go into a growing vector; from it, into a mapping.
pub(crate) const MAPPED: usize = 4 << 20;

/// The first step of a growing vector; each later step doubles what arrived.
const FIRST_STEP: usize = 1 << 20;

/// Up to `len` bytes of `input`, fewer only if it ends first. Memory in use never exceeds
/// what arrived by more than the larger of [`FIRST_STEP`] and what arrived, plus one 2 MiB
/// page, so a lying length costs nothing it cannot justify.
///
/// # Errors
/// If reading fails.
pub(crate) fn read_up_to(input: &mut impl Read, len: usize) -> Result<Buffer> {
    // The system may refuse the address space (a length far past memory and swap, with
    // overcommit limited): then the bytes go into a vector as they arrive, which for a
    // lying length ends in an error about where the input stopped.
    let Some(mut map) = mapping(len) else {
        return Ok(Buffer::from(growing(input, len)?));
    };
    let got = fill(input, &mut map)?;
    // Short, the caller reports it; the pages past what arrived were never touched.
    Ok(Buffer::from_owner(map.make_read_only()?).slice(0, got))
}

/// `len` bytes of `input`, which is known to hold them (a file whose length was measured),
/// fewer only if it ends first: below [`MAPPED`], room for all of them at once (a vector
/// grown as they arrive copied a 2.5 MB body three times); from it, a mapping as in
/// [`read_up_to`].
///
/// # Errors
/// If reading fails.
pub(crate) fn read_known(input: &mut impl Read, len: usize) -> Result<Buffer> {
    if len >= MAPPED {
        return read_up_to(input, len);
    }
    let mut bytes = Vec::with_capacity(len);
    input.take(len as u64).read_to_end(&mut bytes)?;
    Ok(Buffer::from(bytes))
}

/// Memory for a body of `len` bytes that arrive later: an anonymous mapping, advised to
/// use huge pages, when `len` is at least [`MAPPED`] and the system grants the address
/// space; `None` otherwise (the caller then grows a vector).
pub(crate) fn mapping(len: usize) -> Option<memmap2::MmapMut> {
    if len < MAPPED {
        return None;
    }
    let map = memmap2::MmapMut::map_anon(len).ok()?;
    #[cfg(target_os = "linux")]
    if HUGE_PAGES.load(Ordering::Relaxed) {
        // A hint: where huge pages are off or unavailable, the kernel uses small ones.
        let _ = map.advise(memmap2::Advice::HugePage);
    }
    Some(map)
}

/// Reads into `out` until it is full or the input ends; the number of bytes read.
pub(crate) fn fill(input: &mut impl Read, out: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < out.len() {
        match input.read(&mut out[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Up to `len` bytes into a vector that grows with the bytes that really arrive.
fn growing(input: &mut impl Read, len: usize) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    while bytes.len() < len {
        let want = (len - bytes.len()).min(bytes.len().max(FIRST_STEP));
        bytes.reserve_exact(want);
        let got = input.take(want as u64).read_to_end(&mut bytes)?;
        if got < want {
            break;
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes per call, so that every read loop has
    /// to come back for more.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.step).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn small_and_mapped_reads_give_the_bytes_in_order() {
        for len in [0, 1, MAPPED - 1, MAPPED, MAPPED + 4097] {
            let bytes = pattern(len + 10);
            let mut input = Trickle {
                bytes: &bytes,
                step: 300_007,
            };
            let read = read_up_to(&mut input, len).unwrap();
            assert_eq!(&read[..], &bytes[..len], "{len} bytes");
            // What was not asked for is still in the input.
            assert_eq!(input.bytes.len(), 10);
        }
    }

    #[test]
    fn a_short_input_gives_what_arrived() {
        for (len, present) in [(MAPPED * 3, MAPPED + 5), (MAPPED * 3, 0), (MAPPED - 1, 17)] {
            let bytes = pattern(present);
            let mut input = Trickle {
                bytes: &bytes,
                step: 65_536,
            };
            let read = read_up_to(&mut input, len).unwrap();
            assert_eq!(&read[..], &bytes[..], "{present} of {len} bytes");
        }
    }

    #[test]
    fn without_huge_pages_the_bytes_are_the_same() {
        let bytes = pattern(MAPPED + 3);
        set_huge_pages(false);
        let read = read_up_to(&mut &bytes[..], MAPPED + 3);
        set_huge_pages(true);
        assert_eq!(&read.unwrap()[..], &bytes[..]);
    }

    #[test]
    fn mapped_bodies_are_aligned_for_every_type() {
        let bytes = pattern(MAPPED);
        let read = read_up_to(&mut &bytes[..], MAPPED).unwrap();
        assert_eq!(read.as_ptr() as usize % 64, 0);
    }

    #[test]
    fn interruptions_are_retried_and_errors_passed_on() {
        struct Flaky(u32);
        impl Read for Flaky {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.0 += 1;
                match self.0 {
                    1 => Err(ErrorKind::Interrupted.into()),
                    2 => {
                        buf[0] = 42;
                        Ok(1)
                    }
                    _ => Err(std::io::Error::other("the network went away")),
                }
            }
        }
        let err = read_up_to(&mut Flaky(0), MAPPED).unwrap_err();
        assert!(err.to_string().contains("the network went away"), "{err}");
    }
}

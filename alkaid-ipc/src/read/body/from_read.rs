//! Reading bodies from a `std::io::Read`. A declared length is hostile until the bytes
//! arrive, so the memory that holds them is committed as they arrive, never ahead of them:
//! large bodies go into a mapping of their whole declared length (see `mapping.rs`), which
//! commits nothing until written; small ones grow a vector.

use std::io::Read;

use alkaid_buffer::Buffer;

use crate::error::Result;
use crate::fill::fill;
use crate::mapping::{MAPPED, mapping};

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
    // Short, the caller reports it; the bytes past what arrived are not in the buffer.
    Ok(map.into_buffer()?.slice(0, got))
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
    use std::io::ErrorKind;

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
        crate::set_huge_pages(false);
        let read = read_up_to(&mut &bytes[..], MAPPED + 3);
        crate::set_huge_pages(true);
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

//! A body's buffers compressed on several threads and handed over in order, each as the
//! slices of its compressed bytes, for a writer that writes them as they come.
//!
//! zstd compresses each buffer whole, into memory of its own ([`Compressor::compress`]).
//! An LZ4 frame is cut into blocks compressed on their own (`lz4_frame.rs`), so here the
//! threads take blocks rather than buffers: a block's compressed bytes go into scratch
//! memory that is used again once they are written, instead of fresh memory as large as
//! the buffer (whose pages the kernel zeroes on first touch: 16% of `alkaid convert`'s
//! time to LZ4 before), and a block that does not compress, like a buffer that does not,
//! is written from the batch's own memory rather than copied first. The bytes are those of
//! [`Compressor::compress`], block for block.

use alkaid_buffer::Buffer;

use super::compression::{Compression, Compressor};
use super::parallel::work_in_order;
use crate::error::Result;

/// Compresses `buffers` with `codec` on up to `threads` threads (codec contexts kept in
/// `compressors` for the next body), handing each buffer's compressed bytes to `write` in
/// order, as slices, as soon as they and every byte before them are known: `write(slices,
/// finished)`, where `finished` says that the buffer ends with these slices. A zstd buffer
/// comes in one call, an LZ4 one in several (block by block); an empty buffer is one call
/// with no slices. After `write` fails, or compressing does, nothing more is handed over
/// and the error is returned.
pub(crate) fn compress_in_order(
    codec: Compression,
    buffers: &[Buffer],
    threads: usize,
    compressors: &mut Vec<Compressor>,
    mut write: impl FnMut(&[&[u8]], bool) -> Result<()>,
) -> Result<()> {
    #[cfg(feature = "lz4")]
    if codec == Compression::Lz4Frame {
        return lz4::blocks_in_order(buffers, threads, compressors, write);
    }
    work_in_order(
        buffers,
        threads,
        compressors,
        || Compressor::new(codec),
        |compressor, buffer| compressor.compress(buffer.as_slice()),
        |_, compressed| write(&[compressed?.as_slice()], true),
    )
}

/// LZ4 block by block (a build without feature `lz4` refuses LZ4 in [`Compressor`]).
#[cfg(feature = "lz4")]
mod lz4 {
    use std::ops::Range;
    use std::sync::{Mutex, PoisonError};

    use alkaid_buffer::Buffer;

    use super::super::compression::{Compression, Compressor, STORED};
    use super::super::lz4_frame;
    use super::work_in_order;
    use crate::error::Result;

    /// One block of the LZ4 frame of buffer `buffer`: the bytes of `range`.
    struct Block {
        buffer: usize,
        range: Range<usize>,
    }

    /// A block compressed: its bytes at the start of scratch memory, or stored as it is.
    enum Compressed {
        Shorter { scratch: Vec<u8>, len: usize },
        Stored,
    }

    /// Scratch memory for compressed blocks, given back once they are written: as many as
    /// blocks compressed and not yet written, each as large as a block's worst case.
    #[derive(Default)]
    struct Scratches(Mutex<Vec<Vec<u8>>>);

    impl Scratches {
        fn take(&self, len: usize) -> Vec<u8> {
            match self.lock().pop() {
                Some(scratch) if scratch.len() >= len => scratch,
                // Zeroed by the allocator: fresh pages from the system are zero already, and
                // only those the codec writes to are ever touched.
                _ => vec![0; len],
            }
        }

        fn give_back(&self, scratch: Vec<u8>) {
            self.lock().push(scratch);
        }

        fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
            self.0.lock().unwrap_or_else(PoisonError::into_inner)
        }
    }

    /// [`compress_in_order`](super::compress_in_order) for LZ4, block by block.
    pub(super) fn blocks_in_order(
        buffers: &[Buffer],
        threads: usize,
        compressors: &mut Vec<Compressor>,
        mut write: impl FnMut(&[&[u8]], bool) -> Result<()>,
    ) -> Result<()> {
        let blocks: Vec<Block> = buffers
            .iter()
            .enumerate()
            .flat_map(|(buffer, bytes)| {
                let len = bytes.len();
                let step = lz4_frame::frame_block_len(len);
                (0..len).step_by(step).map(move |start| Block {
                    buffer,
                    range: start..len.min(start + step),
                })
            })
            .collect();
        let scratches = Scratches::default();
        // The next buffer to finish, and its frame so far.
        let mut next = 0;
        let mut frame = Frame::default();
        work_in_order(
            &blocks,
            threads,
            compressors,
            || Compressor::new(Compression::Lz4Frame),
            |compressor, block| {
                let bytes = &buffers[block.buffer][block.range.clone()];
                let mut scratch = scratches.take(lz4_frame::max_block_len(bytes.len()));
                let compressed = match compressor.lz4_block(bytes, &mut scratch)? {
                    Some(len) => Compressed::Shorter { scratch, len },
                    None => {
                        scratches.give_back(scratch);
                        Compressed::Stored
                    }
                };
                Ok(compressed)
            },
            |i, compressed: Result<Compressed>| {
                let block = &blocks[i];
                // Empty buffers (no blocks) before this one.
                for _ in next..block.buffer {
                    write(&[], true)?;
                }
                next = block.buffer;
                let buffer = buffers[next].as_slice();
                let finished = block.range.end == buffer.len();
                frame.add(buffer, block.range.clone(), compressed?);
                frame.hand_over(buffer, finished, &mut write, &scratches)?;
                if finished {
                    next += 1;
                }
                Ok::<_, crate::IpcError>(())
            },
        )?;
        for _ in next..buffers.len() {
            write(&[], true)?;
        }
        Ok(())
    }

    /// The frame of the buffer under way. Its blocks are written as they come once the
    /// frame is sure to be shorter than the buffer, which [`Compressor::compress`] requires
    /// of a compressed buffer: when the bytes its blocks saved so far pass the frame's
    /// overhead (header, end mark, a size per block), since a block still to come is at
    /// worst stored at its own length. Until then they wait; a frame that never gets
    /// there is not written, the buffer is, as it is, after [`STORED`].
    #[derive(Default)]
    struct Frame {
        waiting: Vec<(Range<usize>, Compressed)>,
        saved: usize,
        started: bool,
    }

    impl Frame {
        fn add(&mut self, buffer: &[u8], range: Range<usize>, compressed: Compressed) {
            if let Compressed::Shorter { len, .. } = compressed {
                self.saved += range.len() - len;
            }
            self.waiting.push((range, compressed));
            self.started |= self.saved > lz4_frame::frame_overhead(buffer.len());
        }

        /// Writes what is known: the waiting blocks of a frame sure to be shorter (after the
        /// length prefix and header, if they were not written yet; the end mark after the
        /// last block, when `finished`), or a finished buffer as it is. Their scratch memory
        /// goes back.
        fn hand_over(
            &mut self,
            buffer: &[u8],
            finished: bool,
            write: &mut impl FnMut(&[&[u8]], bool) -> Result<()>,
            scratches: &Scratches,
        ) -> Result<()> {
            let written = match (self.started, finished) {
                (false, false) => return Ok(()),
                (false, true) => write(&[&STORED, buffer], true),
                (true, _) => self.write_blocks(buffer, finished, write),
            };
            for (_, compressed) in self.waiting.drain(..) {
                if let Compressed::Shorter { scratch, .. } = compressed {
                    scratches.give_back(scratch);
                }
            }
            if finished {
                *self = Frame::default();
            }
            written
        }

        /// Writes the waiting blocks of a started frame, after the length prefix and header
        /// if its first block is among them, and the end mark after them if `finished`.
        fn write_blocks(
            &self,
            buffer: &[u8],
            finished: bool,
            write: &mut impl FnMut(&[&[u8]], bool) -> Result<()>,
        ) -> Result<()> {
            let prefix = (buffer.len() as i64).to_le_bytes();
            let header = lz4_frame::frame_header(buffer.len());
            let sizes: Vec<[u8; 4]> = self
                .waiting
                .iter()
                .map(|(range, compressed)| match compressed {
                    Compressed::Shorter { len, .. } => lz4_frame::block_size_field(*len, false),
                    Compressed::Stored => lz4_frame::block_size_field(range.len(), true),
                })
                .collect();
            let mut slices: Vec<&[u8]> = Vec::with_capacity(3 + 2 * self.waiting.len());
            if self.waiting.first().map(|(range, _)| range.start) == Some(0) {
                slices.extend([&prefix[..], &header]);
            }
            for ((range, compressed), size) in self.waiting.iter().zip(&sizes) {
                slices.push(size);
                slices.push(match compressed {
                    Compressed::Shorter { scratch, len } => &scratch[..*len],
                    Compressed::Stored => &buffer[range.clone()],
                });
            }
            if finished {
                slices.push(&lz4_frame::END_MARK);
            }
            write(&slices, finished)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// What `Frame` hands over for a buffer of 3 blocks whose blocks compress to
        /// `lens` (`None`: stored), one block at a time: the calls, and whether each
        /// finished the buffer.
        fn handed_over(buffer: &[u8], lens: [Option<usize>; 3]) -> Vec<(Vec<u8>, bool)> {
            let step = lz4_frame::frame_block_len(buffer.len());
            let scratches = Scratches::default();
            let mut frame = Frame::default();
            let mut calls = Vec::new();
            for (i, len) in lens.into_iter().enumerate() {
                let range = i * step..buffer.len().min((i + 1) * step);
                let compressed = match len {
                    // Compressed bytes: any will do, the frame only places them.
                    Some(len) => Compressed::Shorter {
                        scratch: vec![i as u8 + 1; len + 10],
                        len,
                    },
                    None => Compressed::Stored,
                };
                let finished = range.end == buffer.len();
                frame.add(buffer, range, compressed);
                let mut write = |slices: &[&[u8]], finished| {
                    calls.push((slices.concat(), finished));
                    Ok(())
                };
                frame
                    .hand_over(buffer, finished, &mut write, &scratches)
                    .unwrap();
            }
            calls
        }

        #[test]
        fn a_frame_starts_once_it_is_sure_to_be_shorter_than_its_buffer() {
            let buffer: Vec<u8> = (0..(9 << 20) as u32).map(|i| (i % 251) as u8).collect();
            let block = 4 << 20;
            // Header, end mark and three sizes: the frame is shorter than the buffer only
            // if the blocks saved more than that.
            let overhead = lz4_frame::HEADER_LEN + 3 * 4 + lz4_frame::END_MARK.len();
            // Saving exactly the overhead: the frame would be as long as the buffer, so
            // the buffer is written as it is, once, at the end.
            let calls = handed_over(&buffer, [Some(block - overhead), None, None]);
            assert_eq!(calls.len(), 1);
            assert!(calls[0].1 && calls[0].0[..8] == STORED && calls[0].0[8..] == buffer[..]);
            // One byte more: the frame, written as soon as that is known (with the first
            // block), then block by block.
            let first = block - overhead - 1;
            let calls = handed_over(&buffer, [Some(first), None, Some(10)]);
            let finished: Vec<bool> = calls.iter().map(|(_, finished)| *finished).collect();
            assert_eq!(finished, [false, false, true]);
            let mut expected = (buffer.len() as i64).to_le_bytes().to_vec();
            expected.extend(lz4_frame::frame_header(buffer.len()));
            expected.extend(lz4_frame::block_size_field(first, false));
            expected.extend(vec![1u8; first]);
            expected.extend(lz4_frame::block_size_field(block, true));
            expected.extend(&buffer[block..2 * block]);
            expected.extend(lz4_frame::block_size_field(10, false));
            expected.extend([3u8; 10]);
            expected.extend(lz4_frame::END_MARK);
            let got: Vec<u8> = calls.into_iter().flat_map(|(bytes, _)| bytes).collect();
            assert!(got == expected);
            // Known only at the last block: nothing is handed over before it, then the
            // whole frame at once.
            let calls = handed_over(&buffer, [None, None, Some((1 << 20) - overhead - 1)]);
            assert_eq!(calls.len(), 1);
            let (bytes, finished) = &calls[0];
            assert!(*finished && bytes[..8] == (buffer.len() as i64).to_le_bytes());
            assert_eq!(bytes.len(), 8 + buffer.len() - 1);
        }
    }
}

#[cfg(all(test, feature = "lz4", feature = "zstd"))]
mod tests {
    use super::*;

    /// Bytes that compress in places: runs of one byte between stretches of noise, so some
    /// blocks compress, some are stored, and some buffers compress as a whole while others
    /// are written as they are.
    fn mixed(len: usize, seed: u64) -> Vec<u8> {
        let mut state = seed | 1;
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let run = (state % 300_000) as usize;
            let take = run.min(len - out.len());
            if state.is_multiple_of(3) {
                out.extend(std::iter::repeat_n((state >> 8) as u8, take));
            } else {
                out.extend(noise(take, state));
            }
        }
        out
    }

    /// Bytes that do not compress.
    fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as u8
            })
            .collect()
    }

    /// Each buffer's bytes as handed over, and the most calls one took.
    fn handed_over(
        codec: Compression,
        buffers: &[Buffer],
        threads: usize,
    ) -> (Vec<Vec<u8>>, usize) {
        let (mut out, mut under_way, mut calls, mut most) = (Vec::new(), Vec::new(), 0, 0);
        compress_in_order(
            codec,
            buffers,
            threads,
            &mut Vec::new(),
            |slices, finished| {
                under_way.extend(slices.concat());
                calls += 1;
                if finished {
                    out.push(std::mem::take(&mut under_way));
                    most = most.max(std::mem::take(&mut calls));
                }
                Ok(())
            },
        )
        .unwrap();
        assert!(
            under_way.is_empty() && calls == 0,
            "a buffer left unfinished"
        );
        (out, most)
    }

    #[test]
    fn each_buffer_is_handed_over_as_the_compressor_makes_it() {
        let block_edges = [64 << 10, 256 << 10, 1 << 20, 4 << 20];
        let mut lens = vec![0, 1, 100, 0, 70_000];
        lens.extend(
            block_edges
                .iter()
                .flat_map(|&edge| [edge - 1, edge, edge + 1]),
        );
        lens.extend([9 << 20, 0]);
        let buffers: Vec<Buffer> = lens
            .iter()
            .enumerate()
            .map(|(seed, &len)| Buffer::from(mixed(len, seed as u64 + 7)))
            .collect();
        // Zeros compress, noise does not: a frame of a compressed block, a stored one and
        // another compressed one.
        let mut whole = vec![0u8; 9 << 20];
        whole[(4 << 20)..(8 << 20)].copy_from_slice(&noise(4 << 20, 5));
        let buffers: Vec<Buffer> = buffers
            .into_iter()
            .chain([Buffer::from(whole), Buffer::from(noise(6 << 20, 3))])
            .collect();
        for codec in [Compression::Lz4Frame, Compression::Zstd { level: 1 }] {
            let expected: Vec<Vec<u8>> = buffers
                .iter()
                .map(|b| Compressor::new(codec).compress(b).unwrap().to_vec())
                .collect();
            let kinds: Vec<i64> = expected
                .iter()
                .filter(|bytes| !bytes.is_empty())
                .map(|bytes| i64::from_le_bytes(bytes[..8].try_into().unwrap()))
                .collect();
            // Both kinds of buffer are there: compressed (a length) and stored (-1).
            assert!(
                kinds.contains(&-1) && kinds.iter().any(|&k| k > 0),
                "{kinds:?}"
            );
            if codec == Compression::Lz4Frame {
                // The frame of `whole`: its second block is stored (the size's high bit).
                let frame = &expected[expected.len() - 2][8..];
                let size = |at: usize| u32::from_le_bytes(frame[at..at + 4].try_into().unwrap());
                let first = size(7);
                assert!(first < 1 << 20, "{first}");
                assert_eq!(size(7 + 4 + first as usize), (4 << 20) | (1 << 31));
            }
            for threads in [1, 2, 3] {
                let (got, most_calls) = handed_over(codec, &buffers, threads);
                // LZ4 frames of several blocks are handed over block by block.
                let expected_most = if codec == Compression::Lz4Frame { 3 } else { 1 };
                assert_eq!(most_calls, expected_most, "{codec:?}, {threads} threads");
                assert_eq!(got.len(), buffers.len(), "{codec:?}, {threads} threads");
                for (i, (got, expected)) in got.iter().zip(&expected).enumerate() {
                    assert!(got == expected, "{codec:?}, {threads} threads, buffer {i}");
                }
            }
        }
        // No buffers, or only empty ones: one empty hand-over each.
        assert!(handed_over(Compression::Lz4Frame, &[], 2).0.is_empty());
        let empty = [Buffer::empty(), Buffer::empty()];
        let (got, _) = handed_over(Compression::Lz4Frame, &empty, 2);
        assert_eq!(got, vec![Vec::<u8>::new(); 2]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

        /// Buffers of any length up to 10 MiB (frames of up to three blocks), of bytes
        /// that compress in places, on 1–3 threads: each handed over as the
        /// buffer-by-buffer compressor makes it.
        #[test]
        fn any_buffers_are_handed_over_as_the_compressor_makes_them(
            lens in proptest::collection::vec(0usize..(10 << 20), 0..4),
            seed: u64,
            threads in 1usize..4,
            lz4: bool,
        ) {
            let codec = if lz4 { Compression::Lz4Frame } else { Compression::Zstd { level: -5 } };
            let buffers: Vec<Buffer> = lens
                .iter()
                .enumerate()
                .map(|(i, &len)| Buffer::from(mixed(len, seed.wrapping_add(i as u64))))
                .collect();
            let (got, _) = handed_over(codec, &buffers, threads);
            proptest::prop_assert_eq!(got.len(), buffers.len());
            for (got, buffer) in got.iter().zip(&buffers) {
                let expected = Compressor::new(codec).compress(buffer).unwrap();
                proptest::prop_assert!(got[..] == expected[..], "{} bytes", buffer.len());
            }
        }
    }

    #[test]
    fn a_failed_write_stops_the_hand_over_with_its_error() {
        let buffers: Vec<Buffer> = (0..6).map(|i| Buffer::from(mixed(3 << 20, i))).collect();
        for codec in [Compression::Lz4Frame, Compression::Zstd { level: 1 }] {
            let mut written = 0;
            let outcome = compress_in_order(codec, &buffers, 2, &mut Vec::new(), |_, _| {
                written += 1;
                match written {
                    3 => Err(crate::IpcError::invalid_argument("the output is full")),
                    _ => Ok(()),
                }
            });
            let error = outcome.unwrap_err();
            assert!(error.to_string().contains("the output is full"), "{error}");
            assert_eq!(written, 3, "{codec:?}");
        }
    }
}

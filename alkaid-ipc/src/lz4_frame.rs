//! The LZ4 frame format, written block by block straight from the input.
//!
//! lz4_flex's `FrameEncoder` copies every block of input into a buffer of its own before
//! compressing it; here each block is compressed where it lies. The frame is the plainest
//! the format allows, and every LZ4 reader (lz4_flex's, the reference C library that Arrow
//! C++ uses) reads it: independent blocks, no checksums, no content size, no dictionary.
//! The maximum block size is the smallest that holds the whole input, as lz4_flex chooses
//! it, so that a reader's block buffer is never much larger than the buffer itself.

use lz4_flex::block::{CompressTable, compress_into_with_table, get_maximum_output_size};

use crate::error::{IpcError, Result};

/// Frame magic number, little-endian on the wire.
const MAGIC: u32 = 0x184D_2204;

/// FLG: format version 01 and independent blocks; every optional field off.
const FLG: u8 = 0b0110_0000;

/// The maximum block sizes a frame descriptor can name: the size, its BD byte, and the
/// header checksum (the second byte of the xxHash32 of FLG and BD), which is fixed for
/// each, since FLG is.
const BLOCK_SIZES: [(usize, u8, u8); 4] = [
    (64 << 10, 0x40, 0x82),
    (256 << 10, 0x50, 0xFB),
    (1 << 20, 0x60, 0x51),
    (4 << 20, 0x70, 0x73),
];

/// A block stored as it is: the high bit of its size.
const UNCOMPRESSED: u32 = 1 << 31;

/// Compression state kept between buffers: the match table and the room one compressed
/// block is written into before it is appended.
#[derive(Default)]
pub(crate) struct Lz4FrameEncoder {
    table: CompressTable,
    block: Vec<u8>,
}

impl Lz4FrameEncoder {
    /// Appends `input` to `out` as one LZ4 frame.
    pub(crate) fn compress_into(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let (block_size, bd, checksum) = BLOCK_SIZES
            .into_iter()
            .find(|&(size, ..)| input.len() <= size)
            .unwrap_or(BLOCK_SIZES[3]);
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out.extend_from_slice(&[FLG, bd, checksum]);
        let room = get_maximum_output_size(block_size.min(input.len()));
        if self.block.len() < room {
            // Zeroed once and reused: the codec writes into initialised bytes only.
            self.block = vec![0; room];
        }
        for block in input.chunks(block_size) {
            let compressed = compress_into_with_table(block, &mut self.block, &mut self.table)
                .map_err(|e| IpcError::new(crate::IpcErrorKind::Io, format!("lz4: {e}")))?;
            if compressed < block.len() {
                out.extend_from_slice(&(compressed as u32).to_le_bytes());
                out.extend_from_slice(&self.block[..compressed]);
            } else {
                // A block is at most 4 MiB, so its size leaves the high bit free.
                out.extend_from_slice(&(block.len() as u32 | UNCOMPRESSED).to_le_bytes());
                out.extend_from_slice(block);
            }
        }
        // The end mark: a block of size zero.
        out.extend_from_slice(&0u32.to_le_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use lz4_flex::frame::{BlockMode, BlockSize, FrameDecoder, FrameEncoder, FrameInfo};

    use super::*;

    fn frame(input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        Lz4FrameEncoder::default()
            .compress_into(input, &mut out)
            .unwrap();
        out
    }

    fn decode(frame: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        FrameDecoder::new(frame).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn headers_match_lz4_flex_for_every_block_size() {
        let sizes = [
            BlockSize::Max64KB,
            BlockSize::Max256KB,
            BlockSize::Max1MB,
            BlockSize::Max4MB,
        ];
        for (block_size, (size, ..)) in sizes.into_iter().zip(BLOCK_SIZES) {
            let mut info = FrameInfo::new();
            info.block_size = block_size;
            info.block_mode = BlockMode::Independent;
            let mut theirs = FrameEncoder::with_frame_info(info, Vec::new());
            theirs.write_all(b"abc").unwrap();
            let theirs = theirs.finish().unwrap();
            // An input just over the next smaller size picks this block size.
            let ours = frame(&vec![7u8; size / 4 + 1]);
            assert_eq!(ours[..7], theirs[..7], "block size {size}");
        }
    }

    #[test]
    fn frames_of_every_shape_decode_to_their_input() {
        let text: Vec<u8> = (0..3_000_000u32)
            .flat_map(|i| format!("row {} ", i % 977).into_bytes())
            .collect();
        let mut noise = Vec::with_capacity(5 << 20);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        while noise.len() < 5 << 20 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            noise.extend_from_slice(&state.to_le_bytes());
        }
        let mut encoder = Lz4FrameEncoder::default();
        // One byte; a compressible multi-block input (a short last block); incompressible
        // bytes, stored block by block as they are; and a small input after a large one,
        // reusing the encoder's state.
        for input in [&b"x"[..], &text, &noise, b"abcabcabcabcabcabc"] {
            let mut out = Vec::new();
            encoder.compress_into(input, &mut out).unwrap();
            assert_eq!(decode(&out), input, "{} bytes", input.len());
            if input.len() > 1 << 20 {
                assert!(out.len() > 4 << 10, "a real frame, {} bytes", out.len());
            }
        }
        let stored = frame(&noise);
        let first_block = u32::from_le_bytes(stored[7..11].try_into().unwrap());
        assert_eq!(first_block, (4 << 20) | UNCOMPRESSED);
        assert!(frame(&text).len() < text.len() / 4);
    }
}

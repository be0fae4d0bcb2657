//! The LZ4 frame format, written block by block straight from the input and read block by
//! block straight into the output.
//!
//! lz4_flex's `FrameEncoder` copies every block of input into a buffer of its own before
//! compressing it, and its output out of another; here each block is compressed where it
//! lies, straight into its place in the output. The frame is the plainest
//! the format allows, and every LZ4 reader (lz4_flex's, the reference C library that Arrow
//! C++ uses) reads it: independent blocks, no checksums, no content size, no dictionary.
//! The maximum block size is the smallest that holds the whole input, as lz4_flex chooses
//! it, so that a reader's block buffer is never much larger than the buffer itself.
//!
//! Likewise lz4_flex's `FrameDecoder` decompresses each block into a buffer of its own (as
//! large as the frame's maximum block size, allocated per frame) and copies it out;
//! [`decompress_into`] decompresses each block into its place in the output, whose size the
//! IPC body declares. It reads what Arrow C++ writes too: linked blocks (each may refer to
//! the 64 KiB before it, which is right there in the output) and checksums.

use std::io::Read;

use lz4_flex::block::{CompressTable, compress_into_with_table, get_maximum_output_size};
use lz4_flex::frame::FrameDecoder;
use twox_hash::XxHash32;

use super::lz4_block;
use crate::error::{IpcError, Result};
use crate::fill::fill;

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

/// The maximum block size for `len` bytes of input: the smallest that holds them all, or
/// the largest there is; with its BD byte and the header checksum.
fn block_size(len: usize) -> (usize, u8, u8) {
    BLOCK_SIZES
        .into_iter()
        .find(|&(size, ..)| len <= size)
        .unwrap_or(BLOCK_SIZES[3])
}

/// The most bytes a frame of `len` input bytes can take: the header, each block's size and
/// the codec's worst case for it, the end mark. [`Lz4FrameEncoder::compress_to`] needs this
/// much room.
pub(crate) fn max_frame_len(len: usize) -> usize {
    let (size, ..) = block_size(len);
    let (full, rest) = (len / size, len % size);
    let block = |len: usize| 4 + max_block_len(len);
    HEADER_LEN + full * block(size) + if rest > 0 { block(rest) } else { 0 } + END_MARK.len()
}

/// The bytes of a frame's header.
pub(crate) const HEADER_LEN: usize = 7;

/// The end mark: a block of size zero.
pub(crate) const END_MARK: [u8; 4] = [0; 4];

/// The header of a frame of `len` bytes of input: magic, FLG, BD, header checksum.
pub(crate) fn frame_header(len: usize) -> [u8; HEADER_LEN] {
    let (_, bd, checksum) = block_size(len);
    let [m0, m1, m2, m3] = MAGIC.to_le_bytes();
    [m0, m1, m2, m3, FLG, bd, checksum]
}

/// The length of the blocks a frame of `len` bytes of input is cut into (the last one may be
/// shorter): each is compressed on its own, so a frame is its header, then each block's size
/// and bytes in order, then [`END_MARK`].
pub(crate) fn frame_block_len(len: usize) -> usize {
    block_size(len).0
}

/// The bytes of a frame of `len` bytes of input besides its blocks' contents: the header,
/// a size field per block, the end mark. A frame is shorter than its input exactly when its
/// blocks together save more than this.
pub(crate) fn frame_overhead(len: usize) -> usize {
    HEADER_LEN + 4 * len.div_ceil(frame_block_len(len)) + END_MARK.len()
}

/// The room [`Lz4FrameEncoder::compress_block`] needs for a block of `len` bytes.
pub(crate) fn max_block_len(len: usize) -> usize {
    get_maximum_output_size(len)
}

/// The size field before a block of `len` bytes in the frame, compressed or stored as it is.
pub(crate) fn block_size_field(len: usize, stored: bool) -> [u8; 4] {
    // A block is at most 4 MiB, so its size leaves the high bit free.
    let flag = if stored { UNCOMPRESSED } else { 0 };
    (len as u32 | flag).to_le_bytes()
}

/// Compression state kept between buffers: the match tables, one of each kind. lz4_flex
/// compresses a block shorter than 64 KiB with 16-bit entries and a longer one with 32-bit
/// entries, and a table grown for a long block stays large, which changes the bytes of a
/// short block compressed after it. With one table of each kind, a block's bytes depend on
/// the block alone, not on which thread's encoder took it or what that one did before.
pub(crate) struct Lz4FrameEncoder {
    small: CompressTable,
    large: CompressTable,
}

impl Default for Lz4FrameEncoder {
    fn default() -> Self {
        Self {
            small: CompressTable::small(),
            large: CompressTable::large(),
        }
    }
}

impl Lz4FrameEncoder {
    /// Writes `input` as one LZ4 frame at the start of `out`, which has room for
    /// [`max_frame_len`] bytes; the frame's length. Each block is compressed straight into
    /// its place in `out`, so the output is written once, wherever it lives (a mapping
    /// the message body keeps, for large buffers).
    pub(crate) fn compress_to(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        if out.len() < max_frame_len(input.len()) {
            return Err(IpcError::new(
                crate::IpcErrorKind::Io,
                format!(
                    "lz4: {} bytes of room for a frame of {} bytes",
                    out.len(),
                    input.len()
                ),
            ));
        }
        out[..HEADER_LEN].copy_from_slice(&frame_header(input.len()));
        let mut at = HEADER_LEN;
        for block in input.chunks(frame_block_len(input.len())) {
            let (size, room) = out[at..].split_at_mut(4);
            let (len, stored) = match self.compress_block(block, room)? {
                Some(compressed) => (compressed, false),
                None => {
                    // The codec's worst case is larger than the block, so it fits.
                    room[..block.len()].copy_from_slice(block);
                    (block.len(), true)
                }
            };
            size.copy_from_slice(&block_size_field(len, stored));
            at += 4 + len;
        }
        out[at..at + END_MARK.len()].copy_from_slice(&END_MARK);
        Ok(at + END_MARK.len())
    }

    /// Compresses `block` into the start of `out` (room for [`max_block_len`] bytes): its
    /// compressed length, or `None` when that would not be shorter than the block, which
    /// the frame then stores as it is.
    pub(crate) fn compress_block(&mut self, block: &[u8], out: &mut [u8]) -> Result<Option<usize>> {
        // lz4_flex's own choice for a fresh table (`compress_into`).
        let table = match block.len() < u16::MAX as usize {
            true => &mut self.small,
            false => &mut self.large,
        };
        let compressed = compress_into_with_table(block, out, table)
            .map_err(|e| IpcError::new(crate::IpcErrorKind::Io, format!("lz4: {e}")))?;
        Ok((compressed < block.len()).then_some(compressed))
    }
}

/// FLG bits: independent blocks, a checksum after each block, the content size in the
/// descriptor, a checksum of the content after the end mark, a dictionary id.
const INDEPENDENT: u8 = 0x20;
const BLOCK_CHECKSUM: u8 = 0x10;
const CONTENT_SIZE: u8 = 0x08;
const CONTENT_CHECKSUM: u8 = 0x04;
const RESERVED_AND_DICTIONARY: u8 = 0x03;

/// How far back a linked block's matches may reach.
const WINDOW: usize = 64 << 10;

/// A frame's descriptor, read and checked: its flags, its maximum block size and where its
/// first block starts.
struct Descriptor {
    flg: u8,
    block_max: usize,
    blocks_at: usize,
}

impl Descriptor {
    /// The descriptor of the frame `input`, which must decompress to `len` bytes; `None` if
    /// `input` is not a frame of the kinds read here (see [`decompress_into`]).
    fn read(input: &[u8], len: usize) -> Result<Option<Self>> {
        let Some(&[m0, m1, m2, m3, flg, bd]) = input.get(..6) else {
            return Ok(None);
        };
        let Some(&(block_max, ..)) = BLOCK_SIZES.iter().find(|&&(_, named, _)| named == bd) else {
            return Ok(None);
        };
        if u32::from_le_bytes([m0, m1, m2, m3]) != MAGIC
            || flg >> 6 != 0b01
            || flg & RESERVED_AND_DICTIONARY != 0
        {
            return Ok(None);
        }
        let descriptor_end = if flg & CONTENT_SIZE != 0 { 14 } else { 6 };
        let Some(&checksum) = input.get(descriptor_end) else {
            return Err(lz4_error("the frame ends inside its descriptor"));
        };
        if (XxHash32::oneshot(0, &input[4..descriptor_end]) >> 8) as u8 != checksum {
            return Err(lz4_error("the frame descriptor's checksum does not match"));
        }
        if descriptor_end == 14 {
            let declared = u64::from_le_bytes(input[6..14].try_into().expect("8 bytes"));
            if declared != len as u64 {
                return Err(lz4_error(&format!(
                    "the frame declares a content size of {declared} bytes"
                )));
            }
        }
        Ok(Some(Self {
            flg,
            block_max,
            blocks_at: descriptor_end + 1,
        }))
    }
}

/// Decompresses the LZ4 frame `input`, which must decompress to `len` bytes, into new
/// memory, and returns it (shorter if the frame holds fewer bytes); `None` as for
/// [`decompress_into`].
///
/// A frame of one compressed block (what Alkaid's writer makes of any buffer up to 4 MiB)
/// is decompressed into memory not written before, bounded by its capacity; any other goes
/// through [`decompress_into`] into zeroed memory. Zeroing first costs a pass over the
/// output as long as the decompression's own writing of it.
pub(crate) fn decompress_to_vec(input: &[u8], len: usize) -> Result<Option<Vec<u8>>> {
    if let Some(single) = single_block(input, len)? {
        return Ok(Some(single));
    }
    let mut out = vec![0; len];
    Ok(decompress_into(input, &mut out)?.map(|written| {
        out.truncate(written);
        out
    }))
}

/// The frame `input` decompressed, if it is one compressed block of at most `len` bytes
/// and then the end of the frame; `None` for any other frame.
fn single_block(input: &[u8], len: usize) -> Result<Option<Vec<u8>>> {
    let Some(frame) = Descriptor::read(input, len)? else {
        return Ok(None);
    };
    let mut at = frame.blocks_at;
    let size = read_u32(input, &mut at)?;
    let block_len = size as usize;
    // Stored blocks, several blocks, or more output than a block holds: the general path.
    if size == 0 || size & UNCOMPRESSED != 0 || block_len > frame.block_max || len > frame.block_max
    {
        return Ok(None);
    }
    let Some(block) = input.get(at..at + block_len) else {
        return Ok(None);
    };
    at += block_len;
    if frame.flg & BLOCK_CHECKSUM != 0 && read_u32(input, &mut at)? != XxHash32::oneshot(0, block) {
        return Err(lz4_error("a block's checksum does not match"));
    }
    if read_u32(input, &mut at)? != 0 {
        return Ok(None);
    }
    let out = lz4_block::decompress_to_vec(block, len).map_err(|e| lz4_error(&e))?;
    if out.len() > len {
        return Err(lz4_error("the frame holds more bytes than declared"));
    }
    if frame.flg & CONTENT_CHECKSUM != 0 && read_u32(input, &mut at)? != XxHash32::oneshot(0, &out)
    {
        return Err(lz4_error("the frame's content checksum does not match"));
    }
    Ok((at == input.len()).then_some(out))
}

/// Decompresses the LZ4 frame `input` into `out`, whose length is the size the frame must
/// decompress to, and returns the number of bytes written. A frame that would write more
/// than `out` holds is an error; one that writes less returns the smaller count.
///
/// `None` says that `input` is not one frame of the kinds read here (not the frame magic, a
/// dictionary id, reserved bits set, bytes after the frame such as a second frame): the
/// caller falls back to lz4_flex's general decoder, which reads those or names what is
/// wrong. Every block is bounds-checked by lz4_flex's checked decoder, its size by the
/// frame's maximum block size, and every checksum the frame carries is verified.
pub(crate) fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<Option<usize>> {
    let Some(Descriptor {
        flg,
        block_max,
        blocks_at,
    }) = Descriptor::read(input, out.len())?
    else {
        return Ok(None);
    };
    let mut at = blocks_at;
    let mut written = 0;
    loop {
        let size = read_u32(input, &mut at)?;
        if size == 0 {
            break;
        }
        let len = (size & !UNCOMPRESSED) as usize;
        if len > block_max {
            return Err(lz4_error(&format!(
                "a block of {len} bytes is larger than the frame's {block_max}"
            )));
        }
        let block = input
            .get(at..at + len)
            .ok_or_else(|| lz4_error("the frame ends inside a block"))?;
        at += len;
        if flg & BLOCK_CHECKSUM != 0 && read_u32(input, &mut at)? != XxHash32::oneshot(0, block) {
            return Err(lz4_error("a block's checksum does not match"));
        }
        let (before, after) = out.split_at_mut(written);
        let room = after.len().min(block_max);
        let dest = &mut after[..room];
        written += if size & UNCOMPRESSED != 0 {
            dest.get_mut(..len)
                .ok_or_else(|| lz4_error("the frame holds more bytes than declared"))?
                .copy_from_slice(block);
            len
        } else if flg & INDEPENDENT != 0 || before.is_empty() {
            lz4_block::decompress_into(block, dest).map_err(|e| lz4_error(&e))?
        } else {
            let window = &before[before.len().saturating_sub(WINDOW)..];
            lz4_block::decompress_into_with_dict(block, dest, window).map_err(|e| lz4_error(&e))?
        };
    }
    if flg & CONTENT_CHECKSUM != 0
        && read_u32(input, &mut at)? != XxHash32::oneshot(0, &out[..written])
    {
        return Err(lz4_error("the frame's content checksum does not match"));
    }
    Ok((at == input.len()).then_some(written))
}

/// Decompresses `input` with lz4_flex's general frame decoder (for the frames
/// [`decompress_to_vec`] leaves to it) into `out`, which grows with what the decoder really
/// produces, and stops after `limit` bytes.
pub(crate) fn decompress_bounded(
    input: &[u8],
    limit: u64,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    FrameDecoder::new(input)
        .take(limit)
        .read_to_end(out)
        .map(drop)
}

/// Decompresses `input` with lz4_flex's general frame decoder (for the frames
/// [`decompress_into`] leaves to it) into `out`; the bytes written, one more when the frame
/// holds more than `out` has room for.
pub(crate) fn decompress_filling(input: &[u8], out: &mut [u8]) -> std::io::Result<usize> {
    let mut decoder = FrameDecoder::new(input);
    let written = fill(&mut decoder, out)?;
    Ok(written + decoder.read(&mut [0u8; 1])?)
}

/// The little-endian `u32` at `*at`, moving past it.
fn read_u32(input: &[u8], at: &mut usize) -> Result<u32> {
    let bytes = input
        .get(*at..*at + 4)
        .ok_or_else(|| lz4_error("the frame ends early"))?;
    *at += 4;
    Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")))
}

fn lz4_error(what: &str) -> IpcError {
    IpcError::malformed(format!("lz4: {what}"))
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use lz4_flex::frame::{BlockMode, BlockSize, FrameDecoder, FrameEncoder, FrameInfo};

    use super::*;

    fn frame(input: &[u8]) -> Vec<u8> {
        compress(&mut Lz4FrameEncoder::default(), input)
    }

    /// `input` as one frame, in memory of exactly the room the encoder asks for.
    fn compress(encoder: &mut Lz4FrameEncoder, input: &[u8]) -> Vec<u8> {
        let mut out = vec![0; max_frame_len(input.len())];
        let len = encoder.compress_to(input, &mut out).unwrap();
        out.truncate(len);
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
            let out = compress(&mut encoder, input);
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

    /// lz4_flex's encoder in every frame shape the format has: linked or independent
    /// blocks, with or without block and content checksums and the content size.
    fn their_frame(input: &[u8], linked: bool, checksums: bool, size: bool) -> Vec<u8> {
        let mut info = FrameInfo::new();
        info.block_size = BlockSize::Max64KB;
        info.block_mode = if linked {
            BlockMode::Linked
        } else {
            BlockMode::Independent
        };
        info.block_checksums = checksums;
        info.content_checksum = checksums;
        info.content_size = size.then_some(input.len() as u64);
        let mut encoder = FrameEncoder::with_frame_info(info, Vec::new());
        encoder.write_all(input).unwrap();
        encoder.finish().unwrap()
    }

    /// `frame` read by both paths, which must agree: into zeroed memory and into a new
    /// vector (lz4_flex's block decoder for frames of one block).
    fn read_into(frame: &[u8], len: usize) -> Result<Option<Vec<u8>>> {
        let mut out = vec![0u8; len];
        let zeroed = decompress_into(frame, &mut out).map(|n| n.map(|n| out[..n].to_vec()));
        let fresh = decompress_to_vec(frame, len);
        match (&zeroed, &fresh) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "the two paths read different bytes"),
            (Err(_), Err(_)) => {}
            _ => panic!("one path failed: {zeroed:?} against {fresh:?}"),
        }
        zeroed
    }

    #[test]
    fn frames_of_one_block_decompress_into_new_memory() {
        let input = b"one block of text, one block of text; ".repeat(1000);
        for checksums in [false, true] {
            for size in [false, true] {
                let theirs = their_frame(&input, false, checksums, size);
                assert!(single_block(&theirs, input.len()).unwrap().is_some());
                assert_eq!(read_into(&theirs, input.len()).unwrap().unwrap(), input);
            }
        }
        let ours = frame(&input);
        assert_eq!(single_block(&ours, input.len()).unwrap().unwrap(), input);
        // Declared longer: the bytes there are; shorter: an error.
        assert_eq!(
            single_block(&ours, input.len() + 9).unwrap().unwrap(),
            input
        );
        assert!(single_block(&ours, input.len() - 1).is_err());
        // Checksums that do not match, of the block and of the content.
        let mut block_sum = their_frame(&input, false, true, false);
        let end = block_sum.len();
        block_sum[end - 12] ^= 1;
        let err = single_block(&block_sum, input.len()).unwrap_err();
        assert!(err.message().contains("block's checksum"), "{err}");
        let mut content_sum = their_frame(&input, false, true, false);
        content_sum[end - 1] ^= 1;
        let err = single_block(&content_sum, input.len()).unwrap_err();
        assert!(err.message().contains("content checksum"), "{err}");
        // Several blocks, or a stored one: the general path.
        let long = input.repeat(3);
        assert!(
            single_block(&their_frame(&long, false, false, false), long.len())
                .unwrap()
                .is_none()
        );
        let noise = noise(1000);
        assert!(single_block(&frame(&noise), noise.len()).unwrap().is_none());
        assert_eq!(
            decompress_to_vec(&frame(&noise), noise.len())
                .unwrap()
                .unwrap(),
            noise
        );
    }

    #[test]
    fn reads_every_frame_shape_straight_into_the_output() {
        // Repeats with a period that crosses the 64 KiB block edges, so linked blocks refer
        // back into the block before.
        let input: Vec<u8> = (0..400_000u32).map(|i| (i * 7 % 1009) as u8).collect();
        for linked in [false, true] {
            for checksums in [false, true] {
                for size in [false, true] {
                    let frame = their_frame(&input, linked, checksums, size);
                    let read = read_into(&frame, input.len()).unwrap();
                    assert_eq!(
                        read.as_deref(),
                        Some(&input[..]),
                        "{linked} {checksums} {size}"
                    );
                }
            }
        }
        assert_eq!(
            read_into(&frame(&input), input.len()).unwrap().unwrap(),
            input
        );
        // Stored blocks, from incompressible input.
        let noise: Vec<u8> = (0..100_000u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
            .collect();
        assert_eq!(
            read_into(&frame(&noise), noise.len()).unwrap().unwrap(),
            noise
        );
    }

    /// Bytes no codec can shrink, from a fixed seed.
    fn noise(len: usize) -> Vec<u8> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    }

    #[test]
    fn a_frame_is_the_same_whatever_the_encoder_compressed_before() {
        // A short input after a long one (whose block needed the large table), through one
        // encoder, against a fresh encoder and lz4_flex's own block compression.
        let long: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        // Four letters in a random order: many 4-byte matches that are not 5-byte ones,
        // where the two tables' hashes (of 4 and of 5 bytes) find different matches.
        let mut state = 0x9E37_79B9u32;
        let short: Vec<u8> = (0..5000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                b'a' + (state % 4) as u8
            })
            .collect();
        let mut used = Lz4FrameEncoder::default();
        compress(&mut used, &long);
        let after_long = compress(&mut used, &short);
        let fresh = frame(&short);
        assert_eq!(after_long, fresh);
        let block = lz4_flex::block::compress(&short);
        let size = u32::from_le_bytes(fresh[7..11].try_into().unwrap()) as usize;
        assert_eq!(fresh[11..11 + size], block[..]);
    }

    #[test]
    fn the_room_asked_for_holds_the_worst_case_and_less_is_refused() {
        // Around every block size, where the block count and the last block change; noise
        // is the worst case (every block stored as it is).
        let mut lens = vec![0, 1, 15, 16, 1000];
        for (size, ..) in BLOCK_SIZES {
            lens.extend([size - 1, size, size + 1]);
        }
        lens.extend([3 * (4 << 20) + 17, 8 << 20]);
        let mut encoder = Lz4FrameEncoder::default();
        for len in lens {
            let input = noise(len);
            let room = max_frame_len(len);
            let mut out = vec![0; room];
            let written = encoder.compress_to(&input, &mut out).unwrap();
            assert!(written <= room, "{len}: {written} > {room}");
            assert_eq!(decode(&out[..written]), input, "{len}");
            // One byte less than asked for: an error, nothing written past the end.
            let err = encoder
                .compress_to(&input, &mut out[..room - 1])
                .unwrap_err();
            assert!(err.message().contains("room"), "{err}");
        }
    }

    #[test]
    fn sizes_other_than_the_output_are_errors_or_short_counts() {
        let input = vec![5u8; 200_000];
        let frame = frame(&input);
        assert!(
            read_into(&frame, input.len() - 1).is_err(),
            "one byte too many"
        );
        assert_eq!(read_into(&frame, input.len() + 1).unwrap().unwrap(), input);
        let sized = their_frame(&input, false, false, true);
        let err = read_into(&sized, input.len() + 1).unwrap_err();
        assert!(err.message().contains("content size of 200000"), "{err}");
    }

    #[test]
    fn other_frames_are_left_to_the_general_decoder() {
        let input = b"left to lz4_flex".repeat(10);
        let ours = frame(&input);
        let mut two = ours.clone();
        two.extend_from_slice(&ours);
        assert_eq!(
            read_into(&two, 2 * input.len()).unwrap(),
            None,
            "two frames"
        );
        let mut dictionary = ours.clone();
        dictionary[4] |= 0x01;
        assert_eq!(read_into(&dictionary, input.len()).unwrap(), None);
        assert_eq!(
            read_into(b"\x04\x22", 10).unwrap(),
            None,
            "shorter than a header"
        );
        assert_eq!(read_into(&[0u8; 32], 10).unwrap(), None, "no magic");
    }

    #[test]
    fn damaged_frames_never_panic_and_checksums_catch_changed_bytes() {
        let input: Vec<u8> = (0..150_000u32)
            .map(|i| (i % 251) as u8 ^ (i / 997) as u8)
            .collect();
        for checksums in [false, true] {
            let frame = their_frame(&input, true, checksums, false);
            // Every byte of the header and the first block's start, then a stride through
            // the rest.
            let positions = (0..64).chain((64..frame.len()).step_by(97));
            for at in positions {
                let mut damaged = frame.clone();
                damaged[at] ^= 0x5A;
                let read = read_into(&damaged, input.len());
                if checksums && let Ok(Some(out)) = read {
                    assert_eq!(out, input, "a flip at {at} passed every checksum");
                }
            }
            // Cut short anywhere: an error (or, before the magic is whole, not a frame).
            for len in (0..frame.len()).step_by(101).chain([frame.len() - 1]) {
                let read = read_into(&frame[..len], input.len());
                assert!(matches!(read, Err(_) | Ok(None)), "cut at {len}");
            }
        }
    }
}

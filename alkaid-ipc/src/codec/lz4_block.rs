//! One LZ4 block decompressed: by lz4_flex, or with the `lz4-c` feature by the reference C
//! library (the one Arrow C++ uses).
//!
//! On this project's benchmark buffers the C decoder takes 0.8 of lz4_flex's time (70 ms
//! against 86 ms for 257 MB), while lz4_flex compresses faster than C (345 ms against
//! 380 ms), so only decompression has two implementations. Both are checked decoders:
//! they read only the block and write only within the output they are given, whatever
//! the block holds.

/// Decompresses `block` into the start of `out`; the number of bytes written. A block that
/// is malformed or needs more room than `out` has is an error.
pub(crate) fn decompress_into(block: &[u8], out: &mut [u8]) -> Result<usize, String> {
    imp::decompress_into(block, out)
}

/// As [`decompress_into`], for a block that may refer back into `dict`, the bytes that came
/// before it (a linked block's 64 KiB window).
pub(crate) fn decompress_into_with_dict(
    block: &[u8],
    out: &mut [u8],
    dict: &[u8],
) -> Result<usize, String> {
    imp::decompress_into_with_dict(block, out, dict)
}

/// Decompresses `block`, which holds at most `len` bytes, into new memory that is not
/// zeroed first.
pub(crate) fn decompress_to_vec(block: &[u8], len: usize) -> Result<Vec<u8>, String> {
    imp::decompress_to_vec(block, len)
}

#[cfg(not(feature = "lz4-c"))]
mod imp {
    pub(super) fn decompress_into(block: &[u8], out: &mut [u8]) -> Result<usize, String> {
        lz4_flex::block::decompress_into(block, out).map_err(|e| e.to_string())
    }

    pub(super) fn decompress_into_with_dict(
        block: &[u8],
        out: &mut [u8],
        dict: &[u8],
    ) -> Result<usize, String> {
        lz4_flex::block::decompress_into_with_dict(block, out, dict).map_err(|e| e.to_string())
    }

    pub(super) fn decompress_to_vec(block: &[u8], len: usize) -> Result<Vec<u8>, String> {
        // lz4_flex's checked decoder writes within the vector's capacity only, and sets
        // nothing past what it wrote.
        lz4_flex::block::decompress(block, len).map_err(|e| e.to_string())
    }
}

#[cfg(feature = "lz4-c")]
mod imp {
    use std::ffi::{c_char, c_int};

    // lz4-sys builds and links the library but declares only part of `lz4.h`.
    use lz4_sys as _;

    unsafe extern "C" {
        /// `lz4.h`: like `LZ4_decompress_safe`, with `dictSize` bytes at `dictStart` as the
        /// history the block may refer to.
        fn LZ4_decompress_safe_usingDict(
            src: *const c_char,
            dst: *mut c_char,
            src_size: c_int,
            dst_capacity: c_int,
            dict_start: *const c_char,
            dict_size: c_int,
        ) -> c_int;
    }

    /// `len` as the C library's `int`, or the error for a block or room too large for it
    /// (the frame reader never passes more than its 4 MiB block size).
    fn c_len(len: usize, what: &str) -> Result<c_int, String> {
        c_int::try_from(len).map_err(|_| format!("{what} of {len} bytes is too large"))
    }

    /// The C library's result: the bytes written, or an error where it is negative (the
    /// negated position in the block where decoding failed).
    fn written(result: c_int) -> Result<usize, String> {
        usize::try_from(result).map_err(|_| {
            format!(
                "the block is malformed, or decompresses to more than its room (at byte {})",
                -i64::from(result) - 1
            )
        })
    }

    pub(super) fn decompress_into(block: &[u8], out: &mut [u8]) -> Result<usize, String> {
        decompress_into_with_dict(block, out, &[])
    }

    pub(super) fn decompress_into_with_dict(
        block: &[u8],
        out: &mut [u8],
        dict: &[u8],
    ) -> Result<usize, String> {
        let (src_size, room) = (c_len(block.len(), "a block")?, c_len(out.len(), "room")?);
        let dict_size = c_len(dict.len(), "a dictionary")?;
        // SAFETY: the pointers and sizes are those of three live slices, `out` borrowed
        // mutably so nothing else sees it meanwhile. `LZ4_decompress_safe_usingDict` reads
        // at most `src_size` bytes of `block` and `dict_size` of `dict`, and writes at most
        // `room` bytes from the start of `out`, for any content of `block` (lz4.h: "never
        // writes outside 'dst' buffer, nor reads outside 'source' buffer").
        let result = unsafe {
            LZ4_decompress_safe_usingDict(
                block.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                src_size,
                room,
                dict.as_ptr().cast(),
                dict_size,
            )
        };
        written(result)
    }

    pub(super) fn decompress_to_vec(block: &[u8], len: usize) -> Result<Vec<u8>, String> {
        let (src_size, room) = (c_len(block.len(), "a block")?, c_len(len, "room")?);
        let mut out: Vec<u8> = Vec::with_capacity(len);
        // SAFETY: `out` owns at least `len` bytes of capacity, and the C library writes at
        // most `room` (= `len`) bytes from its start and reads at most `src_size` bytes of
        // `block` (as above).
        let result = unsafe {
            lz4_sys::LZ4_decompress_safe(
                block.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                src_size,
                room,
            )
        };
        let n = written(result)?;
        // SAFETY: the library returned `n` bytes written, all from the start of `out`, and
        // `n <= room <= capacity`.
        unsafe { out.set_len(n) };
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressible(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8 ^ (i / 4096) as u8).collect()
    }

    #[test]
    fn blocks_round_trip_into_slices_and_vectors() {
        for n in [0, 1, 15, 4096, 1 << 20] {
            let plain = compressible(n);
            let block = lz4_flex::block::compress(&plain);
            let mut out = vec![0u8; n + 7];
            assert_eq!(decompress_into(&block, &mut out), Ok(n));
            assert_eq!(&out[..n], &plain[..]);
            assert_eq!(decompress_to_vec(&block, n).unwrap(), plain);
        }
    }

    #[test]
    fn a_block_that_needs_more_room_is_an_error() {
        let plain = compressible(10_000);
        let block = lz4_flex::block::compress(&plain);
        let mut out = vec![0u8; 9_999];
        assert!(decompress_into(&block, &mut out).is_err());
        assert!(decompress_to_vec(&block, 9_999).is_err());
    }

    #[test]
    fn a_linked_block_reads_its_history_from_the_dictionary() {
        let history = compressible(70_000);
        let next: Vec<u8> = history[1_000..61_000].to_vec();
        let dict = &history[history.len() - 65_536..];
        let block = lz4_flex::block::compress_with_dict(&next, dict);
        let mut out = vec![0u8; next.len()];
        assert_eq!(
            decompress_into_with_dict(&block, &mut out, dict),
            Ok(next.len())
        );
        assert_eq!(out, next);
        // Without its history the same block refers to bytes that are not there.
        assert!(decompress_into(&block, &mut out).is_err());
    }

    /// Every truncation and every single-byte change of a block decodes or fails without
    /// reading or writing out of bounds (under Miri or sanitizers this is the check; here
    /// it is that nothing panics and every success stays within its room).
    #[test]
    fn damaged_blocks_fail_cleanly() {
        let plain = compressible(3_000);
        let block = lz4_flex::block::compress(&plain);
        let mut out = vec![0u8; plain.len()];
        for cut in 0..block.len() {
            if let Ok(n) = decompress_into(&block[..cut], &mut out) {
                assert!(n <= out.len());
            }
        }
        for at in 0..block.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut damaged = block.clone();
                damaged[at] ^= flip;
                if let Ok(n) = decompress_into(&damaged, &mut out) {
                    assert!(n <= out.len());
                }
                if let Ok(v) = decompress_to_vec(&damaged, plain.len()) {
                    assert!(v.len() <= plain.len());
                }
            }
        }
    }
}

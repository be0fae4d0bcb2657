//! Buffer compression: LZ4 frame and zstd, buffer by buffer, as the format defines it.
//!
//! A compressed buffer is an 8-byte little-endian signed length followed by the codec's
//! output. The length is that of the uncompressed bytes, or -1 when the bytes follow
//! uncompressed because compressing would not have made them smaller. An empty buffer is
//! written as zero bytes with no length (as other implementations do).

use std::sync::{Mutex, MutexGuard, PoisonError};

use alkaid_buffer::Buffer;

use super::absent::absent;
use super::lz4_frame::{self, Lz4FrameEncoder};
use super::zstd::{self, ZstdDecoder, ZstdEncoder};
use crate::error::{IpcError, Result};
use crate::fb;
use crate::mapping::{Mapping, mapping};

/// The length prefix of a buffer written as it is, because compressing would not have made
/// it smaller.
pub(crate) const STORED: [u8; 8] = (-1i64).to_le_bytes();

/// How the buffers of a message body are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Not compressed.
    #[default]
    None,
    /// LZ4 frame format (one frame per buffer).
    Lz4Frame,
    /// Zstandard at `level` (1 to 22; 3 is zstd's default; negative levels are faster).
    Zstd {
        /// Compression level.
        level: i32,
    },
}

impl Compression {
    /// Zstandard at its default level, 3.
    pub const ZSTD: Compression = Compression::Zstd { level: 3 };

    /// Whether this build of alkaid-ipc has the codec: LZ4 with feature `lz4`, zstd with
    /// feature `zstd` (both on by default).
    pub fn is_available(self) -> bool {
        match self {
            Compression::None => true,
            Compression::Lz4Frame => cfg!(feature = "lz4"),
            Compression::Zstd { .. } => cfg!(feature = "zstd"),
        }
    }

    /// This codec, or the error for a build that leaves it out, naming the feature.
    pub(crate) fn require(self) -> Result<Self> {
        match self {
            _ if self.is_available() => Ok(self),
            Compression::Zstd { .. } => Err(absent("zstd", "zstd")),
            _ => Err(absent("LZ4", "lz4")),
        }
    }

    pub(crate) fn codec(self) -> Option<fb::CompressionType> {
        match self {
            Compression::None => None,
            Compression::Lz4Frame => Some(fb::CompressionType::LZ4_FRAME),
            Compression::Zstd { .. } => Some(fb::CompressionType::ZSTD),
        }
    }
}

/// Compresses buffers with one codec, keeping the codec's state between them: a zstd
/// context holds megabytes of tables, and making one per buffer would cost more than
/// compressing a small buffer.
pub(crate) struct Compressor {
    codec: Compression,
    zstd: ZstdEncoder,
    lz4: Lz4FrameEncoder,
}

impl Compressor {
    pub(crate) fn new(codec: Compression) -> Self {
        Self {
            codec,
            zstd: ZstdEncoder::default(),
            lz4: Lz4FrameEncoder::default(),
        }
    }

    /// `input` compressed, with its length prefix, in memory of its own: from 4 MiB a
    /// mapping advised to use huge pages and kept for reuse when the buffer goes (as
    /// decompressed buffers are, `mapping.rs`), below that a vector. The codec writes
    /// straight into it, so the compressed bytes are written once.
    pub(crate) fn compress(&mut self, input: &[u8]) -> Result<Buffer> {
        if input.is_empty() {
            return Ok(Buffer::empty());
        }
        let bound = match self.codec {
            Compression::None => unreachable!("a Compressor is only made with a codec"),
            Compression::Lz4Frame => lz4_frame::max_frame_len(input.len()),
            Compression::Zstd { .. } => zstd::max_compressed_len(input.len()),
        };
        // Room for the stored-as-is fallback too; pages never written cost nothing.
        let room = 8 + bound.max(input.len());
        if let Some(mut map) = mapping(room) {
            let len = self.compress_to(input, &mut map)?;
            map.truncate(len);
            return map.into_buffer();
        }
        let mut out = vec![0; room];
        let len = self.compress_to(input, &mut out)?;
        out.truncate(len);
        if len < room / 2 {
            // A buffer that compressed well does not keep the room it did not need.
            out.shrink_to_fit();
        }
        Ok(Buffer::from(out))
    }

    /// Compresses one block of an LZ4 frame into `out` ([`Lz4FrameEncoder::compress_block`]),
    /// for a writer that compresses a frame's blocks on several threads (`in_order.rs`).
    #[cfg(feature = "lz4")]
    pub(crate) fn lz4_block(&mut self, block: &[u8], out: &mut [u8]) -> Result<Option<usize>> {
        self.lz4.compress_block(block, out)
    }

    /// Writes `input` compressed, after its length prefix, at the start of `out`, which has
    /// room for the codec's worst case and for `input` as it is; the bytes written.
    fn compress_to(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let (prefix, payload) = out.split_at_mut(8);
        let compressed = match self.codec {
            Compression::None => unreachable!("a Compressor is only made with a codec"),
            Compression::Lz4Frame => self.lz4.compress_to(input, payload)?,
            Compression::Zstd { level } => self.zstd.compress_to(level, input, payload)?,
        };
        if compressed >= input.len() {
            // Not worth it: store the bytes as they are, marked with -1.
            prefix.copy_from_slice(&STORED);
            payload[..input.len()].copy_from_slice(input);
            return Ok(8 + input.len());
        }
        prefix.copy_from_slice(&(input.len() as i64).to_le_bytes());
        Ok(8 + compressed)
    }
}

/// Decompresses the buffers of compressed bodies, keeping a zstd context between them.
///
/// Allocation follows what the input can justify, never just the length it claims: the
/// declared size is allocated up front only when a real codec could reach it from the
/// compressed bytes at hand; otherwise the output grows with the bytes the codec actually
/// produces. A buffer claiming 2^62 bytes costs only what it really decompresses to, and is
/// an error as soon as it produces more or fewer bytes than it claims.
#[derive(Default)]
pub(crate) struct Decompressor {
    zstd: ZstdDecoder,
}

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decompressor")
    }
}

impl Decompressor {
    /// The uncompressed bytes of one buffer of a compressed body.
    pub(crate) fn decompress(
        &mut self,
        codec: fb::CompressionType,
        compressed: &Buffer,
    ) -> Result<Buffer> {
        if compressed.is_empty() {
            return Ok(Buffer::empty());
        }
        if compressed.len() < 8 {
            return Err(IpcError::malformed(format!(
                "a compressed buffer of {} bytes is shorter than its 8-byte length prefix",
                compressed.len()
            )));
        }
        let prefix = i64::from_le_bytes(compressed[..8].try_into().expect("8 bytes"));
        let payload = compressed.slice(8, compressed.len() - 8);
        if prefix == -1 {
            return Ok(payload);
        }
        let declared = u64::try_from(prefix).map_err(|_| {
            IpcError::malformed(format!("a compressed buffer declares a length of {prefix}"))
        })?;
        match codec {
            fb::CompressionType::ZSTD => Compression::ZSTD.require()?,
            fb::CompressionType::LZ4_FRAME => Compression::Lz4Frame.require()?,
            _ => {
                return Err(IpcError::unsupported(format!(
                    "unknown compression codec {}",
                    codec.0
                )));
            }
        };
        // LZ4 tops out near 255:1; zstd can go further, and then takes the streaming path.
        let plausible = declared <= payload.len() as u64 * 256 + (1 << 20);
        if plausible && let Some(map) = mapping(declared as usize) {
            return self.decompress_mapped(codec, &payload, map);
        }
        if plausible
            && codec == fb::CompressionType::LZ4_FRAME
            && let Some(out) = lz4_frame::decompress_to_vec(&payload, declared as usize)
                .map_err(|e| into_declared(e, declared))?
        {
            if out.len() as u64 != declared {
                return Err(size_mismatch(declared as usize, out.len()));
            }
            return Ok(Buffer::from(out));
        }
        let out = match codec {
            fb::CompressionType::ZSTD if plausible => self
                .zstd
                .decompress_to_vec(payload.as_slice(), declared as usize),
            _ => {
                let initial = if plausible {
                    declared
                } else {
                    payload.len() as u64 * 4 + 4096
                };
                let mut out = Vec::with_capacity(initial as usize);
                let limit = declared.saturating_add(1);
                if codec == fb::CompressionType::ZSTD {
                    zstd::decompress_bounded(payload.as_slice(), limit, &mut out)
                } else {
                    lz4_frame::decompress_bounded(payload.as_slice(), limit, &mut out)
                }
                .map(|()| out)
            }
        }
        .map_err(|e| {
            IpcError::malformed(format!("a compressed buffer does not decompress: {e}"))
        })?;
        if out.len() as u64 != declared {
            return Err(size_mismatch(declared as usize, out.len()));
        }
        Ok(Buffer::from(out))
    }

    /// Decompresses `payload`, of a codec that [`decompress`](Self::decompress) checked, into
    /// `out`, a mapping of exactly the declared size (see `mapping.rs`: fresh memory of this
    /// size costs more to fault in than to fill); any other output size is an error.
    fn decompress_mapped(
        &mut self,
        codec: fb::CompressionType,
        payload: &[u8],
        mut out: Mapping,
    ) -> Result<Buffer> {
        let declared = out.len();
        let produced = if codec == fb::CompressionType::ZSTD {
            self.zstd.decompress_into(payload, &mut out[..])
        } else if let Some(written) =
            lz4_frame::decompress_into(payload, &mut out).map_err(|e| into_declared(e, declared))?
        {
            Ok(written)
        } else {
            // One byte more is one byte too many.
            lz4_frame::decompress_filling(payload, &mut out)
        };
        match produced {
            Ok(n) if n == declared => out.into_buffer(),
            Ok(n) => Err(size_mismatch(declared, n)),
            Err(e) => Err(IpcError::malformed(format!(
                "a compressed buffer does not decompress into its declared {declared} bytes: {e}"
            ))),
        }
    }
}

/// `error`, from decompressing a buffer that declares `declared` bytes, saying so.
fn into_declared(error: IpcError, declared: impl std::fmt::Display) -> IpcError {
    IpcError::malformed(format!(
        "a compressed buffer does not decompress into its declared {declared} bytes: {}",
        error.message()
    ))
}

/// Decompression contexts kept between messages and lent to one message's walk at a time
/// (a zstd context is worth keeping: making one costs more than a small buffer's work). A
/// reader decodes its messages in turn; the lock only makes lending possible from `&self`.
#[derive(Debug, Default)]
pub(crate) struct DecompressorPool(Mutex<Vec<Decompressor>>);

impl DecompressorPool {
    /// The kept contexts: none on first use (they are made as needed).
    pub(crate) fn lend(&self) -> Vec<Decompressor> {
        std::mem::take(&mut *self.lock())
    }

    /// Keeps `contexts` for the next walk, unless more are kept already. Giving back none
    /// (a walk of an uncompressed body borrowed none) takes no lock.
    pub(crate) fn give_back(&self, contexts: Vec<Decompressor>) {
        if contexts.is_empty() {
            return;
        }
        let mut kept = self.lock();
        if kept.len() < contexts.len() {
            *kept = contexts;
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Decompressor>> {
        // The contexts hold no invariant a panic elsewhere could break.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The error for a buffer that decompressed to `produced` bytes (at most `declared`, plus
/// one when it went on) instead of the `declared` ones.
fn size_mismatch(declared: usize, produced: usize) -> IpcError {
    IpcError::malformed(format!(
        "a compressed buffer declares {declared} bytes but decompresses to {}{}",
        if produced > declared {
            "more than "
        } else {
            ""
        },
        produced.min(declared)
    ))
}

// The tests compress with the default codecs.
#[cfg(all(test, feature = "lz4", feature = "zstd"))]
mod tests {
    use super::*;

    fn compress(codec: Compression, input: &[u8]) -> Vec<u8> {
        Compressor::new(codec)
            .compress(input)
            .unwrap()
            .as_slice()
            .to_vec()
    }

    fn decompress(codec: fb::CompressionType, compressed: &Buffer) -> Result<Buffer> {
        Decompressor::default().decompress(codec, compressed)
    }

    fn round_trip(codec: Compression, input: &[u8]) -> (Vec<u8>, Buffer) {
        let out = compress(codec, input);
        let decoded = decompress(codec.codec().unwrap(), &Buffer::from(out.clone())).unwrap();
        (out, decoded)
    }

    #[test]
    fn both_codecs_round_trip_and_shrink_repetitive_bytes() {
        let input: Vec<u8> = (0..100_000u32).map(|i| (i % 7) as u8).collect();
        for codec in [Compression::Lz4Frame, Compression::ZSTD] {
            let (compressed, decoded) = round_trip(codec, &input);
            assert!(compressed.len() < input.len() / 10, "{codec:?}");
            assert_eq!(decoded.as_slice(), &input[..]);
        }
    }

    #[test]
    fn incompressible_bytes_are_stored_with_minus_one() {
        let input = [1u8, 2, 3];
        let (compressed, decoded) = round_trip(Compression::ZSTD, &input);
        assert_eq!(&compressed[..8], &(-1i64).to_le_bytes());
        assert_eq!(&compressed[8..], &input);
        assert_eq!(decoded.as_slice(), &input);
    }

    #[test]
    fn empty_buffers_have_no_prefix() {
        let (compressed, decoded) = round_trip(Compression::Lz4Frame, &[]);
        assert!(compressed.is_empty() && decoded.is_empty());
    }

    #[test]
    fn large_outputs_decompress_into_their_own_memory_exactly() {
        // Past the mapping threshold: decompressed into a mapping of the declared size.
        let len = crate::mapping::MAPPED + 4099;
        let input: Vec<u8> = (0..len)
            .map(|i| (i % 251) as u8 ^ (i / 4096) as u8)
            .collect();
        for codec in [Compression::Lz4Frame, Compression::ZSTD] {
            let (compressed, decoded) = round_trip(codec, &input);
            assert!(compressed.len() < len / 4, "{codec:?} compressed");
            assert_eq!(decoded.as_slice(), &input[..], "{codec:?}");
            assert_eq!(decoded.as_ptr() as usize % 64, 0, "{codec:?}");
            // One byte more or less than what the payload holds is an error either way.
            for claimed in [len - 1, len + 1] {
                let mut lying = compressed.clone();
                lying[..8].copy_from_slice(&(claimed as i64).to_le_bytes());
                let err = decompress(codec.codec().unwrap(), &Buffer::from(lying)).unwrap_err();
                assert_eq!(
                    err.kind(),
                    crate::IpcErrorKind::Malformed,
                    "{codec:?} {claimed}"
                );
                assert!(err.message().contains(&claimed.to_string()), "{err}");
            }
        }
    }

    #[test]
    fn large_buffers_compress_into_mappings_with_the_bytes_of_small_ones() {
        // Past the mapping threshold the output is a mapping; the bytes are those the codec
        // writes anywhere else: the same buffer compressed into a vector of its own.
        let len = crate::mapping::MAPPED + 12_345;
        let compressible: Vec<u8> = (0..len).map(|i| (i % 13) as u8).collect();
        let mut state = 7u32;
        let noise: Vec<u8> = (0..len)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 23) as u8
            })
            .collect();
        for codec in [Compression::Lz4Frame, Compression::ZSTD] {
            for (what, input) in [("compressible", &compressible), ("noise", &noise)] {
                let mapped = Compressor::new(codec).compress(input).unwrap();
                let mut small = vec![0; 8 + 2 * len];
                let written = Compressor::new(codec)
                    .compress_to(input, &mut small)
                    .unwrap();
                assert_eq!(mapped.as_slice(), &small[..written], "{codec:?} {what}");
                let decoded = decompress(codec.codec().unwrap(), &mapped).unwrap();
                assert_eq!(decoded.as_slice(), &input[..], "{codec:?} {what}");
            }
            // Noise is stored as it is, marked -1, in the room asked for.
            let stored = Compressor::new(codec).compress(&noise).unwrap();
            assert_eq!(stored[..8], (-1i64).to_le_bytes(), "{codec:?}");
            assert_eq!(stored.len(), 8 + len);
        }
    }

    #[test]
    fn lying_lengths_are_errors_without_allocating_what_they_claim() {
        let out = compress(Compression::ZSTD, &[7u8; 10_000]);
        for claimed in [1i64 << 62, 9_999, 10_001, -2] {
            let mut lying = out.clone();
            lying[..8].copy_from_slice(&claimed.to_le_bytes());
            let err = decompress(fb::CompressionType::ZSTD, &Buffer::from(lying)).unwrap_err();
            assert_eq!(
                err.kind(),
                crate::IpcErrorKind::Malformed,
                "{claimed}: {err}"
            );
        }
        let short = Buffer::from(vec![1u8, 2, 3]);
        assert!(decompress(fb::CompressionType::LZ4_FRAME, &short).is_err());
        let garbage = Buffer::from([&100i64.to_le_bytes()[..], &[0xAB; 32]].concat());
        assert!(decompress(fb::CompressionType::LZ4_FRAME, &garbage).is_err());
        assert!(decompress(fb::CompressionType::ZSTD, &garbage).is_err());
    }
}

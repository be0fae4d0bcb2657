//! zstd (feature `zstd`), through the zstd crate's bindings to the C library. Its contexts
//! hold megabytes of tables, so they are made on first use and kept between buffers.

use std::io::Read;

use crate::error::Result;

/// Compression at one level, with a context kept between buffers.
#[derive(Default)]
pub(crate) struct ZstdEncoder {
    context: Option<::zstd::bulk::Compressor<'static>>,
}

impl ZstdEncoder {
    /// Writes `input`, compressed at `level`, at the start of `out`, which has room for
    /// [`max_compressed_len`] bytes; the compressed length.
    pub(crate) fn compress_to(
        &mut self,
        level: i32,
        input: &[u8],
        out: &mut [u8],
    ) -> Result<usize> {
        let context = match &mut self.context {
            Some(context) => context,
            empty => empty.insert(::zstd::bulk::Compressor::new(level)?),
        };
        Ok(context.compress_to_buffer(input, out)?)
    }
}

/// The most bytes `len` input bytes can compress to.
pub(crate) fn max_compressed_len(len: usize) -> usize {
    ::zstd::zstd_safe::compress_bound(len)
}

/// Decompression, with a context kept between buffers.
#[derive(Default)]
pub(crate) struct ZstdDecoder {
    context: Option<::zstd::bulk::Decompressor<'static>>,
}

impl ZstdDecoder {
    fn context(&mut self) -> std::io::Result<&mut ::zstd::bulk::Decompressor<'static>> {
        Ok(match &mut self.context {
            Some(context) => context,
            empty => empty.insert(::zstd::bulk::Decompressor::new()?),
        })
    }

    /// Decompresses `payload` into `out`; the number of bytes written (an error if they do
    /// not fit).
    pub(crate) fn decompress_into(
        &mut self,
        payload: &[u8],
        out: &mut [u8],
    ) -> std::io::Result<usize> {
        self.context()?.decompress_to_buffer(payload, out)
    }

    /// Decompresses `payload`, which holds at most `capacity` bytes, into new memory that
    /// is not zeroed first.
    pub(crate) fn decompress_to_vec(
        &mut self,
        payload: &[u8],
        capacity: usize,
    ) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(capacity);
        self.context()?.decompress_to_buffer(payload, &mut out)?;
        Ok(out)
    }
}

/// Decompresses `payload` into `out`, which grows with what the codec really produces, and
/// stops after `limit` bytes.
pub(crate) fn decompress_bounded(
    payload: &[u8],
    limit: u64,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    ::zstd::stream::read::Decoder::with_buffer(payload)
        .and_then(|decoder| decoder.take(limit).read_to_end(out))
        .map(drop)
}

//! Framing: message flatbuffers, their length prefix and padding, and message bodies.

use std::io::{IoSlice, Write};

use alkaid_buffer::Buffer;
use alkaid_schema::Metadata;
use flatbuffers::FlatBufferBuilder;

use super::options::WriteOptions;
use crate::codec::{Compression, Compressor};
use crate::codec::{compress_in_order, round_robin};
use crate::error::Result;
use crate::fb;
use crate::schema::encode_metadata;
use alkaid_schema::extension::Namespace;

/// The continuation marker that starts every message since format 0.15.
pub(crate) const CONTINUATION: [u8; 4] = [0xFF; 4];

/// A message body ready to write: its pieces (the input's own buffers, shared, or
/// compressed bytes) and where each one starts.
pub(crate) struct Body {
    pieces: Vec<Buffer>,
    locations: Vec<fb::Buffer>,
    alignment: usize,
    len: usize,
}

/// Padding comes from here: alignments are at most 64 bytes.
pub(crate) const ZEROS: [u8; 64] = [0; 64];

fn padding(len: usize, alignment: usize) -> usize {
    len.next_multiple_of(alignment) - len
}

impl Body {
    /// Lays out `buffers`, compressing them if the options say so, with the codec contexts
    /// in `compressors` (one per thread, made on first use and kept there for the next body).
    pub(crate) fn new(
        buffers: Vec<Buffer>,
        options: &WriteOptions,
        compressors: &mut Vec<Compressor>,
    ) -> Result<Self> {
        let pieces = match options.compression() {
            Compression::None => buffers,
            codec => compress_all(&buffers, codec, options.compression_threads(), compressors)?,
        };
        Ok(Self::laid_out(pieces, options.alignment()))
    }

    /// `buffers`, to be compressed as they are written ([`compress_in_order`]), laid out
    /// meanwhile as they are: a header built from this body has the size of the final
    /// one (the same number of buffers, a body length that is zero only if it will be).
    ///
    /// [`compress_in_order`]: Self::compress_in_order
    pub(crate) fn deferred(buffers: Vec<Buffer>, options: &WriteOptions) -> Self {
        Self::laid_out(buffers, options.alignment())
    }

    /// Compresses a [`deferred`](Self::deferred) body's buffers on the options' threads,
    /// handing each one and its padding to `write` as soon as it and every one before it
    /// are compressed, and lays the body out around the compressed buffers. The compressed
    /// bytes are not kept (their memory is reused within the message: `codec/in_order.rs`),
    /// so the body keeps its layout only: [`chunks`](Self::chunks) and
    /// [`buffers`](Self::buffers) are empty after. A failed `write` stops the handing over;
    /// its error is returned.
    pub(crate) fn compress_in_order(
        &mut self,
        options: &WriteOptions,
        compressors: &mut Vec<Compressor>,
        mut write: impl FnMut(&mut [IoSlice<'_>]) -> std::io::Result<()>,
    ) -> Result<()> {
        let buffers = std::mem::take(&mut self.pieces);
        // The sizes of the buffers written, and of the one under way so far.
        let mut sizes = Vec::with_capacity(buffers.len());
        let mut under_way = 0;
        let alignment = self.alignment;
        compress_in_order(
            options.compression(),
            &buffers,
            options.compression_threads(),
            compressors,
            |bytes, finished| {
                let mut slices: Vec<IoSlice<'_>> = bytes.iter().map(|b| IoSlice::new(b)).collect();
                under_way += bytes.iter().map(|bytes| bytes.len()).sum::<usize>();
                if finished {
                    slices.push(IoSlice::new(&ZEROS[..padding(under_way, alignment)]));
                    sizes.push(std::mem::take(&mut under_way));
                }
                Ok(write(&mut slices)?)
            },
        )?;
        (self.locations, self.len) = layout(sizes, alignment);
        Ok(())
    }

    /// `pieces`, each padded to `alignment`.
    fn laid_out(pieces: Vec<Buffer>, alignment: usize) -> Self {
        let (locations, len) = layout(pieces.iter().map(Buffer::len), alignment);
        Self {
            pieces,
            locations,
            alignment,
            len,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Where each buffer starts in the body, and its length.
    pub(crate) fn locations(&self) -> &[fb::Buffer] {
        &self.locations
    }

    /// Every buffer and its padding, in order.
    pub(crate) fn chunks(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.pieces.iter().flat_map(|piece| {
            let bytes = piece.as_slice();
            [bytes, &ZEROS[..padding(bytes.len(), self.alignment)]]
        })
    }

    /// Every buffer and its padding, in order, as buffers of their own: the pieces shared,
    /// padding from static zeros. Empty ones are left out.
    pub(crate) fn buffers(&self) -> impl Iterator<Item = Buffer> + '_ {
        self.pieces.iter().flat_map(|piece| {
            let pad = padding(piece.len(), self.alignment);
            let zeros: &'static [u8] = &ZEROS[..pad];
            [
                (!piece.is_empty()).then(|| piece.clone()),
                (pad > 0).then(|| Buffer::from_owner(zeros)),
            ]
            .into_iter()
            .flatten()
        })
    }

    /// Every buffer and its padding, in order, for a vectored write.
    fn slices<'a>(&'a self, into: &mut Vec<IoSlice<'a>>) {
        into.extend(self.chunks().map(IoSlice::new));
    }
}

/// Where pieces of `sizes` bytes start, each padded to `alignment`, and the body's length.
fn layout(sizes: impl IntoIterator<Item = usize>, alignment: usize) -> (Vec<fb::Buffer>, usize) {
    let mut len = 0;
    let locations = sizes
        .into_iter()
        .map(|size| {
            let location = fb::Buffer::new(len as i64, size as i64);
            len += size + padding(size, alignment);
            location
        })
        .collect();
    (locations, len)
}

fn compress_all(
    buffers: &[Buffer],
    codec: Compression,
    threads: usize,
    compressors: &mut Vec<Compressor>,
) -> Result<Vec<Buffer>> {
    round_robin(
        buffers,
        threads,
        compressors,
        || Compressor::new(codec),
        |compressor, buffer| compressor.compress(buffer.as_slice()),
    )
    .into_iter()
    .collect()
}

/// The `RecordBatch` table of a batch of `length` rows.
pub(crate) fn record_batch_table<'b>(
    fbb: &mut FlatBufferBuilder<'b>,
    length: usize,
    nodes: &[fb::FieldNode],
    variadic_counts: &[i64],
    body: &Body,
    compression: Compression,
) -> flatbuffers::WIPOffset<fb::RecordBatch<'b>> {
    let nodes = fbb.create_vector(nodes);
    let buffers = fbb.create_vector(&body.locations);
    let variadic = (!variadic_counts.is_empty()).then(|| fbb.create_vector(variadic_counts));
    let compression = compression.codec().map(|codec| {
        fb::BodyCompression::create(
            fbb,
            &fb::BodyCompressionArgs {
                codec,
                method: fb::BodyCompressionMethod::BUFFER,
            },
        )
    });
    fb::RecordBatch::create(
        fbb,
        &fb::RecordBatchArgs {
            length: length as i64,
            nodes: Some(nodes),
            buffers: Some(buffers),
            compression,
            variadicBufferCounts: variadic,
        },
    )
}

/// Finishes `fbb` as a `Message` around `header`.
pub(crate) fn finish_message(
    fbb: &mut FlatBufferBuilder<'_>,
    header_type: fb::MessageHeader,
    header: flatbuffers::WIPOffset<flatbuffers::UnionWIPOffset>,
    body_len: usize,
    metadata: &Metadata,
    namespace: Namespace,
) {
    let custom_metadata = encode_metadata(fbb, metadata, namespace);
    let message = fb::Message::create(
        fbb,
        &fb::MessageArgs {
            version: fb::MetadataVersion::V5,
            header_type,
            header: Some(header),
            bodyLength: body_len as i64,
            custom_metadata,
        },
    );
    fbb.finish(message, None);
}

/// The bytes a message's framing takes before its body: marker, length, `flatbuffer`,
/// padding to `alignment`.
pub(crate) fn framed_len(flatbuffer: &[u8], alignment: usize) -> usize {
    8 + flatbuffer.len() + padding(8 + flatbuffer.len(), alignment)
}

/// A message's length prefix (the flatbuffer's padded length) and the padding after the
/// flatbuffer, so that the body starts at a multiple of `alignment`.
fn prefix(flatbuffer: &[u8], alignment: usize) -> Result<([u8; 4], usize)> {
    let pad = padding(8 + flatbuffer.len(), alignment);
    let declared = i32::try_from(flatbuffer.len() + pad)
        .map_err(|_| crate::IpcError::invalid_argument("message metadata larger than 2 GiB"))?
        .to_le_bytes();
    Ok((declared, pad))
}

/// Writes one framed message: marker, length, flatbuffer, padding, body. Returns the sizes
/// of the metadata part (marker and length included) and of the body.
pub(crate) fn write_message(
    out: &mut impl Write,
    flatbuffer: &[u8],
    body: Option<&Body>,
    alignment: usize,
) -> Result<(usize, usize)> {
    let (declared, pad) = prefix(flatbuffer, alignment)?;
    let mut slices = vec![
        IoSlice::new(&CONTINUATION),
        IoSlice::new(&declared),
        IoSlice::new(flatbuffer),
        IoSlice::new(&ZEROS[..pad]),
    ];
    if let Some(body) = body {
        body.slices(&mut slices);
    }
    write_all_vectored(out, &mut slices)?;
    Ok((8 + flatbuffer.len() + pad, body.map_or(0, Body::len)))
}

/// Writes every slice, as `Write::write_all` does one, in as few calls as `out` takes
/// (`write_all_vectored` is not stable yet): a `Vec<u8>` reserves room for the whole
/// message at once instead of doubling as buffer after buffer arrives (each doubling copies
/// and, in fresh memory, faults in pages), and a file takes `writev` calls. A `Write` that
/// does not implement vectored writes still gets every byte, a slice per call.
pub(crate) fn write_all_vectored(
    out: &mut impl Write,
    mut slices: &mut [IoSlice<'_>],
) -> std::io::Result<()> {
    IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

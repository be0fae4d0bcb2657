//! CSV and newline-delimited JSON read from a [`RangeSource`] (an object store, HTTP,
//! memory), asynchronously and in bounded memory: the text is fetched in chunks of 4 MiB,
//! one at a time, and pushed through arrow-rs's push decoders, which hand out a batch
//! whenever one is full. A schema to infer is inferred from the first MiB, cut after its
//! last whole line.

use std::io::Cursor;
use std::ops::Range;
use std::sync::Arc;

use alkaid_ipc_async::RangeSource;
use arrow_schema_60::ArrowError;
use bytes::{Buf, Bytes};
use futures_util::Stream;

use crate::error::{FormatError, Result};
use crate::stream::ReadError;

/// Bytes fetched at a time.
const CHUNK: u64 = 4 << 20;

/// Bytes schema inference looks at, at most.
const SAMPLE: u64 = 1 << 20;

/// arrow-rs's push decoders of text: bytes in, a batch out when one is full.
pub(crate) trait PushDecoder: Send + 'static {
    /// Takes what it can of `bytes` (none once a batch is full; an empty slice means the
    /// end of the text) and says how much it took.
    fn decode(&mut self, bytes: &[u8]) -> std::result::Result<usize, ArrowError>;
    /// The rows decoded so far as a batch, if any.
    fn flush(&mut self) -> std::result::Result<Option<arrow_array_60::RecordBatch>, ArrowError>;
}

impl<D: PushDecoder + ?Sized> PushDecoder for Box<D> {
    fn decode(&mut self, bytes: &[u8]) -> std::result::Result<usize, ArrowError> {
        (**self).decode(bytes)
    }

    fn flush(&mut self) -> std::result::Result<Option<arrow_array_60::RecordBatch>, ArrowError> {
        (**self).flush()
    }
}

/// The batches `decoder` makes of `input`, read a buffer at a time: the synchronous
/// counterpart of [`decode`].
#[cfg(any(feature = "csv", feature = "json"))]
pub(crate) fn pushed<R: std::io::BufRead + Send + 'static, D: PushDecoder>(
    mut input: R,
    mut decoder: D,
) -> impl Iterator<Item = std::result::Result<arrow_array_60::RecordBatch, ArrowError>> + Send + 'static
{
    let mut ended = false;
    std::iter::from_fn(move || {
        if ended {
            return None;
        }
        let next = (|| {
            loop {
                let buffer = input.fill_buf().map_err(ArrowError::from)?;
                let at_end = buffer.is_empty();
                let taken = decoder.decode(buffer)?;
                input.consume(taken);
                if at_end || taken == 0 {
                    return decoder.flush();
                }
            }
        })();
        match next {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => None,
            Err(e) => {
                ended = true;
                Some(Err(e))
            }
        }
    })
}

#[cfg(feature = "csv")]
impl PushDecoder for arrow_csv::reader::Decoder {
    fn decode(&mut self, bytes: &[u8]) -> std::result::Result<usize, ArrowError> {
        arrow_csv::reader::Decoder::decode(self, bytes)
    }

    fn flush(&mut self) -> std::result::Result<Option<arrow_array_60::RecordBatch>, ArrowError> {
        arrow_csv::reader::Decoder::flush(self)
    }
}

/// The object's length, and its first bytes for schema inference: up to 1 MiB, cut after
/// the last line break (the whole object when it is shorter).
pub(crate) async fn sample<S: RangeSource>(
    source: &S,
    place: &str,
) -> Result<(u64, Cursor<Bytes>)> {
    let len = source
        .size()
        .await
        .map_err(|e| FormatError::new(place, e))?;
    let end = len.min(SAMPLE);
    let bytes = fetch(source, 0..end)
        .await
        .map_err(|e| FormatError::new(place, e))?;
    let whole = match end < len {
        true => bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(bytes.clone(), |at| bytes.slice(..at + 1)),
        false => bytes,
    };
    Ok((len, Cursor::new(whole)))
}

/// `range` of `source` (empty without a request), checked to be as long as asked.
async fn fetch<S: RangeSource>(
    source: &S,
    range: Range<u64>,
) -> std::result::Result<Bytes, ReadError> {
    if range.is_empty() {
        return Ok(Bytes::new());
    }
    let buffer = source.fetch(range.clone()).await?;
    crate::stream::answer(&range, buffer)
}

/// Where a text stream is.
struct Reading<S, D> {
    source: Arc<S>,
    len: u64,
    /// The next byte to fetch.
    offset: u64,
    /// Fetched, not yet decoded.
    pending: Bytes,
    decoder: D,
    ended: bool,
}

/// The batches `decoder` makes of the `len` bytes of `source`.
pub(crate) fn decode<S: RangeSource + 'static, D: PushDecoder>(
    source: S,
    start: u64,
    len: u64,
    decoder: D,
) -> impl Stream<Item = std::result::Result<arrow_array_60::RecordBatch, ReadError>> + Send + 'static
{
    let reading = Reading {
        source: Arc::new(source),
        len,
        offset: start,
        pending: Bytes::new(),
        decoder,
        ended: false,
    };
    futures_util::stream::unfold(reading, |mut reading| async move {
        if reading.ended {
            return None;
        }
        match reading.next_batch().await {
            Ok(Some(batch)) => Some((Ok(batch), reading)),
            Ok(None) => None,
            Err(e) => {
                reading.ended = true;
                Some((Err(e), reading))
            }
        }
    })
}

impl<S: RangeSource, D: PushDecoder> Reading<S, D> {
    /// Decodes until a batch is full or the text ends, and hands out what was decoded.
    async fn next_batch(
        &mut self,
    ) -> std::result::Result<Option<arrow_array_60::RecordBatch>, ReadError> {
        loop {
            if self.pending.is_empty() && self.offset < self.len {
                let end = self.offset.saturating_add(CHUNK).min(self.len);
                self.pending = fetch(self.source.as_ref(), self.offset..end).await?;
                self.offset = end;
            }
            let at_end = self.pending.is_empty();
            let taken = self.decoder.decode(&self.pending)?;
            self.pending.advance(taken);
            // The batch is full (the decoder left bytes), or the text ended: hand it out.
            if at_end || !self.pending.is_empty() {
                match self.decoder.flush()? {
                    Some(batch) => return Ok(Some(batch)),
                    None if at_end => return Ok(None),
                    // Nothing decoded and nothing taken: a decoder that cannot go on.
                    None if taken == 0 => {
                        return Err("the decoder took no bytes and made no rows".into());
                    }
                    None => {}
                }
            }
        }
    }
}

//! Before a file's first batch: its head (the magic and the schema message, checked
//! against the footer) and its dictionaries, of which only those the selected columns use
//! are fetched and decoded.

use alkaid_buffer::Buffer;

use crate::error::{IpcError, Result};
use crate::read::body::parts::Body;
use crate::read::file::decoder::{Block, Fetch, FileDecoder, Framed, Step, checked_block};
use crate::read::file::stream_schema::check_stream_schema;
use crate::read::framing::{MAGICS, Prefix, parse_prefix};
use crate::read::options::ReadOptions;
use crate::read::state::{Decoded, parse_message};

impl FileDecoder {
    /// Checks the head of the file and reads the dictionaries (see the module notes), if
    /// not done yet. Reading a batch does it first; calling it opens a file eagerly.
    ///
    /// # Errors
    /// If a dictionary block lies outside the file.
    pub fn read_prelude(&mut self) -> Result<Step<()>> {
        let Some(prelude) = &self.prelude else {
            return Ok(Step::Done(()));
        };
        let dictionaries = (0..self.dictionaries.len())
            .map(|i| {
                checked_block(&self.dictionaries[i], self.file_len, &self.state.options)
                    .map_err(|e| e.context(format!("dictionary block {i}")))
            })
            .collect::<Result<Vec<_>>>()?;
        // The schema message lies between the magic and the first block, or the footer
        // when there is none; it can be no larger than the metadata limit allows.
        let first_block = dictionaries
            .iter()
            .map(|b| b.offset)
            .chain(
                self.batches
                    .iter()
                    .filter_map(|b| u64::try_from(b.offset()).ok()),
            )
            .min()
            .unwrap_or(prelude.footer_start);
        let stream_end = first_block.min(prelude.footer_start);
        let limit = 16 + self.state.options.max_metadata_bytes as u64 + 64;
        let head = 0..stream_end.min(limit).max(16);
        let mut ranges = Vec::with_capacity(1 + dictionaries.len());
        ranges.push(head);
        ranges.extend(dictionaries.iter().map(Block::metadata));
        Ok(Step::Fetch(Fetch::new(
            ranges,
            move |decoder, mut fetched| {
                if decoder.prelude.is_none() {
                    return Ok(Step::Done(()));
                }
                let metadata = fetched.split_off(1);
                decoder.check_head(&fetched[0], stream_end)?;
                decoder.read_dictionaries(dictionaries, metadata)
            },
        )))
    }

    /// Checks the magic at the start of the file and, where a schema message follows it,
    /// that it agrees with the footer's schema. `head` holds the file's first bytes, up to
    /// `stream_end` (its first block, or its footer) where that is within the metadata
    /// limit.
    ///
    /// The footer is the authority, as for Arrow C++, which reads nothing between the
    /// magic and the first block. Writers differ there: Arrow C++ and Alkaid write a framed
    /// schema message at byte 8, arrow-rs pads the magic with zeros to its alignment (64
    /// bytes by default) first, Polars writes the schema flatbuffer without its length
    /// prefix, and apache-arrow JS writes no schema at all (its first block is at byte 8).
    /// A schema found there is compared with the footer's and a disagreement refused;
    /// bytes that are no schema message are left unread.
    fn check_head(&self, head: &Buffer, stream_end: u64) -> Result<()> {
        let prelude = self
            .prelude
            .as_ref()
            .expect("checked before the prelude ran");
        let magic = prelude.magic;
        if !head.starts_with(magic) {
            let found = MAGICS.into_iter().find(|m| head.starts_with(m));
            return Err(IpcError::malformed(match found {
                Some(other) => format!(
                    "the file ends with {} but starts with {}",
                    String::from_utf8_lossy(magic),
                    String::from_utf8_lossy(other)
                ),
                None => format!(
                    "the file does not start with ALKAID1 or ARROW1 (its first bytes are {:?})",
                    String::from_utf8_lossy(&head[..7])
                ),
            }));
        }
        // The padding after the magic is not read (Arrow C++ writes zeros and checks only
        // the magic), so whatever a writer left in bytes 6 and 7 is accepted.
        let end = usize::try_from(stream_end).map_or(head.len(), |end| end.min(head.len()));
        let mut at = 8;
        while at + 8 <= end && head[at..at + 8] == [0; 8] {
            at += 8;
        }
        // A first block inside the magic leaves no stream (the block itself is refused
        // when it is read).
        let stream = head.get(at..end).unwrap_or_default();
        let Some(message) = schema_message(stream, at, stream_end, &self.state.options)? else {
            return Ok(());
        };
        let schema = self.state.schema.as_ref().expect("set from the footer");
        check_stream_schema(
            message,
            &prelude.footer,
            prelude.footer_schema,
            schema,
            &self.state.ids,
            &self.state.options,
        )
    }

    /// Given the framed metadata of every dictionary block, fetches the bodies of those
    /// the selected columns use, then decodes them in the file's order.
    fn read_dictionaries(&mut self, blocks: Vec<Block>, metadata: Vec<Buffer>) -> Result<Step<()>> {
        let mut framed = Vec::with_capacity(metadata.len());
        let mut bodies = Vec::new();
        for (i, (bytes, block)) in metadata.into_iter().zip(&blocks).enumerate() {
            let in_block = |e: IpcError| e.context(format!("dictionary block {i}"));
            let message = Framed::parse(bytes, &self.state.options).map_err(in_block)?;
            let wanted = self
                .state
                .wants_dictionary(message.flatbuffer())
                .map_err(in_block)?;
            if wanted {
                bodies.push(block.body());
            }
            framed.push((message, wanted));
        }
        Ok(Step::Fetch(Fetch::new(bodies, move |decoder, bodies| {
            // Several reads planned before the prelude ran each carry it: the first to
            // get here reads the dictionaries, the others find them read.
            if decoder.prelude.is_none() {
                return Ok(Step::Done(()));
            }
            let mut bodies = bodies.into_iter();
            for (i, (message, wanted)) in framed.into_iter().enumerate() {
                let block = blocks[i];
                let body = match wanted {
                    true => Body::whole(bodies.next().expect("one body per wanted block")),
                    // Only columns left out use it: the state steps over it.
                    false => Body::from_parts(block.body_len, Vec::new()),
                };
                let decoded = decoder
                    .state
                    .decode_body(message.flatbuffer(), body)
                    .map_err(|e| e.context(format!("dictionary block {i}")))?;
                if !matches!(decoded, Decoded::Dictionary { .. }) {
                    return Err(IpcError::malformed(format!(
                        "dictionary block {i} is not a dictionary batch"
                    )));
                }
            }
            decoder.prelude = None;
            Ok(Step::Done(()))
        })))
    }
}

/// The schema message's flatbuffer in `stream`, the bytes from `at` to the file's first
/// block (`stream_end`), if there is one: framed with the continuation marker (which must
/// then be a schema message that fits), framed with a length alone (before format 0.15),
/// or not framed at all. `None` when the bytes are none of these; the last two are taken
/// only when they verify as a schema message.
fn schema_message<'a>(
    stream: &'a [u8],
    at: usize,
    stream_end: u64,
    options: &ReadOptions,
) -> Result<Option<&'a [u8]>> {
    if stream.len() < 4 {
        return Ok(None);
    }
    let is_schema =
        |bytes: &[u8]| parse_message(bytes, options).is_ok_and(|m| m.header_as_schema().is_some());
    if stream[..4] == [0xFF; 4] {
        // Framed as a message: whether it is a schema is checked with the comparison. An
        // end-of-stream marker is an empty stream (apache-arrow JS, a file of no columns).
        let (header, metadata) = match parse_prefix(stream, options)? {
            Some(Prefix::Message { header, metadata }) => (header, metadata),
            Some(Prefix::End) => return Ok(None),
            None => {
                return Err(IpcError::malformed(format!(
                    "the file's stream does not start with a schema message (byte {at})"
                )));
            }
        };
        let message = stream.get(header..header + metadata).ok_or_else(|| {
            IpcError::malformed(format!(
                "the file's schema message at byte {at} ({} bytes) runs past its first block \
                 at byte {stream_end}",
                header + metadata
            ))
        })?;
        return Ok(Some(message));
    }
    if let Ok(Some(Prefix::Message { header, metadata })) = parse_prefix(stream, options)
        && let Some(message) = stream.get(header..header + metadata)
        && is_schema(message)
    {
        return Ok(Some(message));
    }
    Ok(is_schema(stream).then_some(stream))
}

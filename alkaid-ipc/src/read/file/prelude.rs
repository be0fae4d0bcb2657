//! Before a file's first batch: its head (the magic and the schema message, checked
//! against the footer) and its dictionaries, of which only those the selected columns use
//! are fetched and decoded.

use alkaid_buffer::Buffer;

use crate::error::{IpcError, Result};
use crate::read::body::parts::Body;
use crate::read::file::decoder::{Block, Fetch, FileDecoder, Framed, Step, checked_block};
use crate::read::file::stream_schema::check_stream_schema;
use crate::read::framing::{MAGICS, Prefix, parse_prefix};
use crate::read::state::Decoded;

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
        let limit = 16 + self.state.options.max_metadata_bytes as u64 + 64;
        let head = 0..first_block.min(prelude.footer_start).min(limit).max(16);
        let mut ranges = Vec::with_capacity(1 + dictionaries.len());
        ranges.push(head);
        ranges.extend(dictionaries.iter().map(Block::metadata));
        Ok(Step::Fetch(Fetch::new(ranges, |decoder, mut fetched| {
            if decoder.prelude.is_none() {
                return Ok(Step::Done(()));
            }
            let metadata = fetched.split_off(1);
            decoder.check_head(&fetched[0])?;
            decoder.read_dictionaries(dictionaries, metadata)
        })))
    }

    /// Checks the magic at the start of the file and that the schema message after it
    /// agrees with the footer's schema.
    fn check_head(&self, head: &Buffer) -> Result<()> {
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
        // the magic), so whatever a writer left there is accepted.
        let options = &self.state.options;
        let Some(Prefix::Message { header, metadata }) = parse_prefix(&head[8..], options)? else {
            return Err(IpcError::malformed(
                "the file's stream does not start with a schema message",
            ));
        };
        let message_len = header + metadata;
        if 8 + message_len > head.len() {
            return Err(IpcError::malformed(format!(
                "the file's schema message ({message_len} bytes) does not fit before its \
                 first block and its footer"
            )));
        }
        let schema = self.state.schema.as_ref().expect("set from the footer");
        check_stream_schema(
            &head.slice(8, message_len),
            &prelude.footer,
            prelude.footer_schema,
            schema,
            &self.state.ids,
            options,
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

//! Encoding without output: the messages a stream or file consists of, each a flatbuffer
//! and a body of buffers, ready for whatever carries them (the stream and file writers'
//! `Write`, a Flight stream's gRPC messages). The writers and every other carrier share
//! this one encoder, with its dictionary bookkeeping.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_data::{ArrayData, equal};
use alkaid_schema::{DataType, Metadata, SchemaRef};
use flatbuffers::FlatBufferBuilder;

use super::encode::{Encoder, FoundDictionary};
use super::message::{Body, finish_message, record_batch_table};
use super::options::{FileDictionaries, WriteOptions};
use super::unify::{HeldDictionary, Send, Unified, Unifier};
use crate::codec::{Compression, Compressor};
use crate::dictionary::DictionaryIds;
use crate::error::{IpcError, Result};
use crate::fb;
use crate::schema::{SchemaEncoding, encode_schema};

/// What an encoded message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// The schema, which opens a stream.
    Schema,
    /// A dictionary batch: a dictionary defined, replaced or extended.
    Dictionary,
    /// A record batch.
    RecordBatch,
}

/// One IPC message, encoded: its `Message` flatbuffer and its body, a list of buffers (the
/// batch's own, shared without a copy, or their compressed bytes), each followed by the
/// padding that aligns the next.
pub struct EncodedMessage {
    kind: MessageKind,
    flatbuffer: Vec<u8>,
    body: Option<Body>,
    /// Set while the body waits to be compressed as it is written: what the flatbuffer is
    /// built from again around the compressed layout
    /// ([`MessageEncoder::compress_deferred`]). Only the writers ask for that.
    deferred: Option<BatchHeader>,
}

/// What a record batch or dictionary message's flatbuffer holds besides its body's layout.
pub(crate) struct BatchHeader {
    rows: usize,
    nodes: Vec<fb::FieldNode>,
    variadic_counts: Vec<i64>,
    /// A dictionary batch's id and whether it is a delta; `None` for a record batch.
    dictionary: Option<(i64, bool)>,
    metadata: Metadata,
}

/// From this many bytes of buffers, a writer whose output can seek compresses a message's
/// body as it writes it; below, the threads and the seek back cost more than the overlap
/// saves.
const DEFERRED_FROM: usize = 1 << 20;

impl std::fmt::Debug for EncodedMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncodedMessage")
            .field("kind", &self.kind)
            .field("flatbuffer_len", &self.flatbuffer.len())
            .field("body_len", &self.body_len())
            .finish()
    }
}

impl EncodedMessage {
    /// What the message is.
    pub fn kind(&self) -> MessageKind {
        self.kind
    }

    /// The `Message` flatbuffer (without the length prefix a stream puts before it).
    pub fn flatbuffer(&self) -> &[u8] {
        &self.flatbuffer
    }

    /// The body's length in bytes, padding included: what the flatbuffer declares.
    pub fn body_len(&self) -> usize {
        self.body.as_ref().map_or(0, Body::len)
    }

    /// The body's bytes, in order, as slices: each buffer, then its padding.
    pub fn body_slices(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.body.iter().flat_map(Body::chunks)
    }

    /// The flatbuffer, and the body as buffers in order (each buffer of the batch shared,
    /// not copied, then its padding), for a carrier that keeps the message beyond the
    /// encoder's next call.
    pub fn into_parts(self) -> (Vec<u8>, Vec<Buffer>) {
        let body = self
            .body
            .map_or_else(Vec::new, |body| body.buffers().collect());
        (self.flatbuffer, body)
    }

    pub(crate) fn body(&self) -> Option<&Body> {
        self.body.as_ref()
    }

    /// Whether the body waits to be compressed as it is written.
    pub(crate) fn is_deferred(&self) -> bool {
        self.deferred.is_some()
    }
}

/// What to do with a dictionary a batch uses.
enum Change {
    Unchanged,
    Delta(ArrayData),
    Replace,
}

/// Encodes a schema and then batches as IPC messages, deciding for each batch which
/// dictionaries must go before it (new ones, deltas, replacements), without writing
/// anything: a carrier takes the messages and frames them its way.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
/// use alkaid_ipc::{MessageEncoder, MessageKind, WriteOptions};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
/// let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
///
/// let mut encoder = MessageEncoder::new(schema, WriteOptions::default())?;
/// assert_eq!(encoder.schema_message().kind(), MessageKind::Schema);
/// let messages = encoder.encode(&batch, &Default::default())?;
/// assert_eq!(messages.len(), 1);
/// assert_eq!(messages[0].kind(), MessageKind::RecordBatch);
/// // Three i32 values, padded to the default alignment of 8 bytes.
/// assert_eq!(messages[0].body_len(), 16);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MessageEncoder {
    schema: SchemaRef,
    ids: DictionaryIds,
    options: WriteOptions,
    /// Whether this is a file (no dictionary replacement).
    file: bool,
    /// The dictionary each id currently stands for (after deltas), as sent.
    sent: HashMap<i64, Arc<ArrayData>>,
    /// A unifying file's dictionaries, as the pieces they were sent in (`unify.rs`); the
    /// ids there are not in `sent`.
    held: HashMap<i64, HeldDictionary>,
    fbb: FlatBufferBuilder<'static>,
    /// Codec contexts kept from one message to the next, one per compression thread.
    compressors: Vec<Compressor>,
    /// Whether large compressed bodies are left to be compressed as they are written.
    defers: bool,
}

impl std::fmt::Debug for MessageEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageEncoder")
            .field("schema", &self.schema)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// What encoding one batch changes, applied to the encoder only once the whole batch is
/// encoded: a batch that fails half way leaves the dictionaries as the messages already
/// handed out left them.
#[derive(Default)]
struct Pending {
    /// Dictionaries sent for this batch.
    sent: HashMap<i64, Arc<ArrayData>>,
    /// Values a unifying file sent for this batch, by id.
    held: Vec<(i64, Arc<ArrayData>)>,
    /// Ids whose dictionary the batch being encoded has already settled.
    settled: HashSet<i64>,
    messages: Vec<EncodedMessage>,
}

impl MessageEncoder {
    /// An encoder for a stream of `schema`'s batches (dictionaries may be replaced), with
    /// `options` (compression, alignment, deltas, the metadata namespace).
    ///
    /// # Errors
    /// If the schema cannot be written (a dictionary of dictionaries), or the options ask
    /// for a codec this build leaves out (features `lz4` and `zstd`).
    pub fn new(schema: SchemaRef, options: WriteOptions) -> Result<Self> {
        Self::with_ids(schema, None, options, false)
    }

    /// As [`new`](Self::new), with the dictionary ids `ids` (checked against the schema)
    /// and, for a file, no dictionary replacement.
    pub(crate) fn with_ids(
        schema: SchemaRef,
        ids: Option<DictionaryIds>,
        options: WriteOptions,
        file: bool,
    ) -> Result<Self> {
        options.compression().require()?;
        for field in schema.fields().iter() {
            reject_nested_dictionary(field.data_type(), field.name())?;
        }
        let ids = match ids {
            // Re-checked against this schema: the caller may have built them for another.
            Some(ids) => DictionaryIds::try_new(&schema, ids.ids().to_vec())?,
            None => DictionaryIds::sequential(&schema),
        };
        Ok(Self {
            schema,
            ids,
            options,
            file,
            sent: HashMap::new(),
            held: HashMap::new(),
            fbb: FlatBufferBuilder::new(),
            compressors: Vec::new(),
            defers: false,
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The dictionary ids of the schema's dictionary fields.
    pub fn ids(&self) -> &DictionaryIds {
        &self.ids
    }

    /// The options.
    pub fn options(&self) -> &WriteOptions {
        &self.options
    }

    /// How the schema is written, in the stream's first message and a file's footer alike:
    /// the features the stream will use, and the namespace of reserved keys.
    ///
    /// Only a feature that is certain is declared: compressed bodies. A stream with
    /// dictionaries may replace them, but at the schema nobody knows whether it will, and
    /// readers without replacement (nanoarrow) refuse a stream that declares it. Arrow C++
    /// and arrow-rs declare neither; a replacement itself is read by every reader that
    /// supports it.
    pub(crate) fn schema_encoding(&self) -> SchemaEncoding {
        SchemaEncoding {
            namespace: self.options.namespace(),
            compressed_body: self.options.compression() != Compression::None,
            dictionary_replacement: false,
        }
    }

    /// The schema message, which opens the stream.
    pub fn schema_message(&mut self) -> EncodedMessage {
        self.fbb.reset();
        let encoding = self.schema_encoding();
        let header = encode_schema(&mut self.fbb, &self.schema, &self.ids, encoding);
        let namespace = self.options.namespace();
        finish_message(
            &mut self.fbb,
            fb::MessageHeader::Schema,
            header.as_union_value(),
            0,
            &Metadata::new(),
            namespace,
        );
        EncodedMessage {
            kind: MessageKind::Schema,
            flatbuffer: self.fbb.finished_data().to_vec(),
            body: None,
            deferred: None,
        }
    }

    /// The messages that carry `batch`, with `metadata` on its own message: the
    /// dictionaries it needs that were not sent yet (new ones, deltas, replacements), then
    /// the batch. What they change is kept only when all of them are encoded.
    ///
    /// # Errors
    /// If the batch's schema differs from the encoder's, fields sharing a dictionary id
    /// hold different dictionaries, a file's dictionary would be replaced, or compression
    /// fails.
    pub fn encode(
        &mut self,
        batch: &RecordBatch,
        metadata: &Metadata,
    ) -> Result<Vec<EncodedMessage>> {
        if !batch.schema().eq_ignoring_metadata(&self.schema) {
            return Err(IpcError::invalid_argument(format!(
                "the batch's schema ({}) differs from the writer's ({})",
                batch.schema(),
                self.schema
            )));
        }
        // A file that unifies dictionaries moves the batch's keys onto the dictionaries it
        // holds, and sends what they lack.
        let unified = match self.unifies() {
            true => {
                let unifier = Unifier {
                    ids: &self.ids,
                    held: &self.held,
                };
                Some(unifier.batch(batch)?)
            }
            false => None,
        };
        let mut encoder = Encoder::new(&self.ids, 0);
        if let Some(unified) = &unified {
            encoder = encoder.with_keys(&unified.keys);
        }
        for column in batch.columns() {
            encoder.array(&column.to_data())?;
        }
        let mut encoded = encoder.finish();
        let mut pending = Pending::default();
        for found in std::mem::take(&mut encoded.dictionaries) {
            match &unified {
                Some(unified) => self.unified_dictionary(found, unified, &mut pending)?,
                None => self.dictionary(found, &mut pending)?,
            }
        }
        let header = BatchHeader {
            rows: batch.num_rows(),
            nodes: std::mem::take(&mut encoded.nodes),
            variadic_counts: std::mem::take(&mut encoded.variadic_counts),
            dictionary: None,
            metadata: metadata.clone(),
        };
        let message = self.batch_message(header, std::mem::take(&mut encoded.buffers))?;
        pending.messages.push(message);
        self.sent.extend(pending.sent);
        for (id, values) in pending.held {
            self.held.entry(id).or_default().push(values);
        }
        Ok(pending.messages)
    }

    /// Leaves the compression of large bodies (from 1 MiB of buffers) to
    /// [`compress_deferred`](Self::compress_deferred), for a writer that writes a body as
    /// it is compressed and goes back for the header.
    pub(crate) fn defer_compression(&mut self) {
        self.defers = self.options.compression() != Compression::None;
    }

    /// A record batch or dictionary message of `buffers`, compressed now or, for a large
    /// body of a writer that asked, deferred.
    fn batch_message(
        &mut self,
        header: BatchHeader,
        buffers: Vec<Buffer>,
    ) -> Result<EncodedMessage> {
        let raw: usize = buffers.iter().map(Buffer::len).sum();
        let defer = self.defers && raw >= DEFERRED_FROM;
        let body = match defer {
            true => Body::deferred(buffers, &self.options),
            false => Body::new(buffers, &self.options, &mut self.compressors)?,
        };
        let flatbuffer = self.batch_flatbuffer(&header, &body);
        Ok(EncodedMessage {
            kind: match header.dictionary {
                Some(_) => MessageKind::Dictionary,
                None => MessageKind::RecordBatch,
            },
            flatbuffer,
            body: Some(body),
            deferred: defer.then_some(header),
        })
    }

    /// The flatbuffer of a record batch or dictionary message laid out as `body` is.
    fn batch_flatbuffer(&mut self, header: &BatchHeader, body: &Body) -> Vec<u8> {
        self.fbb.reset();
        let compression = self.options.compression();
        let data = record_batch_table(
            &mut self.fbb,
            header.rows,
            &header.nodes,
            &header.variadic_counts,
            body,
            compression,
        );
        let (header_type, union) = match header.dictionary {
            Some((id, is_delta)) => {
                let dictionary = fb::DictionaryBatch::create(
                    &mut self.fbb,
                    &fb::DictionaryBatchArgs {
                        id,
                        data: Some(data),
                        isDelta: is_delta,
                    },
                );
                (
                    fb::MessageHeader::DictionaryBatch,
                    dictionary.as_union_value(),
                )
            }
            None => (fb::MessageHeader::RecordBatch, data.as_union_value()),
        };
        let namespace = self.options.namespace();
        finish_message(
            &mut self.fbb,
            header_type,
            union,
            body.len(),
            &header.metadata,
            namespace,
        );
        self.fbb.finished_data().to_vec()
    }

    /// Compresses a deferred message's body, handing each buffer and its padding to `write`
    /// in order as soon as it and those before it are compressed, and builds the message's
    /// flatbuffer again around the compressed layout: the same size as before (the same
    /// fields, other numbers), which a writer that left room for it relies on. A message
    /// that was not deferred is left as it is.
    pub(crate) fn compress_deferred(
        &mut self,
        message: &mut EncodedMessage,
        write: impl FnMut(&mut [std::io::IoSlice<'_>]) -> std::io::Result<()>,
    ) -> Result<()> {
        let (Some(header), Some(body)) = (message.deferred.take(), message.body.as_mut()) else {
            return Ok(());
        };
        body.compress_in_order(&self.options, &mut self.compressors, write)?;
        let flatbuffer = self.batch_flatbuffer(&header, body);
        if flatbuffer.len() != message.flatbuffer.len() {
            // The layouts differ in numbers only, so this would be a bug in this file.
            return Err(IpcError::invalid_argument(format!(
                "the header of a compressed body came out {} bytes long, not the {} it was \
                 given room for",
                flatbuffer.len(),
                message.flatbuffer.len()
            )));
        }
        message.flatbuffer = flatbuffer;
        Ok(())
    }

    /// Whether batches are rewritten onto the dictionaries the file holds.
    fn unifies(&self) -> bool {
        self.file && self.options.file_dictionaries() == FileDictionaries::Unify
    }

    /// The message of a dictionary `found` in the batch, if it must be sent, after those of
    /// the dictionaries nested in it.
    fn dictionary(&mut self, found: FoundDictionary, pending: &mut Pending) -> Result<()> {
        let FoundDictionary {
            id,
            position,
            values,
        } = found;
        let change = match pending.sent.get(&id).or_else(|| self.sent.get(&id)) {
            None => Change::Replace,
            // A unifying file grows its dictionaries by deltas whatever the option says.
            Some(previous) => compare(
                previous,
                &values,
                self.options.dictionary_deltas() || self.unifies(),
            ),
        };
        let settled = !pending.settled.insert(id);
        if settled && !matches!(change, Change::Unchanged) {
            return Err(IpcError::invalid_argument(format!(
                "fields sharing dictionary id {id} hold different dictionaries in one batch"
            )));
        }
        let delta;
        let (written, is_delta) = match change {
            Change::Unchanged => return Ok(()),
            Change::Delta(tail) => {
                delta = tail;
                (&delta, true)
            }
            Change::Replace
                if self.file && (self.sent.contains_key(&id) || pending.sent.contains_key(&id)) =>
            {
                return Err(IpcError::invalid_argument(format!(
                    "dictionary {id} changed between batches: a file holds one dictionary per \
                     id (it may grow by deltas); write a stream to replace dictionaries, or \
                     let the file writer unify them (FileDictionaries::Unify)"
                )));
            }
            Change::Replace => (values.as_ref(), false),
        };
        self.dictionary_message(id, position, written, is_delta, pending)?;
        pending.sent.insert(id, values);
        Ok(())
    }

    /// The message of a dictionary `found` in a batch of a unifying file, as the unifier
    /// decided: the first dictionary of its id, a delta, or nothing (held already, or
    /// settled by an earlier field of the id in this batch).
    fn unified_dictionary(
        &mut self,
        found: FoundDictionary,
        unified: &Unified,
        pending: &mut Pending,
    ) -> Result<()> {
        if !pending.settled.insert(found.id) {
            return Ok(());
        }
        let (values, is_delta) = match unified.sends.get(&found.id) {
            None => return Ok(()),
            Some(Send::First(values)) => (values, false),
            Some(Send::Delta(values)) => (values, true),
        };
        self.dictionary_message(found.id, found.position, values, is_delta, pending)?;
        pending.held.push((found.id, Arc::clone(values)));
        Ok(())
    }

    /// Adds the message defining (or extending, `is_delta`) dictionary `id` at walk
    /// `position` with `written`, after those of the dictionaries nested in it.
    fn dictionary_message(
        &mut self,
        id: i64,
        position: usize,
        written: &ArrayData,
        is_delta: bool,
        pending: &mut Pending,
    ) -> Result<()> {
        let mut encoder = Encoder::new(&self.ids, position + 1);
        encoder.array(written)?;
        let mut encoded = encoder.finish();
        for nested in std::mem::take(&mut encoded.dictionaries) {
            self.dictionary(nested, pending)?;
        }
        let header = BatchHeader {
            rows: written.len(),
            nodes: std::mem::take(&mut encoded.nodes),
            variadic_counts: std::mem::take(&mut encoded.variadic_counts),
            dictionary: Some((id, is_delta)),
            metadata: Metadata::new(),
        };
        let message = self.batch_message(header, std::mem::take(&mut encoded.buffers))?;
        pending.messages.push(message);
        Ok(())
    }
}

fn compare(previous: &Arc<ArrayData>, next: &Arc<ArrayData>, deltas: bool) -> Change {
    // The same dictionary object (a batch read from a stream, or slices of one column).
    if Arc::ptr_eq(previous, next) {
        return Change::Unchanged;
    }
    let same_memory = |a: &ArrayData, b: &ArrayData| {
        a.len() == b.len()
            && a.offset() == b.offset()
            && a.buffers().len() == b.buffers().len()
            && a.buffers()
                .iter()
                .zip(b.buffers())
                .all(|(x, y)| x.as_ptr() == y.as_ptr())
            && a.nulls()
                .map(|n| (n.validity().inner().as_ptr(), n.validity().offset()))
                == b.nulls()
                    .map(|n| (n.validity().inner().as_ptr(), n.validity().offset()))
            && a.children().is_empty()
            && b.children().is_empty()
    };
    if same_memory(previous, next) || (previous.len() == next.len() && equal(previous, next)) {
        return Change::Unchanged;
    }
    if deltas && previous.len() < next.len() && equal(previous, &next.slice(0, previous.len())) {
        return Change::Delta(next.slice(previous.len(), next.len() - previous.len()));
    }
    Change::Replace
}

/// A dictionary whose values are directly a dictionary has no field to carry the inner
/// encoding, so the format cannot express it.
fn reject_nested_dictionary(data_type: &DataType, path: &str) -> Result<()> {
    if let DataType::Dictionary { value, .. } = data_type
        && value.is_dictionary()
    {
        return Err(IpcError::invalid_argument(format!(
            "field {path}: a dictionary of dictionaries cannot be written (the format gives \
             each dictionary encoding a field of its own; wrap the inner one in a struct)"
        )));
    }
    let inner = match data_type {
        DataType::Dictionary { value, .. } => value.children(),
        other => other.children(),
    };
    for child in inner {
        reject_nested_dictionary(child.data_type(), &format!("{path}.{}", child.name()))?;
    }
    Ok(())
}

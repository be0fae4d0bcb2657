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
use super::unify::Unifier;
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
}

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
    fbb: FlatBufferBuilder<'static>,
    /// Codec contexts kept from one message to the next, one per compression thread.
    compressors: Vec<Compressor>,
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
            fbb: FlatBufferBuilder::new(),
            compressors: Vec::new(),
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
        self.finish(
            MessageKind::Schema,
            header.as_union_value(),
            None,
            &Metadata::new(),
        )
    }

    /// Finishes the builder's message around `header` (of a message of `kind`), declaring
    /// `body`'s length, with `metadata`.
    fn finish(
        &mut self,
        kind: MessageKind,
        header: flatbuffers::WIPOffset<flatbuffers::UnionWIPOffset>,
        body: Option<Body>,
        metadata: &Metadata,
    ) -> EncodedMessage {
        let header_type = match kind {
            MessageKind::Schema => fb::MessageHeader::Schema,
            MessageKind::Dictionary => fb::MessageHeader::DictionaryBatch,
            MessageKind::RecordBatch => fb::MessageHeader::RecordBatch,
        };
        let body_len = body.as_ref().map_or(0, Body::len);
        let namespace = self.options.namespace();
        finish_message(
            &mut self.fbb,
            header_type,
            header,
            body_len,
            metadata,
            namespace,
        );
        EncodedMessage {
            kind,
            flatbuffer: self.fbb.finished_data().to_vec(),
            body,
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
        // A file that unifies dictionaries rewrites the batch onto the dictionaries it holds.
        let unified;
        let batch = match self.unifies() {
            true => {
                let unifier = Unifier {
                    ids: &self.ids,
                    sent: &self.sent,
                };
                unified = unifier.batch(batch)?;
                &unified
            }
            false => batch,
        };
        let mut encoder = Encoder::new(&self.ids, 0);
        for column in batch.columns() {
            encoder.array(&column.to_data())?;
        }
        let mut encoded = encoder.finish();
        let mut pending = Pending::default();
        for found in std::mem::take(&mut encoded.dictionaries) {
            self.dictionary(found, &mut pending)?;
        }
        let body = Body::new(
            std::mem::take(&mut encoded.buffers),
            &self.options,
            &mut self.compressors,
        )?;
        self.fbb.reset();
        let table = record_batch_table(
            &mut self.fbb,
            batch.num_rows(),
            &encoded,
            &body,
            self.options.compression(),
        );
        let message = self.finish(
            MessageKind::RecordBatch,
            table.as_union_value(),
            Some(body),
            metadata,
        );
        pending.messages.push(message);
        self.sent.extend(pending.sent);
        Ok(pending.messages)
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
        let mut encoder = Encoder::new(&self.ids, position + 1);
        encoder.array(written)?;
        let mut encoded = encoder.finish();
        for nested in std::mem::take(&mut encoded.dictionaries) {
            self.dictionary(nested, pending)?;
        }
        let body = Body::new(
            std::mem::take(&mut encoded.buffers),
            &self.options,
            &mut self.compressors,
        )?;
        self.fbb.reset();
        let data = record_batch_table(
            &mut self.fbb,
            written.len(),
            &encoded,
            &body,
            self.options.compression(),
        );
        let header = fb::DictionaryBatch::create(
            &mut self.fbb,
            &fb::DictionaryBatchArgs {
                id,
                data: Some(data),
                isDelta: is_delta,
            },
        );
        let message = self.finish(
            MessageKind::Dictionary,
            header.as_union_value(),
            Some(body),
            &Metadata::new(),
        );
        pending.messages.push(message);
        pending.sent.insert(id, values);
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

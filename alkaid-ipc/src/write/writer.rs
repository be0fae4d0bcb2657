//! What the stream and file writers share: the schema message, dictionaries and batches.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_data::{ArrayData, equal};
use alkaid_schema::{DataType, Metadata, SchemaRef};
use flatbuffers::FlatBufferBuilder;

use super::encode::{Encoder, FoundDictionary};
use super::message::{Body, finish_message, record_batch_table, write_message};
use super::options::WriteOptions;
use crate::compression::{Compression, Compressor};
use crate::dictionary::DictionaryIds;
use crate::error::{IpcError, Result};
use crate::fb;
use crate::schema::{SchemaEncoding, encode_schema};

/// A `Write` that counts what went through it, for the file footer's block offsets.
pub(crate) struct Counting<W> {
    pub inner: W,
    pub position: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.position += n as u64;
        Ok(n)
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(bytes)?;
        self.position += bytes.len() as u64;
        Ok(())
    }

    /// Passed on, so that the inner writer's vectored writes (one reservation for a whole
    /// message in a `Vec`) are not lost to the default, which writes one slice per call.
    fn write_vectored(&mut self, slices: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
        let n = self.inner.write_vectored(slices)?;
        self.position += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// What to do with a dictionary a batch uses.
enum Change {
    Unchanged,
    Delta(ArrayData),
    Replace,
}

pub(crate) struct WriterCore<W: Write> {
    pub out: Counting<W>,
    pub schema: SchemaRef,
    pub ids: DictionaryIds,
    pub options: WriteOptions,
    /// Whether this is a file (no dictionary replacement, blocks recorded).
    file: bool,
    /// The dictionary each id currently stands for (after deltas).
    sent: HashMap<i64, Arc<ArrayData>>,
    /// Ids whose dictionary the batch being written has already settled.
    this_batch: HashSet<i64>,
    pub dictionary_blocks: Vec<fb::Block>,
    pub batch_blocks: Vec<fb::Block>,
    fbb: FlatBufferBuilder<'static>,
    /// Codec contexts kept from one message to the next, one per compression thread.
    compressors: Vec<Compressor>,
}

impl<W: Write> WriterCore<W> {
    /// Writes the schema message.
    pub fn new(
        out: Counting<W>,
        schema: SchemaRef,
        ids: Option<DictionaryIds>,
        options: WriteOptions,
        file: bool,
    ) -> Result<Self> {
        for field in schema.fields().iter() {
            reject_nested_dictionary(field.data_type(), field.name())?;
        }
        let ids = match ids {
            // Re-checked against this schema: the caller may have built them for another.
            Some(ids) => DictionaryIds::try_new(&schema, ids.ids().to_vec())?,
            None => DictionaryIds::sequential(&schema),
        };
        let mut core = Self {
            out,
            schema,
            ids,
            options,
            file,
            sent: HashMap::new(),
            this_batch: HashSet::new(),
            dictionary_blocks: Vec::new(),
            batch_blocks: Vec::new(),
            fbb: FlatBufferBuilder::new(),
            compressors: Vec::new(),
        };
        core.fbb.reset();
        let encoding = core.schema_encoding();
        let header = encode_schema(&mut core.fbb, &core.schema, &core.ids, encoding);
        finish_message(
            &mut core.fbb,
            fb::MessageHeader::Schema,
            header.as_union_value(),
            0,
            &Metadata::new(),
            core.options.namespace(),
        );
        write_message(
            &mut core.out,
            core.fbb.finished_data(),
            None,
            core.options.alignment(),
        )?;
        Ok(core)
    }

    /// How the schema is written, in the stream's first message and a file's footer alike:
    /// the features the stream may use (a stream with dictionaries may replace them; a
    /// file never does) and the namespace of reserved keys.
    pub fn schema_encoding(&self) -> SchemaEncoding {
        SchemaEncoding {
            namespace: self.options.namespace(),
            compressed_body: self.options.compression() != Compression::None,
            dictionary_replacement: !self.file && !self.ids.ids().is_empty(),
        }
    }

    /// Writes the dictionaries `batch` needs that were not sent yet, then `batch`.
    pub fn write(&mut self, batch: &RecordBatch, metadata: &Metadata) -> Result<()> {
        if !batch.schema().eq_ignoring_metadata(&self.schema) {
            return Err(IpcError::invalid_argument(format!(
                "the batch's schema ({}) differs from the writer's ({})",
                batch.schema(),
                self.schema
            )));
        }
        let mut encoder = Encoder::new(&self.ids, 0);
        for column in batch.columns() {
            encoder.array(&column.to_data())?;
        }
        let mut encoded = encoder.finish();
        self.this_batch.clear();
        for found in std::mem::take(&mut encoded.dictionaries) {
            self.dictionary(found)?;
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
        finish_message(
            &mut self.fbb,
            fb::MessageHeader::RecordBatch,
            table.as_union_value(),
            body.len(),
            metadata,
            self.options.namespace(),
        );
        let block = self.message(Some(&body))?;
        self.batch_blocks.push(block);
        Ok(())
    }

    fn message(&mut self, body: Option<&Body>) -> Result<fb::Block> {
        let start = self.out.position;
        let (meta, body) = write_message(
            &mut self.out,
            self.fbb.finished_data(),
            body,
            self.options.alignment(),
        )?;
        Ok(fb::Block::new(start as i64, meta as i32, body as i64))
    }

    fn dictionary(&mut self, found: FoundDictionary) -> Result<()> {
        let FoundDictionary {
            id,
            position,
            values,
        } = found;
        let change = match self.sent.get(&id) {
            None => Change::Replace,
            Some(previous) => compare(previous, &values, self.options.dictionary_deltas()),
        };
        let settled = !self.this_batch.insert(id);
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
            Change::Replace if self.file && self.sent.contains_key(&id) => {
                return Err(IpcError::invalid_argument(format!(
                    "dictionary {id} changed between batches: a file holds one dictionary per \
                     id (it may grow by deltas); write a stream to replace dictionaries"
                )));
            }
            Change::Replace => (values.as_ref(), false),
        };
        let mut encoder = Encoder::new(&self.ids, position + 1);
        encoder.array(written)?;
        let mut encoded = encoder.finish();
        for nested in std::mem::take(&mut encoded.dictionaries) {
            self.dictionary(nested)?;
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
        finish_message(
            &mut self.fbb,
            fb::MessageHeader::DictionaryBatch,
            header.as_union_value(),
            body.len(),
            &Metadata::new(),
            self.options.namespace(),
        );
        let block = self.message(Some(&body))?;
        self.dictionary_blocks.push(block);
        self.sent.insert(id, values);
        Ok(())
    }

    /// The end-of-stream marker.
    pub fn write_end(&mut self) -> Result<()> {
        self.out.write_all(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])?;
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

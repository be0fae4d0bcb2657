//! The body of a record batch or dictionary batch message, back to arrays.
//!
//! The walk mirrors the writer's: depth first, in field order, taking one field node per
//! array and the buffers its layout lists. Every count and range read from the message is
//! checked before it is used; buffers are slices of the body (no copy) unless they are
//! compressed, misaligned for their type, or written in the other byte order.

use std::collections::BTreeMap;
use std::sync::Arc;

use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};
use alkaid_schema::{DataType, Fields, NativeKind, PhysicalType};

use crate::codec::round_robin;
use crate::codec::{Decompressor, DecompressorPool};
use crate::dictionary::{DictionaryIds, count_dictionaries};
use crate::error::{IpcError, Result};
use crate::fb;
use crate::path::Path;
use crate::read::body::parts::Body;

/// The bytes decompressing a compressed buffer makes, as its 8-byte prefix declares
/// them: 0 for an empty buffer, for one stored as it is (-1: a slice of the body, nothing
/// made), and for one too short to have a prefix (the decompression refuses those).
fn declared_len(compressed: &Buffer) -> u64 {
    let Some(prefix) = compressed.get(..8) else {
        return 0;
    };
    match i64::from_le_bytes(prefix.try_into().expect("8 bytes")) {
        -1 => 0,
        declared => u64::try_from(declared).unwrap_or(0),
    }
}

/// Everything a body walk reads from.
pub(crate) struct BodyReader<'a> {
    // The message's vectors, looked up once: each accessor call is a vtable lookup.
    nodes: Option<flatbuffers::Vector<'a, fb::FieldNode>>,
    buffers: Option<flatbuffers::Vector<'a, fb::Buffer>>,
    variadic_counts: Option<flatbuffers::Vector<'a, i64>>,
    codec: Option<fb::CompressionType>,
    pub body: &'a Body,
    pub ids: &'a DictionaryIds,
    pub dictionaries: &'a BTreeMap<i64, Arc<ArrayData>>,
    /// Byte-swap fixed-width values (the schema says big-endian).
    pub swap: bool,
    /// Metadata V4: every type but Null carries a validity buffer, unions and run-end
    /// encoded arrays an empty placeholder.
    pub legacy_validity: bool,
    /// The caller vouched for the input (`ReadOptions::skip_full_validation`): null counts
    /// are taken from the message instead of counted, keeping decoding independent of size.
    pub trusted: bool,
    /// The most bytes the walk's compressed buffers may decompress to, together
    /// (`ReadOptions::with_max_decompressed_bytes`); `None` for no bound.
    pub decompression_limit: Option<usize>,
    /// The bytes the walk's compressed buffers declared so far.
    declared: u64,
    pub cursor: usize,
    /// Codec contexts lent by the reader for this walk of a compressed body (one per
    /// thread), given back when the walk is dropped; none for an uncompressed body, whose
    /// walk then takes no lock.
    contexts: Vec<Decompressor>,
    pool: &'a DecompressorPool,
    /// Buffers decompressed ahead on several threads, by buffer index (`None` once taken,
    /// or where the location lies outside the body and `next_buffer` reports it).
    decompressed: Vec<Option<Result<Buffer>>>,
    node: usize,
    buffer: usize,
    variadic: usize,
}

impl Drop for BodyReader<'_> {
    fn drop(&mut self) {
        self.pool.give_back(std::mem::take(&mut self.contexts));
    }
}

impl<'a> BodyReader<'a> {
    /// A walk over `body` as `batch` lays it out.
    ///
    /// # Errors
    /// If the message asks for a body compression method other than per-buffer.
    pub fn new(
        batch: fb::RecordBatch<'a>,
        body: &'a Body,
        ids: &'a DictionaryIds,
        dictionaries: &'a BTreeMap<i64, Arc<ArrayData>>,
        cursor: usize,
        pool: &'a DecompressorPool,
    ) -> Result<Self> {
        let codec = match batch.compression() {
            None => None,
            Some(compression) if compression.method() == fb::BodyCompressionMethod::BUFFER => {
                Some(compression.codec())
            }
            Some(compression) => {
                return Err(IpcError::unsupported(format!(
                    "body compression method {}",
                    compression.method().0
                )));
            }
        };
        Ok(Self {
            nodes: batch.nodes(),
            buffers: batch.buffers(),
            variadic_counts: batch.variadicBufferCounts(),
            codec,
            body,
            ids,
            dictionaries,
            swap: false,
            legacy_validity: false,
            trusted: false,
            decompression_limit: None,
            declared: 0,
            cursor,
            contexts: if codec.is_some() {
                pool.lend()
            } else {
                Vec::new()
            },
            pool,
            decompressed: Vec::new(),
            node: 0,
            buffer: 0,
            variadic: 0,
        })
    }

    /// Checks that the walk used every node and buffer the message lists.
    pub fn finish(&self) -> Result<()> {
        let nodes = self.nodes.map_or(0, |n| n.len());
        let buffers = self.buffers.map_or(0, |b| b.len());
        if self.node != nodes || self.buffer != buffers {
            return Err(IpcError::malformed(format!(
                "the message lists {nodes} field nodes and {buffers} buffers, but its schema \
                 uses {} and {}",
                self.node, self.buffer
            )));
        }
        Ok(())
    }

    /// Decompresses the buffers of a compressed body now, on up to `threads` threads,
    /// each with its own codec contexts; `next_buffer` then takes them in walk order.
    /// `wanted`, when given, says which of the top-level `fields` the walk will read: the
    /// buffers of the others are left alone. Errors stay with their buffer and are reported
    /// when the walk reaches it, with its path, as when decompressing one at a time.
    pub fn decompress_ahead(&mut self, threads: usize, fields: &Fields, wanted: Option<&[bool]>) {
        let (Some(codec), Some(locations)) = (self.codec, self.buffers) else {
            return;
        };
        if threads <= 1 || locations.len() <= 1 {
            return;
        }
        let mut located: Vec<Option<Buffer>> = locations.iter().map(|l| self.located(l)).collect();
        if let Some(limit) = self.decompression_limit {
            // What would pass the limit is reported by the walk, buffer by buffer, before
            // it is decompressed; nothing is decompressed ahead for such a message.
            let declared: u64 = located.iter().flatten().map(declared_len).sum();
            if declared > limit as u64 {
                return;
            }
        }
        if let Some(wanted) = wanted {
            // A message whose walk fails here fails the same way in the real walk, which
            // then reports it with its path; nothing is decompressed ahead for it.
            let Some(spans) = self.wanted_spans(fields, wanted) else {
                return;
            };
            let mut keep = vec![false; located.len()];
            for span in spans {
                keep[span].fill(true);
            }
            for (bytes, keep) in located.iter_mut().zip(keep) {
                if !keep {
                    *bytes = None;
                }
            }
        }
        self.decompressed = round_robin(
            &located,
            threads,
            &mut self.contexts,
            Decompressor::default,
            |d, bytes| bytes.as_ref().map(|bytes| d.decompress(codec, bytes)),
        );
    }

    /// The range of buffer indices each of `fields` takes in this walk, found by stepping
    /// over them; the walk is back where it started afterwards. `None` if the message is
    /// short of nodes or buffers.
    pub fn buffer_spans(&mut self, fields: &Fields) -> Option<Vec<std::ops::Range<usize>>> {
        let start = (self.node, self.buffer, self.variadic, self.cursor);
        let spans = fields
            .iter()
            .map(|field| {
                let first = self.buffer;
                self.skip(field.data_type(), Path::Root(field.name()))
                    .ok()
                    .map(|()| first..self.buffer)
            })
            .collect();
        (self.node, self.buffer, self.variadic, self.cursor) = start;
        spans
    }

    /// The buffer spans (see [`buffer_spans`](Self::buffer_spans)) of the `fields` that
    /// `wanted` marks, in walk order: the buffers a projected walk reads.
    pub fn wanted_spans(
        &mut self,
        fields: &Fields,
        wanted: &[bool],
    ) -> Option<Vec<std::ops::Range<usize>>> {
        let spans = self.buffer_spans(fields)?;
        Some(
            spans
                .into_iter()
                .zip(wanted)
                .filter_map(|(span, &wanted)| wanted.then_some(span))
                .collect(),
        )
    }

    /// Steps over one array of `data_type` and everything below it, as [`array`] would
    /// read it, without touching its buffers: a column the reader does not decode.
    ///
    /// # Errors
    /// If the message has too few field nodes, buffers or variadic buffer counts.
    ///
    /// [`array`]: Self::array
    pub fn skip(&mut self, data_type: &DataType, path: Path<'_>) -> Result<()> {
        let spec = layout(data_type);
        self.next_node(spec.has_validity, path)?;
        let validity = spec.has_validity
            || (self.legacy_validity && data_type.to_physical() != PhysicalType::Null);
        self.skip_buffers(usize::from(validity) + spec.buffers.len(), path)?;
        if spec.variadic {
            let count = self.next_variadic_count(path)?;
            self.skip_buffers(count, path)?;
        }
        if spec.children != ChildSpec::None {
            for field in data_type.children() {
                self.skip(field.data_type(), path.child(field.name()))?;
            }
        }
        // As `dictionary` does: the position of this dictionary and of those in its values.
        if let DataType::Dictionary { value, .. } = data_type {
            self.cursor += 1 + count_dictionaries(value);
        }
        Ok(())
    }

    fn skip_buffers(&mut self, count: usize, path: Path<'_>) -> Result<()> {
        let listed = self.buffers.map_or(0, |b| b.len());
        if listed - self.buffer < count {
            return Err(IpcError::malformed(format!(
                "{path}: the message has too few buffers"
            )));
        }
        self.buffer += count;
        Ok(())
    }

    /// The bytes of the body at `location`, or `None` if they lie outside it (or outside
    /// the parts of it that were read).
    fn located(&self, location: &fb::Buffer) -> Option<Buffer> {
        let start = usize::try_from(location.offset()).ok()?;
        let length = usize::try_from(location.length()).ok()?;
        self.body.slice(start, length)
    }

    /// The next field node's length and null count. The null count of a type without a
    /// validity bitmap (Null, unions, run-end encoded) says nothing and is not read, as in
    /// Arrow C++: apache-arrow JS writes −1 for a sliced Null column.
    fn next_node(&mut self, has_validity: bool, path: Path<'_>) -> Result<(usize, usize)> {
        let node = self
            .nodes
            .and_then(|nodes| (self.node < nodes.len()).then(|| nodes.get(self.node)))
            .ok_or_else(|| {
                IpcError::malformed(format!("{path}: the message has too few field nodes"))
            })?;
        self.node += 1;
        let length = usize::try_from(node.length())
            .map_err(|_| IpcError::malformed(format!("{path}: length {}", node.length())))?;
        let nulls = match has_validity {
            true => usize::try_from(node.null_count()).map_err(|_| {
                IpcError::malformed(format!("{path}: null count {}", node.null_count()))
            })?,
            false => 0,
        };
        Ok((length, nulls))
    }

    fn next_buffer(&mut self, path: Path<'_>) -> Result<Buffer> {
        let location = self
            .buffers
            .and_then(|buffers| (self.buffer < buffers.len()).then(|| buffers.get(self.buffer)))
            .ok_or_else(|| {
                IpcError::malformed(format!("{path}: the message has too few buffers"))
            })?;
        let index = self.buffer;
        self.buffer += 1;
        let Some(bytes) = self.located(location) else {
            return Err(IpcError::malformed(format!(
                "{path}: buffer {index} ({} bytes at {}) lies outside the {}-byte body",
                location.length(),
                location.offset(),
                self.body.len()
            )));
        };
        if self.codec.is_some() {
            self.charge_declared(&bytes, index, path)?;
        }
        let ahead = self.decompressed.get_mut(index).and_then(Option::take);
        match (self.codec, ahead) {
            (None, _) => Ok(bytes),
            (Some(_), Some(result)) => {
                result.map_err(|e| e.context(format!("{path}: buffer {index}")))
            }
            (Some(codec), None) => {
                if self.contexts.is_empty() {
                    self.contexts.push(Decompressor::default());
                }
                self.contexts[0]
                    .decompress(codec, &bytes)
                    .map_err(|e| e.context(format!("{path}: buffer {index}")))
            }
        }
    }

    /// Counts the uncompressed size compressed buffer `index` declares against the walk's
    /// limit, refusing the buffer before it is decompressed when it would pass it.
    fn charge_declared(&mut self, bytes: &Buffer, index: usize, path: Path<'_>) -> Result<()> {
        let Some(limit) = self.decompression_limit else {
            return Ok(());
        };
        let declared = declared_len(bytes);
        self.declared = self.declared.saturating_add(declared);
        if self.declared > limit as u64 {
            return Err(IpcError::limit(format!(
                "{path}: buffer {index} declares {declared} bytes uncompressed, which takes the \
                 message past its limit of {limit} decompressed bytes \
                 (ReadOptions::with_max_decompressed_bytes)"
            )));
        }
        Ok(())
    }

    fn next_variadic_count(&mut self, path: Path<'_>) -> Result<usize> {
        let count = self
            .variadic_counts
            .and_then(|counts| (self.variadic < counts.len()).then(|| counts.get(self.variadic)))
            .ok_or_else(|| {
                IpcError::malformed(format!("{path}: no variadic buffer count for a view array"))
            })?;
        self.variadic += 1;
        let remaining = self.buffers.map_or(0, |b| b.len()) - self.buffer;
        usize::try_from(count)
            .ok()
            .filter(|&c| c <= remaining)
            .ok_or_else(|| {
                IpcError::malformed(format!(
                    "{path}: {count} variadic buffers, but the message has {remaining} left"
                ))
            })
    }

    /// Reads one array of `data_type`, and everything below it.
    pub fn array(&mut self, data_type: &DataType, path: Path<'_>) -> Result<ArrayData> {
        let spec = layout(data_type);
        let (length, null_count) = self.next_node(spec.has_validity, path)?;
        let physical = data_type.to_physical();
        let mut nulls = None;
        if spec.has_validity || (self.legacy_validity && physical != PhysicalType::Null) {
            let validity = self.next_buffer(path)?;
            if spec.has_validity && null_count > 0 {
                let bits = BooleanBuffer::try_new(validity, 0, length)
                    .map_err(|e| IpcError::malformed(format!("{path}: validity bitmap: {e}")))?;
                nulls = Some(if self.trusted && null_count <= length {
                    // SAFETY: the caller of the reader took responsibility for the input's
                    // validity (`ReadOptions::skip_full_validation`, an unsafe fn whose
                    // contract includes correct null counts).
                    unsafe { NullBuffer::new_unchecked(bits, null_count) }
                } else {
                    let counted = NullBuffer::new(bits);
                    if counted.null_count() != null_count {
                        return Err(IpcError::malformed(format!(
                            "{path}: the field node declares {null_count} nulls, but the \
                             validity bitmap has {}",
                            counted.null_count()
                        )));
                    }
                    counted
                });
            }
        }
        // Parts are collected first and handed to the builder once: builders move by value.
        let mut buffers = Vec::with_capacity(spec.buffers.len() + usize::from(spec.variadic));
        for buffer_spec in spec.buffers.iter() {
            let buffer = self.next_buffer(path)?;
            let buffer = match buffer_spec {
                BufferSpec::Offsets { width } if length == 0 => empty_offsets(buffer, *width),
                _ => buffer,
            };
            buffers.push(self.native(buffer, *buffer_spec, physical));
        }
        if spec.variadic {
            let count = self.next_variadic_count(path)?;
            buffers.reserve_exact(count);
            for _ in 0..count {
                buffers.push(self.next_buffer(path)?);
            }
        }
        let mut children = Vec::new();
        if spec.children != ChildSpec::None {
            let fields = data_type.children();
            children.reserve_exact(fields.len());
            for field in fields {
                children.push(self.array(field.data_type(), path.child(field.name()))?);
            }
        }
        let dictionary = match data_type {
            DataType::Dictionary { value, .. } => {
                Some(self.dictionary(value, null_count == length, path)?)
            }
            _ => None,
        };
        let mut builder = ArrayData::builder(data_type.clone())
            .len(length)
            .nulls(nulls)
            .buffers(buffers)
            .children(children);
        if let Some(dictionary) = dictionary {
            builder = builder.dictionary(dictionary);
        }
        // SAFETY: nothing reads the values of this array before the caller validates the
        // whole batch at `ValidationLevel::Full` (or the caller of the reader took that duty
        // with the documented `unsafe` option). The children were built by this function,
        // so they passed these structural checks already, and dictionaries are stored only
        // after validation; checking this level alone keeps the recursion above from ever
        // seeing mismatched lengths.
        match unsafe { builder.build_structural_shallow() } {
            Ok(data) => Ok(data),
            Err(e) => Err(structural_error(e, path)),
        }
    }

    /// The dictionary of the next dictionary-encoded array in the walk, whose values are
    /// of type `value`. A column whose every slot is null may come before its dictionary
    /// (the spec allows a stream to send the dictionary later): it gets an empty one.
    fn dictionary(
        &mut self,
        value: &DataType,
        all_null: bool,
        path: Path<'_>,
    ) -> Result<Arc<ArrayData>> {
        let id = self.ids.id_at(self.cursor);
        self.cursor += 1 + count_dictionaries(value);
        match self.dictionaries.get(&id) {
            Some(dictionary) => Ok(dictionary.clone()),
            None if all_null => Ok(Arc::new(ArrayData::new_empty(value))),
            None => Err(IpcError::malformed(format!(
                "{path}: dictionary id {id} is used by non-null keys before any dictionary \
                 batch defines it"
            ))),
        }
    }

    /// `buffer` in native byte order and aligned for `spec`.
    fn native(&self, buffer: Buffer, spec: BufferSpec, physical: PhysicalType) -> Buffer {
        let (align, swap): (usize, &[usize]) = match spec {
            BufferSpec::Bitmap | BufferSpec::Data | BufferSpec::TypeIds => (1, &[]),
            BufferSpec::Fixed { width, align } => (align, swap_pattern(physical, width)),
            BufferSpec::Offsets { width }
            | BufferSpec::ViewOffsets { width }
            | BufferSpec::Sizes { width } => (width, if width == 4 { &[4] } else { &[8] }),
            BufferSpec::UnionOffsets => (4, &[4]),
            BufferSpec::Views => (4, &[]),
        };
        let buffer = if self.swap && !swap.is_empty() {
            swap_bytes(&buffer, swap)
        } else if self.swap && spec == BufferSpec::Views {
            swap_views(&buffer)
        } else {
            buffer
        };
        buffer.realigned(align)
    }
}

/// Kept out of line: the walk's hot path then moves each built array straight out.
#[cold]
fn structural_error(error: alkaid_data::DataError, path: Path<'_>) -> IpcError {
    IpcError::from(error).context(path)
}

/// The offsets of an array without slots. Arrow C++ writes such an array's one offset as it
/// was in memory (`[5]` with an empty child, say) where it rebases every other array's to
/// start at 0; the spec only recommends 0. The value says nothing for an empty array, so it
/// becomes 0 here and every kernel sees a plain empty array.
fn empty_offsets(buffer: Buffer, width: usize) -> Buffer {
    if buffer.len() < width || buffer[..width].iter().all(|&b| b == 0) {
        return buffer;
    }
    Buffer::from_slice_ref(&[0u8; 8][..width])
}

/// The widths of the integers inside one fixed-width value, for byte swapping.
fn swap_pattern(physical: PhysicalType, width: usize) -> &'static [usize] {
    match (physical, width) {
        (PhysicalType::Primitive(NativeKind::DayTime), _) => &[4, 4],
        (PhysicalType::Primitive(NativeKind::MonthDayNano), _) => &[4, 4, 8],
        (PhysicalType::Primitive(_) | PhysicalType::Dictionary(_), 2) => &[2],
        (PhysicalType::Primitive(_) | PhysicalType::Dictionary(_), 4) => &[4],
        (PhysicalType::Primitive(_) | PhysicalType::Dictionary(_), 8) => &[8],
        (PhysicalType::Primitive(_), 16) => &[16],
        (PhysicalType::Primitive(_), 32) => &[32],
        _ => &[],
    }
}

/// A copy of `buffer` with every integer reversed, `pattern` giving their widths in turn.
fn swap_bytes(buffer: &Buffer, pattern: &[usize]) -> Buffer {
    let mut out = buffer.to_vec();
    let mut at = 0;
    'outer: loop {
        for &width in pattern {
            let Some(chunk) = out.get_mut(at..at + width) else {
                break 'outer;
            };
            chunk.reverse();
            at += width;
        }
    }
    Buffer::from(out.as_slice())
}

/// Views from a big-endian writer: the length, buffer index and offset are integers; the
/// inline bytes and the prefix are bytes and stay as they are.
fn swap_views(buffer: &Buffer) -> Buffer {
    let mut out = buffer.to_vec();
    for view in out.chunks_exact_mut(16) {
        view[..4].reverse();
        let length = i32::from_le_bytes(view[..4].try_into().expect("4 bytes"));
        if length > 12 {
            view[8..12].reverse();
            view[12..16].reverse();
        }
    }
    Buffer::from(out.as_slice())
}

// The tests compress with the default codecs.
#[cfg(all(test, feature = "lz4"))]
mod tests {
    use alkaid_array::{
        ArrayRef, DictionaryArray, Int32Array, ListArray, RecordBatch, StringArray,
        StringViewArray, StructArray,
    };
    use alkaid_buffer::OffsetBuffer;
    use alkaid_schema::{Field, Schema};

    use super::*;
    use crate::read::{Prefix, ReadOptions, parse_message, parse_prefix};
    use crate::{Compression, StreamWriter, WriteOptions};

    /// A batch with a nested column, a view column (variadic buffers) and a dictionary
    /// column whose keys are all null (so that it reads without its dictionary), written
    /// with LZ4; the record batch message's metadata and body.
    fn compressed_message() -> (RecordBatch, Vec<u8>, Body) {
        let long = "a string past twelve bytes";
        let list = ListArray::try_new(
            Arc::new(Field::new("item", DataType::Int32, true)),
            OffsetBuffer::from_lengths([2, 0, 1]),
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])),
            None,
        )
        .unwrap();
        let children: Vec<ArrayRef> = vec![
            Arc::new(list),
            Arc::new(StringArray::from(vec!["x", "yy", long])),
        ];
        let child_fields: Vec<Field> = children
            .iter()
            .zip(["l", "s"])
            .map(|(c, name)| Field::new(name, c.data_type().clone(), true))
            .collect();
        let nested = StructArray::try_new(child_fields.into(), children, None).unwrap();
        let keys = Int32Array::from(vec![None, None, None]);
        let words = DictionaryArray::try_new(keys, Arc::new(StringArray::from(vec!["w"]))).unwrap();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![1, 2, 3])),
            Arc::new(nested),
            Arc::new(StringViewArray::from_iter_values([long, "b", long])),
            Arc::new(words),
            Arc::new(Int32Array::from(vec![4, 5, 6])),
        ];
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
            .collect();
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
        let options = WriteOptions::default().with_compression(Compression::Lz4Frame);
        let mut writer =
            StreamWriter::try_new(Vec::new(), batch.schema().clone(), options).unwrap();
        writer.write(&batch).unwrap();
        let bytes = writer.into_inner().unwrap();
        // The last message before the end marker is the batch: walk the frames to it.
        let mut at = 0;
        let mut last = None;
        while let Some(Prefix::Message { header, metadata }) =
            parse_prefix(&bytes[at..], &ReadOptions::default()).unwrap()
        {
            let meta = bytes[at + header..at + header + metadata].to_vec();
            let body_len = parse_message(&meta, &ReadOptions::default())
                .unwrap()
                .bodyLength() as usize;
            let body_start = at + header + metadata;
            let body = Buffer::from(&bytes[body_start..body_start + body_len]);
            at = body_start + body_len;
            last = Some((meta, body));
        }
        let (meta, body) = last.unwrap();
        (batch, meta, Body::whole(body))
    }

    #[test]
    fn decompressing_ahead_takes_only_the_wanted_columns_buffers() {
        let (batch, meta, body) = compressed_message();
        let schema = batch.schema();
        let message = parse_message(&meta, &ReadOptions::default()).unwrap();
        let record = message.header_as_record_batch().unwrap();
        let ids = DictionaryIds::sequential(schema);
        let dictionaries = BTreeMap::new();
        let pool = DecompressorPool::default();
        // Where each column's buffers lie, by reading every column.
        let mut walk = BodyReader::new(record, &body, &ids, &dictionaries, 0, &pool).unwrap();
        let mut spans = Vec::new();
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            let first = walk.buffer;
            let data = walk
                .array(field.data_type(), Path::Root(field.name()))
                .unwrap();
            assert_eq!(data.len(), column.len());
            spans.push(first..walk.buffer);
        }
        walk.finish().unwrap();
        let wanted = [false, true, false, true, false];
        let mut reader = BodyReader::new(record, &body, &ids, &dictionaries, 0, &pool).unwrap();
        assert_eq!(reader.buffer_spans(schema.fields()), Some(spans.clone()));
        reader.decompress_ahead(2, schema.fields(), Some(&wanted));
        // The walk is where it started, and only the wanted columns' buffers are done.
        assert_eq!((reader.node, reader.buffer, reader.cursor), (0, 0, 0));
        for (span, wanted) in spans.iter().zip(wanted) {
            for i in span.clone() {
                assert_eq!(reader.decompressed[i].is_some(), wanted, "buffer {i}");
            }
        }
        // Stepping over the others and reading the wanted ones ends the walk exactly.
        for (field, wanted) in schema.fields().iter().zip(wanted) {
            let path = Path::Root(field.name());
            if wanted {
                reader.array(field.data_type(), path).unwrap();
            } else {
                reader.skip(field.data_type(), path).unwrap();
            }
        }
        reader.finish().unwrap();
    }
}

//! What every reader keeps between messages: the schema, dictionary ids and dictionaries.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use alkaid_array::{ArrayRef, RecordBatch, check_nullability, make_array, validate_field};
use alkaid_buffer::Buffer;
use alkaid_data::{ArrayData, ValidationLevel};
use alkaid_schema::{Field, Metadata, SchemaRef};

use crate::codec::DecompressorPool;
use crate::dictionary::{DictionaryIds, value_type_at};
use crate::error::{IpcError, IpcErrorKind, Result};
use crate::fb;
use crate::path::Path;
use crate::read::body::decode::BodyReader;
use crate::read::body::parts::Body;
use crate::read::options::ReadOptions;
use crate::read::projection::Projection;
use crate::schema::{HOST_ENDIANNESS, MAX_FIELD_DEPTH, decode_metadata, decode_schema, needs_swap};

/// One decoded message.
#[derive(Debug, Clone)]
pub enum Decoded {
    /// The schema of the batches to come (the columns the options select, when they select
    /// some), from the message that opens every stream.
    Schema(SchemaRef),
    /// A dictionary was defined, replaced or extended.
    Dictionary {
        /// Its id.
        id: i64,
        /// Whether the message extended the dictionary rather than replacing it.
        is_delta: bool,
    },
    /// A record batch and the custom metadata of its message.
    Batch(RecordBatch, Metadata),
}

/// The loop both stream readers' batch iterators share: dictionary messages are applied and
/// skipped, and the end of the stream ends it. Returns the next batch (or error) and whether
/// reading should stop for good (an error was returned).
pub(crate) fn next_batch(
    mut message: impl FnMut() -> Result<Option<Decoded>>,
) -> (Option<Result<(RecordBatch, Metadata)>>, bool) {
    loop {
        match message() {
            Ok(Some(Decoded::Batch(batch, metadata))) => {
                return (Some(Ok((batch, metadata))), false);
            }
            // `ReadState::decode` refuses a second schema, so only dictionaries remain.
            Ok(Some(Decoded::Dictionary { .. } | Decoded::Schema(_))) => {}
            Ok(None) => return (None, false),
            Err(e) => return (Some(Err(e)), true),
        }
    }
}

/// Verifier limits: deep enough for [`MAX_FIELD_DEPTH`] levels of fields (each level is a
/// few tables deep), far below what would exhaust the stack.
fn verifier(max_bytes: usize) -> flatbuffers::VerifierOptions {
    flatbuffers::VerifierOptions {
        max_depth: MAX_FIELD_DEPTH * 3 + 16,
        max_tables: 1 << 20,
        max_apparent_size: max_bytes.max(1 << 20),
        ignore_missing_null_terminator: false,
    }
}

/// Parses and verifies a `Message` flatbuffer.
pub(crate) fn parse_message<'a>(bytes: &'a [u8], options: &ReadOptions) -> Result<fb::Message<'a>> {
    let message =
        flatbuffers::root_with_opts::<fb::Message>(&verifier(options.max_metadata_bytes), bytes)?;
    match message.version() {
        fb::MetadataVersion::V4 | fb::MetadataVersion::V5 => Ok(message),
        other => Err(IpcError::unsupported(format!(
            "metadata version {} (only V4 and V5, format 0.8 and later, are read)",
            other.0 + 1
        ))),
    }
}

/// Parses and verifies a `Footer` flatbuffer.
pub(crate) fn parse_footer<'a>(bytes: &'a [u8], options: &ReadOptions) -> Result<fb::Footer<'a>> {
    Ok(flatbuffers::root_with_opts::<fb::Footer>(
        &verifier(options.max_metadata_bytes),
        bytes,
    )?)
}

#[derive(Debug, Default)]
pub(crate) struct ReadState {
    pub schema: Option<SchemaRef>,
    pub ids: DictionaryIds,
    /// Ordered rather than hashed: a file has a handful of dictionaries, and a lookup then
    /// costs a few comparisons instead of a SipHash of the id.
    /// Shared: every batch that uses a dictionary points at this one (O(1) per batch).
    dictionaries: BTreeMap<i64, Arc<ArrayData>>,
    /// The schema declares the other byte order than this machine's.
    swap: bool,
    /// A file: a dictionary id may be defined once (and extended by deltas), never
    /// replaced.
    pub one_dictionary_per_id: bool,
    pub options: ReadOptions,
    /// Codec contexts kept from one message to the next.
    decompressors: DecompressorPool,
    /// The columns decoded, when the options select some.
    projection: Option<Projection>,
}

impl ReadState {
    pub fn new(options: ReadOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// Takes the schema (from a stream's first message or a file's footer) and returns the
    /// batches' schema: the selected columns of it, when the options select some.
    ///
    /// # Errors
    /// If the schema is invalid or the options select a column it does not have.
    pub fn set_schema(&mut self, schema: fb::Schema<'_>) -> Result<SchemaRef> {
        let (decoded, ids) = decode_schema(schema)?;
        let decoded = Arc::new(decoded);
        self.projection = match &self.options.columns {
            Some(columns) => Some(Projection::resolve(columns, &decoded)?),
            None => None,
        };
        let batch_schema = self
            .projection
            .as_ref()
            .map_or_else(|| decoded.clone(), |p| p.schema.clone());
        self.swap = needs_swap(schema.endianness(), HOST_ENDIANNESS);
        self.schema = Some(decoded);
        self.ids = ids;
        Ok(batch_schema)
    }

    /// The schema of the batches read: the selected columns, or the whole schema.
    pub fn batch_schema(&self) -> Option<&SchemaRef> {
        match &self.projection {
            Some(projection) => Some(&projection.schema),
            None => self.schema.as_ref(),
        }
    }

    /// Whether the options leave some columns out.
    pub fn projects(&self) -> bool {
        self.projection.is_some()
    }

    /// Whether decoding the message `metadata` needs its body: `false` only for a
    /// dictionary batch that only columns left out use (the message is not checked
    /// further here; decoding it checks the rest).
    ///
    /// # Errors
    /// If the metadata is invalid.
    pub fn wants_dictionary(&self, metadata: &[u8]) -> Result<bool> {
        let Some(projection) = &self.projection else {
            return Ok(true);
        };
        let message = parse_message(metadata, &self.options)?;
        let Some(dictionary) = message.header_as_dictionary_batch() else {
            return Ok(true);
        };
        Ok(match self.ids.lookup(dictionary.id()) {
            Some(position) => projection
                .dictionaries
                .get(position)
                .copied()
                .unwrap_or(true),
            None => true,
        })
    }

    /// Decodes one message whose body is `body`.
    pub fn decode(&mut self, metadata: &[u8], body: Buffer) -> Result<Decoded> {
        self.decode_body(metadata, Body::whole(body))
    }

    /// The byte ranges of the body of the message `metadata` that decoding it needs, when
    /// that is less than the whole body: a record batch whose columns a projection leaves
    /// out. `None` means the whole body; ranges that the walk would refuse (out of the
    /// body, overflowing) are left out, and the walk reports them.
    ///
    /// # Errors
    /// If the metadata is invalid.
    pub fn needed_ranges(&self, metadata: &[u8]) -> Result<Option<Vec<Range<usize>>>> {
        let Some(projection) = &self.projection else {
            return Ok(None);
        };
        let message = parse_message(metadata, &self.options)?;
        let (Some(batch), Ok(len)) = (
            message.header_as_record_batch(),
            usize::try_from(message.bodyLength()),
        ) else {
            return Ok(None);
        };
        let (Some(schema), Some(locations)) = (&self.schema, batch.buffers()) else {
            return Ok(None);
        };
        let nothing = Body::from_parts(len, Vec::new());
        let mut walk = BodyReader::new(
            batch,
            &nothing,
            &self.ids,
            &self.dictionaries,
            0,
            &self.decompressors,
        )?;
        walk.legacy_validity = message.version() == fb::MetadataVersion::V4;
        let Some(spans) = walk.wanted_spans(schema.fields(), &projection.decoded) else {
            return Ok(None);
        };
        let mut ranges = Vec::new();
        for span in spans {
            // The spans were found by stepping over the listed buffers: all in range.
            for location in span.map(|i| locations.get(i)) {
                let start = usize::try_from(location.offset()).ok();
                let length = usize::try_from(location.length()).ok();
                if let (Some(start), Some(length)) = (start, length)
                    && let Some(end) = start.checked_add(length).filter(|&end| end <= len)
                {
                    ranges.push(start..end);
                }
            }
        }
        Ok(Some(ranges))
    }

    /// Decodes one message whose body, or the parts of it decoding needs, is `body`.
    pub fn decode_body(&mut self, metadata: &[u8], body: Body) -> Result<Decoded> {
        let message = parse_message(metadata, &self.options)?;
        let declared = message.bodyLength();
        if usize::try_from(declared).ok() != Some(body.len()) {
            return Err(IpcError::malformed(format!(
                "the message declares a {declared}-byte body, found {} bytes",
                body.len()
            )));
        }
        // Metadata V4 gives every type but Null a validity buffer, even the types that have
        // none (unions, run-end encoded): writers put an empty placeholder there.
        let legacy_validity = message.version() == fb::MetadataVersion::V4;
        match message.header_type() {
            fb::MessageHeader::Schema => {
                if self.schema.is_some() {
                    return Err(IpcError::malformed("a second schema message"));
                }
                let schema = message
                    .header_as_schema()
                    .ok_or_else(|| IpcError::malformed("the schema header is missing"))?;
                Ok(Decoded::Schema(self.set_schema(schema)?))
            }
            fb::MessageHeader::RecordBatch => {
                let batch = message
                    .header_as_record_batch()
                    .ok_or_else(|| IpcError::malformed("the record batch header is missing"))?;
                let metadata = decode_metadata(message.custom_metadata())?;
                Ok(Decoded::Batch(
                    self.record_batch(batch, &body, legacy_validity)?,
                    metadata,
                ))
            }
            fb::MessageHeader::DictionaryBatch => {
                let dictionary = message
                    .header_as_dictionary_batch()
                    .ok_or_else(|| IpcError::malformed("the dictionary batch header is missing"))?;
                self.dictionary(dictionary, &body, legacy_validity)
            }
            fb::MessageHeader::Tensor | fb::MessageHeader::SparseTensor => {
                Err(IpcError::malformed(
                    "a tensor message inside a stream of record batches (a tensor is a message \
                     of its own: read it with read_tensor or read_sparse_tensor)",
                ))
            }
            other => Err(IpcError::malformed(format!(
                "unknown message type {}",
                other.0
            ))),
        }
    }

    fn schema(&self) -> Result<&SchemaRef> {
        self.schema
            .as_ref()
            .ok_or_else(|| IpcError::malformed("a batch arrived before the schema"))
    }

    /// A walk over `body` whose first dictionary is at walk position `cursor`, set up from
    /// the schema's byte order and the reader's options.
    fn body_reader<'a>(
        &'a self,
        batch: fb::RecordBatch<'a>,
        body: &'a Body,
        cursor: usize,
        legacy_validity: bool,
    ) -> Result<BodyReader<'a>> {
        let mut reader = BodyReader::new(
            batch,
            body,
            &self.ids,
            &self.dictionaries,
            cursor,
            &self.decompressors,
        )?;
        reader.swap = self.swap;
        reader.legacy_validity = legacy_validity;
        reader.trusted = !self.options.full_validation;
        reader.decompression_limit = self.options.max_decompressed_bytes;
        if self.options.decompression_threads > 1 {
            // Only a record batch's columns can be left out; a dictionary batch read at all
            // is read whole.
            let schema = self.schema()?;
            let wanted = match &self.projection {
                Some(projection) if cursor == 0 => Some(projection.decoded.as_slice()),
                _ => None,
            };
            reader.decompress_ahead(self.options.decompression_threads, schema.fields(), wanted);
        }
        Ok(reader)
    }

    /// The checks of a decoded column beyond the walk's: full validation, at the strict
    /// level with the field's own rules when the options ask for it, and the nullability
    /// check when asked.
    fn check_column(&self, field: &Field, data: &ArrayData) -> Result<()> {
        if self.options.full_validation && self.options.strict_validation {
            // The data layer's strict checks, then nullability and extension values, as
            // `RecordBatch::validate` makes them at that level (its error names the field).
            return validate_field(field, data, ValidationLevel::Strict)
                .map_err(|e| IpcError::new(IpcErrorKind::InvalidData, e.to_string()));
        }
        self.validate(data, format_args!("column {}", field.name()))?;
        // Nullability is metadata (the spec's word), and other readers accept nulls in a
        // non-nullable field, so only the strict option refuses them, at any depth.
        if self.options.check_nullability {
            check_nullability(field, data)
                .map_err(|e| IpcError::malformed(format!("column {}: {e}", field.name())))?;
        }
        Ok(())
    }

    fn validate(&self, data: &ArrayData, path: impl std::fmt::Display) -> Result<()> {
        if self.options.full_validation {
            data.validate(ValidationLevel::Full)
                .map_err(|e| IpcError::from(e).context(path))?;
        }
        Ok(())
    }

    pub fn record_batch(
        &self,
        batch: fb::RecordBatch<'_>,
        body: &Body,
        legacy_validity: bool,
    ) -> Result<RecordBatch> {
        let schema = self.schema()?;
        let rows = usize::try_from(batch.length())
            .map_err(|_| IpcError::malformed(format!("batch length {}", batch.length())))?;
        let mut reader = self.body_reader(batch, body, 0, legacy_validity)?;
        let decoded = self.projection.as_ref().map(|p| p.decoded.as_slice());
        let mut columns: Vec<Option<ArrayRef>> = Vec::with_capacity(schema.fields().len());
        for (i, field) in schema.fields().iter().enumerate() {
            let path = Path::Root(field.name());
            if decoded.is_some_and(|decoded| !decoded[i]) {
                reader.skip(field.data_type(), path)?;
                columns.push(None);
                continue;
            }
            let data = reader.array(field.data_type(), path)?;
            if data.len() != rows {
                return Err(IpcError::malformed(format!(
                    "column {}: {} rows in a batch of {rows}",
                    field.name(),
                    data.len()
                )));
            }
            // A trusted read has nothing to check unless nullability is asked for.
            if self.options.full_validation || self.options.check_nullability {
                self.check_column(field, &data)?;
            }
            columns.push(Some(make_array(data)));
        }
        reader.finish()?;
        let (schema, columns) = match &self.projection {
            // A column selected twice is decoded once and shared.
            Some(projection) => (
                projection.schema.clone(),
                projection
                    .columns
                    .iter()
                    .filter_map(|&i| columns[i].clone())
                    .collect(),
            ),
            None => {
                // Every column was decoded; sized up front, since `flatten` cannot say so.
                let mut all = Vec::with_capacity(columns.len());
                all.extend(columns.into_iter().flatten());
                (schema.clone(), all)
            }
        };
        // SAFETY: one column per field of `schema`, each built from that field's own type by
        // the walk, and its length checked against the batch just above.
        Ok(unsafe { RecordBatch::new_unchecked(schema, columns, rows) })
    }

    fn dictionary(
        &mut self,
        dictionary: fb::DictionaryBatch<'_>,
        body: &Body,
        legacy_validity: bool,
    ) -> Result<Decoded> {
        let schema = self.schema()?;
        let id = dictionary.id();
        let position = self.ids.lookup(id).ok_or_else(|| {
            IpcError::malformed(format!("dictionary batch for id {id}, which no field uses"))
        })?;
        // The ids were read with this schema, so the position is one of its dictionaries.
        let is_delta = dictionary.isDelta();
        if self
            .projection
            .as_ref()
            .is_some_and(|p| !p.dictionaries.get(position).copied().unwrap_or(false))
        {
            // Only columns left out use it: not decoded, not kept.
            return Ok(Decoded::Dictionary { id, is_delta });
        }
        let value_type = value_type_at(schema, position)
            .cloned()
            .ok_or_else(|| IpcError::malformed(format!("dictionary id {id} has no field")))?;
        let batch = dictionary
            .data()
            .ok_or_else(|| IpcError::malformed(format!("dictionary batch {id} has no data")))?;
        let mut reader = self.body_reader(batch, body, position + 1, legacy_validity)?;
        let path = Path::Dictionary(id);
        let values = reader.array(&value_type, path)?;
        reader.finish()?;
        // Gives the codec contexts back before the dictionaries change.
        drop(reader);
        self.validate(&values, path)?;
        if !is_delta && self.one_dictionary_per_id && self.dictionaries.contains_key(&id) {
            return Err(IpcError::malformed(format!(
                "a replacement of dictionary id {id}, which the file already defines; a file \
                 holds one dictionary per id (deltas may extend it)"
            )));
        }
        let values = match (is_delta, self.dictionaries.get(&id)) {
            (true, Some(existing)) => alkaid_data::concat(&[existing, &values])
                .map_err(|e| IpcError::from(e).context(path))?,
            (true, None) => {
                return Err(IpcError::malformed(format!(
                    "{path}: a delta for a dictionary never defined"
                )));
            }
            (false, _) => values,
        };
        self.dictionaries.insert(id, Arc::new(values));
        Ok(Decoded::Dictionary { id, is_delta })
    }
}

//! Writing Alkaid batches as Parquet.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use alkaid_array::{Array, RecordBatch};
use alkaid_arrow::arrow60::{batch_to_arrow, schema_to_arrow};
use alkaid_compute::variant::shred;
use alkaid_compute::{CastOptions, cast};
use alkaid_schema::{DataType, Field, Metadata, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::{ARROW_SCHEMA_META_KEY as ARROW_SCHEMA, ArrowSchemaConverter, ArrowWriter};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::error::{FormatError, Result};

/// A Parquet page codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// Pages as they are.
    Uncompressed,
    /// Snappy (pyarrow's default).
    Snappy,
    /// Gzip at a level from 0 to 9.
    Gzip(u32),
    /// Brotli at a level from 0 to 11.
    Brotli(u32),
    /// LZ4 (the raw form Parquet calls `LZ4_RAW`).
    Lz4,
    /// Zstandard at a level from 1 to 22.
    Zstd(i32),
}

/// Which statistics a writer keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statistics {
    /// None.
    None,
    /// Per column chunk (row group), which readers prune row groups with.
    Chunk,
    /// Per page too, with the page index (the default).
    Page,
}

/// How a Parquet file is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    codec: Codec,
    row_group_rows: usize,
    page_rows: usize,
    dictionary: bool,
    statistics: Statistics,
    coerce_types: bool,
    metadata: Vec<(String, String)>,
    /// Variant columns to shred, and the shape of each one's typed columns.
    shredding: Vec<(String, DataType)>,
    /// Whether Variant columns are marked with Parquet's `VARIANT` logical type.
    variant_logical_type: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            codec: Codec::Zstd(3),
            row_group_rows: 1 << 20,
            page_rows: 20_000,
            dictionary: true,
            statistics: Statistics::Page,
            coerce_types: true,
            metadata: Vec::new(),
            shredding: Vec::new(),
            variant_logical_type: true,
        }
    }
}

impl WriteOptions {
    /// The page codec (zstd at level 3 by default).
    pub fn with_codec(mut self, codec: Codec) -> Self {
        self.codec = codec;
        self
    }

    /// Rows per row group (1,048,576 by default; at least 1).
    pub fn with_row_group_rows(mut self, rows: usize) -> Self {
        self.row_group_rows = rows.max(1);
        self
    }

    /// Rows per data page at most (20,000 by default; at least 1; a page also ends at
    /// 1 MiB). Smaller pages let a reader with a predicate skip more of a row group, by the
    /// page index, at some cost in size.
    pub fn with_page_rows(mut self, rows: usize) -> Self {
        self.page_rows = rows.max(1);
        self
    }

    /// Whether columns are dictionary-encoded where it pays (on by default).
    pub fn with_dictionary(mut self, dictionary: bool) -> Self {
        self.dictionary = dictionary;
        self
    }

    /// Which statistics are kept ([`Statistics::Page`] by default).
    pub fn with_statistics(mut self, statistics: Statistics) -> Self {
        self.statistics = statistics;
        self
    }

    /// Whether types Parquet has no form for are stored as the nearest type other readers
    /// understand (on by default), as pyarrow stores them: `Date64` as `Date32`, times and
    /// timestamps in seconds as milliseconds (top-level columns), list and map entries
    /// under the names the Parquet specification gives. Off, they are stored as arrow-rs
    /// stores them, which arrow-rs (and this crate) read back exactly but pyarrow reads as
    /// plain integers.
    pub fn with_coerce_types(mut self, coerce: bool) -> Self {
        self.coerce_types = coerce;
        self
    }

    /// Adds a key-value pair to the file's metadata, after the schema's own (which every
    /// file keeps there, as Parquet's readers expect): a key the schema has too takes this
    /// value.
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.push((key.into(), value.into()));
        self
    }

    /// Writes the top-level Variant column `column` (`arrow.parquet.variant`) shredded into
    /// typed columns of the shape `typed`, as `alkaid_compute::variant::shred` shreds it:
    /// a struct for an object's fields, a list for an array's elements, a primitive type
    /// for values of the Variant type it holds. Readers that know shredding (DuckDB,
    /// Spark, Alkaid) read the same values; statistics of the typed columns let them skip
    /// row groups. A column already shredded is shredded again into this shape.
    ///
    /// ```
    /// use alkaid_formats::parquet::WriteOptions;
    /// use alkaid_schema::{DataType, Field};
    ///
    /// let shape = DataType::Struct(vec![Field::new("id", DataType::Int64, true)].into());
    /// let options = WriteOptions::default().with_variant_shredding("event", shape);
    /// # let _ = options;
    /// ```
    pub fn with_variant_shredding(mut self, column: impl Into<String>, typed: DataType) -> Self {
        self.shredding.push((column.into(), typed));
        self
    }

    /// Whether a Variant column (`arrow.parquet.variant`) is written as a group marked
    /// with Parquet's `VARIANT` logical type (on by default), which DuckDB, Spark and
    /// Alkaid read as Variants. Off, it is a plain group (its annotation kept in the
    /// stored Arrow schema, which Alkaid and arrow-rs read back): for readers that refuse
    /// the logical type, as Polars 2.1 refuses any file that has it.
    pub fn with_variant_logical_type(mut self, mark: bool) -> Self {
        self.variant_logical_type = mark;
        self
    }

    /// `schema` with each column to shred of its shredded type, and the shapes by column.
    fn shredded(&self, schema: &SchemaRef) -> Result<(SchemaRef, Vec<Option<DataType>>)> {
        let mut shapes = vec![None; schema.fields().len()];
        if self.shredding.is_empty() {
            return Ok((schema.clone(), shapes));
        }
        let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        for (name, shape) in &self.shredding {
            let refused = |why: String| {
                FormatError::new("writing Parquet", format!("shredding {name:?}: {why}"))
            };
            let i = schema.index_of(name).map_err(|e| refused(e.to_string()))?;
            let variant = matches!(
                alkaid_schema::extension::CanonicalExtension::of(&fields[i]),
                Ok(Some(
                    alkaid_schema::extension::CanonicalExtension::ParquetVariant
                ))
            );
            if !variant {
                return Err(refused("not an arrow.parquet.variant column".into()));
            }
            let empty = alkaid_array::make_builder(fields[i].data_type(), 0)
                .and_then(|mut b| b.try_finish())
                .map_err(|e| refused(e.to_string()))?;
            let shredded = shred(empty.as_ref(), shape).map_err(|e| refused(e.to_string()))?;
            fields[i] = fields[i]
                .clone()
                .with_data_type(shredded.data_type().clone());
            shapes[i] = Some(shape.clone());
        }
        Ok((
            Arc::new(Schema::new(fields).with_metadata(schema.metadata().clone())),
            shapes,
        ))
    }

    fn properties(&self, schema_metadata: &Metadata) -> Result<WriterProperties> {
        let bad = |e: parquet::errors::ParquetError| FormatError::new("the codec's level", e);
        let compression = match self.codec {
            Codec::Uncompressed => Compression::UNCOMPRESSED,
            Codec::Snappy => Compression::SNAPPY,
            Codec::Gzip(level) => Compression::GZIP(GzipLevel::try_new(level).map_err(bad)?),
            Codec::Brotli(level) => Compression::BROTLI(BrotliLevel::try_new(level).map_err(bad)?),
            Codec::Lz4 => Compression::LZ4_RAW,
            Codec::Zstd(level) => Compression::ZSTD(ZstdLevel::try_new(level).map_err(bad)?),
        };
        let statistics = match self.statistics {
            Statistics::None => EnabledStatistics::None,
            Statistics::Chunk => EnabledStatistics::Chunk,
            Statistics::Page => EnabledStatistics::Page,
        };
        let metadata = footer_metadata(schema_metadata, &self.metadata);
        Ok(WriterProperties::builder()
            .set_compression(compression)
            .set_max_row_group_row_count(Some(self.row_group_rows))
            .set_data_page_row_count_limit(self.page_rows)
            // The page limit is checked between the writer's mini-batches.
            .set_write_batch_size(self.page_rows.min(1024))
            .set_dictionary_enabled(self.dictionary)
            .set_statistics_enabled(statistics)
            .set_key_value_metadata(metadata)
            .set_coerce_types(self.coerce_types)
            .build())
    }
}

/// Alkaid batches being written as a Parquet file. Nothing is complete until
/// [`finish`](Self::finish): a Parquet file's footer is written last.
pub struct ParquetWriter<W: Write + Send> {
    inner: ArrowWriter<W>,
    /// The batches' schema.
    schema: SchemaRef,
    /// The schema stored: the batches', or with seconds as milliseconds, Variant columns
    /// shredded.
    stored: SchemaRef,
    /// The shape each Variant column to shred is shredded into, by column.
    shapes: Vec<Option<DataType>>,
}

impl<W: Write + Send> ParquetWriter<W> {
    /// A writer of batches of `schema` to `sink`.
    ///
    /// # Errors
    /// If a codec level is out of range, or arrow-rs cannot write the schema.
    pub fn try_new(sink: W, schema: SchemaRef, options: &WriteOptions) -> Result<Self> {
        let stored = match options.coerce_types {
            true => in_milliseconds(&schema),
            false => schema.clone(),
        };
        let (stored, shapes) = options.shredded(&stored)?;
        let arrow_schema = Arc::new(schema_to_arrow(&stored));
        let properties = options.properties(schema.metadata())?;
        let failed = |e| FormatError::new("writing Parquet", e);
        let converted = ArrowSchemaConverter::new()
            .with_coerce_types(options.coerce_types)
            .convert(&arrow_schema)
            .map_err(failed)?;
        let mut writer_options = ArrowWriterOptions::new().with_properties(properties);
        let marked = options
            .variant_logical_type
            .then(|| super::variant::marked(&arrow_schema, &converted))
            .flatten();
        if let Some(marked) = marked {
            writer_options = writer_options.with_parquet_schema(marked);
        }
        let inner = ArrowWriter::try_new_with_options(sink, arrow_schema, writer_options)
            .map_err(failed)?;
        Ok(Self {
            inner,
            schema,
            stored,
            shapes,
        })
    }

    /// Writes `batch`.
    ///
    /// # Errors
    /// If its schema is not the writer's, or writing fails.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if !batch.schema().eq_ignoring_metadata(&self.schema) {
            return Err(FormatError::new(
                "writing Parquet",
                format!(
                    "the batch's schema ({}) differs from the writer's ({})",
                    batch.schema(),
                    self.schema
                ),
            ));
        }
        let written = match Arc::ptr_eq(&self.schema, &self.stored) {
            true => batch.clone(),
            false => {
                let columns = batch
                    .columns()
                    .iter()
                    .zip(self.stored.fields().iter())
                    .zip(&self.shapes)
                    .map(|((column, field), shape)| match shape {
                        Some(shape) => shred(column.as_ref(), shape)
                            .map(|s| Arc::new(s) as alkaid_array::ArrayRef),
                        None if column.data_type() == field.data_type() => Ok(column.clone()),
                        None => cast(column.as_ref(), field.data_type(), CastOptions::STRICT),
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| FormatError::new("writing Parquet", e))?;
                RecordBatch::try_new(self.stored.clone(), columns)
                    .map_err(|e| FormatError::new("writing Parquet", e))?
            }
        };
        self.inner
            .write(&batch_to_arrow(&written))
            .map_err(|e| FormatError::new("writing Parquet", e))
    }

    /// Writes the last row group and the footer, and hands the sink back.
    ///
    /// # Errors
    /// If writing fails.
    pub fn finish(self) -> Result<W> {
        self.inner
            .into_inner()
            .map_err(|e| FormatError::new("writing Parquet", e))
    }
}

/// Writes `batches` (of `schema`) as the Parquet file at `path`.
///
/// # Errors
/// If the file cannot be created or a batch cannot be written.
pub fn write(
    path: impl AsRef<Path>,
    schema: SchemaRef,
    batches: impl IntoIterator<Item = RecordBatch>,
    options: &WriteOptions,
) -> Result<()> {
    let place = path.as_ref().display().to_string();
    let file = File::create(&path).map_err(|e| FormatError::new(&place, e))?;
    let mut writer = ParquetWriter::try_new(BufWriter::new(file), schema, options)?;
    for batch in batches {
        writer.write(&batch)?;
    }
    writer
        .finish()?
        .flush()
        .map_err(|e| FormatError::new(&place, e))
}

/// The footer's key-value metadata: the schema's (readers that know nothing of Arrow find
/// it there: Spark, DuckDB, parquet-mr), then the options', which replace a key the schema
/// has too. arrow-rs adds the encoded Arrow schema under `ARROW:schema` itself, so a key of
/// that name (from a schema read out of Parquet) is left to it. `None` when there is
/// nothing, as arrow-rs takes it.
fn footer_metadata(schema: &Metadata, options: &[(String, String)]) -> Option<Vec<KeyValue>> {
    let mut pairs: Vec<KeyValue> = schema
        .iter()
        .filter(|(key, _)| *key != ARROW_SCHEMA && !options.iter().any(|(k, _)| k == key))
        .map(|(key, value)| KeyValue::new(key.to_string(), value.to_string()))
        .collect();
    pairs.extend(
        options
            .iter()
            .filter(|(key, _)| key != ARROW_SCHEMA)
            .map(|(k, v)| KeyValue::new(k.clone(), v.clone())),
    );
    (!pairs.is_empty()).then_some(pairs)
}

/// `schema` with its top-level times and timestamps in seconds in milliseconds: Parquet
/// has no seconds unit, and a column arrow-rs writes in seconds is a plain integer to
/// pyarrow. The same schema (shared) when there are none.
fn in_milliseconds(schema: &SchemaRef) -> SchemaRef {
    let coerced = |data_type: &DataType| match data_type {
        DataType::Time(TimeUnit::Second) => Some(DataType::Time(TimeUnit::Millisecond)),
        DataType::Timestamp(TimeUnit::Second, zone) => {
            Some(DataType::Timestamp(TimeUnit::Millisecond, zone.clone()))
        }
        _ => None,
    };
    if !schema
        .fields()
        .iter()
        .any(|f| coerced(f.data_type()).is_some())
    {
        return schema.clone();
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match coerced(f.data_type()) {
            Some(data_type) => f.as_ref().clone().with_data_type(data_type),
            None => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new(fields).with_metadata(schema.metadata().clone()))
}

//! [`AlkaidFormat`]: Alkaid and Arrow IPC files as a DataFusion file format, and its
//! factory, so that `CREATE EXTERNAL TABLE … STORED AS ALKAID` and `COPY … TO 'x.alkaid'`
//! work once the factory is registered ([`register_alkaid_format`](crate::register_alkaid_format)).

use std::collections::HashMap;
use std::sync::Arc;

use alkaid_arrow::arrow59::schema_to_arrow;
use alkaid_ipc::{Compression, Magic, ReadOptions, WriteOptions};
use alkaid_ipc_async::AsyncFileReader;
use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::{GetExt, Result, Statistics, not_impl_err, plan_err};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSinkConfig, FileSource};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::physical_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;

use crate::error::file_error;
use crate::evolve::nullable_where_missing;
use crate::sink::AlkaidSink;
use crate::source::AlkaidSource;
use crate::store::StoreSource;

/// The file extension of Alkaid files, without the dot.
pub const EXTENSION: &str = "alkaid";

/// IPC files (`ALKAID1` or `ARROW1`, compressed or not) as a DataFusion [`FileFormat`]:
/// scans read through Alkaid's reader (projection pushed into the reads, one partition per
/// file or per byte range of batches, row counts as statistics), writes go through
/// Alkaid's writer with the [`WriteOptions`] given.
#[derive(Debug, Clone, Default)]
pub struct AlkaidFormat {
    write: WriteOptions,
}

impl AlkaidFormat {
    /// A format that writes with `options` (compression, magic).
    pub fn with_write_options(options: WriteOptions) -> Self {
        Self { write: options }
    }

    /// The options files are written with.
    pub fn write_options(&self) -> &WriteOptions {
        &self.write
    }
}

async fn open(
    store: &Arc<dyn ObjectStore>,
    object: &ObjectMeta,
) -> Result<AsyncFileReader<StoreSource>> {
    let source = StoreSource::new(Arc::clone(store), object.clone());
    AsyncFileReader::open(source, ReadOptions::default())
        .await
        .map_err(|e| file_error(object.location.as_ref(), e))
}

#[async_trait]
impl FileFormat for AlkaidFormat {
    fn get_ext(&self) -> String {
        EXTENSION.to_string()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        if compression.is_compressed() {
            // IPC compresses buffers inside the file; a compressed file is not IPC.
            return plan_err!(
                "Alkaid files compress their buffers (the 'compression' option), not the whole file"
            );
        }
        Ok(self.get_ext())
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        None
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let mut schemas = Vec::with_capacity(objects.len());
        for object in objects {
            let reader = open(store, object).await?;
            schemas.push(schema_to_arrow(&reader.schema()));
        }
        let merged = Schema::try_merge(schemas.clone())?;
        Ok(Arc::new(nullable_where_missing(merged, &schemas)))
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        // The footer lists the batches but not their lengths: each batch's metadata (a
        // few hundred bytes, never its body) says how many rows it has.
        let mut reader = open(store, object).await?;
        let mut rows = 0usize;
        for i in 0..reader.num_batches() {
            let batch_rows = reader
                .batch_rows(i)
                .await
                .map_err(|e| file_error(object.location.as_ref(), e))?;
            rows = rows.saturating_add(batch_rows);
        }
        let mut statistics = Statistics::new_unknown(&table_schema);
        statistics.num_rows = Precision::Exact(rows);
        statistics.total_byte_size = Precision::Inexact(object.size as usize);
        Ok(statistics)
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        config: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(DataSourceExec::from_data_source(config))
    }

    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        _state: &dyn Session,
        config: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if config.insert_op != InsertOp::Append {
            return not_impl_err!(
                "Alkaid tables take appends only (INSERT INTO, COPY TO), not {}",
                config.insert_op
            );
        }
        let sink = Arc::new(AlkaidSink::new(config, self.write.clone()));
        Ok(Arc::new(DataSinkExec::new(input, sink, order_requirements)))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(AlkaidSource::new(table_schema))
    }
}

/// Makes [`AlkaidFormat`]s for `STORED AS ALKAID` and for `COPY … TO 'x.alkaid'`, with the
/// statement's options: `'compression'` (`none`, `lz4`, `zstd`) and `'magic'` (`alkaid`
/// for `ALKAID1` files, `arrow` for `ARROW1` files that every Arrow reader opens).
#[derive(Debug, Clone, Default)]
pub struct AlkaidFormatFactory {
    defaults: WriteOptions,
}

impl AlkaidFormatFactory {
    /// A factory whose formats write with `defaults` unless a statement's options say
    /// otherwise.
    pub fn new(defaults: WriteOptions) -> Self {
        Self { defaults }
    }

    /// The options files are written with when a statement names none.
    pub fn write_options(&self) -> &WriteOptions {
        &self.defaults
    }
}

impl GetExt for AlkaidFormatFactory {
    fn get_ext(&self) -> String {
        EXTENSION.to_string()
    }
}

impl FileFormatFactory for AlkaidFormatFactory {
    fn create(
        &self,
        _state: &dyn Session,
        options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let mut write = self.defaults.clone();
        for (key, value) in options {
            // DataFusion passes statement options with their prefix, if any.
            let key = key.rsplit('.').next().unwrap_or(key).to_ascii_lowercase();
            let value = value.to_ascii_lowercase();
            write = match (key.as_str(), value.as_str()) {
                ("compression", "none" | "uncompressed") => {
                    write.with_compression(Compression::None)
                }
                ("compression", "lz4" | "lz4_frame") => {
                    write.with_compression(Compression::Lz4Frame)
                }
                ("compression", "zstd") => write.with_compression(Compression::ZSTD),
                ("magic", "alkaid") => write.with_magic(Magic::Alkaid),
                ("magic", "arrow") => write.with_magic(Magic::Arrow),
                ("compression" | "magic", _) => {
                    return plan_err!(
                        "unknown value {value:?} for the Alkaid format option {key:?} (compression: none, lz4, zstd; magic: alkaid, arrow)"
                    );
                }
                _ => {
                    return plan_err!(
                        "unknown Alkaid format option {key:?} (known: compression, magic)"
                    );
                }
            };
        }
        Ok(Arc::new(AlkaidFormat::with_write_options(write)))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(AlkaidFormat::with_write_options(self.defaults.clone()))
    }
}

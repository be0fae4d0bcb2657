//! [`AlkaidParquetFormat`]: Parquet files as a DataFusion file format read through
//! alkaid-formats, so that Parquet and IPC tables are scanned alike: the projection and
//! the filters Alkaid's kernels evaluate go into the read, where the filters also prune row
//! groups and pages by their statistics (`alkaid_formats::parquet::ParquetReadOptions::with_predicate`).
//!
//! DataFusion's own Parquet reader is left out on purpose: it is built on arrow-rs 59 and
//! would compile a second `parquet` crate beside alkaid-formats' (arrow-rs 60) into every
//! build with DataFusion. Writing Parquet from SQL (`COPY … TO 'x.parquet'`) is not
//! offered here; `alkaid convert` writes it.

use std::sync::Arc;

use alkaid_arrow::arrow59::schema_to_arrow;
use alkaid_formats::parquet::{self as pq, ParquetReadOptions};
use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::{GetExt, Result, Statistics, not_impl_err, plan_err};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::physical_plan::{FileScanConfig, FileSinkConfig, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::physical_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;

use crate::error::file_error;
use crate::evolve::nullable_where_missing;
use crate::source::AlkaidSource;
use crate::store::StoreSource;

/// The file extension of Parquet files, without the dot.
pub const PARQUET_EXTENSION: &str = "parquet";

/// Parquet files as a DataFusion [`FileFormat`], read through alkaid-formats: schemas
/// from the footers (merged when files differ), scans by [`AlkaidSource`] (one partition
/// per file or per byte range of row groups). Read only.
///
/// INT96 timestamps (Impala's, Hive's, Spark's) are read in nanoseconds, a value past
/// 2262 an error naming it, unless the session sets DataFusion's own option
/// `datafusion.execution.parquet.coerce_int96` to `'us'` ([`for_session`](Self::for_session)):
/// then in microseconds, Spark's resolution, which holds every such value.
#[derive(Debug, Clone, Default)]
pub struct AlkaidParquetFormat {
    int96_in_microseconds: bool,
}

/// The DataFusion option that chooses the unit INT96 timestamps are read in.
const COERCE_INT96: &str = "datafusion.execution.parquet.coerce_int96";

impl AlkaidParquetFormat {
    /// The format as `session`'s options ask: INT96 in microseconds when
    /// `datafusion.execution.parquet.coerce_int96` is `'us'`, in (checked) nanoseconds
    /// when it is `'ns'` or unset.
    ///
    /// # Errors
    /// For another unit (`'ms'`, `'s'`), or with `coerce_int96_tz` set: DataFusion's own
    /// reader offers those, Alkaid's does not, and reading them otherwise would give the
    /// table another type than the session asked for.
    pub fn for_session(session: &dyn Session) -> Result<Self> {
        let parquet = &session.config_options().execution.parquet;
        if let Some(zone) = &parquet.coerce_int96_tz {
            return plan_err!(
                "datafusion.execution.parquet.coerce_int96_tz = {zone:?}: Alkaid's Parquet \
                 tables read INT96 without a time zone"
            );
        }
        let int96_in_microseconds = match parquet.coerce_int96.as_deref() {
            None | Some("ns") => false,
            Some("us") => true,
            Some(unit) => {
                return plan_err!(
                    "{COERCE_INT96} = {unit:?}: Alkaid's Parquet tables read INT96 in 'ns' \
                     (a value past 2262 is an error) or 'us'"
                );
            }
        };
        Ok(Self {
            int96_in_microseconds,
        })
    }

    /// How alkaid-formats reads this format's files.
    fn read_options(&self) -> ParquetReadOptions {
        let options = ParquetReadOptions::default();
        match self.int96_in_microseconds {
            true => options.with_int96_as_microseconds(),
            false => options,
        }
    }
}

impl GetExt for AlkaidParquetFormat {
    fn get_ext(&self) -> String {
        PARQUET_EXTENSION.to_string()
    }
}

#[async_trait]
impl FileFormat for AlkaidParquetFormat {
    fn get_ext(&self) -> String {
        PARQUET_EXTENSION.to_string()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        if compression.is_compressed() {
            return plan_err!("Parquet compresses its pages, not the whole file");
        }
        Ok(PARQUET_EXTENSION.to_string())
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
            let source = StoreSource::new(Arc::clone(store), object.clone());
            let location = object.location.to_string();
            // Reading the footer is all that opening does; no page is fetched.
            let stream = pq::read_source(source, location.clone(), self.read_options())
                .await
                .map_err(|e| file_error(&location, e))?;
            schemas.push(schema_to_arrow(&stream.schema()));
        }
        let merged = Schema::try_merge(schemas.clone())?;
        Ok(Arc::new(nullable_where_missing(merged, &schemas)))
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        _object: &ObjectMeta,
    ) -> Result<Statistics> {
        Ok(Statistics::new_unknown(&table_schema))
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
        _input: Arc<dyn ExecutionPlan>,
        _state: &dyn Session,
        _config: FileSinkConfig,
        _order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        not_impl_err!(
            "Parquet tables read through Alkaid are read-only; `alkaid convert` writes Parquet"
        )
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(AlkaidSource::parquet(table_schema, self.read_options()))
    }
}

//! [`AlkaidSource`]: DataFusion's scan of Alkaid and Arrow IPC files, reading through
//! Alkaid's async file reader: only the selected columns' bytes are fetched, each file
//! (or each byte range of one, for parallel scans) is read batch by batch, and every batch
//! reaches DataFusion through the zero-copy bridge.

use std::sync::Arc;

use alkaid_arrow::arrow59::batch_to_arrow;
use alkaid_ipc::ReadOptions;
use alkaid_ipc_async::AsyncFileReader;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::Result;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileOpenFuture, FileOpener, FileScanConfig, FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::ObjectStore;
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_plan::PhysicalExpr;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use futures_util::StreamExt;

use crate::error::file_error;
use crate::store::StoreSource;

/// The [`FileSource`] of [`AlkaidFormat`](crate::AlkaidFormat): a scan of IPC files
/// (`ALKAID1` or `ARROW1`) with the table's projection pushed into the reads.
#[derive(Clone)]
pub struct AlkaidSource {
    table_schema: TableSchema,
    projection: SplitProjection,
    metrics: ExecutionPlanMetricsSet,
}

impl AlkaidSource {
    /// A scan of files of `table_schema`, every column selected.
    pub fn new(table_schema: impl Into<TableSchema>) -> Self {
        let table_schema = table_schema.into();
        Self {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl FileSource for AlkaidSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        _config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let file_schema = self.table_schema.file_schema();
        let columns = self.projection.file_indices.clone();
        let output = Arc::new(file_schema.project(&columns)?);
        let names = columns
            .iter()
            .map(|&i| file_schema.field(i).name().clone())
            .collect();
        let opener = Arc::new(AlkaidOpener {
            store: object_store,
            names,
            output,
        });
        ProjectionOpener::try_new(self.projection.clone(), opener, file_schema)
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, _batch_size: usize) -> Arc<dyn FileSource> {
        // Batches come out as the files hold them: slicing them would not save a copy.
        Arc::new(self.clone())
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "alkaid"
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut source = self.clone();
        let merged = self.projection.source.try_merge(projection)?;
        source.projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(source)))
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}

/// Opens one file (or one byte range of it) and streams its batches.
struct AlkaidOpener {
    store: Arc<dyn ObjectStore>,
    /// The selected columns, by name (a file may order its columns differently from the
    /// table's merged schema).
    names: Vec<String>,
    /// The schema of the batches handed on: the table's file schema, projected.
    output: SchemaRef,
}

impl FileOpener for AlkaidOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let source = StoreSource::new(Arc::clone(&self.store), file.object_meta.clone());
        let location = file.object_meta.location.to_string();
        let names = self.names.clone();
        let output = Arc::clone(&self.output);
        Ok(Box::pin(async move {
            let options = ReadOptions::default().with_column_names(names);
            let mut reader = AsyncFileReader::open(source, options)
                .await
                .map_err(|e| file_error(&location, e))?;
            if let Some(range) = &file.range {
                // A parallel scan splits files into byte ranges; a range reads the
                // batches that start inside it, so that each batch is read once.
                let (start, end) = (range.start.max(0) as u64, range.end.max(0) as u64);
                // The footer lists batches in file order, so those form one run.
                let starts: Vec<bool> = (0..reader.num_batches())
                    .map(|i| {
                        reader
                            .batch_offset(i)
                            .is_some_and(|at| start <= at && at < end)
                    })
                    .collect();
                let first = starts.iter().position(|&inside| inside);
                let last = starts.iter().rposition(|&inside| inside);
                let selected = match (first, last) {
                    (Some(first), Some(last)) => first..last + 1,
                    _ => 0..0,
                };
                reader
                    .select_batches(selected)
                    .map_err(|e| file_error(&location, e))?;
            }
            let stream = reader.into_stream().map(move |batch| {
                let batch = batch.map_err(|e| file_error(&location, e))?;
                // The table's field names, nullability and metadata for the file's columns
                // (the projection by name already undid any other column order).
                RecordBatch::try_new(
                    Arc::clone(&output),
                    batch_to_arrow(&batch).columns().to_vec(),
                )
                .map_err(|e| file_error(&location, e))
            });
            Ok(stream.boxed())
        }))
    }
}

//! [`AlkaidSource`]: DataFusion's scan of Alkaid and Arrow IPC files, reading through
//! Alkaid's async file reader: only the selected columns' bytes are fetched, each file
//! (or each byte range of one, for parallel scans) is read batch by batch, the filters the
//! scan took over (`filter.rs`) are evaluated with Alkaid's kernels and its filter, and
//! every batch reaches DataFusion through the zero-copy bridge. Parquet files are scanned
//! alike, through alkaid-formats, whose reader also prunes row groups and pages with the
//! filters.

use std::collections::BTreeSet;
use std::sync::Arc;

use alkaid_arrow::arrow59::array_to_arrow;
use alkaid_ipc::ReadOptions;
use alkaid_ipc_async::AsyncFileReader;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::common::Result;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::config::ConfigOptions;
use datafusion::datasource::listing::{FileRange, PartitionedFile};
use datafusion::datasource::physical_plan::{
    FileOpenFuture, FileOpener, FileScanConfig, FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::ObjectStore;
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_plan::PhysicalExpr;
use datafusion::physical_plan::filter_pushdown::{FilterPushdownPropagation, PushedDown};
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use futures_util::StreamExt;
use futures_util::future::ready;

use crate::error::file_error;
use crate::evolve::TableColumns;
use crate::store::StoreSource;
use alkaid_compute::Predicate;

/// What files a scan reads.
#[derive(Debug, Clone)]
enum ScanFormat {
    /// IPC files, through alkaid-ipc-async.
    Ipc,
    /// Parquet files, through alkaid-formats, with these options (the unit of INT96
    /// timestamps) beneath each file's projection, filters and byte range.
    Parquet(alkaid_formats::parquet::ParquetReadOptions),
}

/// The [`FileSource`] of [`AlkaidFormat`](crate::AlkaidFormat): a scan of IPC files
/// (`ALKAID1` or `ARROW1`) with the table's projection pushed into the reads, and the
/// query's filters that Alkaid's kernels evaluate (comparisons with literals or between
/// columns, null tests, `AND`, `OR`, `NOT`) evaluated on each batch before it is handed on.
#[derive(Clone)]
pub struct AlkaidSource {
    table_schema: TableSchema,
    projection: SplitProjection,
    /// Filters the scan took over, all of which a row must pass, with the expressions
    /// DataFusion gave for them.
    filters: Vec<(Predicate, Arc<dyn PhysicalExpr>)>,
    metrics: ExecutionPlanMetricsSet,
    format: ScanFormat,
}

impl AlkaidSource {
    /// A scan of files of `table_schema`, every column selected.
    pub fn new(table_schema: impl Into<TableSchema>) -> Self {
        let table_schema = table_schema.into();
        Self {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            filters: Vec::new(),
            metrics: ExecutionPlanMetricsSet::new(),
            format: ScanFormat::Ipc,
        }
    }

    /// A scan of Parquet files of `table_schema`, every column selected
    /// ([`AlkaidParquetFormat`](crate::AlkaidParquetFormat)'s), each file read with
    /// `options` (their columns, predicate and byte range are the scan's own).
    pub fn parquet(
        table_schema: impl Into<TableSchema>,
        options: alkaid_formats::parquet::ParquetReadOptions,
    ) -> Self {
        Self {
            format: ScanFormat::Parquet(options),
            ..Self::new(table_schema)
        }
    }

    /// Whether the scan reads Parquet files rather than IPC files.
    pub fn is_parquet(&self) -> bool {
        matches!(self.format, ScanFormat::Parquet(_))
    }

    /// The filters the scan took over, as DataFusion gave them (over the table's schema).
    pub fn filters(&self) -> impl Iterator<Item = &Arc<dyn PhysicalExpr>> {
        self.filters.iter().map(|(_, expr)| expr)
    }

    /// `self`, also evaluating `filter` (over the table's schema) on every batch.
    ///
    /// # Errors
    /// If `filter` is not one Alkaid's kernels evaluate (see [`AlkaidSource`]).
    pub fn with_filter(mut self, filter: Arc<dyn PhysicalExpr>) -> Result<Self> {
        match self.take_filter(&filter) {
            true => Ok(self),
            false => datafusion::common::plan_err!(
                "the Alkaid scan does not evaluate the filter {filter}"
            ),
        }
    }

    /// Takes `filter` over if Alkaid's kernels evaluate it; says whether it did.
    fn take_filter(&mut self, filter: &Arc<dyn PhysicalExpr>) -> bool {
        let Some(predicate) = crate::filter::translate(filter, self.table_schema.file_schema())
        else {
            return false;
        };
        self.filters.push((predicate, Arc::clone(filter)));
        true
    }
}

impl FileSource for AlkaidSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let file_schema = self.table_schema.file_schema();
        let columns = self.projection.file_indices.clone();
        let output = Arc::new(file_schema.project(&columns)?);
        let names: Vec<String> = columns
            .iter()
            .map(|&i| file_schema.field(i).name().clone())
            .collect();
        // The filters' columns are read too, and dropped once the rows are chosen.
        let mut read: BTreeSet<String> = BTreeSet::new();
        for (predicate, _) in &self.filters {
            read.extend(predicate.columns());
        }
        read.retain(|name| !names.contains(name));
        let mut read_names = names.clone();
        read_names.extend(read);
        let opener = Arc::new(AlkaidOpener {
            store: object_store,
            local: config.object_store_url.as_str().starts_with("file:"),
            read: TableColumns::new(file_schema, read_names)?,
            selected: names.len(),
            filters: self.filters.iter().map(|(p, _)| p.clone()).collect(),
            output,
            format: self.format.clone(),
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

    fn filter(&self) -> Option<Arc<dyn PhysicalExpr>> {
        // DataFusion marks the scan's row counts inexact when a source filters: without
        // this, a count over a filtered scan would be answered from the files' counts.
        datafusion::physical_expr::conjunction_opt(self.filters().cloned())
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        match self.format {
            ScanFormat::Ipc => "alkaid",
            ScanFormat::Parquet(_) => "parquet",
        }
    }

    fn fmt_extra(
        &self,
        _format: datafusion::physical_plan::DisplayFormatType,
        f: &mut std::fmt::Formatter,
    ) -> std::fmt::Result {
        if self.filters.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = self
            .filters
            .iter()
            .map(|(_, expr)| expr.to_string())
            .collect();
        write!(f, ", alkaid_filters=[{}]", shown.join(", "))
    }

    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn FileSource>>> {
        let mut source = self.clone();
        let pushed = filters
            .iter()
            .map(|filter| match source.take_filter(filter) {
                true => PushedDown::Yes,
                false => PushedDown::No,
            })
            .collect();
        let propagation = FilterPushdownPropagation::with_parent_pushdown_result(pushed);
        Ok(match source.filters.len() > self.filters.len() {
            true => propagation.with_updated_node(Arc::new(source) as Arc<dyn FileSource>),
            false => propagation,
        })
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
        let filters = self.filters.iter().map(|(_, expr)| expr);
        let projection = self.projection.source.iter().map(|p| &p.expr);
        datafusion::physical_plan::apply_expression_roots(projection.chain(filters), f)
    }
}

/// Opens one file (or one byte range of it) and streams its batches.
struct AlkaidOpener {
    store: Arc<dyn ObjectStore>,
    /// Whether the store is the local file system's (a `file:` URL), whose files are read
    /// from their handles.
    local: bool,
    /// The columns read: the selected ones, then those only the filters need, by name (a
    /// file may order its columns differently from the table's merged schema, lack some,
    /// or hold some as another type).
    read: TableColumns,
    /// How many of them are selected.
    selected: usize,
    /// The filters each row must pass.
    filters: Vec<Predicate>,
    /// The schema of the batches handed on: the table's file schema, projected.
    output: SchemaRef,
    format: ScanFormat,
}

impl FileOpener for AlkaidOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let (store, meta, local) = (
            Arc::clone(&self.store),
            file.object_meta.clone(),
            self.local,
        );
        let location = file.object_meta.location.to_string();
        let (read, selected) = (self.read.clone(), self.selected);
        let filters = self.filters.clone();
        let output = Arc::clone(&self.output);
        let format = self.format.clone();
        Ok(Box::pin(async move {
            let source = StoreSource::open(store, meta, local)
                .await
                .map_err(|e| file_error(&location, e))?;
            let batches = match format {
                ScanFormat::Ipc => ipc_batches(source, &read, file.range.as_ref()).await,
                ScanFormat::Parquet(options) => {
                    let range = file.range.as_ref();
                    parquet_batches(source, &location, &read, &filters, range, options).await
                }
            }
            .map_err(|e| file_error(&location, e))?;
            let filtered = !filters.is_empty();
            let stream = batches.filter_map(move |batch| {
                let batch = batch
                    .and_then(|batch| read.conform(batch))
                    .and_then(|batch| keep_passing(batch, &filters))
                    .map_err(|e| file_error(&location, e));
                let batch = match batch {
                    // A batch the filters emptied is not handed on (as DataFusion's own
                    // filter does not hand one on).
                    Ok(batch) if filtered && batch.num_rows() == 0 => return ready(None),
                    Ok(batch) => batch,
                    Err(e) => return ready(Some(Err(e))),
                };
                // The table's field names, nullability and metadata for the file's columns
                // (conformed to the table's already), without those only the filters read.
                let columns = batch.columns()[..selected]
                    .iter()
                    .map(|column| array_to_arrow(column.as_ref()))
                    .collect();
                let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
                let handed =
                    RecordBatch::try_new_with_options(Arc::clone(&output), columns, &options)
                        .map_err(|e| file_error(&location, e));
                ready(Some(handed))
            });
            Ok(stream.boxed())
        }))
    }
}

/// The batches of the IPC file `source`: of `read`'s columns those the file has, and of
/// `range` (of a parallel scan) the batches that start inside it.
async fn ipc_batches(
    source: StoreSource,
    read: &TableColumns,
    range: Option<&FileRange>,
) -> std::result::Result<Batches, ScanError> {
    let local_reads = source.is_local();
    let options = ReadOptions::default().with_present_column_names(read.names());
    let mut reader = AsyncFileReader::open(source, options).await?;
    if local_reads {
        // Read on this task, a batch at a time: reading ahead overlaps nothing here, and
        // the bytes read ahead are out of the caches by the time they are validated and
        // handed on.
        reader = reader.with_readahead(1);
    }
    if let Some(range) = range {
        // A parallel scan splits files into byte ranges; a range reads the batches that
        // start inside it, so that each batch is read once.
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
        reader.select_batches(selected)?;
    }
    Ok(reader
        .into_stream()
        .map(|b| b.map_err(ScanError::from))
        .boxed())
}

/// The batches of the Parquet file `source`: of `read`'s columns those the file has, of
/// `range` (of a parallel scan) the row groups whose middle lies inside it, and of those
/// the row groups and pages the filters' statistics do not rule out.
async fn parquet_batches(
    source: StoreSource,
    location: &str,
    read: &TableColumns,
    filters: &[Predicate],
    range: Option<&FileRange>,
    options: alkaid_formats::parquet::ParquetReadOptions,
) -> std::result::Result<Batches, ScanError> {
    use alkaid_formats::parquet::read_source;
    let mut options = options.with_columns_if_present(read.names());
    if let Some(range) = range {
        options = options.with_byte_range(range.start.max(0) as u64..range.end.max(0) as u64);
    }
    // The rows are filtered again once conformed to the table (where a file's column of
    // another type is cast); this read skips what the statistics rule out, where the file's
    // own columns take the filters.
    if let Some(all) = filters.iter().cloned().reduce(Predicate::and) {
        options = options.with_predicate_if_applicable(all);
    }
    let stream = read_source(source, location, options).await?;
    Ok(stream.map(|b| b.map_err(ScanError::from)).boxed())
}

/// Alkaid batches read from a file.
type Batches = futures_util::stream::BoxStream<
    'static,
    std::result::Result<alkaid_array::RecordBatch, ScanError>,
>;

/// The rows of `batch` that pass every filter, chosen with Alkaid's filter kernel.
fn keep_passing(
    batch: alkaid_array::RecordBatch,
    filters: &[Predicate],
) -> std::result::Result<alkaid_array::RecordBatch, ScanError> {
    let Some((first, rest)) = filters.split_first() else {
        return Ok(batch);
    };
    let mut mask = first.evaluate(&batch)?;
    for filter in rest {
        mask = alkaid_compute::and_kleene(&mask, &filter.evaluate(&batch)?)?;
    }
    if mask.true_count() == batch.num_rows() {
        return Ok(batch);
    }
    Ok(alkaid_select::filter_record_batch(&batch, &mask)?)
}

/// What reading or filtering a batch may fail with.
type ScanError = Box<dyn std::error::Error + Send + Sync>;

//! [`AlkaidSink`]: `COPY … TO` and `INSERT INTO` an Alkaid table, written through Alkaid's
//! async file writer. Each output file goes to the object store as one upload that is
//! completed only after the footer is written, so a failed or cancelled write leaves no
//! partial file.

use std::fmt;
use std::sync::Arc;

use alkaid_arrow::arrow59::{batch_from_arrow, schema_from_arrow};
use alkaid_ipc::{FileDictionaries, WriteOptions};
use alkaid_ipc_async::AsyncFileWriter;
use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::{JoinSet, SpawnedTask};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::write::demux::DemuxedStreamReceiver;
use datafusion::datasource::file_format::write::{ObjectWriterBuilder, get_writer_schema};
use datafusion::datasource::physical_plan::{FileSink, FileSinkConfig};
use datafusion::datasource::sink::DataSink;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::object_store::ObjectStore;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use tokio::io::AsyncWriteExt;

use crate::error::file_error;

/// Writes a query's output as Alkaid (or Arrow, by [`WriteOptions::with_magic`]) IPC
/// files.
pub struct AlkaidSink {
    config: FileSinkConfig,
    options: WriteOptions,
}

impl AlkaidSink {
    /// A sink for `config`'s files, written with `options`.
    pub fn new(config: FileSinkConfig, options: WriteOptions) -> Self {
        Self { config, options }
    }
}

impl fmt::Debug for AlkaidSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlkaidSink")
            .field("options", &self.options)
            .finish()
    }
}

impl DisplayAs for AlkaidSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AlkaidSink(url={})", self.config.original_url)
    }
}

#[async_trait]
impl DataSink for AlkaidSink {
    fn schema(&self) -> &SchemaRef {
        self.config.output_schema()
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        FileSink::write_all(self, data, context).await
    }
}

#[async_trait]
impl FileSink for AlkaidSink {
    fn config(&self) -> &FileSinkConfig {
        &self.config
    }

    async fn spawn_writer_tasks_and_join(
        &self,
        _context: &Arc<TaskContext>,
        demux_task: SpawnedTask<Result<()>>,
        mut files: DemuxedStreamReceiver,
        store: Arc<dyn ObjectStore>,
    ) -> Result<u64> {
        let schema = Arc::new(
            schema_from_arrow(&get_writer_schema(&self.config))
                .map_err(|e| DataFusionError::External(Box::new(e)))?,
        );
        let mut writers: JoinSet<Result<u64>> = JoinSet::new();
        while let Some((path, mut batches)) = files.recv().await {
            // An engine makes new dictionaries per batch (a GROUP BY over a dictionary
            // column): the file takes each, unified onto the one it holds.
            let (schema, options, store) = (
                Arc::clone(&schema),
                self.options
                    .clone()
                    .with_file_dictionaries(FileDictionaries::Unify),
                Arc::clone(&store),
            );
            writers.spawn(async move {
                let location = path.to_string();
                let failed = |e: alkaid_ipc::IpcError| file_error(&location, e);
                let upload =
                    ObjectWriterBuilder::new(FileCompressionType::UNCOMPRESSED, &path, store)
                        .build()?;
                let mut writer = AsyncFileWriter::try_new(upload, Arc::clone(&schema), options)
                    .await
                    .map_err(failed)?;
                let mut rows = 0u64;
                while let Some(batch) = batches.recv().await {
                    let ours = batch_from_arrow(&batch)
                        .and_then(|b| {
                            alkaid_array::RecordBatch::try_new(
                                Arc::clone(&schema),
                                b.columns().to_vec(),
                            )
                            .map_err(Into::into)
                        })
                        .map_err(|e| file_error(&location, e))?;
                    writer.write(&ours).await.map_err(failed)?;
                    rows += ours.num_rows() as u64;
                }
                writer.finish().await.map_err(failed)?;
                // The upload completes here, and only here.
                let mut upload = writer.into_inner().await.map_err(failed)?;
                upload
                    .shutdown()
                    .await
                    .map_err(|e| file_error(&location, e))?;
                Ok(rows)
            });
        }
        let mut rows = 0;
        while let Some(result) = writers.join_next().await {
            match result {
                Ok(written) => rows += written?,
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => return Err(DataFusionError::External(Box::new(e))),
            }
        }
        demux_task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
        Ok(rows)
    }
}

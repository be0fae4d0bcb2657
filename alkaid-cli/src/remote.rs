//! Inputs named by an object-store URL (`s3://bucket/key`, `gs://…`, `az://…`,
//! `http(s)://…`, `file:///…`), through `object_store`'s URL parsing. Credentials and
//! endpoints come from the environment variables each store reads (`AWS_*`, `GOOGLE_*`,
//! `AZURE_*`). A file is read by range (only the selected columns' and batches' bytes are
//! fetched); a stream, which has no random access, is fetched whole; Parquet by range,
//! CSV and JSON a few MiB at a time (`batches`).

use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_formats::BatchStream;
use alkaid_ipc::{ReadOptions, Result};
use alkaid_ipc_async::{AsyncFileReader, ObjectStoreSource, RangeSource};
use alkaid_schema::{Metadata, SchemaRef};
use futures_util::StreamExt;
use tokio::runtime::Runtime;

use crate::failure::Failure;
use crate::rows::RowReader;

/// A file in an object store, read on a runtime of its own.
pub struct RemoteFile {
    runtime: Runtime,
    reader: AsyncFileReader<ObjectStoreSource>,
}

/// What a URL holds.
pub enum Remote {
    /// A file, read by range (boxed: it holds a runtime and a reader).
    File(Box<RemoteFile>),
    /// A stream's bytes, fetched whole.
    Stream(Buffer),
}

/// The object at `url`, and a runtime to read it on.
fn source(url: &str) -> Result<(ObjectStoreSource, Runtime), Failure> {
    let place = |e: &dyn std::fmt::Display| Failure::new(format!("{url}: {e}"));
    let parsed = url::Url::parse(url).map_err(|e| place(&e))?;
    let (store, path) = object_store::parse_url_opts(&parsed, crate::location::store_options())
        .map_err(|e| place(&e))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| place(&e))?;
    Ok((ObjectStoreSource::new(Arc::from(store), path), runtime))
}

/// The batches `open` reads from the object at `url` (Parquet by ranges, CSV and JSON a
/// few MiB at a time), on a runtime of their own.
pub fn batches<F, R>(url: &str, open: F) -> Result<RowReader, Failure>
where
    F: FnOnce(ObjectStoreSource) -> R,
    R: Future<Output = alkaid_formats::Result<BatchStream>>,
{
    let (source, runtime) = source(url)?;
    let mut stream = runtime
        .block_on(open(source))
        .map_err(|e| Failure::new(e.to_string()))?;
    let schema = stream.schema();
    let batches = std::iter::from_fn(move || {
        let next = runtime.block_on(stream.next())?;
        Some(next.map_err(|e| Failure::new(e.to_string())))
    });
    Ok(RowReader::new(schema, batches))
}

/// Opens the object at `url`: a file (it ends with a file magic) or a stream.
pub fn open(url: &str, options: ReadOptions) -> Result<Remote, Failure> {
    let (source, runtime) = source(url)?;
    let prefetch = options.footer_prefetch() as u64;
    let (len, tail) = runtime
        .block_on(source.fetch_suffix(prefetch))
        .map_err(|e| Failure::new(e.to_string()))?;
    if tail.ends_with(b"ALKAID1") || tail.ends_with(b"ARROW1") {
        // The reader fetches the suffix again: one request more than the least, for a
        // tool that opens one file.
        let reader = runtime
            .block_on(AsyncFileReader::open(source, options))
            .map_err(|e| Failure::new(e.to_string()))?;
        return Ok(Remote::File(Box::new(RemoteFile { runtime, reader })));
    }
    let bytes = match tail.len() as u64 == len {
        true => tail,
        false => runtime
            .block_on(source.fetch(0..len))
            .map_err(|e| Failure::new(e.to_string()))?,
    };
    Ok(Remote::Stream(bytes))
}

impl RemoteFile {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.reader.schema()
    }

    /// The footer's custom metadata.
    pub fn metadata(&self) -> &Metadata {
        self.reader.metadata()
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        self.reader.num_batches()
    }

    /// Batch `index` and its message's custom metadata.
    pub fn batch_with_metadata(&mut self, index: usize) -> Result<(RecordBatch, Metadata)> {
        self.runtime
            .block_on(self.reader.batch_with_metadata(index))
    }
}

//! Alkaid and Arrow IPC files as DataFusion tables, on the local disk or any object store
//! DataFusion knows (S3, GCS, Azure, HTTP).
//!
//! | item | what it does |
//! | --- | --- |
//! | [`AlkaidContextExt::register_alkaid`] | `ctx.register_alkaid("t", "s3://bucket/path/")`: a table over one file or a directory of them |
//! | [`register_alkaid_format`] | makes `CREATE EXTERNAL TABLE … STORED AS ALKAID` and `COPY (…) TO 'x.alkaid'` work in a session |
//! | [`AlkaidFormat`], [`AlkaidFormatFactory`] | the DataFusion file format: schema and row-count inference, scans, writes |
//! | [`AlkaidSource`] | the scan: Alkaid's async file reader, filters evaluated with alkaid-compute, batches handed over without a copy ([`alkaid_arrow`]) |
//! | [`AlkaidSink`] | the write: Alkaid's async file writer, one upload per file, completed only when whole |
//! | [`AlkaidTable`] | the table `register_alkaid` registers: a listing table over [`AlkaidFormat`] that plan codecs recognise |
//! | [`AlkaidContextExt::register_alkaid_parquet`], [`AlkaidParquetFormat`] | Parquet tables read through alkaid-formats, scanned as IPC tables are, with the filters pruning row groups and pages |
//!
//! With the `proto` feature, `AlkaidLogicalCodec` and `AlkaidPhysicalCodec` carry Alkaid
//! tables and scans through DataFusion's plan serialization (`datafusion-proto`); with the
//! `ballista` feature, the `ballista` module runs them on a Ballista cluster (the
//! `alkaid-ballista` binary is its scheduler and executor). The `lz4` and `zstd` features
//! (default) are alkaid-ipc's codecs of compressed files.
//!
//! A scan reads the files' footers once when the table is registered (schema) and when
//! statistics are collected (row counts, from each batch's metadata), then per query only
//! the byte ranges of the selected columns: a query that selects one column of eight never
//! fetches the other seven. Files are split among DataFusion's partitions by byte range,
//! each range reading the record batches that start inside it. `LIMIT` stops the reads
//! as soon as enough rows came. The query's filters that Alkaid's kernels evaluate
//! (comparisons of columns with literals or with each other, null tests, distinctness,
//! `AND`, `OR`, `NOT`) run in the scan, on Alkaid's arrays, and only the rows that pass
//! are handed to DataFusion, which then runs no filter of its own for them.
//!
//! Files of a `file:` table are read from the handles the local object store opens, on
//! the scan's task and one record batch at a time, as DataFusion's own readers of local
//! files are; files of any other store by ranged requests ([`StoreSource`]), four
//! batches' requests at a time.
//!
//! Files are `ALKAID1` or `ARROW1` IPC files, with or without LZ4 or zstd buffer
//! compression; IPC streams are not read (a stream has no footer to plan reads from).
//!
//! # Example
//! ```
//! use alkaid_datafusion::{AlkaidContextExt, register_alkaid_format};
//! use datafusion::prelude::SessionContext;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! let dir = std::env::temp_dir().join(format!("alkaid-df-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let ctx = SessionContext::new();
//! register_alkaid_format(&ctx);
//! // Write a file with SQL, through Alkaid's writer...
//! let file = dir.join("numbers.alkaid");
//! ctx.sql(&format!("COPY (VALUES (1, 'a'), (2, 'b'), (3, 'c')) TO '{}'", file.display()))
//!     .await?
//!     .collect()
//!     .await?;
//! // ...and query it through Alkaid's reader.
//! ctx.register_alkaid("numbers", file.to_str().unwrap()).await?;
//! let batches = ctx.sql("SELECT sum(column1) AS total FROM numbers").await?.collect().await?;
//! let total = batches[0].column(0).as_any()
//!     .downcast_ref::<datafusion::arrow::array::Int64Array>().unwrap().value(0);
//! assert_eq!(total, 6);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![doc(test(attr(deny(warnings))))]

#[cfg(feature = "ballista")]
pub mod ballista;
#[cfg(feature = "proto")]
mod codec;
mod error;
mod evolve;
mod filter;
mod format;
mod open;
mod parquet;
mod sink;
mod source;
mod store;
mod table;
mod variant;

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::Result;
use datafusion::datasource::provider::DefaultTableFactory;
use datafusion::prelude::SessionContext;

#[cfg(feature = "proto")]
pub use codec::{AlkaidLogicalCodec, AlkaidPhysicalCodec};
pub use format::{AlkaidFormat, AlkaidFormatFactory, EXTENSION};
pub use open::{TableFormat, open_table, open_table_as};
pub use parquet::{AlkaidParquetFormat, PARQUET_EXTENSION};
pub use sink::AlkaidSink;
pub use source::AlkaidSource;
pub use store::StoreSource;
pub use table::AlkaidTable;
pub use variant::register_variant_functions;

/// Registers [`AlkaidFormatFactory`] in `ctx`, so that `STORED AS ALKAID` and files named
/// `*.alkaid` in `COPY … TO` use Alkaid's reader and writer.
pub fn register_alkaid_format(ctx: &SessionContext) {
    let factory = Arc::new(AlkaidFormatFactory::default());
    let state = ctx.state_ref();
    let mut state = state.write();
    // Replacing an earlier registration is what a second call means, so this cannot fail.
    let _ = state.register_file_format(factory, true);
    // `CREATE EXTERNAL TABLE … STORED AS ALKAID` looks for a table factory by that name;
    // DataFusion's listing-table factory then finds the format by its extension.
    state.table_factories_mut().insert(
        EXTENSION.to_uppercase(),
        Arc::new(DefaultTableFactory::new()),
    );
}

/// Alkaid tables in a DataFusion [`SessionContext`].
#[async_trait]
pub trait AlkaidContextExt {
    /// Registers the IPC file at `url`, or every file under it when `url` ends in `/`, as
    /// the table `name`: the schema is read from the files' footers (merged when they
    /// differ), and the object store for the URL's scheme must be registered in the
    /// session's runtime (local paths always are). Also registers the format
    /// ([`register_alkaid_format`]).
    ///
    /// # Errors
    /// If the URL does not parse, no file is found, a file is not an IPC file (the error
    /// names it), or the schemas do not merge.
    async fn register_alkaid(&self, name: &str, url: &str) -> Result<()>;

    /// Registers the Parquet file at `url`, or every `*.parquet` file under it when `url`
    /// ends in `/`, as the table `name`, read through alkaid-formats
    /// ([`AlkaidParquetFormat`]): the schema from the footers (merged when they differ),
    /// scans as of IPC tables, with the filters also pruning row groups and pages. Read
    /// only.
    ///
    /// # Errors
    /// If the URL does not parse, no file is found, a file is not Parquet (the error names
    /// it), or the schemas do not merge.
    async fn register_alkaid_parquet(&self, name: &str, url: &str) -> Result<()>;
}

#[async_trait]
impl AlkaidContextExt for SessionContext {
    async fn register_alkaid(&self, name: &str, url: &str) -> Result<()> {
        register_alkaid_format(self);
        let table = open::ipc_table(&self.state(), url).await?;
        self.register_table(name, table)?;
        Ok(())
    }

    async fn register_alkaid_parquet(&self, name: &str, url: &str) -> Result<()> {
        let table = open::parquet_table(&self.state(), url).await?;
        self.register_table(name, table)?;
        Ok(())
    }
}

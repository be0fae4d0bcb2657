//! [`AlkaidLogicalCodec`]: Alkaid tables and the Alkaid file format in serialized logical
//! plans (what a Ballista client sends its scheduler).

use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::{Result, TableReference, plan_datafusion_err, plan_err};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use prost::Message;

use super::messages::{TableMessage, WriteMessage};
use super::{encode_alkaid, encode_inner, split};
use crate::{AlkaidFormat, AlkaidFormatFactory, AlkaidTable};

/// A [`LogicalExtensionCodec`] that serializes [`AlkaidTable`]s and
/// [`AlkaidFormatFactory`]s (the file type of `COPY … TO 'x.alkaid'`), and hands every
/// other table, format, plan node and function to the codec it wraps.
#[derive(Debug)]
pub struct AlkaidLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl AlkaidLogicalCodec {
    /// Alkaid's codec around `inner` (Ballista's codec on a Ballista cluster).
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        Self { inner }
    }
}

impl Default for AlkaidLogicalCodec {
    /// Alkaid's codec around DataFusion's default one.
    fn default() -> Self {
        Self::new(Arc::new(DefaultLogicalExtensionCodec {}))
    }
}

/// `table` as a message.
fn table_message(table: &AlkaidTable) -> Result<TableMessage> {
    let options = table.listing().options();
    if !options.table_partition_cols.is_empty() {
        return plan_err!(
            "an Alkaid table with partition columns cannot be serialized yet (columns {:?})",
            options.table_partition_cols
        );
    }
    if !options.file_sort_order.is_empty() || options.output_partitioning.is_some() {
        return plan_err!(
            "an Alkaid table with a declared sort order or output partitioning cannot be serialized yet"
        );
    }
    Ok(TableMessage {
        paths: table
            .paths()
            .iter()
            .map(|url| url.as_str().into())
            .collect(),
        globs: table
            .paths()
            .iter()
            .map(|url| url.get_glob().as_ref().map(|glob| glob.as_str().into()))
            .map(Option::unwrap_or_default)
            .collect(),
        file_extension: options.file_extension.clone(),
        write: Some(WriteMessage::from(table.format().write_options())),
        definition: table.get_table_definition().map(String::from),
    })
}

/// The table `message` describes, with `schema`.
fn table_from(message: &TableMessage, schema: SchemaRef, ctx: &TaskContext) -> Result<AlkaidTable> {
    if message.paths.is_empty() || message.globs.len() != message.paths.len() {
        return plan_err!(
            "a serialized Alkaid table has {} paths and {} globs (at least one path, one glob each)",
            message.paths.len(),
            message.globs.len()
        );
    }
    let urls = message
        .paths
        .iter()
        .zip(&message.globs)
        .map(|(path, glob)| {
            let url = ListingTableUrl::parse(path)?;
            match glob.is_empty() {
                true => Ok(url),
                false => url.with_glob(glob),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let write = match &message.write {
        Some(write) => write.to_options()?,
        None => return plan_err!("a serialized Alkaid table has no write options"),
    };
    let options = ListingOptions::new(Arc::new(AlkaidFormat::with_write_options(write)))
        .with_file_extension(&message.file_extension);
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(options)
        .with_schema(schema);
    let cache = ctx.runtime_env().cache_manager.get_file_statistic_cache();
    let listing = ListingTable::try_new(config)?
        .with_cache(cache)
        .with_definition(message.definition.clone());
    AlkaidTable::try_new(listing)
}

impl LogicalExtensionCodec for AlkaidLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match split(buf, "table")? {
            (true, message) => {
                let message = TableMessage::decode(message).map_err(|e| {
                    plan_datafusion_err!(
                        "the serialized Alkaid table {table_ref} does not decode: {e}"
                    )
                })?;
                Ok(Arc::new(table_from(&message, schema, ctx)?))
            }
            (false, rest) => self
                .inner
                .try_decode_table_provider(rest, table_ref, schema, ctx),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        match node.downcast_ref::<AlkaidTable>() {
            Some(table) => {
                encode_alkaid(buf, &table_message(table)?);
                Ok(())
            }
            None => encode_inner(buf, |buf| {
                self.inner.try_encode_table_provider(table_ref, node, buf)
            }),
        }
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        match split(buf, "file format")? {
            (true, message) => {
                let message = WriteMessage::decode(message).map_err(|e| {
                    plan_datafusion_err!("the serialized Alkaid file format does not decode: {e}")
                })?;
                Ok(Arc::new(AlkaidFormatFactory::new(message.to_options()?)))
            }
            (false, rest) => self.inner.try_decode_file_format(rest, ctx),
        }
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        match node.downcast_ref::<AlkaidFormatFactory>() {
            Some(factory) => {
                encode_alkaid(buf, &WriteMessage::from(factory.write_options()));
                Ok(())
            }
            None => encode_inner(buf, |buf| self.inner.try_encode_file_format(buf, node)),
        }
    }

    forward_functions!();
}

//! [`AlkaidTable`]: the table [`register_alkaid`](crate::AlkaidContextExt::register_alkaid)
//! registers. It scans and writes exactly as DataFusion's listing table over
//! [`AlkaidFormat`] does (it is one, inside); being its own type is what lets a plan that
//! reads it be serialized (`datafusion-proto` serializes a listing table only for the
//! formats it knows, and hands any other table to the plan's extension codec: see the
//! `proto` feature's codecs).

use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider};
use datafusion::common::{Constraints, Result, Statistics, plan_err};
use datafusion::datasource::TableType;
use datafusion::datasource::listing::{ListingTable, ListingTableUrl};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, LogicalPlan, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::format::AlkaidFormat;

/// A table of Alkaid or Arrow IPC files: one file or every file under a directory, on the
/// local disk or an object store. Reads and writes go through [`AlkaidFormat`].
#[derive(Debug)]
pub struct AlkaidTable {
    listing: ListingTable,
}

impl AlkaidTable {
    /// The listing table `listing` as an Alkaid table.
    ///
    /// # Errors
    /// If `listing`'s format is not [`AlkaidFormat`].
    pub fn try_new(listing: ListingTable) -> Result<Self> {
        if listing.options().format.is::<AlkaidFormat>() {
            Ok(Self { listing })
        } else {
            plan_err!(
                "an Alkaid table reads through AlkaidFormat, not {:?}",
                listing.options().format
            )
        }
    }

    /// The listing table inside: its paths and options.
    pub fn listing(&self) -> &ListingTable {
        &self.listing
    }

    /// The locations the table reads (files, or directories when they end in `/`).
    pub fn paths(&self) -> &[ListingTableUrl] {
        self.listing.table_paths()
    }

    /// The format the table reads and writes with.
    pub fn format(&self) -> &AlkaidFormat {
        // Checked in `try_new`.
        self.listing
            .options()
            .format
            .downcast_ref::<AlkaidFormat>()
            .expect("an AlkaidTable's format is AlkaidFormat")
    }
}

#[async_trait]
impl TableProvider for AlkaidTable {
    fn schema(&self) -> SchemaRef {
        self.listing.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.listing.constraints()
    }

    fn table_type(&self) -> TableType {
        self.listing.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.listing.get_table_definition()
    }

    fn get_logical_plan(&'_ self) -> Option<Cow<'_, LogicalPlan>> {
        self.listing.get_logical_plan()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.listing.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> Result<ScanResult> {
        self.listing.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.listing.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.listing.statistics()
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.insert_into(state, input, insert_op).await
    }
}

//! [`RowReader`]: the batches of a Parquet, CSV or JSON input, from a local file
//! (alkaid-formats' [`Batches`]) or an object store (`remote.rs`), behind one type.

use alkaid_array::RecordBatch;
use alkaid_formats::Batches;
use alkaid_schema::SchemaRef;

use crate::failure::Failure;

/// The batches of a Parquet, CSV or JSON input, in order.
pub struct RowReader {
    schema: SchemaRef,
    batches: Box<dyn Iterator<Item = Result<RecordBatch, Failure>>>,
}

impl RowReader {
    /// The batches of `batches`, all of `schema`.
    pub fn new(
        schema: SchemaRef,
        batches: impl Iterator<Item = Result<RecordBatch, Failure>> + 'static,
    ) -> Self {
        Self {
            schema,
            batches: Box::new(batches),
        }
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl From<Batches> for RowReader {
    fn from(batches: Batches) -> Self {
        let schema = batches.schema();
        Self::new(
            schema,
            batches.map(|b| b.map_err(|e| Failure::new(e.to_string()))),
        )
    }
}

impl Iterator for RowReader {
    type Item = Result<RecordBatch, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches.next()
    }
}

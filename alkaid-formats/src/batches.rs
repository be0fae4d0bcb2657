//! [`Batches`]: what every reader of this crate returns, arrow-rs's batches as Alkaid's.

use alkaid_array::RecordBatch;
use alkaid_arrow::arrow60::{batch_from_arrow, schema_from_arrow};
use alkaid_schema::SchemaRef;
use arrow_array_60 as arrow_array;
use arrow_schema_60::ArrowError;

use crate::error::{FormatError, Result};

/// The batches of a file or stream being read, in order, each moved from arrow-rs without
/// copying its buffers. Memory is bounded by the reader's batch size, not the file.
pub struct Batches {
    place: String,
    schema: SchemaRef,
    inner: Box<dyn Iterator<Item = Result<arrow_array::RecordBatch, ArrowError>> + Send>,
    next: usize,
}

impl Batches {
    /// The batches `inner` reads from `place`, whose schema is `schema` (arrow-rs's).
    // A build with no format has no reader.
    #[cfg_attr(
        not(any(feature = "parquet", feature = "csv", feature = "json")),
        allow(dead_code)
    )]
    pub(crate) fn new(
        place: String,
        schema: &arrow_schema_60::Schema,
        inner: impl Iterator<Item = Result<arrow_array::RecordBatch, ArrowError>> + Send + 'static,
    ) -> Result<Self> {
        let schema = schema_from_arrow(schema).map_err(|e| FormatError::new(&place, e))?;
        Ok(Self {
            place,
            schema: schema.into(),
            inner: Box::new(inner),
            next: 0,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Every remaining batch.
    ///
    /// # Errors
    /// The first batch that fails.
    pub fn collect_all(self) -> Result<Vec<RecordBatch>> {
        self.collect()
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = self.inner.next()?;
        let index = self.next;
        self.next += 1;
        let place = || format!("{}: batch {index}", self.place);
        Some(
            batch
                .map_err(|e| FormatError::new(place(), e))
                .and_then(|b| batch_from_arrow(&b).map_err(|e| FormatError::new(place(), e))),
        )
    }
}

impl std::fmt::Debug for Batches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batches")
            .field("place", &self.place)
            .field("schema", &self.schema)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

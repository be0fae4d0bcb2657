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
    placing: Placing,
    inner: Box<dyn Iterator<Item = Result<arrow_array::RecordBatch, ArrowError>> + Send>,
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
        Ok(Self {
            placing: Placing::new(place, schema)?,
            inner: Box::new(inner),
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.placing.schema.clone()
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
        if self.placing.ended {
            return None;
        }
        let batch = match unpanicked(|| self.inner.next()) {
            // An error of ours carried through arrow-rs's reader keeps its own words.
            Ok(batch) => batch?.map_err(|e| match e {
                ArrowError::ExternalError(inner) => inner,
                other => other.into(),
            }),
            Err(panic) => Err(panic.into()),
        };
        Some(self.placing.take(batch))
    }
}

/// What the synchronous and the asynchronous readers keep alike: where they read, the
/// schema, the number of the next batch, and whether one failed (nothing is read after).
#[derive(Debug)]
pub(crate) struct Placing {
    place: String,
    pub(crate) schema: SchemaRef,
    next: usize,
    pub(crate) ended: bool,
}

impl Placing {
    /// For batches read from `place` whose schema is `schema` (arrow-rs's).
    pub(crate) fn new(place: String, schema: &arrow_schema_60::Schema) -> Result<Self> {
        let schema = schema_from_arrow(schema).map_err(|e| FormatError::new(&place, e))?;
        Ok(Self {
            place,
            schema: schema.into(),
            next: 0,
            ended: false,
        })
    }

    /// `batch` under the schema this reader told (the same columns; the told schema has
    /// what arrow-rs's batches leave out: the file's key-value metadata, extension types
    /// read from the file's own schema).
    fn with_schema(&self, batch: RecordBatch) -> Result<RecordBatch, alkaid_array::ArrayError> {
        if **batch.schema() == *self.schema {
            return Ok(batch);
        }
        RecordBatch::try_new_with_rows(
            self.schema.clone(),
            batch.columns().to_vec(),
            batch.num_rows(),
        )
    }

    /// The batch read next (or its failure) as Alkaid's, a failure named by the place and
    /// the batch's number.
    pub(crate) fn take(
        &mut self,
        batch: std::result::Result<
            arrow_array::RecordBatch,
            Box<dyn std::error::Error + Send + Sync>,
        >,
    ) -> Result<RecordBatch> {
        let index = self.next;
        self.next += 1;
        let place = || format!("{}: batch {index}", self.place);
        let batch = batch
            .map_err(|e| FormatError::new(place(), e))
            .and_then(|b| batch_from_arrow(&b).map_err(|e| FormatError::new(place(), e)))
            .and_then(|b| {
                self.with_schema(b)
                    .map_err(|e| FormatError::new(place(), e))
            });
        self.ended = batch.is_err();
        batch
    }
}

impl std::fmt::Debug for Batches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batches")
            .field("placing", &self.placing)
            .finish_non_exhaustive()
    }
}

/// `read()`, or the message of a panic in it. arrow-rs's readers panic on some hostile
/// input (the `parquet` fuzz target finds such files in seconds: a page that needs a
/// dictionary the column chunk lacks, among others); a panic in them is taken for what it
/// is, a file the reader cannot read, and becomes an error instead of ending the process.
/// (The default hook still prints it; the fuzz targets log each place once and go on.)
pub(crate) fn unpanicked<T>(read: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).map_err(panicked)
}

/// The error a caught panic's payload becomes.
pub(crate) fn panicked(panic: Box<dyn std::any::Any + Send>) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    format!("the reader failed on invalid input ({message})")
}

//! Batch readers, both ways: an Alkaid batch iterator read by arrow-rs, an arrow-rs
//! `RecordBatchReader` read by Alkaid code. Each batch is converted as it passes, sharing
//! its buffers.

use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_schema::SchemaRef;

use super::arrays::{batch_from_arrow, batch_to_arrow_in};
use super::types::{schema_from_arrow, schema_to_arrow};
use super::{arrow_array, arrow_schema};
use crate::BridgeError;

/// An arrow-rs `RecordBatchReader` over Alkaid batches: an IPC reader, a Flight stream
/// made blocking, any iterator of `Result<RecordBatch, E>`. A source error reaches
/// arrow-rs as an `ArrowError::ExternalError` holding it.
///
/// Every batch must have the schema given here (arrow-rs readers promise one schema); one
/// that does not ends in an error, not in a batch arrow-rs would misread.
pub struct ArrowReader<I> {
    schema: SchemaRef,
    arrow_schema: arrow_schema::SchemaRef,
    batches: I,
}

impl<I> ArrowReader<I> {
    /// Reads `batches`, each of `schema`.
    pub fn new(schema: SchemaRef, batches: I) -> Self {
        let arrow_schema = Arc::new(schema_to_arrow(&schema));
        Self {
            schema,
            arrow_schema,
            batches,
        }
    }
}

impl<I, E> Iterator for ArrowReader<I>
where
    I: Iterator<Item = Result<RecordBatch, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    type Item = Result<arrow_array::RecordBatch, arrow_schema::ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.batches.next()? {
            Ok(batch) => batch,
            Err(e) => return Some(Err(arrow_schema::ArrowError::ExternalError(Box::new(e)))),
        };
        // The columns are converted with the batch's field types and labelled with the
        // reader's schema, so the fields must be the same, metadata and all (only the
        // schema's own metadata may differ).
        if batch.schema().fields() != self.schema.fields() {
            return Some(Err(arrow_schema::ArrowError::SchemaError(format!(
                "a batch of schema {} in a reader of schema {}",
                batch.schema(),
                self.schema
            ))));
        }
        Some(Ok(batch_to_arrow_in(&batch, self.arrow_schema.clone())))
    }
}

impl<I, E> arrow_array::RecordBatchReader for ArrowReader<I>
where
    I: Iterator<Item = Result<RecordBatch, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    fn schema(&self) -> arrow_schema::SchemaRef {
        self.arrow_schema.clone()
    }
}

/// Alkaid batches from an arrow-rs `RecordBatchReader` (a Parquet or CSV reader, a
/// DataFusion stream made blocking): an iterator of `Result<RecordBatch, BridgeError>`
/// with the reader's schema.
pub struct AlkaidReader<R> {
    schema: SchemaRef,
    reader: R,
}

impl<R: arrow_array::RecordBatchReader> AlkaidReader<R> {
    /// Reads `reader`.
    ///
    /// # Errors
    /// If the reader's schema has a type the format does not allow.
    pub fn try_new(reader: R) -> Result<Self, BridgeError> {
        let schema = Arc::new(schema_from_arrow(&reader.schema())?);
        Ok(Self { schema, reader })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

impl<R: arrow_array::RecordBatchReader> Iterator for AlkaidReader<R> {
    type Item = Result<RecordBatch, BridgeError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(match self.reader.next()? {
            Ok(batch) => batch_from_arrow(&batch),
            Err(e) => Err(BridgeError::Source(Box::new(e))),
        })
    }
}

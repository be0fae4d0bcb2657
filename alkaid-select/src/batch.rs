//! What the batch forms of the kernels share: every column through one kernel, under the
//! batch's schema.

use alkaid_array::{Array, ArrayRef, RecordBatch};

use crate::error::SelectError;

/// The batch of `rows` rows whose columns are `kernel` of `batch`'s columns.
pub(crate) fn each_column(
    batch: &RecordBatch,
    rows: usize,
    kernel: impl FnMut(&dyn Array) -> Result<ArrayRef, SelectError>,
) -> Result<RecordBatch, SelectError> {
    let columns = batch
        .columns()
        .iter()
        .map(|column| column.as_ref())
        .map(kernel)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new_with_rows(
        batch.schema().clone(),
        columns,
        rows,
    )?)
}

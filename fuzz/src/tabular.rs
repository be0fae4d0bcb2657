//! Targets for alkaid-formats' readers: Parquet bytes, CSV text and newline-delimited JSON
//! (arrow-rs's readers, with the bridge to Alkaid batches behind them). Whatever reads is
//! consumed; at most 64 batches, so that a file declaring many is bounded.

use std::io::Cursor;

use alkaid_array::{Scalar, StringArray};
use alkaid_compute::cast::{CastOptions, cast};
use alkaid_compute::predicate::{Comparison, Operand, Predicate};
use alkaid_formats::{Batches, csv, json, parquet};

use crate::consume;

/// Every batch `batches` gives, up to 64, consumed; the first error ends the reading.
fn drain(batches: Batches) {
    for batch in batches.take(64) {
        match batch {
            Ok(batch) => consume(&batch),
            Err(_) => return,
        }
    }
}

/// The input as a Parquet file, read with small batches: whole, then again under a
/// predicate on its first columns, so that the page index is read and row groups and
/// pages are pruned by their statistics (what a query's filter makes the reader do).
pub fn parquet(data: &[u8]) {
    let options = parquet::ParquetReadOptions::default().with_batch_size(64);
    let Ok(batches) = parquet::read_bytes(data.to_vec(), options.clone()) else {
        return;
    };
    let schema = batches.schema();
    drain(batches);
    if let Some(predicate) = predicate_on(&schema) {
        let options = options.with_predicate_if_applicable(predicate);
        if let Ok(batches) = parquet::read_bytes(data.to_vec(), options) {
            drain(batches);
        }
    }
}

/// A predicate on the first two top-level columns of `schema`: the first compared with a
/// literal of its own type (the text `1`, cast), or null, or the second.
fn predicate_on(schema: &alkaid_schema::Schema) -> Option<Predicate> {
    let first = schema.fields().first()?;
    let text = StringArray::from(vec!["1"]);
    let literal = cast(&text, first.data_type(), CastOptions::SAFE)
        .ok()
        .and_then(|one| Scalar::try_new(one).ok())?;
    let column = || Operand::column(first.name());
    let mut predicate = Predicate::compare(column(), Comparison::GtEq, Operand::Literal(literal))
        .or(Predicate::IsNull(column()));
    if let Some(second) = schema.fields().get(1) {
        let other = Operand::column(second.name());
        predicate = predicate.and(Predicate::IsNotNull(other).not());
    }
    Some(predicate)
}

/// The input as CSV, its schema inferred from the first 100 rows.
pub fn csv(data: &[u8]) {
    let options = csv::CsvReadOptions::default()
        .with_infer_rows(100)
        .with_batch_size(64);
    let input = Cursor::new(data.to_vec());
    if let Ok(batches) = csv::reader(input, "fuzz input".to_string(), options) {
        drain(batches);
    }
}

/// The input as newline-delimited JSON, its schema inferred from the first 100 lines.
pub fn json(data: &[u8]) {
    let options = json::JsonReadOptions::default()
        .with_infer_rows(100)
        .with_batch_size(64);
    let input = Cursor::new(data.to_vec());
    if let Ok(batches) = json::reader(input, "fuzz input".to_string(), options) {
        drain(batches);
    }
}

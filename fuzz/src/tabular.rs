//! Targets for alkaid-formats' readers: Parquet bytes, CSV text and newline-delimited JSON
//! (arrow-rs's readers, with the bridge to Alkaid batches behind them). Whatever reads is
//! consumed; at most 64 batches, so that a file declaring many is bounded.

use std::io::Cursor;

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

/// The input as a Parquet file, read with small batches.
pub fn parquet(data: &[u8]) {
    let options = parquet::ReadOptions::default().with_batch_size(64);
    if let Ok(batches) = parquet::read_bytes(data.to_vec(), options) {
        drain(batches);
    }
}

/// The input as CSV, its schema inferred from the first 100 rows.
pub fn csv(data: &[u8]) {
    let options = csv::ReadOptions::default()
        .with_infer_rows(100)
        .with_batch_size(64);
    let input = Cursor::new(data.to_vec());
    if let Ok(batches) = csv::reader(input, "fuzz input".to_string(), options) {
        drain(batches);
    }
}

/// The input as newline-delimited JSON, its schema inferred from the first 100 lines.
pub fn json(data: &[u8]) {
    let options = json::ReadOptions::default()
        .with_infer_rows(100)
        .with_batch_size(64);
    let input = Cursor::new(data.to_vec());
    if let Ok(batches) = json::reader(input, "fuzz input".to_string(), options) {
        drain(batches);
    }
}

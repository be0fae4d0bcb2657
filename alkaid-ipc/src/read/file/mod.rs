//! Files: one sans-IO plan (`decoder.rs`), opened from the file's end (`open.rs`), whose
//! reads are steps of byte ranges: the head and dictionaries (`prelude.rs`, which checks the
//! stream's schema against the footer's in `stream_schema.rs`), then batches and row counts
//! (`batch.rs`). The synchronous reader answers the steps from a `ByteSource` (`reader.rs`);
//! `select.rs` chooses batches and rows.

pub(crate) mod batch;
pub(crate) mod decoder;
pub(crate) mod open;
pub(crate) mod prelude;
pub(crate) mod reader;
pub(crate) mod select;
pub(crate) mod stream_schema;

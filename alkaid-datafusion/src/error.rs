//! Errors of a scan or a write, as DataFusion errors that name the file.

use datafusion::error::DataFusionError;

/// `error`, which happened reading or writing `location`, as a DataFusion error whose
/// message starts with the file: in a directory of many files, the one to look at.
pub(crate) fn file_error(location: &str, error: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{location}: {error}"))
}

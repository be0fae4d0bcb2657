//! The one error of this crate: what failed, where (the file, and the row, row group or
//! column when the reader says), and why.

use std::fmt;

/// A format could not be read or written.
#[derive(Debug)]
pub struct FormatError {
    place: String,
    source: Box<dyn std::error::Error + Send + Sync>,
}

/// Shorthand for results of this crate.
pub type Result<T, E = FormatError> = std::result::Result<T, E>;

impl FormatError {
    /// `source`, which happened at `place` (a path, `"standard input"`, a row).
    pub fn new(
        place: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            place: place.into(),
            source: source.into(),
        }
    }

    /// Where it happened.
    pub fn place(&self) -> &str {
        &self.place
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.place.is_empty() {
            true => write!(f, "{}", self.source),
            false => write!(f, "{}: {}", self.place, self.source),
        }
    }
}

impl std::error::Error for FormatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.source.as_ref())
    }
}

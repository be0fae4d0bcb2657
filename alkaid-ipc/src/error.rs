//! The one error type of this crate.

use std::fmt;

use alkaid_data::DataError;
use alkaid_schema::SchemaError;

/// What went wrong, broadly; [`IpcError`]'s message says exactly what and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IpcErrorKind {
    /// Reading or writing the underlying `std::io` object failed.
    Io,
    /// The bytes are not a well-formed message, file or stream: bad framing, a flatbuffer that
    /// fails verification, a buffer outside the body, a count that does not match the type.
    Malformed,
    /// The input ended in the middle of a message or file.
    Truncated,
    /// Well-formed, but uses something this crate does not implement (tensors, V1-V3
    /// metadata, an unknown codec).
    Unsupported,
    /// Decoded arrays that fail validation, or a schema or type the format cannot express.
    InvalidData,
    /// A resource limit of the reader was hit (see `ReadOptions`).
    LimitExceeded,
    /// The caller used the API wrongly: a batch whose schema differs from the writer's, a
    /// dictionary replacement in a file, writing after `finish`.
    InvalidArgument,
}

/// An error from reading or writing IPC data.
#[derive(Debug)]
pub struct IpcError {
    kind: IpcErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl IpcError {
    /// An error of `kind` with a message saying what and where.
    pub fn new(kind: IpcErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn malformed(message: impl Into<String>) -> Self {
        Self::new(IpcErrorKind::Malformed, message)
    }

    pub(crate) fn truncated(message: impl Into<String>) -> Self {
        Self::new(IpcErrorKind::Truncated, message)
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Self {
        Self::new(IpcErrorKind::Unsupported, message)
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(IpcErrorKind::InvalidArgument, message)
    }

    pub(crate) fn limit(message: impl Into<String>) -> Self {
        Self::new(IpcErrorKind::LimitExceeded, message)
    }

    /// Prefixes the message with where the error happened (`"message 4: "`).
    pub(crate) fn context(mut self, place: impl fmt::Display) -> Self {
        self.message = format!("{place}: {}", self.message);
        self
    }

    /// The broad kind.
    pub fn kind(&self) -> IpcErrorKind {
        self.kind
    }

    /// The message, with its place.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for IpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IpcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for IpcError {
    fn from(e: std::io::Error) -> Self {
        let kind = if e.kind() == std::io::ErrorKind::UnexpectedEof {
            IpcErrorKind::Truncated
        } else {
            IpcErrorKind::Io
        };
        Self {
            kind,
            message: e.to_string(),
            source: Some(Box::new(e)),
        }
    }
}

impl From<DataError> for IpcError {
    fn from(e: DataError) -> Self {
        Self {
            kind: IpcErrorKind::InvalidData,
            message: e.to_string(),
            source: Some(Box::new(e)),
        }
    }
}

impl From<SchemaError> for IpcError {
    fn from(e: SchemaError) -> Self {
        Self {
            kind: IpcErrorKind::InvalidData,
            message: e.to_string(),
            source: Some(Box::new(e)),
        }
    }
}

impl From<flatbuffers::InvalidFlatbuffer> for IpcError {
    fn from(e: flatbuffers::InvalidFlatbuffer) -> Self {
        Self::malformed(format!("flatbuffer fails verification: {e}"))
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = IpcError> = std::result::Result<T, E>;

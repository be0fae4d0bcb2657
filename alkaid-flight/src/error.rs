//! The one error type of this crate, and how it travels as a gRPC status.

use std::fmt;

use alkaid_ipc::{IpcError, IpcErrorKind};
use tonic::{Code, Status};

/// An error of a Flight call: the peer's status, bad data in the stream, or the
/// connection.
#[derive(Debug)]
#[non_exhaustive]
pub enum FlightError {
    /// The peer answered with an error status (or the call failed locally with one).
    Status(Status),
    /// The stream's IPC messages are invalid, or a batch could not be encoded.
    Ipc(IpcError),
    /// Connecting failed, or the connection broke.
    Transport(tonic::transport::Error),
    /// The peer broke the Flight protocol (a batch before the schema, say).
    Protocol(String),
    /// A local file could not be read or written.
    Io(std::io::Error),
}

/// Shorthand for results of this crate.
pub type Result<T, E = FlightError> = std::result::Result<T, E>;

impl FlightError {
    /// A protocol error described by `message`.
    pub fn protocol(message: impl Into<String>) -> Self {
        Self::Protocol(message.into())
    }

    /// The gRPC status code this error travels as.
    pub fn code(&self) -> Code {
        match self {
            FlightError::Status(status) => status.code(),
            FlightError::Ipc(e) => match e.kind() {
                IpcErrorKind::InvalidArgument => Code::InvalidArgument,
                IpcErrorKind::LimitExceeded => Code::ResourceExhausted,
                IpcErrorKind::Unsupported => Code::Unimplemented,
                IpcErrorKind::Io => Code::Internal,
                _ => Code::InvalidArgument,
            },
            FlightError::Transport(_) => Code::Unavailable,
            FlightError::Protocol(_) => Code::InvalidArgument,
            FlightError::Io(e) => match e.kind() {
                std::io::ErrorKind::NotFound => Code::NotFound,
                std::io::ErrorKind::AlreadyExists => Code::AlreadyExists,
                std::io::ErrorKind::PermissionDenied => Code::PermissionDenied,
                std::io::ErrorKind::StorageFull => Code::ResourceExhausted,
                _ => Code::Internal,
            },
        }
    }
}

impl fmt::Display for FlightError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlightError::Status(status) => {
                write!(f, "{:?}: {}", status.code(), status.message())
            }
            FlightError::Ipc(e) => write!(f, "{e}"),
            FlightError::Transport(e) => {
                write!(f, "transport: {e}")?;
                // tonic's transport errors say little on their own; the cause says what.
                let mut source = std::error::Error::source(e);
                while let Some(cause) = source {
                    write!(f, ": {cause}")?;
                    source = cause.source();
                }
                Ok(())
            }
            FlightError::Protocol(message) => write!(f, "protocol: {message}"),
            FlightError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FlightError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FlightError::Status(status) => Some(status),
            FlightError::Ipc(e) => Some(e),
            FlightError::Transport(e) => Some(e),
            FlightError::Protocol(_) => None,
            FlightError::Io(e) => Some(e),
        }
    }
}

impl From<Status> for FlightError {
    fn from(status: Status) -> Self {
        Self::Status(status)
    }
}

impl From<IpcError> for FlightError {
    fn from(e: IpcError) -> Self {
        Self::Ipc(e)
    }
}

impl From<tonic::transport::Error> for FlightError {
    fn from(e: tonic::transport::Error) -> Self {
        Self::Transport(e)
    }
}

impl From<std::io::Error> for FlightError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

impl From<FlightError> for Status {
    fn from(e: FlightError) -> Self {
        match e {
            FlightError::Status(status) => status,
            other => Status::new(other.code(), other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_travel_with_the_code_that_fits() {
        let status: Status = FlightError::protocol("a batch before the schema").into();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains("before the schema"));
        let limit = IpcError::new(IpcErrorKind::LimitExceeded, "too big");
        assert_eq!(FlightError::from(limit).code(), Code::ResourceExhausted);
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(
            Status::from(FlightError::from(missing)).code(),
            Code::NotFound
        );
        let peer = FlightError::from(Status::unauthenticated("no token"));
        assert_eq!(Status::from(peer).code(), Code::Unauthenticated);
    }
}

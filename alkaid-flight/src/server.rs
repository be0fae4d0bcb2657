//! Serving a [`FlightService`] on a TCP listener: TLS, a bearer-token check before any
//! method runs, message size limits, and a shutdown signal.

use std::future::Future;

use tokio::net::TcpListener;
use tonic::metadata::MetadataMap;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Request, Status};

use crate::client::DEFAULT_MAX_MESSAGE_BYTES;
use crate::error::Result;
use crate::proto::flight_service_server::{FlightService, FlightServiceServer};

/// How a Flight server accepts calls.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    tls: Option<(Vec<u8>, Vec<u8>)>,
    token: Option<String>,
    max_message_bytes: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            tls: None,
            token: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

impl ServerOptions {
    /// Serves over TLS with the certificate chain `cert_pem` and its key `key_pem`.
    pub fn with_tls(mut self, cert_pem: impl Into<Vec<u8>>, key_pem: impl Into<Vec<u8>>) -> Self {
        self.tls = Some((cert_pem.into(), key_pem.into()));
        self
    }

    /// Answers every call that lacks `authorization: Bearer <token>` with
    /// `Unauthenticated`, before the method runs.
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The largest message sent or received, in bytes (256 MiB by default).
    pub fn with_max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }
}

/// Checks the bearer token of every call.
#[derive(Debug, Clone)]
pub struct TokenCheck(Option<String>);

impl TokenCheck {
    fn admits(&self, metadata: &MetadataMap) -> bool {
        let Some(token) = &self.0 else {
            return true;
        };
        let Some(given) = metadata
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
        else {
            return false;
        };
        // Compared in time that does not depend on where the bytes differ.
        given.len() == token.len()
            && given
                .bytes()
                .zip(token.bytes())
                .fold(0u8, |diff, (a, b)| diff | (a ^ b))
                == 0
    }
}

impl tonic::service::Interceptor for TokenCheck {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        match self.admits(request.metadata()) {
            true => Ok(request),
            false => Err(Status::unauthenticated(
                "this server needs the header `authorization: Bearer <token>` with its token",
            )),
        }
    }
}

/// Serves `service` on `listener` with `options` until `shutdown` completes (calls under
/// way are let finish).
///
/// # Errors
/// If the TLS configuration is invalid or the server fails.
pub async fn serve<S: FlightService>(
    service: S,
    listener: TcpListener,
    options: ServerOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    let flight = FlightServiceServer::new(service)
        .max_decoding_message_size(options.max_message_bytes)
        .max_encoding_message_size(options.max_message_bytes);
    let service = InterceptedService::new(flight, TokenCheck(options.token));
    let mut server = Server::builder()
        .tcp_nodelay(true)
        .http2_adaptive_window(Some(true));
    if let Some((cert, key)) = &options.tls {
        server =
            server.tls_config(ServerTlsConfig::new().identity(Identity::from_pem(cert, key)))?;
    }
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    server
        .add_service(service)
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_token_is_admitted() {
        let check = TokenCheck(Some("s3cret".into()));
        let with = |value: &str| {
            let mut metadata = MetadataMap::new();
            metadata.insert("authorization", value.parse().unwrap());
            check.admits(&metadata)
        };
        assert!(with("Bearer s3cret"));
        for wrong in [
            "Bearer s3cre",
            "Bearer s3cret!",
            "bearer s3cret",
            "s3cret",
            "Bearer ",
        ] {
            assert!(!with(wrong), "{wrong}");
        }
        assert!(!check.admits(&MetadataMap::new()));
        assert!(TokenCheck(None).admits(&MetadataMap::new()));
    }
}

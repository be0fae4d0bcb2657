//! Who may call a server: a bearer token checked before any method runs, and the handshake
//! that hands the token out for a user name and password (HTTP basic authentication in
//! the call's `authorization` header, answered with `authorization: Bearer <token>`), as
//! Arrow's clients do it (pyarrow's `authenticate_basic_token`).

use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use futures_util::stream;
use tonic::codegen::{BoxStream, http};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Response, Status};

use crate::proto::HandshakeResponse;

/// Basic credentials' base64, with or without its `=` padding: Go's Flight client (under
/// ADBC's Flight SQL driver) leaves the padding out.
const BASIC: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The path of the Handshake method.
const HANDSHAKE: &str = "/arrow.flight.protocol.FlightService/Handshake";

/// A server's checks: its token, and the credentials its handshake takes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Auth {
    pub token: Option<String>,
    pub basic: Option<(String, String)>,
}

impl Auth {
    /// Whether a call to `path` with `headers` may go on to the service: every call with
    /// the token, and a handshake with basic credentials (which the handshake checks).
    pub fn admits(&self, path: &str, headers: &http::HeaderMap) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let header = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        if path == HANDSHAKE
            && self.basic.is_some()
            && header.is_some_and(|h| h.starts_with("Basic "))
        {
            return true;
        }
        header
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| same(given.as_bytes(), token.as_bytes()))
    }

    /// The answer to a handshake carrying basic credentials, when the server takes them:
    /// the token in the response's headers, or `Unauthenticated`. `None` for a handshake
    /// without them, which the service answers.
    pub fn basic_handshake(
        &self,
        metadata: &MetadataMap,
    ) -> Option<Result<Response<BoxStream<HandshakeResponse>>, Status>> {
        let (user, password) = self.basic.as_ref()?;
        let encoded = metadata
            .get("authorization")?
            .to_str()
            .ok()?
            .strip_prefix("Basic ")?;
        let refused = || Status::unauthenticated("wrong user name or password");
        let given = BASIC.decode(encoded.trim()).unwrap_or_default();
        let expected = format!("{user}:{password}");
        if !same(&given, expected.as_bytes()) {
            return Some(Err(refused()));
        }
        let token = self.token.as_deref().unwrap_or_default();
        let bearer = MetadataValue::try_from(format!("Bearer {token}")).map_err(|_| refused());
        Some(bearer.map(|bearer| {
            let mut response: Response<BoxStream<HandshakeResponse>> =
                Response::new(Box::pin(stream::empty()));
            response.metadata_mut().insert("authorization", bearer);
            response
        }))
    }
}

/// Whether `a` and `b` are equal, in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(authorization: &str) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    #[test]
    fn only_the_exact_token_is_admitted_and_a_basic_handshake_passes_to_its_check() {
        let auth = Auth {
            token: Some("s3cret".into()),
            basic: Some(("ann".into(), "pw".into())),
        };
        let get = "/arrow.flight.protocol.FlightService/DoGet";
        assert!(auth.admits(get, &headers("Bearer s3cret")));
        for wrong in ["Bearer s3cre", "Bearer s3cret!", "bearer s3cret", "s3cret"] {
            assert!(!auth.admits(get, &headers(wrong)), "{wrong}");
        }
        assert!(!auth.admits(get, &http::HeaderMap::new()));
        assert!(!auth.admits(get, &headers("Basic YW5uOnB3")));
        assert!(auth.admits(HANDSHAKE, &headers("Basic YW5uOnB3")));
        assert!(!auth.admits(HANDSHAKE, &http::HeaderMap::new()));
        let open = Auth::default();
        assert!(open.admits(get, &http::HeaderMap::new()));
    }

    #[test]
    fn the_handshake_hands_out_the_token_for_the_right_credentials_only() {
        let auth = Auth {
            token: Some("s3cret".into()),
            basic: Some(("ann".into(), "pw".into())),
        };
        let metadata = |value: &str| {
            let mut metadata = MetadataMap::new();
            metadata.insert("authorization", value.parse().unwrap());
            metadata
        };
        // "ann:pw" and "ann:px".
        let answer = auth
            .basic_handshake(&metadata("Basic YW5uOnB3"))
            .unwrap()
            .unwrap();
        assert_eq!(
            answer.metadata().get("authorization").unwrap(),
            "Bearer s3cret"
        );
        // "ann:pw!" padded ("YW5uOnB3IQ==", as pyarrow writes it) and unpadded (as Go's
        // Flight client under ADBC writes it) are the same credentials.
        let with_pw = Auth {
            basic: Some(("ann".into(), "pw!".into())),
            ..auth.clone()
        };
        for encoded in ["Basic YW5uOnB3IQ==", "Basic YW5uOnB3IQ"] {
            let answer = with_pw.basic_handshake(&metadata(encoded)).unwrap();
            assert!(answer.is_ok(), "{encoded}");
        }
        let refused = auth.basic_handshake(&metadata("Basic YW5uOnB4")).unwrap();
        assert_eq!(refused.err().unwrap().code(), tonic::Code::Unauthenticated);
        let garbage = auth.basic_handshake(&metadata("Basic !!!")).unwrap();
        assert!(garbage.is_err());
        assert!(auth.basic_handshake(&metadata("Bearer s3cret")).is_none());
        assert!(
            Auth::default()
                .basic_handshake(&metadata("Basic YW5uOnB3"))
                .is_none()
        );
    }
}

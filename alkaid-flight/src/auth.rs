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

/// A user the handshake knows: a name, a password, and the token handed out for them.
#[derive(Debug, Clone)]
pub(crate) struct User {
    pub name: String,
    pub password: String,
    pub token: String,
}

/// A server's checks: the tokens it admits, and the users its handshake takes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Auth {
    pub tokens: Vec<String>,
    pub users: Vec<User>,
}

impl Auth {
    /// Whether a call to `path` with `headers` may go on to the service: every call with
    /// one of the tokens, and a handshake with basic credentials (which the handshake
    /// checks). Without tokens, every call.
    pub fn admits(&self, path: &str, headers: &http::HeaderMap) -> bool {
        if self.tokens.is_empty() {
            return true;
        }
        let header = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        if path == HANDSHAKE
            && !self.users.is_empty()
            && header.is_some_and(|h| h.starts_with("Basic "))
        {
            return true;
        }
        let Some(given) = header.and_then(|v| v.strip_prefix("Bearer ")) else {
            return false;
        };
        // Every token is compared, so the time taken says nothing of which one matched.
        self.tokens.iter().fold(false, |found, token| {
            same(given.as_bytes(), token.as_bytes()) | found
        })
    }

    /// The answer to a handshake carrying basic credentials, when the server takes them:
    /// the user's token in the response's headers, or `Unauthenticated`. `None` for a
    /// handshake without them, which the service answers.
    pub fn basic_handshake(
        &self,
        metadata: &MetadataMap,
    ) -> Option<Result<Response<BoxStream<HandshakeResponse>>, Status>> {
        if self.users.is_empty() {
            return None;
        }
        let encoded = metadata
            .get("authorization")?
            .to_str()
            .ok()?
            .strip_prefix("Basic ")?;
        let refused = || Status::unauthenticated("wrong user name or password");
        let given = BASIC.decode(encoded.trim()).unwrap_or_default();
        // Every user is compared, as for tokens.
        let user = self.users.iter().fold(None, |found, user| {
            let expected = format!("{}:{}", user.name, user.password);
            match same(&given, expected.as_bytes()) {
                true => Some(user),
                false => found,
            }
        });
        let Some(user) = user else {
            return Some(Err(refused()));
        };
        let bearer =
            MetadataValue::try_from(format!("Bearer {}", user.token)).map_err(|_| refused());
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

    fn user(name: &str, password: &str, token: &str) -> User {
        User {
            name: name.into(),
            password: password.into(),
            token: token.into(),
        }
    }

    fn headers(authorization: &str) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    #[test]
    fn only_the_exact_token_is_admitted_and_a_basic_handshake_passes_to_its_check() {
        let auth = Auth {
            tokens: vec!["s3cret".into()],
            users: vec![user("ann", "pw", "s3cret")],
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
            tokens: vec!["s3cret".into()],
            users: vec![user("ann", "pw", "s3cret")],
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
            users: vec![user("ann", "pw!", "s3cret")],
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

    #[test]
    fn each_user_gets_their_own_token_and_every_token_is_admitted() {
        let auth = Auth {
            tokens: vec!["t-ann".into(), "t-bob".into()],
            users: vec![user("ann", "pw", "t-ann"), user("bob", "pw2", "t-bob")],
        };
        let mut metadata = MetadataMap::new();
        // "bob:pw2".
        metadata.insert("authorization", "Basic Ym9iOnB3Mg".parse().unwrap());
        let answer = auth.basic_handshake(&metadata).unwrap().unwrap();
        assert_eq!(
            answer.metadata().get("authorization").unwrap(),
            "Bearer t-bob"
        );
        let get = "/arrow.flight.protocol.FlightService/DoGet";
        assert!(auth.admits(get, &headers("Bearer t-ann")));
        assert!(auth.admits(get, &headers("Bearer t-bob")));
        assert!(!auth.admits(get, &headers("Bearer t-carl")));
    }
}

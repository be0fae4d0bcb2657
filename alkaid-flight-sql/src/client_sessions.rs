//! Each client's session, as Flight's session actions make one (`SetSessionOptions`,
//! `GetSessionOptions`, `CloseSession`): the current catalog and schema (this server has
//! one of each, so they can be read and set only to themselves) and the few DataFusion
//! settings a client may change for its own statements ([`ALLOWED`]: none that reach the
//! file system or the limits the operator set).
//!
//! A session is found by the `arrow_flight_session_id` cookie the server hands out when
//! one is made (the JDBC driver and clients with a cookie middleware send it back), or
//! else by the connection's peer address (ADBC's driver keeps no cookies unless asked
//! to; one connection is one HTTP/2 connection). Sessions are bounded in number and
//! forgotten after the statement timeout unused, as prepared statements are.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, RandomState};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alkaid_flight::proto::session_option_value::OptionValue;
use alkaid_flight::proto::set_session_options_result::{Error, ErrorValue};
use alkaid_flight::proto::{
    CloseSessionRequest, CloseSessionResult, GetSessionOptionsRequest, GetSessionOptionsResult,
    Result as ActionResult, SessionOptionValue, SetSessionOptionsRequest, SetSessionOptionsResult,
    close_session_result,
};
use datafusion::execution::{SessionState, SessionStateBuilder};
use futures_util::stream;
use prost::Message;
use tonic::Response;
use tonic::Status;
use tonic::codegen::BoxStream;
use tonic::metadata::MetadataMap;
use tonic::metadata::MetadataValue;

use crate::expiring::Expiring;
use crate::tables::{CATALOG, SCHEMA};

/// The cookie that names a session.
pub const COOKIE: &str = "arrow_flight_session_id";

/// How a setting's value is checked.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Bool,
    /// An integer within the bounds, inclusive.
    Int(u64, u64),
    /// An IANA time zone name or a fixed offset (`+05:30`), as Arrow's `Tz` reads them.
    TimeZone,
}

/// The DataFusion settings a client may change for its own session. Each changes how
/// SQL reads or how results are cut, never what is read or written nor how much memory
/// or time a statement may take (the memory pool and time limit are the operator's).
const ALLOWED: [(&str, Kind); 4] = [
    ("datafusion.execution.time_zone", Kind::TimeZone),
    ("datafusion.execution.batch_size", Kind::Int(1, 65_536)),
    (
        "datafusion.sql_parser.enable_ident_normalization",
        Kind::Bool,
    ),
    ("datafusion.sql_parser.parse_float_as_decimal", Kind::Bool),
];

/// Who is calling: the session cookie they sent, and where they call from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    cookie: Option<String>,
    peer: Option<SocketAddr>,
}

impl Caller {
    /// The caller of `request`.
    pub fn of<T>(request: &tonic::Request<T>) -> Self {
        Self::new(request.metadata(), request.remote_addr())
    }

    /// The caller of a request with `metadata` from `peer`.
    pub fn new(metadata: &MetadataMap, peer: Option<SocketAddr>) -> Self {
        let cookie = metadata
            .get_all("cookie")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|header| header.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, id)| id.to_string())
            // Only ids this server could have made: anything else names no session.
            .filter(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()));
        Self { cookie, peer }
    }
}

/// One client's session: its settings, and the DataFusion session state its statements
/// plan and run in (`None` while it has none, so the server's own is used).
#[derive(Debug, Clone, Default)]
pub struct ClientSession {
    settings: BTreeMap<&'static str, String>,
    state: Option<Arc<SessionState>>,
}

/// Every client's session, by id, and the peer addresses that name one.
#[derive(Debug)]
pub struct ClientSessions {
    base: Arc<SessionState>,
    sessions: Expiring<String, ClientSession>,
    peers: Mutex<HashMap<SocketAddr, String>>,
    seed: u64,
}

/// What setting options answers: the options not set, and the cookie of a session made
/// for the caller (to send back as `set-cookie`).
#[derive(Debug)]
pub struct SetAnswer {
    /// The result to send.
    pub result: SetSessionOptionsResult,
    /// The id of the session made for this caller, when one was.
    pub new_id: Option<String>,
}

impl ClientSessions {
    /// Answers the session action `kind` (`SetSessionOptions`, `GetSessionOptions`,
    /// `CloseSession`) with `body` from `caller`. Setting options for a caller without a
    /// session makes one, and its cookie goes back in the answer's `set-cookie`.
    ///
    /// # Errors
    /// `InvalidArgument` for a body that is not the action's request or an action that
    /// is not one of these; `ResourceExhausted` when no more sessions may be held.
    pub fn act(
        &self,
        kind: &str,
        body: &[u8],
        caller: &Caller,
    ) -> Result<Response<BoxStream<ActionResult>>, Status> {
        let malformed = |e: prost::DecodeError| {
            Status::invalid_argument(format!("a malformed {kind} request: {e}"))
        };
        let (body, cookie) = match kind {
            "SetSessionOptions" => {
                let request = SetSessionOptionsRequest::decode(body).map_err(malformed)?;
                let answer = self.set(caller, &request.session_options)?;
                (answer.result.encode_to_vec(), answer.new_id)
            }
            "GetSessionOptions" => {
                GetSessionOptionsRequest::decode(body).map_err(malformed)?;
                let session_options = self.options(caller).into_iter().collect();
                let result = GetSessionOptionsResult { session_options };
                (result.encode_to_vec(), None)
            }
            "CloseSession" => {
                CloseSessionRequest::decode(body).map_err(malformed)?;
                self.close(caller);
                let status = close_session_result::Status::Closed as i32;
                (CloseSessionResult { status }.encode_to_vec(), None)
            }
            other => {
                return Err(Status::invalid_argument(format!(
                    "{other:?} is not a session action"
                )));
            }
        };
        let result = ActionResult { body: body.into() };
        let mut response: Response<BoxStream<ActionResult>> =
            Response::new(Box::pin(stream::iter([Ok(result)])));
        if let Some(id) = cookie {
            let cookie = format!("{COOKIE}={id}; HttpOnly");
            let cookie = MetadataValue::try_from(cookie).expect("hex digits are a header");
            response.metadata_mut().insert("set-cookie", cookie);
        }
        Ok(response)
    }

    /// At most `limit` sessions over `base`, each forgotten after `timeout` unused.
    pub fn new(base: Arc<SessionState>, limit: usize, timeout: Duration) -> Self {
        Self {
            base,
            sessions: Expiring::new(limit, timeout),
            peers: Mutex::default(),
            seed: RandomState::new().hash_one(Instant::now()),
        }
    }

    /// The id of `caller`'s session, if it has one.
    fn id_of(&self, caller: &Caller) -> Option<String> {
        if let Some(id) = &caller.cookie {
            return Some(id.clone());
        }
        let peers = self.peers.lock().expect("no panics while held");
        caller.peer.and_then(|peer| peers.get(&peer).cloned())
    }

    /// `f` of `caller`'s session (its expiry restarted); `None` when it has none.
    fn with_session<R>(
        &self,
        caller: &Caller,
        f: impl FnOnce(&mut ClientSession) -> R,
    ) -> Option<R> {
        let id = self.id_of(caller)?;
        self.sessions.with(&id, false, f)
    }

    /// `caller`'s session (its expiry restarted); a default one when it has none.
    pub fn session(&self, caller: &Caller) -> ClientSession {
        let session = self.with_session(caller, |session| session.clone());
        session.unwrap_or_default()
    }

    /// The state `caller`'s statements plan and run in, when their session has one of its
    /// own: what every statement asks, so only the state is copied, not the settings.
    pub fn state(&self, caller: &Caller) -> Option<Arc<SessionState>> {
        self.with_session(caller, |session| session.state.clone())
            .flatten()
    }

    /// `caller`'s options as they are now: the catalog, the schema and every setting a
    /// client may change (its session's value, or the server's).
    pub fn options(&self, caller: &Caller) -> BTreeMap<String, SessionOptionValue> {
        let session = self.session(caller);
        let mut options = BTreeMap::new();
        options.insert("catalog".to_string(), string(CATALOG));
        options.insert("schema".to_string(), string(SCHEMA));
        let config = self.base.config().options();
        for entry in config.entries() {
            if let Some((name, kind)) = ALLOWED.iter().find(|(name, _)| *name == entry.key) {
                let value = session.settings.get(name).cloned().or(entry.value);
                let value = match (value, kind) {
                    (None, _) => SessionOptionValue { option_value: None },
                    (Some(v), Kind::Bool) => typed(OptionValue::BoolValue(v == "true")),
                    (Some(v), Kind::Int(..)) => match v.parse() {
                        Ok(n) => typed(OptionValue::Int64Value(n)),
                        Err(_) => string(&v),
                    },
                    (Some(v), Kind::TimeZone) => string(&v),
                };
                options.insert(name.to_string(), value);
            }
        }
        options
    }

    /// Sets `requested` in `caller`'s session (made when it has none); each option that
    /// could not be set is in the answer's errors, and the others are set.
    ///
    /// # Errors
    /// `ResourceExhausted` when the server holds as many sessions as it may.
    pub fn set(
        &self,
        caller: &Caller,
        requested: &HashMap<String, SessionOptionValue>,
    ) -> Result<SetAnswer, Status> {
        let mut session = self.session(caller);
        let mut errors = HashMap::new();
        let mut changed = false;
        for (name, value) in requested {
            match self.apply(&mut session, name, value.option_value.as_ref()) {
                Ok(applied) => changed |= applied,
                Err(error) => {
                    errors.insert(
                        name.clone(),
                        Error {
                            value: error as i32,
                        },
                    );
                }
            }
        }
        let mut new_id = None;
        if changed {
            session.state = match session.settings.is_empty() {
                true => None,
                false => Some(self.state_with(&session.settings)?),
            };
            let id = match self.id_of(caller) {
                Some(id) => id,
                None => {
                    let id = self.fresh_id();
                    new_id = Some(id.clone());
                    id
                }
            };
            self.keep(caller, id, session)?;
        }
        let result = SetSessionOptionsResult { errors };
        Ok(SetAnswer { result, new_id })
    }

    /// Forgets `caller`'s session.
    pub fn close(&self, caller: &Caller) {
        if let Some(id) = self.id_of(caller) {
            self.sessions.remove(&id);
            let mut peers = self.peers.lock().expect("no panics while held");
            peers.retain(|_, named| *named != id);
        }
    }

    /// Sets one option in `session`; whether the session's settings changed.
    fn apply(
        &self,
        session: &mut ClientSession,
        name: &str,
        value: Option<&OptionValue>,
    ) -> Result<bool, ErrorValue> {
        if let "catalog" | "schema" = name {
            // One catalog and one schema: each may be set only to itself, or removed
            // (which leaves it as it is).
            let current = if name == "catalog" { CATALOG } else { SCHEMA };
            return match value {
                None => Ok(false),
                Some(OptionValue::StringValue(v)) if v == current => Ok(false),
                Some(_) => Err(ErrorValue::InvalidValue),
            };
        }
        let Some((name, kind)) = ALLOWED.iter().find(|(allowed, _)| *allowed == name) else {
            return Err(ErrorValue::InvalidName);
        };
        let Some(value) = value else {
            return Ok(session.settings.remove(name).is_some());
        };
        let text = checked(*kind, value).ok_or(ErrorValue::InvalidValue)?;
        Ok(session.settings.insert(name, text.clone()) != Some(text))
    }

    /// A session state like the server's with `settings` changed.
    fn state_with(
        &self,
        settings: &BTreeMap<&'static str, String>,
    ) -> Result<Arc<SessionState>, Status> {
        let mut config = self.base.config().clone();
        for (name, value) in settings {
            config
                .options_mut()
                .set(name, value)
                .map_err(|e| Status::invalid_argument(format!("setting {name}: {e}")))?;
        }
        let state = SessionStateBuilder::new_from_existing(self.base.as_ref().clone())
            .with_config(config)
            .build();
        Ok(Arc::new(state))
    }

    /// Keeps `session` under `id`, named also by `caller`'s peer address, after
    /// forgetting what has expired.
    fn keep(&self, caller: &Caller, id: String, session: ClientSession) -> Result<(), Status> {
        self.sessions
            .insert(id.clone(), session, "client session")?;
        let mut peers = self.peers.lock().expect("no panics while held");
        peers.retain(|_, named| self.sessions.contains(named.as_str()));
        if let Some(peer) = caller.peer {
            peers.insert(peer, id);
        }
        Ok(())
    }

    /// A new session id: 32 hex digits no one can guess.
    fn fresh_id(&self) -> String {
        let random = RandomState::new();
        let (a, b) = (
            random.hash_one((self.seed, Instant::now())),
            random.hash_one((Instant::now(), self.seed)),
        );
        format!("{a:016x}{b:016x}")
    }
}

/// `value` as a setting of `kind`, in DataFusion's text form; `None` when it is not one.
/// Clients that set options through ADBC's string options send every value as a string.
fn checked(kind: Kind, value: &OptionValue) -> Option<String> {
    match (kind, value) {
        (Kind::Bool, OptionValue::BoolValue(b)) => Some(b.to_string()),
        (Kind::Bool, OptionValue::StringValue(s)) => match s.as_str() {
            "true" | "false" => Some(s.clone()),
            _ => None,
        },
        (Kind::Int(low, high), OptionValue::Int64Value(n)) => u64::try_from(*n)
            .ok()
            .filter(|n| (low..=high).contains(n))
            .map(|n| n.to_string()),
        (Kind::Int(low, high), OptionValue::StringValue(s)) => s
            .parse::<u64>()
            .ok()
            .filter(|n| (low..=high).contains(n))
            .map(|n| n.to_string()),
        (Kind::TimeZone, OptionValue::StringValue(s)) if s.len() <= 64 => s
            .parse::<datafusion::arrow::array::timezone::Tz>()
            .ok()
            .map(|_| s.clone()),
        _ => None,
    }
}

fn typed(value: OptionValue) -> SessionOptionValue {
    SessionOptionValue {
        option_value: Some(value),
    }
}

fn string(value: &str) -> SessionOptionValue {
    typed(OptionValue::StringValue(value.to_string()))
}

#[cfg(test)]
mod tests {
    use datafusion::execution::SessionStateBuilder;

    use super::*;

    fn sessions(limit: usize) -> ClientSessions {
        let base = SessionStateBuilder::new().with_default_features().build();
        ClientSessions::new(Arc::new(base), limit, Duration::from_secs(60))
    }

    fn peer(port: u16) -> Caller {
        Caller {
            cookie: None,
            peer: Some(SocketAddr::from(([127, 0, 0, 1], port))),
        }
    }

    fn request(pairs: &[(&str, Option<OptionValue>)]) -> HashMap<String, SessionOptionValue> {
        pairs
            .iter()
            .map(|(name, value)| {
                let value = SessionOptionValue {
                    option_value: value.clone(),
                };
                (name.to_string(), value)
            })
            .collect()
    }

    fn text(value: &str) -> Option<OptionValue> {
        Some(OptionValue::StringValue(value.into()))
    }

    #[test]
    fn the_catalog_and_schema_are_the_servers_own_and_settings_are_allowlisted() {
        let sessions = sessions(8);
        let caller = peer(1);
        let options = sessions.options(&caller);
        assert_eq!(options["catalog"], string(CATALOG));
        assert_eq!(options["schema"], string(SCHEMA));
        assert!(options.contains_key("datafusion.execution.time_zone"));

        let wanted = request(&[
            ("catalog", text(CATALOG)),
            ("schema", text("elsewhere")),
            ("datafusion.execution.time_zone", text("Asia/Kolkata")),
            (
                "datafusion.execution.batch_size",
                Some(OptionValue::Int64Value(0)),
            ),
            ("datafusion.runtime.memory_limit", text("100G")),
            ("datafusion.catalog.location", text("/etc")),
            (
                "datafusion.sql_parser.enable_ident_normalization",
                Some(OptionValue::BoolValue(false)),
            ),
        ]);
        let answer = sessions.set(&caller, &wanted).unwrap();
        let errors: BTreeMap<_, _> = answer
            .result
            .errors
            .iter()
            .map(|(name, e)| (name.as_str(), ErrorValue::try_from(e.value).unwrap()))
            .collect();
        assert_eq!(
            errors,
            BTreeMap::from([
                ("schema", ErrorValue::InvalidValue),
                ("datafusion.execution.batch_size", ErrorValue::InvalidValue),
                ("datafusion.runtime.memory_limit", ErrorValue::InvalidName),
                ("datafusion.catalog.location", ErrorValue::InvalidName),
            ])
        );
        let id = answer.new_id.expect("a session made, and its cookie");
        assert_eq!(id.len(), 32);

        // The same peer, or the cookie from anywhere, finds the session.
        let by_cookie = Caller {
            cookie: Some(id.clone()),
            peer: None,
        };
        for caller in [&caller, &by_cookie] {
            let options = sessions.options(caller);
            assert_eq!(
                options["datafusion.execution.time_zone"],
                string("Asia/Kolkata")
            );
            let normalize = &options["datafusion.sql_parser.enable_ident_normalization"];
            assert_eq!(normalize.option_value, Some(OptionValue::BoolValue(false)));
            let state = sessions.state(caller).expect("a state of its own");
            let config = state.config().options();
            assert_eq!(config.execution.time_zone.as_deref(), Some("Asia/Kolkata"));
        }
        // Another connection has the server's settings.
        assert!(sessions.state(&peer(2)).is_none());
        assert_eq!(
            sessions.options(&peer(2))["datafusion.execution.time_zone"],
            sessions.options(&Caller::default())["datafusion.execution.time_zone"]
        );

        // Removing the last setting leaves the server's state; closing forgets it all.
        let removed = request(&[
            ("datafusion.execution.time_zone", None),
            ("datafusion.sql_parser.enable_ident_normalization", None),
        ]);
        let answer = sessions.set(&caller, &removed).unwrap();
        assert!(answer.result.errors.is_empty() && answer.new_id.is_none());
        assert!(sessions.state(&by_cookie).is_none());
        let again = request(&[("datafusion.execution.batch_size", text("512"))]);
        sessions.set(&by_cookie, &again).unwrap();
        assert!(sessions.state(&caller).is_some());
        sessions.close(&caller);
        assert!(sessions.state(&caller).is_none());
        assert!(sessions.state(&by_cookie).is_none());
    }

    #[test]
    fn values_are_checked_and_sessions_bounded() {
        for (kind, value, ok) in [
            (Kind::TimeZone, text("+05:30"), true),
            (Kind::TimeZone, text("Mars/Olympus_Mons"), false),
            (Kind::TimeZone, text(&"Z".repeat(65)), false),
            (Kind::Int(1, 65_536), text("65536"), true),
            (Kind::Int(1, 65_536), text("65537"), false),
            (
                Kind::Int(1, 65_536),
                Some(OptionValue::Int64Value(-1)),
                false,
            ),
            (Kind::Bool, text("maybe"), false),
            (Kind::Bool, Some(OptionValue::DoubleValue(1.0)), false),
        ] {
            let got = checked(kind, value.as_ref().unwrap());
            assert_eq!(got.is_some(), ok, "{kind:?} {value:?}");
        }

        let sessions = sessions(2);
        let setting = request(&[("datafusion.execution.batch_size", text("64"))]);
        sessions.set(&peer(1), &setting).unwrap();
        sessions.set(&peer(2), &setting).unwrap();
        let full = sessions.set(&peer(3), &setting).unwrap_err();
        assert_eq!(full.code(), tonic::Code::ResourceExhausted);
        // Setting what a session already has needs no room, and a closed one makes room.
        sessions.set(&peer(1), &setting).unwrap();
        sessions.close(&peer(2));
        sessions.set(&peer(3), &setting).unwrap();
    }

    #[test]
    fn only_cookies_the_server_could_have_made_name_a_session() {
        let mut metadata = MetadataMap::new();
        let id = "0123456789abcdef0123456789ABCDEF";
        let header = format!("theme=dark; {COOKIE}={id}; other=1");
        metadata.insert("cookie", header.parse().unwrap());
        assert_eq!(Caller::new(&metadata, None).cookie.as_deref(), Some(id));
        let not_hex = format!("zz{}", &id[2..]);
        for forged in ["../../etc", "", "short", &"a".repeat(33), &not_hex] {
            let mut metadata = MetadataMap::new();
            let header = format!("{COOKIE}={forged}");
            if let Ok(value) = header.parse() {
                metadata.insert("cookie", value);
            }
            assert_eq!(Caller::new(&metadata, None).cookie, None, "{forged:?}");
        }
    }
}

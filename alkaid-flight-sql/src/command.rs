//! Flight SQL's commands as they travel: each message packed in a `google.protobuf.Any`
//! (its type's URL and its bytes), in a descriptor's `cmd`, a ticket or an action's body.
//! [`Command`] is every message a server takes there, decoded by its type URL.

use bytes::Bytes;
use prost::Message;
use tonic::Status;

use crate::proto::*;

/// The prefix of every type URL Flight SQL clients write.
const TYPE_URL_PREFIX: &str = "type.googleapis.com/arrow.flight.protocol.sql.";

/// A Flight SQL message that a descriptor, ticket or action carries.
pub trait Packed: Message + Default + Sized {
    /// The message's name in its package (`CommandStatementQuery`).
    const NAME: &'static str;

    /// The message in a `google.protobuf.Any`, encoded.
    fn pack(&self) -> Bytes {
        prost_types::Any {
            type_url: format!("{TYPE_URL_PREFIX}{}", Self::NAME),
            value: self.encode_to_vec(),
        }
        .encode_to_vec()
        .into()
    }

    /// The message in `bytes`, an encoded `Any` of this type.
    ///
    /// # Errors
    /// `InvalidArgument`, naming what was wrong, when `bytes` are not such an `Any`.
    fn unpack(bytes: &[u8]) -> Result<Self, Status> {
        match Command::decode(bytes)? {
            (name, value) if name == Self::NAME => Self::decode(value.as_slice())
                .map_err(|e| Status::invalid_argument(format!("a malformed {name}: {e}"))),
            (name, _) => Err(Status::invalid_argument(format!(
                "expected a {}, found a {name}",
                Self::NAME
            ))),
        }
    }
}

/// Declares the commands: each message's [`Packed`] name and its [`Command`] variant.
macro_rules! commands {
    ($($message:ident),* $(,)?) => {
        $(impl Packed for $message {
            const NAME: &'static str = stringify!($message);
        })*

        /// Every Flight SQL command, query handle and action body a server takes.
        #[derive(Debug, Clone, PartialEq)]
        #[allow(missing_docs, clippy::enum_variant_names)]
        pub enum Command {
            $($message($message),)*
        }

        impl Command {
            /// The command packed in `bytes` (a descriptor's `cmd`, a ticket, an action's
            /// body).
            ///
            /// # Errors
            /// `InvalidArgument`, naming what was wrong: bytes that are not an `Any`, a
            /// type this server does not know, a message that does not decode.
            pub fn unpack(bytes: &[u8]) -> Result<Self, Status> {
                let (name, value) = Self::decode(bytes)?;
                let malformed =
                    |e: prost::DecodeError| Status::invalid_argument(format!("a malformed {name}: {e}"));
                match name.as_str() {
                    $(stringify!($message) => {
                        $message::decode(value.as_slice()).map(Self::$message).map_err(malformed)
                    })*
                    _ => Err(Status::invalid_argument(format!(
                        "{name:?} is not a Flight SQL command this server takes"
                    ))),
                }
            }

            /// The command packed in an `Any`, encoded.
            pub fn pack(&self) -> Bytes {
                match self {
                    $(Self::$message(message) => message.pack(),)*
                }
            }

            /// The command's message name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$message(_) => $message::NAME,)*
                }
            }
        }
    };
}

commands!(
    CommandStatementQuery,
    CommandStatementSubstraitPlan,
    CommandStatementUpdate,
    CommandStatementIngest,
    CommandPreparedStatementQuery,
    CommandPreparedStatementUpdate,
    TicketStatementQuery,
    CommandGetSqlInfo,
    CommandGetXdbcTypeInfo,
    CommandGetCatalogs,
    CommandGetDbSchemas,
    CommandGetTables,
    CommandGetTableTypes,
    CommandGetPrimaryKeys,
    CommandGetExportedKeys,
    CommandGetImportedKeys,
    CommandGetCrossReference,
    ActionCreatePreparedStatementRequest,
    ActionCreatePreparedStatementResult,
    ActionClosePreparedStatementRequest,
    ActionCreatePreparedSubstraitPlanRequest,
    ActionBeginTransactionRequest,
    ActionEndTransactionRequest,
    ActionBeginSavepointRequest,
    ActionEndSavepointRequest,
    ActionCancelQueryRequest,
    ActionCancelQueryResult,
    DoPutUpdateResult,
    DoPutPreparedStatementResult,
);

impl Command {
    /// The message name and bytes of the `Any` in `bytes`.
    fn decode(bytes: &[u8]) -> Result<(String, Vec<u8>), Status> {
        let any = prost_types::Any::decode(bytes).map_err(|e| {
            Status::invalid_argument(format!("not a Flight SQL command (a protobuf Any): {e}"))
        })?;
        // Clients write Google's prefix; the name is what follows the last `/`.
        let name = match any.type_url.rsplit_once('/') {
            Some((_, name)) => name,
            None => any.type_url.as_str(),
        };
        let Some(name) = name.strip_prefix("arrow.flight.protocol.sql.") else {
            return Err(Status::invalid_argument(format!(
                "{:?} is not a Flight SQL message type",
                any.type_url
            )));
        };
        Ok((name.to_string(), any.value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip_through_any_and_bad_bytes_are_named() {
        let query = CommandStatementQuery {
            query: "SELECT 1".into(),
            transaction_id: None,
        };
        let packed = query.pack();
        assert_eq!(
            Command::unpack(&packed).unwrap(),
            Command::CommandStatementQuery(query.clone())
        );
        assert_eq!(CommandStatementQuery::unpack(&packed).unwrap(), query);
        let wrong = CommandGetCatalogs::unpack(&packed).unwrap_err();
        assert!(
            wrong.message().contains("expected a CommandGetCatalogs"),
            "{wrong}"
        );

        let garbage = Command::unpack(b"\xff\xff\xff").unwrap_err();
        assert_eq!(garbage.code(), tonic::Code::InvalidArgument);
        let foreign = prost_types::Any {
            type_url: "type.googleapis.com/google.protobuf.Empty".into(),
            value: Vec::new(),
        };
        let foreign = Command::unpack(&foreign.encode_to_vec()).unwrap_err();
        assert!(
            foreign.message().contains("not a Flight SQL message"),
            "{foreign}"
        );
        let unknown = prost_types::Any {
            type_url: format!("{TYPE_URL_PREFIX}CommandFromTheFuture"),
            value: Vec::new(),
        };
        let unknown = Command::unpack(&unknown.encode_to_vec()).unwrap_err();
        assert!(
            unknown.message().contains("CommandFromTheFuture"),
            "{unknown}"
        );
        let truncated = prost_types::Any {
            type_url: format!("{TYPE_URL_PREFIX}CommandStatementQuery"),
            value: vec![0x0a, 0x10, b'S'],
        };
        let truncated = Command::unpack(&truncated.encode_to_vec()).unwrap_err();
        assert!(
            truncated
                .message()
                .contains("malformed CommandStatementQuery"),
            "{truncated}"
        );
    }
}

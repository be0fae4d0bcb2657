//! What JDBC, ODBC and ADBC clients ask of a server beyond statements, through Alkaid's
//! own Flight client over a real connection: session options (a connection is a session
//! until a cookie names one), `is_update` on prepared statements, the handshake of a
//! client that holds a bearer token, and `GetSqlInfo` over the wire.

use alkaid_array::{AsArray, RecordBatch};
use alkaid_flight::proto::session_option_value::OptionValue;
use alkaid_flight::proto::{
    CloseSessionRequest, CloseSessionResult, GetSessionOptionsRequest, GetSessionOptionsResult,
    HandshakeRequest, SessionOptionValue, SetSessionOptionsRequest, SetSessionOptionsResult,
    close_session_result,
};
use alkaid_flight::{ClientOptions, FlightClient, FlightDescriptor, ServerOptions};
use alkaid_flight_sql::proto::{
    ActionCreatePreparedStatementRequest, ActionCreatePreparedStatementResult, CommandGetSqlInfo,
    CommandGetTables, CommandPreparedStatementQuery,
};
use alkaid_flight_sql::{Packed, SqlServiceOptions};
use bytes::Bytes;
use prost::Message;
use tonic::Code;

use crate::server::Server;
use crate::sql_client::{events, fetch, query};

async fn session_options(client: &mut FlightClient) -> GetSessionOptionsResult {
    let body = GetSessionOptionsRequest {}.encode_to_vec();
    let answer = client
        .do_action("GetSessionOptions", body.into())
        .await
        .unwrap();
    GetSessionOptionsResult::decode(answer[0].as_ref()).unwrap()
}

async fn set(client: &mut FlightClient, name: &str, value: &str) -> SetSessionOptionsResult {
    let value = SessionOptionValue {
        option_value: Some(OptionValue::StringValue(value.into())),
    };
    let request = SetSessionOptionsRequest {
        session_options: [(name.to_string(), value)].into(),
    };
    let answer = client
        .do_action("SetSessionOptions", request.encode_to_vec().into())
        .await
        .unwrap();
    SetSessionOptionsResult::decode(answer[0].as_ref()).unwrap()
}

/// The one string `sql` answers.
async fn one_string(client: &mut FlightClient, sql: &str) -> String {
    let batches: Vec<RecordBatch> = fetch(client, query(sql)).await.unwrap();
    let column = batches[0].column(0);
    column.as_string::<i32>().value(0).to_string()
}

#[test]
fn session_options_are_the_connections_own() {
    let dir = tempfile::tempdir().unwrap();
    events(dir.path());
    let server = Server::plain(dir.path());
    let (mut first, mut second) = (server.client(), server.client());
    server.runtime.block_on(async {
        let options = session_options(&mut first).await.session_options;
        let text = |v: &SessionOptionValue| match &v.option_value {
            Some(OptionValue::StringValue(s)) => s.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(&options["catalog"]), "alkaid");
        assert_eq!(text(&options["schema"]), "public");

        let zone = "datafusion.execution.time_zone";
        let answer = set(&mut first, zone, "+05:30").await;
        assert!(answer.errors.is_empty(), "{answer:?}");
        let wrong = set(&mut first, "schema", "other").await;
        assert_eq!(wrong.errors.len(), 1, "{wrong:?}");
        let forbidden = set(&mut first, "datafusion.runtime.temp_directory", "/").await;
        assert_eq!(forbidden.errors.len(), 1, "{forbidden:?}");

        let typed = "SELECT arrow_typeof(now()) AS t";
        assert!(one_string(&mut first, typed).await.contains("+05:30"));
        assert!(!one_string(&mut second, typed).await.contains("+05:30"));
        // Prepared statements keep the session they were prepared in.
        let create = ActionCreatePreparedStatementRequest {
            query: typed.into(),
            transaction_id: None,
        };
        let answer = first
            .do_action("CreatePreparedStatement", create.pack())
            .await
            .unwrap();
        let prepared = ActionCreatePreparedStatementResult::unpack(&answer[0]).unwrap();
        assert_eq!(prepared.is_update, Some(false));

        let close = CloseSessionRequest {}.encode_to_vec();
        let answer = first.do_action("CloseSession", close.into()).await.unwrap();
        let status = CloseSessionResult::decode(answer[0].as_ref())
            .unwrap()
            .status;
        assert_eq!(status, close_session_result::Status::Closed as i32);
        assert!(!one_string(&mut first, typed).await.contains("+05:30"));

        let malformed = first
            .do_action("SetSessionOptions", Bytes::from_static(b"\xff\xff"))
            .await
            .unwrap_err();
        assert_eq!(tonic::Status::from(malformed).code(), Code::InvalidArgument);
    });
}

#[test]
fn prepared_statements_say_whether_they_update() {
    let dir = tempfile::tempdir().unwrap();
    events(dir.path());
    let options = SqlServiceOptions::default().with_writes(true);
    let server = Server::start(dir.path(), options, ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        for (sql, expected) in [
            ("SELECT * FROM events", false),
            ("INSERT INTO events VALUES ($1, $2)", true),
        ] {
            let create = ActionCreatePreparedStatementRequest {
                query: sql.into(),
                transaction_id: None,
            };
            let answer = client
                .do_action("CreatePreparedStatement", create.pack())
                .await
                .unwrap();
            let prepared = ActionCreatePreparedStatementResult::unpack(&answer[0]).unwrap();
            assert_eq!(prepared.is_update, Some(expected), "{sql}");
        }
    });
}

#[test]
fn a_client_holding_a_token_may_handshake() {
    let dir = tempfile::tempdir().unwrap();
    for token in [Some("t0ken"), None] {
        let serving = match token {
            Some(token) => ServerOptions::default().with_token(token),
            None => ServerOptions::default(),
        };
        let server = Server::start(dir.path(), SqlServiceOptions::default(), serving);
        server.runtime.block_on(async {
            for (given, admitted) in [
                (Some("t0ken"), true),
                (Some("wrong"), token.is_none()),
                (None, token.is_none()),
            ] {
                let mut options = ClientOptions::default();
                if let Some(given) = given {
                    options = options.with_token(given);
                }
                let mut client = FlightClient::connect_with(&server.uri, options)
                    .await
                    .unwrap();
                let answer = client.handshake(Bytes::new()).await;
                assert_eq!(answer.is_ok(), admitted, "{token:?} {given:?}: {answer:?}");
                if let Err(e) = answer {
                    assert_eq!(tonic::Status::from(e).code(), Code::Unauthenticated);
                }
            }
        });
    }
}

#[test]
fn a_handshake_echoes_what_is_sent_a_bounded_number_of_times() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::plain(dir.path());
    let mut client = server.client();
    server.runtime.block_on(async {
        let echoed = client
            .handshake(Bytes::from_static(b"hello"))
            .await
            .unwrap();
        assert_eq!(echoed.as_ref(), b"hello");
        // A client that sends nothing and ends its side: the call ends, no answer.
        let raw = client.raw();
        let mut nothing = raw
            .handshake(futures_util::stream::empty())
            .await
            .unwrap()
            .into_inner();
        assert!(nothing.message().await.unwrap().is_none());
        // A flood of messages is answered sixteen times, then the call ends.
        let flood = futures_util::stream::iter((0..1000).map(|i| HandshakeRequest {
            protocol_version: 0,
            payload: Bytes::from(format!("{i}")),
        }));
        let mut answers = raw.handshake(flood).await.unwrap().into_inner();
        let mut count = 0;
        while let Some(_answer) = answers.message().await.unwrap() {
            count += 1;
        }
        assert_eq!(count, 16);
    });
}

#[test]
fn get_sql_info_answers_every_id_over_the_wire() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::plain(dir.path());
    let mut client = server.client();
    server.runtime.block_on(async {
        let all = CommandGetSqlInfo { info: Vec::new() }.pack();
        let batches = fetch(&mut client, FlightDescriptor::command(all.clone()))
            .await
            .unwrap();
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(rows, 91);
        let schema = client
            .get_schema(FlightDescriptor::command(all.clone()))
            .await
            .unwrap();
        assert_eq!(schema.as_ref(), batches[0].schema().as_ref());
        let poll = client
            .poll_flight_info(FlightDescriptor::command(all))
            .await
            .unwrap();
        assert!(poll.info.is_some() && poll.progress == Some(1.0));
    });
}

#[test]
fn poll_and_get_schema_answer_statements_prepared_statements_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    events(dir.path());
    let server = Server::plain(dir.path());
    let mut client = server.client();
    server.runtime.block_on(async {
        let create = ActionCreatePreparedStatementRequest {
            query: "SELECT kind FROM events WHERE id > $1".into(),
            transaction_id: None,
        };
        let answer = client
            .do_action("CreatePreparedStatement", create.pack())
            .await
            .unwrap();
        let prepared = ActionCreatePreparedStatementResult::unpack(&answer[0]).unwrap();
        let prepared = CommandPreparedStatementQuery {
            prepared_statement_handle: prepared.prepared_statement_handle,
        };
        let tables = CommandGetTables {
            include_schema: true,
            ..Default::default()
        };
        for (descriptor, first_field) in [
            (query("SELECT id, kind FROM events"), "id"),
            (FlightDescriptor::command(prepared.pack()), "kind"),
            (FlightDescriptor::command(tables.pack()), "catalog_name"),
        ] {
            let schema = client.get_schema(descriptor.clone()).await.unwrap();
            assert_eq!(schema.fields()[0].name(), first_field);
            let poll = client.poll_flight_info(descriptor.clone()).await.unwrap();
            assert_eq!(poll.progress, Some(1.0), "{first_field}");
            let info = poll.info.expect("complete at once");
            assert_eq!(info.endpoint.len(), 1, "{first_field}");
        }
    });
}

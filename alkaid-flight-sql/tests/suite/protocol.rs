//! The raw protocol through Alkaid's own Flight client: updates (`INSERT`, `COPY`),
//! prepared updates with parameter rows, cancellation of a streaming query, the time and
//! memory limits, and malformed or stale handles, each answered with a status that says
//! what was wrong while the server goes on serving.

use std::time::Duration;

use alkaid_array::RecordBatch;
use alkaid_flight::proto::{CancelFlightInfoRequest, CancelFlightInfoResult, CancelStatus};
use alkaid_flight::{FlightClient, FlightDescriptor, FlightInfo, ServerOptions};
use alkaid_flight_sql::proto::{
    ActionCreatePreparedStatementRequest, ActionCreatePreparedStatementResult,
    CommandPreparedStatementUpdate, DoPutUpdateResult, TicketStatementQuery,
};
use alkaid_flight_sql::{Packed, SqlServiceOptions};
use alkaid_ipc::{FileWriter, WriteOptions};
use bytes::Bytes;
use futures_util::{StreamExt, stream};
use prost::Message;
use tonic::Code;

use crate::server::Server;
use crate::sql_client::{events, fetch, id_kind, query, rows, update};

#[test]
fn updates_insert_and_copy_inside_the_directory_only() {
    let dir = tempfile::tempdir().unwrap();
    events(dir.path());
    let server = Server::start(
        dir.path(),
        SqlServiceOptions::default().with_writes(true),
        ServerOptions::default(),
    );
    let mut client = server.client();
    server.runtime.block_on(async {
        let inserted = update(&mut client, "INSERT INTO events VALUES (3, 'close')")
            .await
            .unwrap();
        assert_eq!(inserted, 1);
        assert_eq!(rows(&mut client, "SELECT * FROM events").await.unwrap(), 3);

        let target = dir.path().join("copied.alkaid");
        let copy = format!("COPY (SELECT * FROM events) TO '{}'", target.display());
        assert_eq!(update(&mut client, &copy).await.unwrap(), 3);
        assert_eq!(rows(&mut client, "SELECT * FROM copied").await.unwrap(), 3);

        let outside = std::env::temp_dir().join("alkaid-flight-sql-outside.alkaid");
        let copy = format!("COPY (SELECT 1) TO '{}'", outside.display());
        let refused = update(&mut client, &copy).await.unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
        assert!(!outside.exists());
        let ddl = update(&mut client, "CREATE TABLE t (x INT)")
            .await
            .unwrap_err();
        assert_eq!(ddl.code(), Code::InvalidArgument, "{ddl}");

        // A prepared update with two parameter rows runs once per row.
        let create = ActionCreatePreparedStatementRequest {
            query: "INSERT INTO events VALUES ($1, $2)".into(),
            transaction_id: None,
        };
        let answer = client
            .do_action("CreatePreparedStatement", create.pack())
            .await
            .unwrap();
        let prepared = ActionCreatePreparedStatementResult::unpack(&answer[0]).unwrap();
        let parameters = alkaid_flight::schema_from_ipc(&prepared.parameter_schema).unwrap();
        assert_eq!(parameters.fields().len(), 2);
        let batch = id_kind(["$1", "$2"], vec![10, 11], vec![Some("a"), None]);
        let schema = batch.schema().clone();
        let command = CommandPreparedStatementUpdate {
            prepared_statement_handle: prepared.prepared_statement_handle,
        };
        let results = client
            .do_put(
                FlightDescriptor::command(command.pack()),
                schema,
                stream::iter([Ok((batch, Bytes::new()))]),
            )
            .await
            .unwrap();
        let count = DoPutUpdateResult::decode(results[0].app_metadata.as_ref()).unwrap();
        assert_eq!(count.record_count, 2);
        assert_eq!(
            rows(&mut client, "SELECT * FROM events WHERE id >= 10")
                .await
                .unwrap(),
            2
        );

        // A file another process adds to the directory table after it was queried is
        // read by the next query (DataFusion's listing cache would hide it).
        let batch = id_kind(["id", "kind"], vec![20, 21], vec![None, Some("late")]);
        let file = std::fs::File::create(dir.path().join("events/part-9.arrow")).unwrap();
        let mut writer =
            FileWriter::try_new(file, batch.schema().clone(), WriteOptions::default()).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        assert_eq!(rows(&mut client, "SELECT * FROM events").await.unwrap(), 7);
    });
}

/// A query that streams for a long time: a billion rows, generated as they are read.
const ENDLESS: &str = "SELECT value FROM generate_series(1, 1000000000)";

#[test]
fn a_streaming_query_stops_when_cancelled_or_out_of_time() {
    let dir = tempfile::tempdir().unwrap();
    let options =
        SqlServiceOptions::default().with_query_time_limit(Some(Duration::from_millis(500)));
    let server = Server::start(dir.path(), options, ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        // Cancelled by CancelFlightInfo while it streams.
        let info: FlightInfo = client.get_flight_info(query(ENDLESS)).await.unwrap();
        let ticket = info.endpoint[0].ticket.clone().unwrap().ticket;
        let mut batches = client.do_get(&ticket).await.unwrap();
        assert!(batches.next().await.unwrap().is_ok());
        let mut other = FlightClient::connect(&server.uri).await.unwrap();
        let request = CancelFlightInfoRequest {
            info: Some(info.clone()),
        };
        let answer = other
            .do_action("CancelFlightInfo", request.encode_to_vec().into())
            .await
            .unwrap();
        let result = CancelFlightInfoResult::decode(answer[0].as_ref()).unwrap();
        assert_eq!(result.status, CancelStatus::Cancelled as i32);
        let ended = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                match batches.next().await {
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => return Some(tonic::Status::from(e)),
                    None => return None,
                }
            }
        })
        .await
        .expect("the cancelled query stops");
        assert_eq!(ended.map(|s| s.code()), Some(Code::Cancelled));
        // The handle is gone: fetching it again is NotFound, cancelling again is not
        // cancellable.
        let again = client.do_get(&ticket).await;
        let again = match again {
            Ok(mut s) => s.next().await.unwrap().unwrap_err(),
            Err(e) => e,
        };
        assert_eq!(tonic::Status::from(again).code(), Code::NotFound);

        // Out of time: the 500 ms limit ends it with DeadlineExceeded.
        let slow = tokio::time::timeout(Duration::from_secs(30), rows(&mut client, ENDLESS))
            .await
            .expect("the time limit ends the query");
        assert_eq!(slow.unwrap_err().code(), Code::DeadlineExceeded);

        // The server goes on.
        assert_eq!(rows(&mut client, "SELECT 1").await.unwrap(), 1);
    });
}

#[test]
fn a_query_over_its_memory_limit_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let options = SqlServiceOptions::default().with_query_memory_limit(Some(1 << 20));
    let server = Server::start(dir.path(), options, ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        let heavy = "SELECT value, count(*) FROM generate_series(1, 2000000) GROUP BY value";
        let failed = rows(&mut client, heavy).await.unwrap_err();
        assert_eq!(failed.code(), Code::ResourceExhausted, "{failed}");
        assert_eq!(rows(&mut client, "SELECT 1").await.unwrap(), 1);
    });
}

#[test]
fn malformed_and_stale_requests_are_named_errors() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        SqlServiceOptions::default(),
        ServerOptions::default(),
    );
    let mut client = server.client();
    server.runtime.block_on(async {
        let by_path = client
            .get_flight_info(FlightDescriptor::path(["x"]))
            .await
            .unwrap_err();
        let by_path = tonic::Status::from(by_path);
        assert_eq!(by_path.code(), Code::InvalidArgument);
        assert!(by_path.message().contains("carries a command"), "{by_path}");

        let stale = TicketStatementQuery {
            statement_handle: Bytes::from_static(b"never handed out"),
        };
        let stale = match client.do_get(&stale.pack()).await {
            Ok(mut s) => s.next().await.unwrap().unwrap_err(),
            Err(e) => e,
        };
        assert_eq!(tonic::Status::from(stale).code(), Code::NotFound);

        let unknown = client
            .do_action("DropEverything", Bytes::new())
            .await
            .unwrap_err();
        assert_eq!(tonic::Status::from(unknown).code(), Code::InvalidArgument);
        let garbage = client
            .do_action("CreatePreparedStatement", Bytes::from_static(b"\xff\x00"))
            .await
            .unwrap_err();
        assert_eq!(tonic::Status::from(garbage).code(), Code::InvalidArgument);
        let missing = rows(&mut client, "SELECT * FROM nowhere")
            .await
            .unwrap_err();
        assert_eq!(missing.code(), Code::NotFound, "{missing}");
        assert_eq!(rows(&mut client, "SELECT 1").await.unwrap(), 1);
    });
}

#[test]
fn metadata_commands_answer_through_flight_info_and_do_get() {
    use alkaid_flight_sql::proto::{
        CommandGetSqlInfo, CommandGetXdbcTypeInfo, SqlInfo, XdbcDataType,
    };
    let dir = tempfile::tempdir().unwrap();
    events(dir.path());
    let server = Server::start(
        dir.path(),
        SqlServiceOptions::default(),
        ServerOptions::default(),
    );
    let mut client = server.client();
    server.runtime.block_on(async {
        let mut fetch = async |command: Bytes| {
            let batches = fetch(&mut client, FlightDescriptor::command(command))
                .await
                .unwrap();
            batches.iter().map(RecordBatch::num_rows).sum::<usize>()
        };
        let types = CommandGetXdbcTypeInfo { data_type: None };
        assert_eq!(fetch(types.pack()).await, 13);
        let varchar = CommandGetXdbcTypeInfo {
            data_type: Some(XdbcDataType::XdbcVarchar as i32),
        };
        assert_eq!(fetch(varchar.pack()).await, 1);
        let info = CommandGetSqlInfo {
            info: vec![
                SqlInfo::FlightSqlServerName as u32,
                SqlInfo::SqlKeywords as u32,
            ],
        };
        assert_eq!(fetch(info.pack()).await, 2);
    });
}

/// A Spark file's INT96 timestamps past what nanoseconds hold: refused with the reason by
/// default, read in microseconds when the operator chose so.
#[test]
fn parquet_int96_is_read_in_the_unit_the_operator_chose() {
    let dir = tempfile::tempdir().unwrap();
    let spark = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../alkaid-formats/tests/parquet-testing/data/int96_from_spark.parquet"
    );
    std::fs::copy(spark, dir.path().join("spark.parquet")).unwrap();
    // Past 9990 in microseconds (a timestamp literal of the year would not fit nanoseconds).
    let late = "SELECT a FROM spark WHERE CAST(a AS BIGINT) > 253000000000000000";
    let server = Server::plain(dir.path());
    let mut client = server.client();
    let refused = server
        .runtime
        .block_on(rows(&mut client, late))
        .unwrap_err();
    assert!(
        refused.message().contains("read INT96 as microseconds"),
        "{refused:?}"
    );
    let options = SqlServiceOptions::default().with_int96_as_microseconds(true);
    let server = Server::start(dir.path(), options, ServerOptions::default());
    let mut client = server.client();
    // 9999-12-31 and year 290000.
    assert_eq!(server.runtime.block_on(rows(&mut client, late)).unwrap(), 2);
}

//! One test per resource attack on the Flight SQL server: oversized parameter bindings
//! (bytes and rows), many parameter rows in one execution, a `GetSqlInfo` of repeated ids,
//! a decompression bomb in a `DoPut`, a query that outgrows the memory all queries share.
//! Each is refused with a clear status, and the server answers a normal query after it.

use std::sync::Arc;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use alkaid_flight::{ClientOptions, FlightClient, FlightDescriptor, ServerOptions};
use alkaid_flight_sql::proto::command_statement_ingest::table_definition_options::TableExistsOption;
use alkaid_flight_sql::proto::{
    ActionCreatePreparedStatementRequest, ActionCreatePreparedStatementResult, CommandGetSqlInfo,
    CommandPreparedStatementQuery, SqlInfo,
};
use alkaid_flight_sql::{FlightSqlService, Packed, SqlServiceOptions};
use alkaid_ipc::{Compression, ReadOptions, WriteOptions};
use alkaid_schema::{DataType, Field, Schema};
use bytes::Bytes;
use futures_util::stream;
use tonic::Code;

use crate::server::Server;
use crate::sql_client::{events, fetch, ingest, rows};

/// `rows` rows of one int64 column named `$1`.
fn parameters(rows: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new("$1", DataType::Int64, true)]));
    let column: ArrayRef = Arc::new(Int64Array::from((0..rows as i64).collect::<Vec<_>>()));
    RecordBatch::try_new(schema, vec![column]).unwrap()
}

/// Prepares `sql`; its handle.
async fn prepare(client: &mut FlightClient, sql: &str) -> Bytes {
    let create = ActionCreatePreparedStatementRequest {
        query: sql.into(),
        transaction_id: None,
    };
    let answer = client
        .do_action("CreatePreparedStatement", create.pack())
        .await
        .unwrap();
    ActionCreatePreparedStatementResult::unpack(&answer[0])
        .unwrap()
        .prepared_statement_handle
}

/// Binds `batches` to the prepared statement `handle`.
async fn bind(
    client: &mut FlightClient,
    handle: &Bytes,
    batches: Vec<RecordBatch>,
) -> Result<(), tonic::Status> {
    let command = CommandPreparedStatementQuery {
        prepared_statement_handle: handle.clone(),
    };
    let schema = batches[0].schema().clone();
    client
        .do_put(
            FlightDescriptor::command(command.pack()),
            schema,
            stream::iter(batches.into_iter().map(|b| Ok((b, Bytes::new())))),
        )
        .await
        .map(drop)
        .map_err(tonic::Status::from)
}

/// The rows the prepared statement `handle` answers.
async fn run_prepared(client: &mut FlightClient, handle: &Bytes) -> Result<usize, tonic::Status> {
    let command = CommandPreparedStatementQuery {
        prepared_statement_handle: handle.clone(),
    };
    let batches = fetch(client, FlightDescriptor::command(command.pack())).await?;
    Ok(batches.iter().map(RecordBatch::num_rows).sum())
}

#[test]
fn bound_parameters_are_bounded_in_bytes_and_rows_and_run_in_one_session() {
    let dir = tempfile::tempdir().unwrap();
    events(dir.path());
    let options = SqlServiceOptions::default().with_parameter_limits(256 << 10, 5_000);
    let server = Server::start(dir.path(), options, ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        let handle = prepare(&mut client, "SELECT $1 * 2 AS x").await;
        // 10,000 rows: more rows than allowed.
        let refused = bind(&mut client, &handle, vec![parameters(10_000)])
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(refused.message().contains("5000 rows"), "{refused}");
        // 400 kB of text in 1,000 rows: more bytes than allowed, refused as they arrive.
        let batches = (0..4).map(|_| texts(250, 400)).collect();
        let refused = bind(&mut client, &handle, batches).await.unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(refused.message().contains("262144 bytes"), "{refused}");
        // 5,000 rows fit, and run as 5,000 bindings of one plan in one execution.
        bind(&mut client, &handle, vec![parameters(5_000)])
            .await
            .unwrap();
        assert_eq!(run_prepared(&mut client, &handle).await.unwrap(), 5_000);
        assert_eq!(rows(&mut client, "SELECT * FROM events").await.unwrap(), 2);
    });
}

/// `rows` rows of one text column named `$1`, each value `width` bytes.
fn texts(rows: usize, width: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new("$1", DataType::Utf8, true)]));
    let column: ArrayRef = Arc::new(StringArray::from(vec!["x".repeat(width); rows]));
    RecordBatch::try_new(schema, vec![column]).unwrap()
}

#[test]
fn sql_info_answers_each_id_once_however_often_asked() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        SqlServiceOptions::default(),
        ServerOptions::default(),
    );
    let mut client = server.client();
    server.runtime.block_on(async {
        // 400,000 ids in a 2 MB request: answered with one row, not 400,000 of the
        // keyword list.
        let command = CommandGetSqlInfo {
            info: vec![SqlInfo::SqlKeywords as u32; 400_000],
        };
        let batches = fetch(&mut client, FlightDescriptor::command(command.pack()))
            .await
            .unwrap();
        assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 1);
        assert_eq!(rows(&mut client, "SELECT 1").await.unwrap(), 1);
    });
}

#[test]
fn a_decompression_bomb_is_refused_before_it_is_inflated() {
    let dir = tempfile::tempdir().unwrap();
    let options = SqlServiceOptions::default()
        .with_writes(true)
        .with_read_options(ReadOptions::default().with_max_decompressed_bytes(Some(8 << 20)));
    let server = Server::start(dir.path(), options, ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        // 64 MiB of zeros, a few kilobytes of zstd, as parameters and as an ingestion.
        let write = WriteOptions::default().with_compression(Compression::ZSTD);
        let options = ClientOptions::default().with_write_options(write);
        let mut bomber = FlightClient::connect_with(&server.uri, options)
            .await
            .unwrap();
        let bomb = || {
            let schema = Arc::new(Schema::new(vec![Field::new("$1", DataType::Int64, false)]));
            let column: ArrayRef = Arc::new(Int64Array::from(vec![0; 8 << 20]));
            RecordBatch::try_new(schema, vec![column]).unwrap()
        };
        let handle = prepare(&mut client, "SELECT $1 AS x").await;
        let refused = bind(&mut bomber, &handle, vec![bomb()]).await.unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(
            refused.message().contains("decompressed bytes"),
            "{refused}"
        );
        let refused = ingest(&mut bomber, "bomb", TableExistsOption::Fail, bomb())
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
        assert_eq!(rows(&mut client, "SELECT 1").await.unwrap(), 1);
    });
}

#[test]
fn queries_share_the_servers_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    // Each query may hold 64 MiB, all of them together 1 MiB: the server's limit decides.
    let options = SqlServiceOptions::default()
        .with_query_memory_limit(Some(64 << 20))
        .with_server_memory_limit(Some(1 << 20));
    let service = FlightSqlService::new(dir.path(), options).unwrap();
    let server = Server::serve(service.clone(), ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        let heavy = "SELECT value, count(*) FROM generate_series(1, 2000000) GROUP BY value";
        let failed = rows(&mut client, heavy).await.unwrap_err();
        assert_eq!(failed.code(), Code::ResourceExhausted, "{failed}");
        assert!(failed.message().contains("together"), "{failed}");
        // The failed query's memory goes back once its tasks have ended.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while service.query_memory() > 0 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(
            service.query_memory(),
            0,
            "the failed query's memory went back"
        );
        assert_eq!(rows(&mut client, "SELECT 1").await.unwrap(), 1);
    });
}

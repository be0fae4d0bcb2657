//! Tables in an object store: a bucket of moto's S3 server (started by the test) served by
//! `FlightSqlService::from_url`, queried through Alkaid's Flight client. The store is
//! listed on each lookup, so objects put while serving are read; writes are refused.

use std::sync::Arc;

use alkaid_array::{Int64Array, RecordBatch, StringArray};
use alkaid_flight::{FlightClient, FlightDescriptor, ServerOptions};
use alkaid_flight_sql::proto::command_statement_ingest::table_definition_options::TableExistsOption;
use alkaid_flight_sql::proto::{CommandStatementQuery, CommandStatementUpdate};
use alkaid_flight_sql::{FlightSqlService, Packed, SqlServiceOptions};
use alkaid_ipc::{FileWriter, WriteOptions};
use alkaid_schema::{DataType, Field, Schema};
use futures_util::{TryStreamExt, stream};
use tonic::Code;

use crate::moto::Moto;
use crate::server::Server;
use crate::sql_client::ingest;

/// An IPC file of one int64 column `id` holding `ids`.
fn ipc_file(ids: Vec<i64>) -> Vec<u8> {
    let batch = ids_batch(ids);
    let mut bytes = Vec::new();
    let mut writer =
        FileWriter::try_new(&mut bytes, batch.schema().clone(), WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    drop(writer);
    bytes
}

fn ids_batch(ids: Vec<i64>) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(ids))]).unwrap()
}

/// The batches of `sql`, through GetFlightInfo and DoGet.
async fn query(client: &mut FlightClient, sql: &str) -> Result<Vec<RecordBatch>, tonic::Status> {
    let command = CommandStatementQuery {
        query: sql.into(),
        transaction_id: None,
    };
    let info = client
        .get_flight_info(FlightDescriptor::command(command.pack()))
        .await
        .map_err(tonic::Status::from)?;
    let ticket = info.endpoint[0].ticket.clone().unwrap().ticket;
    client
        .do_get(&ticket)
        .await
        .map_err(tonic::Status::from)?
        .try_collect()
        .await
        .map_err(tonic::Status::from)
}

/// The one int64 value `sql` answers.
async fn single(client: &mut FlightClient, sql: &str) -> i64 {
    let batches = query(client, sql).await.unwrap();
    let column = batches[0].column(0);
    column
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .value(0)
}

#[test]
fn tables_in_an_s3_bucket_are_queried_and_new_objects_seen() {
    let Some(moto) = Moto::start_or_skip("tables_in_an_s3_bucket_are_queried_and_new_objects_seen")
    else {
        return;
    };
    moto.create_bucket("lake");
    moto.put_object("lake", "data/points.arrow", &ipc_file(vec![1, 2, 3]));
    moto.put_object(
        "lake",
        "data/cities.csv",
        b"city,country\nLyon,FR\nGhent,BE\n",
    );
    moto.put_object("lake", "data/events/p0.arrow", &ipc_file(vec![10, 20]));
    moto.put_object("lake", "data/_SUCCESS", b"");
    moto.put_object("lake", "elsewhere.csv", b"x\n1\n");
    let options = moto
        .environment()
        .into_iter()
        .map(|(key, value)| (key.to_ascii_lowercase(), value));
    let service =
        FlightSqlService::from_url("s3://lake/data/", options, SqlServiceOptions::default())
            .unwrap();
    let server = Server::serve(service, ServerOptions::default());
    let mut client = server.client();
    server.runtime.block_on(async {
        assert_eq!(single(&mut client, "SELECT sum(id) FROM points").await, 6);
        assert_eq!(single(&mut client, "SELECT sum(id) FROM events").await, 30);
        let cities = query(
            &mut client,
            "SELECT country FROM cities WHERE city = 'Ghent'",
        )
        .await
        .unwrap();
        let country = cities[0].column(0);
        let country = country.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(country.value(0), "BE");
        let missing = query(&mut client, "SELECT * FROM elsewhere")
            .await
            .unwrap_err();
        assert_eq!(missing.code(), Code::NotFound, "{missing}");

        // Objects put while serving: a file of the directory table, and a new table.
        moto.put_object("lake", "data/events/p1.arrow", &ipc_file(vec![5]));
        moto.put_object("lake", "data/late.arrow", &ipc_file(vec![7, 7]));
        assert_eq!(single(&mut client, "SELECT sum(id) FROM events").await, 35);
        assert_eq!(single(&mut client, "SELECT count(*) FROM late").await, 2);

        // Read-only: no INSERT, no COPY, no bulk ingestion.
        for sql in [
            "INSERT INTO events VALUES (1)",
            "COPY (SELECT 1) TO 's3://lake/data/copy.arrow'",
        ] {
            let command = CommandStatementUpdate {
                query: sql.into(),
                transaction_id: None,
            };
            let empty = Arc::new(Schema::new(Vec::<Field>::new()));
            let refused = client
                .do_put(
                    FlightDescriptor::command(command.pack()),
                    empty,
                    stream::empty(),
                )
                .await
                .map_err(tonic::Status::from)
                .unwrap_err();
            assert_eq!(refused.code(), Code::PermissionDenied, "{sql}: {refused}");
            assert!(refused.message().contains("read-only"), "{refused}");
        }
        let batch = ids_batch(vec![1]);
        let refused = ingest(&mut client, "uploaded", TableExistsOption::Fail, batch)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
        assert!(refused.message().contains("read-only"), "{refused}");
        assert_eq!(single(&mut client, "SELECT count(*) FROM points").await, 3);
    });
}

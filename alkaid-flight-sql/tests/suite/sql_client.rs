//! What the suite's tests share: a directory table to query, and the raw protocol's
//! calls through Alkaid's own Flight client (a query's rows, an update's count).

use std::path::Path;
use std::sync::Arc;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use alkaid_flight::{FlightClient, FlightDescriptor};
use alkaid_flight_sql::Packed;
use alkaid_flight_sql::proto::command_statement_ingest::TableDefinitionOptions;
use alkaid_flight_sql::proto::command_statement_ingest::table_definition_options::{
    TableExistsOption, TableNotExistOption,
};
use alkaid_flight_sql::proto::{
    CommandStatementIngest, CommandStatementQuery, CommandStatementUpdate, DoPutUpdateResult,
};
use alkaid_ipc::{FileWriter, WriteOptions};
use alkaid_schema::{DataType, Field, Schema};
use bytes::Bytes;
use futures_util::{TryStreamExt, stream};
use prost::Message;

/// A batch of an int64 and a text column named `names`.
pub fn id_kind(names: [&str; 2], ids: Vec<i64>, kinds: Vec<Option<&str>>) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new(names[0], DataType::Int64, true),
        Field::new(names[1], DataType::Utf8, true),
    ]));
    let id: ArrayRef = Arc::new(Int64Array::from(ids));
    let kind: ArrayRef = Arc::new(StringArray::from(kinds));
    RecordBatch::try_new(schema, vec![id, kind]).unwrap()
}

/// An IPC directory table `events` of two rows.
pub fn events(dir: &Path) {
    std::fs::create_dir(dir.join("events")).unwrap();
    let batch = id_kind(["id", "kind"], vec![1, 2], vec![Some("open"), None]);
    let schema = batch.schema().clone();
    let file = std::fs::File::create(dir.join("events/part-0.arrow")).unwrap();
    let mut writer = FileWriter::try_new(file, schema, WriteOptions::default()).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
}

/// The batches of what `descriptor` asks for, fetched through GetFlightInfo and DoGet.
pub async fn fetch(
    client: &mut FlightClient,
    descriptor: FlightDescriptor,
) -> Result<Vec<RecordBatch>, tonic::Status> {
    let info = client
        .get_flight_info(descriptor)
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

/// The rows of `sql`, fetched through GetFlightInfo and DoGet.
pub async fn rows(client: &mut FlightClient, sql: &str) -> Result<usize, tonic::Status> {
    let batches = fetch(client, query(sql)).await?;
    Ok(batches.iter().map(RecordBatch::num_rows).sum())
}

/// A descriptor of the query `sql`.
pub fn query(sql: &str) -> FlightDescriptor {
    FlightDescriptor::command(
        CommandStatementQuery {
            query: sql.into(),
            transaction_id: None,
        }
        .pack(),
    )
}

/// Runs the update `sql` through DoPut; the count the server answers.
pub async fn update(client: &mut FlightClient, sql: &str) -> Result<i64, tonic::Status> {
    let command = CommandStatementUpdate {
        query: sql.into(),
        transaction_id: None,
    };
    let schema = Arc::new(Schema::new(Vec::<Field>::new()));
    let results = client
        .do_put(
            FlightDescriptor::command(command.pack()),
            schema,
            stream::empty(),
        )
        .await
        .map_err(tonic::Status::from)?;
    Ok(DoPutUpdateResult::decode(results[0].app_metadata.as_ref())
        .unwrap()
        .record_count)
}

/// Bulk ingestion of `batch` into `table`: created if missing, `mode` if it exists; the
/// rows the server says it wrote.
pub async fn ingest(
    client: &mut FlightClient,
    table: &str,
    mode: TableExistsOption,
    batch: RecordBatch,
) -> Result<i64, tonic::Status> {
    let command = CommandStatementIngest {
        table: table.into(),
        table_definition_options: Some(TableDefinitionOptions {
            if_not_exist: TableNotExistOption::Create as i32,
            if_exists: mode as i32,
        }),
        ..Default::default()
    };
    let results = client
        .do_put(
            FlightDescriptor::command(command.pack()),
            batch.schema().clone(),
            stream::iter([Ok((batch, Bytes::new()))]),
        )
        .await
        .map_err(tonic::Status::from)?;
    Ok(DoPutUpdateResult::decode(results[0].app_metadata.as_ref())
        .unwrap()
        .record_count)
}

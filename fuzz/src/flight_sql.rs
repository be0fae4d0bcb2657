//! The Flight SQL service in process, fed arbitrary bytes as what a client sends: a
//! descriptor's command (`GetFlightInfo`, `PollFlightInfo`, `GetSchema`), a ticket
//! (`DoGet`), an action's type and body (`DoAction`), and a `DoPut`'s whole request body
//! (gRPC frames of FlightData, raw) or a well-formed first message with a fuzzed command
//! followed by fuzzed frames. Every answer stream is drained (up to a bound) and every
//! ticket a `GetFlightInfo` hands out is fetched, so a query the fuzzer finds also runs.
//!
//! Two services share one small directory: read-only, and one that allows writes within
//! a budget of 256 KiB in all (so that the directory cannot grow without bound over
//! millions of runs); both with short time limits and small memory limits.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use alkaid_flight::proto::flight_service_server::FlightService;
use alkaid_flight::{Action, FlightCodec, FlightData, FlightDescriptor, FlightEncoder, Ticket};
use alkaid_flight_sql::{FlightSqlService, SqlServiceOptions};
use alkaid_ipc::{FileWriter, ReadOptions, WriteOptions};
use alkaid_schema::{DataType, Field, Schema};
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use tonic::codec::{Codec, Streaming};
use tonic::{Request, Response, Status};

/// Items drained from one answer stream, at most.
const DRAINED: usize = 16;

/// What every run shares.
struct Harness {
    runtime: tokio::runtime::Runtime,
    read_only: FlightSqlService,
    writable: FlightSqlService,
    _dir: std::path::PathBuf,
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("alkaid-fuzz-flight-sql-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("events")).expect("a scratch directory");
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("kind", DataType::Utf8, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![Some(1), Some(2), None])),
            Arc::new(StringArray::from(vec![Some("open"), None, Some("close")])),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).expect("a batch");
        let file = std::fs::File::create(dir.join("events/part-0.arrow")).expect("a file");
        let mut writer =
            FileWriter::try_new(file, schema, WriteOptions::default()).expect("a writer");
        writer.write(&batch).expect("written");
        writer.finish().expect("finished");
        std::fs::write(
            dir.join("cities.csv"),
            "city,people\nOslo,709000\nLima,10000000\n",
        )
        .expect("a CSV file");
        let options = SqlServiceOptions::default()
            .with_query_time_limit(Some(Duration::from_millis(500)))
            .with_query_memory_limit(Some(32 << 20))
            .with_server_memory_limit(Some(64 << 20))
            .with_spill_limit(16 << 20)
            .with_parameter_limits(1 << 20, 1_000)
            .with_statements(Duration::from_secs(2), 256)
            .with_read_options(ReadOptions::default().with_max_decompressed_bytes(Some(16 << 20)));
        let read_only = FlightSqlService::new(&dir, options.clone()).expect("a service");
        let writable = options
            .with_writes(true)
            .with_write_limits(256 << 10, 8 << 20);
        let writable = FlightSqlService::new(&dir, writable).expect("a service");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        Harness {
            runtime,
            read_only,
            writable,
            _dir: dir,
        }
    })
}

/// The actions a client may name, and one no server offers.
const ACTIONS: [&str; 11] = [
    "CreatePreparedStatement",
    "ClosePreparedStatement",
    "CancelFlightInfo",
    "CancelQuery",
    "BeginTransaction",
    "EndTransaction",
    "CreatePreparedSubstraitPlan",
    "SetSessionOptions",
    "GetSessionOptions",
    "CloseSession",
    "Unknown",
];

/// The first byte chooses the call and the service; the rest is what the client sends.
pub fn flight_sql(data: &[u8]) {
    let Some((&choice, payload)) = data.split_first() else {
        return;
    };
    let harness = harness();
    let service = match choice & 0x80 {
        0 => &harness.read_only,
        _ => &harness.writable,
    };
    let payload = Bytes::copy_from_slice(payload);
    harness.runtime.block_on(async {
        let call = call(service, choice & 0x7f, payload);
        let _ = tokio::time::timeout(Duration::from_secs(5), call).await;
    });
}

async fn call(service: &FlightSqlService, choice: u8, payload: Bytes) {
    let command = |cmd: Bytes| Request::new(FlightDescriptor::command(cmd));
    match choice % 7 {
        0 => {
            if let Ok(info) = service.get_flight_info(command(payload)).await {
                for endpoint in info.into_inner().endpoint {
                    if let Some(ticket) = endpoint.ticket {
                        drain(service.do_get(Request::new(ticket)).await).await;
                    }
                }
            }
        }
        1 => {
            drain(
                service
                    .do_get(Request::new(Ticket { ticket: payload }))
                    .await,
            )
            .await
        }
        2 => {
            let (kind, body) = match payload.split_first() {
                Some((&kind, _)) => (
                    ACTIONS[usize::from(kind) % ACTIONS.len()],
                    payload.slice(1..),
                ),
                None => (ACTIONS[0], payload),
            };
            let action = Action {
                r#type: kind.to_string(),
                body,
            };
            drain(service.do_action(Request::new(action)).await).await;
        }
        3 => {
            let _ = service.get_schema(command(payload)).await;
        }
        4 => drain(service.do_put(put_request(payload)).await).await,
        5 => {
            // A first message that is whole: a descriptor of the command in the
            // payload's start (its length in the first byte), and a schema; then the
            // rest of the payload as the frames that follow.
            let split = usize::from(payload.first().copied().unwrap_or(0)).min(payload.len());
            let cmd = payload.slice(split.min(1)..split);
            let mut body = first_message(cmd);
            body.extend_from_slice(&payload[split..]);
            drain(service.do_put(put_request(Bytes::from(body))).await).await;
        }
        _ => {
            let _ = service.poll_flight_info(command(payload)).await;
        }
    }
}

/// A `DoPut` request whose body is `body`, decoded as the server decodes one.
fn put_request(body: Bytes) -> Request<Streaming<FlightData>> {
    let decoder = FlightCodec::<FlightData, FlightData>::default().decoder();
    let body = http_body_util::Full::new(body);
    Request::new(Streaming::new_request(decoder, body, None, Some(4 << 20)))
}

/// The gRPC frame of a FlightData carrying `cmd`'s descriptor and the schema of one
/// nullable int64 column `$1` (what a client binding parameters sends first).
fn first_message(cmd: Bytes) -> Vec<u8> {
    use prost::Message;
    let schema = Arc::new(Schema::new(vec![Field::new("$1", DataType::Int64, true)]));
    let mut encoder = FlightEncoder::new(schema, WriteOptions::default())
        .expect("an encoder")
        .with_descriptor(FlightDescriptor::command(cmd));
    let encoded = encoder.schema().encode_to_vec();
    let mut frame = vec![0];
    frame.extend_from_slice(&(encoded.len() as u32).to_be_bytes());
    frame.extend_from_slice(&encoded);
    frame
}

/// Reads up to [`DRAINED`] items of an answer stream.
async fn drain<T>(answer: Result<Response<BoxStream<'static, Result<T, Status>>>, Status>) {
    if let Ok(answer) = answer {
        let mut items = answer.into_inner();
        for _ in 0..DRAINED {
            if items.next().await.is_none() {
                break;
            }
        }
    }
}

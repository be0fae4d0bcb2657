//! A service written by hand with the generated trait: it implements only the methods it
//! offers (handshake, poll, do_exchange through the encoder and decoder), the others
//! answer Unimplemented.

use crate::peers;

use std::sync::Arc;

use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
use alkaid_flight::proto::flight_service_server::FlightService;
use alkaid_flight::proto::{HandshakeRequest, HandshakeResponse};
use alkaid_flight::{
    FlightClient, FlightData, FlightDescriptor, FlightEncoder, FlightInfo, FlightRecordBatchStream,
    PollInfo, ServerOptions, encode_stream, serve,
};
use alkaid_ipc::{ReadOptions, WriteOptions};
use alkaid_schema::{DataType, Field, Schema};
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt, stream};
use peers::{get_error, runtime};
use tonic::codegen::BoxStream;
use tonic::{Code, Request, Response, Status, Streaming};

/// Doubles every value of the batches it is sent; answers a handshake with its payload
/// reversed; says a flight is half prepared.
struct Doubler;

#[tonic::async_trait]
impl FlightService for Doubler {
    async fn handshake(
        &self,
        request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<BoxStream<HandshakeResponse>>, Status> {
        let answers = request.into_inner().map_ok(|r| HandshakeResponse {
            protocol_version: r.protocol_version,
            payload: r.payload.iter().rev().copied().collect::<Vec<u8>>().into(),
        });
        Ok(Response::new(Box::pin(answers)))
    }

    async fn poll_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<PollInfo>, Status> {
        Ok(Response::new(PollInfo {
            info: Some(FlightInfo {
                flight_descriptor: Some(request.into_inner()),
                total_records: -1,
                total_bytes: -1,
                ..FlightInfo::default()
            }),
            flight_descriptor: None,
            progress: Some(0.5),
            expiration_time: None,
        }))
    }

    async fn do_exchange(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        let data = request.into_inner().map_err(Into::into);
        let mut batches = FlightRecordBatchStream::new(data, ReadOptions::default());
        let schema = batches.read_schema().await?;
        let encoder = FlightEncoder::new(schema, WriteOptions::default()).map_err(Status::from)?;
        let doubled = batches.map(|batch| {
            let batch = batch?;
            let values = batch
                .column(0)
                .as_any()
                .downcast_ref::<Int32Array>()
                .unwrap();
            let doubled: Int32Array = values.iter().map(|v| v.map(|v| v * 2)).collect();
            let column: ArrayRef = Arc::new(doubled);
            let doubled = RecordBatch::try_new(batch.schema().clone(), vec![column])
                .map_err(|e| alkaid_flight::FlightError::protocol(e.to_string()))?;
            Ok((doubled, Bytes::new()))
        });
        let messages = encode_stream(encoder, Box::pin(doubled)).map_err(Status::from);
        Ok(Response::new(Box::pin(messages)))
    }
}

/// The doubler served with `options` on a free port of 127.0.0.1: its `grpc://`
/// address, the sender that stops it, and its task.
fn serve_doubler(
    runtime: &tokio::runtime::Runtime,
    options: ServerOptions,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<alkaid_flight::Result<()>>,
) {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let uri = format!("grpc://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = runtime.spawn(serve(Doubler, listener, options, async {
        let _ = stopped.await;
    }));
    (uri, stop, server)
}

#[test]
fn a_service_offers_what_it_implements_and_nothing_else() {
    let runtime = runtime();
    let (uri, stop, server) = serve_doubler(&runtime, ServerOptions::default());
    runtime.block_on(async {
        let mut client = FlightClient::connect(&uri).await.unwrap();
        let answer = client.handshake(Bytes::from_static(b"abc")).await.unwrap();
        assert_eq!(&answer[..], b"cba");
        let poll = client
            .poll_flight_info(FlightDescriptor::command("prepare"))
            .await
            .unwrap();
        assert_eq!(poll.progress, Some(0.5));
        assert_eq!(
            poll.info.unwrap().flight_descriptor.unwrap().cmd,
            Bytes::from_static(b"prepare")
        );

        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, true)]));
        let batches: Vec<_> = (0..3)
            .map(|i| {
                let column: ArrayRef =
                    Arc::new(Int32Array::from(vec![Some(i), None, Some(10 + i)]));
                Ok((
                    RecordBatch::try_new(schema.clone(), vec![column]).unwrap(),
                    Bytes::new(),
                ))
            })
            .collect();
        let back: Vec<RecordBatch> = client
            .do_exchange(FlightDescriptor::path(["x"]), schema, stream::iter(batches))
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(back.len(), 3);
        let last = back[2]
            .column(0)
            .as_any()
            .downcast_ref::<Int32Array>()
            .unwrap();
        assert_eq!(last.iter().collect::<Vec<_>>(), [Some(4), None, Some(24)]);

        // Everything else answers Unimplemented.
        for err in [
            client.list_flights(Bytes::new()).await.unwrap_err(),
            client
                .get_schema(FlightDescriptor::path(["x"]))
                .await
                .unwrap_err(),
            client.list_actions().await.unwrap_err(),
            client
                .do_action("anything", Bytes::new())
                .await
                .unwrap_err(),
        ] {
            assert_eq!(err.code(), Code::Unimplemented, "{err}");
        }
        let err = get_error(&mut client, b"x").await;
        assert_eq!(err.code(), Code::Unimplemented, "{err}");
    });
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}

#[test]
fn streams_both_ways_pass_through_the_smallest_windows() {
    let runtime = runtime();
    // 0 is held at HTTP/2's smallest window, 65,535 bytes, rather than stalling.
    let options = ServerOptions::default().with_window_bytes(0);
    let (uri, stop, server) = serve_doubler(&runtime, options);
    runtime.block_on(async {
        let options = alkaid_flight::ClientOptions::default().with_window_bytes(65_535);
        let mut client = FlightClient::connect_with(&uri, options).await.unwrap();
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, true)]));
        // 40 batches of 256 KiB each way: 160 windows' worth.
        let rows = 1 << 16;
        let batches: Vec<_> = (0..40)
            .map(|i| {
                let column: ArrayRef =
                    Arc::new(Int32Array::from((i..i + rows).collect::<Vec<i32>>()));
                Ok((
                    RecordBatch::try_new(schema.clone(), vec![column]).unwrap(),
                    Bytes::new(),
                ))
            })
            .collect();
        let exchange = async {
            client
                .do_exchange(FlightDescriptor::path(["x"]), schema, stream::iter(batches))
                .await
                .unwrap()
                .try_collect::<Vec<RecordBatch>>()
                .await
                .unwrap()
        };
        let back = tokio::time::timeout(std::time::Duration::from_secs(120), exchange)
            .await
            .expect("the exchange finishes within 120 s");
        assert_eq!(back.len(), 40);
        for (i, batch) in back.iter().enumerate() {
            let values = batch
                .column(0)
                .as_any()
                .downcast_ref::<Int32Array>()
                .unwrap();
            let start = i as i32;
            assert!(
                values
                    .iter()
                    .zip(start..start + rows)
                    .all(|(v, n)| v == Some(2 * n)),
                "batch {i}"
            );
        }
    });
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}

/// Alkaid's client and server over TLS with a token, without any other peer: the test that
/// a build's TLS provider (`tls-aws-lc` or `tls-ring`; CI runs it under each, see `providers.rs`) carries batches
/// both ways, and that a client which does not trust the server's certificate gets nothing.
#[test]
fn alkaid_client_and_server_carry_batches_over_tls() {
    use alkaid_flight::{ClientOptions, DirectoryService, WriteBudget};
    use alkaid_ipc::FileReader;
    use peers::{AlkaidServer, scratch};

    let dir = scratch("alkaid_tls");
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert, private) = (key.cert.pem(), key.signing_key.serialize_pem());
    let options = ServerOptions::default()
        .with_tls(cert.clone().into_bytes(), private.into_bytes())
        .with_token("t0ken");
    let runtime = runtime();
    let service = DirectoryService::new(&dir).with_uploads(Some(WriteBudget::unlimited()));
    let server = AlkaidServer::start(&runtime, service, options);
    let uri = format!("grpc+tls://localhost:{}", server.port);
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, true)]));
    let column: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    let values = |batches: &[RecordBatch]| -> Vec<Option<i32>> {
        let columns = batches
            .iter()
            .map(|b| b.column(0).as_any().downcast_ref::<Int32Array>().unwrap());
        columns.flat_map(|c| c.iter().collect::<Vec<_>>()).collect()
    };
    runtime.block_on(async {
        let trusted = ClientOptions::default().with_tls(cert.clone().into_bytes(), None);
        let mut client = FlightClient::connect_with(&uri, trusted.with_token("t0ken"))
            .await
            .unwrap();
        let upload = stream::iter([Ok((batch, Bytes::new()))]);
        client
            .do_put(FlightDescriptor::path(["n.arrow"]), schema.clone(), upload)
            .await
            .unwrap();
        let read: Vec<RecordBatch> = client
            .do_get(b"n.arrow")
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(values(&read), [Some(1), None, Some(3)]);
        // A client without the certificate authority is refused by the handshake.
        let untrusted =
            FlightClient::connect_with(&uri, ClientOptions::default().with_token("t0ken")).await;
        let refused = match untrusted {
            Err(e) => e.to_string(),
            Ok(mut client) => get_error(&mut client, b"n.arrow").await.to_string(),
        };
        assert!(!refused.is_empty());
    });
    drop(server);
    // What was uploaded is on disk, whole.
    let file = std::fs::File::open(dir.join("n.arrow")).unwrap();
    let on_disk: Vec<RecordBatch> = FileReader::try_new(file)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(values(&on_disk), [Some(1), None, Some(3)]);
}

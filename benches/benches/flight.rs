//! Arrow Flight over loopback: `DoGet` and `DoPut` of the IPC benchmark's 4 Mi rows as 64
//! batches of 64 Ki rows, uncompressed and LZ4, client and server in one process on a
//! two-worker tokio runtime.
//!
//! - `alkaid`: alkaid-flight's client and server (a service that serves the batches from
//!   memory and, for uploads, decodes every batch and counts its rows).
//! - `arrow`: arrow-flight's client and server doing the same, timed in alternation with
//!   Alkaid. Its encoder's defaults would expand the dictionary column into strings
//!   (`DictionaryHandling::Hydrate`); it is set to `Resend`, which sends the 1,000-entry
//!   dictionary before every batch but keeps the column a dictionary, as the others do.
//!   Its other defaults stay: batches are cut into messages of at most 2 MiB.
//! - `grpc`: the transport bound, the same messages (Alkaid's encoding, made once before
//!   timing) sent and received as plain gRPC messages, neither encoded nor decoded.
//! - `encode`, `decode`: the two ends' own work with no transfer, Alkaid's encoding of the
//!   set (with LZ4, the codec) and its decoding with full validation. With compression the
//!   sending end's encoding, not the transport, bounds a transfer from below.
//! - pyarrow's client and server on the same batches: `pyarrow_bench.py`.
//!
//! The batches are read from one uncompressed IPC file, which `bench-data/` keeps for
//! pyarrow, so every library sends batches of its own reader with the same values.

use std::pin::Pin;
use std::sync::Arc;

use alkaid_benches::ipc_batch::{self, ROWS};
use alkaid_benches::{VersusGroup, export};
use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures_util::{Stream, StreamExt, TryStreamExt, stream};
use tokio::net::TcpListener;

/// Batches in the set; each has `ROWS / BATCHES` rows.
const BATCHES: usize = 64;
/// The codecs of the rows.
const CODECS: [&str; 2] = ["none", "lz4"];
/// Large enough for any one message of the set, on every side.
const MESSAGE_LIMIT: usize = 1 << 30;

fn flight(c: &mut Criterion) {
    let batch = ipc_batch::alkaid_batch(&ipc_batch::columns(ROWS));
    let rows = ROWS / BATCHES;
    let parts: Vec<_> = (0..BATCHES).map(|k| batch.slice(k * rows, rows)).collect();
    let file = export::file_bytes(&parts);
    export::bytes("flight_batches.arrow", &file);
    drop((batch, parts));
    let ours = alkaid_batches(&file);
    let theirs = arrow_batches(&file);
    // Throughput is of the uncompressed IPC bytes.
    let bytes = file.len() as u64;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let ours_uri = runtime.block_on(ours::start(ours.clone()));
    let theirs_uri = runtime.block_on(theirs::start(theirs.clone()));
    let plain_uri = runtime.block_on(plain::start(&ours));

    let mut group = VersusGroup::new(c, "flight");
    group
        .group
        .sample_size(10)
        .sampling_mode(criterion::SamplingMode::Flat)
        .throughput(Throughput::Bytes(bytes));
    for codec in CODECS {
        let mut our_client = runtime.block_on(ours::client(&ours_uri, codec));
        let mut their_client = runtime.block_on(theirs::client(&theirs_uri));
        let mut plain_client = runtime.block_on(plain::client(&plain_uri));
        group.versus(
            &format!("do_get/{codec}"),
            || runtime.block_on(ours::get(&mut our_client, codec)),
            || runtime.block_on(theirs::get(&mut their_client, codec)),
        );
        group.versus(
            &format!("do_put/{codec}"),
            || runtime.block_on(ours::put(&mut our_client, &ours)),
            || runtime.block_on(theirs::put(&mut their_client, &theirs, codec)),
        );
        group
            .group
            .bench_function(BenchmarkId::new("grpc", format!("do_get/{codec}")), |b| {
                b.iter(|| runtime.block_on(plain::get(&mut plain_client, codec)))
            });
        let messages = plain::messages(&ours, codec);
        group
            .group
            .bench_function(BenchmarkId::new("grpc", format!("do_put/{codec}")), |b| {
                b.iter(|| runtime.block_on(plain::put(&mut plain_client, &messages)))
            });
        group
            .group
            .bench_function(BenchmarkId::new("encode", codec), |b| {
                b.iter(|| plain::messages(&ours, codec).len())
            });
        group
            .group
            .bench_function(BenchmarkId::new("decode", codec), |b| {
                b.iter(|| decode_alone(&messages))
            });
    }
    group.finish();
}

/// The rows of `messages`, decoded and fully validated on this thread.
fn decode_alone(messages: &[alkaid_flight::FlightData]) -> usize {
    let mut decoder =
        alkaid_flight::FlightDecoder::with_options(alkaid_ipc::ReadOptions::default());
    let rows = messages
        .iter()
        .filter_map(|message| decoder.decode(message.clone()).unwrap())
        .map(|(batch, _)| batch.num_rows())
        .sum();
    assert_eq!(rows, ROWS);
    rows
}

/// The file's batches as Alkaid's file reader gives them.
fn alkaid_batches(file: &[u8]) -> Arc<Vec<alkaid_array::RecordBatch>> {
    let source = alkaid_ipc::Seekable(std::io::Cursor::new(file));
    let reader = alkaid_ipc::FileReader::open(source, alkaid_ipc::ReadOptions::default()).unwrap();
    Arc::new(reader.map(Result::unwrap).collect())
}

/// The file's batches as arrow-ipc's file reader gives them.
fn arrow_batches(file: &[u8]) -> Arc<Vec<arrow_array::RecordBatch>> {
    let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(file), None).unwrap();
    Arc::new(reader.map(Result::unwrap).collect())
}

/// A listener on a free port of 127.0.0.1, and its `grpc://` address.
async fn listen() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("grpc://{}", listener.local_addr().unwrap());
    (listener, uri)
}

/// The ticket of a `DoGet` names the codec the server encodes with.
fn codec_of(ticket: &[u8]) -> &str {
    if ticket == b"lz4" { "lz4" } else { "none" }
}

/// The items of `items` one by one, each cloned as it is taken (record batches and
/// FlightData share their buffers).
fn each<T: Clone + Send + Sync + 'static>(
    items: &Arc<Vec<T>>,
) -> impl Stream<Item = T> + Send + Unpin + 'static {
    let items = items.clone();
    stream::iter((0..items.len()).map(move |i| items[i].clone()))
}

type Boxed<T> = Pin<Box<dyn Stream<Item = Result<T, tonic::Status>> + Send + 'static>>;

mod ours {
    use alkaid_flight::proto::flight_service_server::FlightService;
    use alkaid_flight::{
        ClientOptions, FlightClient, FlightData, FlightDescriptor, FlightEncoder,
        FlightRecordBatchStream, PutResult, ServerOptions, Ticket, encode_stream, serve,
    };
    use alkaid_ipc::{Compression, ReadOptions, WriteOptions};
    use tonic::{Request, Response, Status, Streaming};

    use super::*;

    type Batches = Arc<Vec<alkaid_array::RecordBatch>>;

    pub fn options(codec: &str) -> WriteOptions {
        let compression = match codec {
            "lz4" => Compression::Lz4Frame,
            _ => Compression::None,
        };
        WriteOptions::default().with_compression(compression)
    }

    /// Serves `batches` from memory; counts the rows of uploads.
    struct Memory(Batches);

    #[tonic::async_trait]
    impl FlightService for Memory {
        async fn do_get(
            &self,
            request: Request<Ticket>,
        ) -> Result<Response<Boxed<FlightData>>, Status> {
            let codec = codec_of(&request.get_ref().ticket);
            let schema = self.0[0].schema().clone();
            let encoder = FlightEncoder::new(schema, options(codec)).map_err(Status::from)?;
            let each = each(&self.0).map(|batch| Ok((batch, Bytes::new())));
            Ok(Response::new(Box::pin(
                encode_stream(encoder, each).map_err(Status::from),
            )))
        }

        async fn do_put(
            &self,
            request: Request<Streaming<FlightData>>,
        ) -> Result<Response<Boxed<PutResult>>, Status> {
            let data = request.into_inner().map_err(Into::into);
            let mut batches = FlightRecordBatchStream::new(data, ReadOptions::default());
            let mut rows = 0;
            while let Some(batch) = batches.try_next().await? {
                rows += batch.num_rows();
            }
            let answer = PutResult {
                app_metadata: rows.to_string().into(),
            };
            Ok(Response::new(Box::pin(stream::iter([Ok(answer)]))))
        }
    }

    pub async fn start(batches: Batches) -> String {
        let (listener, uri) = listen().await;
        let options = ServerOptions::default().with_max_message_bytes(MESSAGE_LIMIT);
        tokio::spawn(serve(
            Memory(batches),
            listener,
            options,
            std::future::pending(),
        ));
        uri
    }

    /// A client that uploads with `codec`.
    pub async fn client(uri: &str, codec: &str) -> FlightClient {
        let options = ClientOptions::default()
            .with_max_message_bytes(MESSAGE_LIMIT)
            .with_write_options(options(codec));
        FlightClient::connect_with(uri, options).await.unwrap()
    }

    pub async fn get(client: &mut FlightClient, codec: &str) -> usize {
        let batches = client.do_get(codec.as_bytes()).await.unwrap();
        let rows = batches
            .map_ok(|batch| batch.num_rows())
            .try_fold(0, |sum, rows| async move { Ok(sum + rows) })
            .await
            .unwrap();
        assert_eq!(rows, ROWS);
        rows
    }

    pub async fn put(client: &mut FlightClient, batches: &Batches) -> Vec<PutResult> {
        let schema = batches[0].schema().clone();
        let each = each(batches).map(|batch| Ok((batch, Bytes::new())));
        let answers = client
            .do_put(FlightDescriptor::path(["bench"]), schema, each)
            .await
            .unwrap();
        assert_eq!(answers[0].app_metadata, ROWS.to_string());
        answers
    }
}

mod theirs {
    use arrow_flight::decode::FlightRecordBatchStream;
    use arrow_flight::encode::{DictionaryHandling, FlightDataEncoderBuilder};
    use arrow_flight::error::FlightError;
    use arrow_flight::flight_service_client::FlightServiceClient;
    use arrow_flight::flight_service_server::{FlightService, FlightServiceServer};
    use arrow_flight::{
        Action, ActionType, Criteria, Empty, FlightClient, FlightData, FlightDescriptor,
        FlightInfo, HandshakeRequest, HandshakeResponse, PollInfo, PutResult, SchemaResult, Ticket,
    };
    use tonic::{Request, Response, Status, Streaming};

    use super::*;

    type Batches = Arc<Vec<arrow_array::RecordBatch>>;

    fn encoder(codec: &str) -> FlightDataEncoderBuilder {
        let compression = (codec == "lz4").then_some(arrow_ipc::CompressionType::LZ4_FRAME);
        let options = arrow_ipc::writer::IpcWriteOptions::default()
            .try_with_compression(compression)
            .unwrap();
        FlightDataEncoderBuilder::new()
            .with_options(options)
            .with_dictionary_handling(DictionaryHandling::Resend)
    }

    /// Serves `batches` from memory; counts the rows of uploads.
    struct Memory(Batches);

    fn unimplemented<T>() -> Result<T, Status> {
        Err(Status::unimplemented("not part of the benchmark"))
    }

    #[tonic::async_trait]
    impl FlightService for Memory {
        type HandshakeStream = Boxed<HandshakeResponse>;
        type ListFlightsStream = Boxed<FlightInfo>;
        type DoGetStream = Boxed<FlightData>;
        type DoPutStream = Boxed<PutResult>;
        type DoActionStream = Boxed<arrow_flight::Result>;
        type ListActionsStream = Boxed<ActionType>;
        type DoExchangeStream = Boxed<FlightData>;

        async fn handshake(
            &self,
            _: Request<Streaming<HandshakeRequest>>,
        ) -> Result<Response<Self::HandshakeStream>, Status> {
            unimplemented()
        }
        async fn list_flights(
            &self,
            _: Request<Criteria>,
        ) -> Result<Response<Self::ListFlightsStream>, Status> {
            unimplemented()
        }
        async fn get_flight_info(
            &self,
            _: Request<FlightDescriptor>,
        ) -> Result<Response<FlightInfo>, Status> {
            unimplemented()
        }
        async fn poll_flight_info(
            &self,
            _: Request<FlightDescriptor>,
        ) -> Result<Response<PollInfo>, Status> {
            unimplemented()
        }
        async fn get_schema(
            &self,
            _: Request<FlightDescriptor>,
        ) -> Result<Response<SchemaResult>, Status> {
            unimplemented()
        }
        async fn do_action(
            &self,
            _: Request<Action>,
        ) -> Result<Response<Self::DoActionStream>, Status> {
            unimplemented()
        }
        async fn list_actions(
            &self,
            _: Request<Empty>,
        ) -> Result<Response<Self::ListActionsStream>, Status> {
            unimplemented()
        }
        async fn do_exchange(
            &self,
            _: Request<Streaming<FlightData>>,
        ) -> Result<Response<Self::DoExchangeStream>, Status> {
            unimplemented()
        }

        async fn do_get(
            &self,
            request: Request<Ticket>,
        ) -> Result<Response<Self::DoGetStream>, Status> {
            let codec = codec_of(&request.get_ref().ticket);
            let each = each(&self.0).map(Ok);
            let messages = encoder(codec).build(each).map_err(Status::from);
            Ok(Response::new(Box::pin(messages)))
        }

        async fn do_put(
            &self,
            request: Request<Streaming<FlightData>>,
        ) -> Result<Response<Self::DoPutStream>, Status> {
            let data = request.into_inner().map_err(FlightError::from);
            let mut batches = FlightRecordBatchStream::new_from_flight_data(data);
            let mut rows = 0;
            while let Some(batch) = batches.try_next().await? {
                rows += batch.num_rows();
            }
            let answer = PutResult {
                app_metadata: rows.to_string().into(),
            };
            Ok(Response::new(Box::pin(stream::iter([Ok(answer)]))))
        }
    }

    pub async fn start(batches: Batches) -> String {
        let (listener, uri) = listen().await;
        let service = FlightServiceServer::new(Memory(batches))
            .max_decoding_message_size(MESSAGE_LIMIT)
            .max_encoding_message_size(MESSAGE_LIMIT);
        let incoming = tonic::transport::server::TcpIncoming::from(listener);
        tokio::spawn(
            tonic::transport::Server::builder()
                .tcp_nodelay(true)
                .initial_stream_window_size(Some(alkaid_flight::DEFAULT_WINDOW_BYTES))
                .initial_connection_window_size(Some(alkaid_flight::DEFAULT_WINDOW_BYTES))
                .max_frame_size(1 << 20)
                .add_service(service)
                .serve_with_incoming(incoming),
        );
        uri
    }

    pub async fn client(uri: &str) -> FlightClient {
        let uri = uri.replacen("grpc://", "http://", 1);
        // The transport settings of alkaid-flight's client and server, so that the
        // figures compare the encoders and decoders.
        let channel = tonic::transport::Channel::from_shared(uri)
            .unwrap()
            .tcp_nodelay(true)
            .initial_stream_window_size(alkaid_flight::DEFAULT_WINDOW_BYTES)
            .initial_connection_window_size(alkaid_flight::DEFAULT_WINDOW_BYTES)
            .max_frame_size(1 << 20)
            .connect()
            .await
            .unwrap();
        let inner = FlightServiceClient::new(channel)
            .max_decoding_message_size(MESSAGE_LIMIT)
            .max_encoding_message_size(MESSAGE_LIMIT);
        FlightClient::new_from_inner(inner)
    }

    pub async fn get(client: &mut FlightClient, codec: &str) -> usize {
        let ticket = Ticket {
            ticket: Bytes::copy_from_slice(codec.as_bytes()),
        };
        let batches = client.do_get(ticket).await.unwrap();
        let rows = batches
            .map_ok(|batch| batch.num_rows())
            .try_fold(0, |sum, rows| async move { Ok(sum + rows) })
            .await
            .unwrap();
        assert_eq!(rows, ROWS);
        rows
    }

    pub async fn put(client: &mut FlightClient, batches: &Batches, codec: &str) -> Vec<PutResult> {
        let each = each(batches).map(Ok);
        let messages = encoder(codec)
            .with_flight_descriptor(Some(FlightDescriptor::new_path(vec!["bench".into()])))
            .build(each);
        let answers: Vec<PutResult> = client
            .do_put(messages)
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(answers[0].app_metadata, ROWS.to_string());
        answers
    }
}

mod plain {
    use alkaid_flight::proto::flight_service_server::FlightService;
    use alkaid_flight::{
        ClientOptions, FlightClient, FlightData, FlightEncoder, PutResult, ServerOptions, Ticket,
        serve,
    };
    use tonic::{Request, Response, Status, Streaming};

    use super::*;

    /// Each codec's messages of the whole set, as Alkaid encodes them.
    pub fn messages(batches: &[alkaid_array::RecordBatch], codec: &str) -> Arc<Vec<FlightData>> {
        let schema = batches[0].schema().clone();
        let mut encoder = FlightEncoder::new(schema, ours::options(codec)).unwrap();
        let mut messages = vec![encoder.schema()];
        for batch in batches {
            messages.extend(encoder.encode(batch, Bytes::new()).unwrap());
        }
        Arc::new(messages)
    }

    /// Sends the encoded messages as they are; takes uploads without decoding them.
    struct Plain {
        none: Arc<Vec<FlightData>>,
        lz4: Arc<Vec<FlightData>>,
    }

    #[tonic::async_trait]
    impl FlightService for Plain {
        async fn do_get(
            &self,
            request: Request<Ticket>,
        ) -> Result<Response<Boxed<FlightData>>, Status> {
            let messages = match codec_of(&request.get_ref().ticket) {
                "lz4" => self.lz4.clone(),
                _ => self.none.clone(),
            };
            let each = each(&messages).map(Ok);
            Ok(Response::new(Box::pin(each)))
        }

        async fn do_put(
            &self,
            request: Request<Streaming<FlightData>>,
        ) -> Result<Response<Boxed<PutResult>>, Status> {
            let bytes = request
                .into_inner()
                .try_fold(0, |sum, data| async move { Ok(sum + data.data_body.len()) })
                .await?;
            let answer = PutResult {
                app_metadata: bytes.to_string().into(),
            };
            Ok(Response::new(Box::pin(stream::iter([Ok(answer)]))))
        }
    }

    pub async fn start(batches: &[alkaid_array::RecordBatch]) -> String {
        let (listener, uri) = listen().await;
        let service = Plain {
            none: messages(batches, "none"),
            lz4: messages(batches, "lz4"),
        };
        let options = ServerOptions::default().with_max_message_bytes(MESSAGE_LIMIT);
        tokio::spawn(serve(service, listener, options, std::future::pending()));
        uri
    }

    pub async fn client(uri: &str) -> FlightClient {
        let options = ClientOptions::default().with_max_message_bytes(MESSAGE_LIMIT);
        FlightClient::connect_with(uri, options).await.unwrap()
    }

    /// The body bytes of every message of the codec's stream.
    pub async fn get(client: &mut FlightClient, codec: &str) -> usize {
        let ticket = Ticket {
            ticket: Bytes::copy_from_slice(codec.as_bytes()),
        };
        let answers = client.raw().do_get(ticket).await.unwrap().into_inner();
        let bytes = answers
            .try_fold(0, |sum, data| async move { Ok(sum + data.data_body.len()) })
            .await
            .unwrap();
        assert!(bytes > 0);
        bytes
    }

    pub async fn put(client: &mut FlightClient, messages: &Arc<Vec<FlightData>>) -> usize {
        let each = each(messages);
        let answers: Vec<PutResult> = client
            .raw()
            .do_put(each)
            .await
            .unwrap()
            .into_inner()
            .try_collect()
            .await
            .unwrap();
        answers.len()
    }
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = flight
}
criterion_main!(benches);

//! Alkaid's directory service under faults and load: malformed FlightData, uploads cut
//! short or cancelled, clients that go away mid-stream, and 32 clients at once. After
//! each fault the server keeps serving, and no partial file is left.

use crate::peers;

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use alkaid_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use alkaid_flight::{
    ClientOptions, DataBody, DirectoryService, FlightClient, FlightData, FlightDescriptor,
    FlightEncoder, FlightError, ServerOptions, WriteBudget,
};
use alkaid_ipc::{FileWriter, WriteOptions};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt, stream};
use peers::{AlkaidServer, get_error, runtime, scratch};
use tonic::Code;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]))
}

fn batch(start: i64, rows: usize) -> RecordBatch {
    let n: Vec<i64> = (start..start + rows as i64).collect();
    let s: Vec<String> = n.iter().map(|i| format!("row {i}")).collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(n)),
        Arc::new(StringArray::from(s)),
    ];
    RecordBatch::try_new(schema(), columns).unwrap()
}

fn write_file(path: &Path, batches: usize, rows: usize) {
    let mut writer = FileWriter::try_new(Vec::new(), schema(), WriteOptions::default()).unwrap();
    for b in 0..batches {
        writer.write(&batch((b * rows) as i64, rows)).unwrap();
    }
    std::fs::write(path, writer.into_inner().unwrap()).unwrap();
}

/// A runtime and, on it, a server of the files of `dir` with the default options.
fn serve(dir: &Path) -> (tokio::runtime::Runtime, AlkaidServer) {
    let runtime = runtime();
    let server = AlkaidServer::start(
        &runtime,
        DirectoryService::new(dir).with_uploads(Some(WriteBudget::unlimited())),
        ServerOptions::default(),
    );
    (runtime, server)
}

/// The names in `dir`, hidden ones included, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

async fn rows_of(client: &mut FlightClient, name: &str) -> usize {
    let batches: Vec<RecordBatch> = client
        .do_get(name.as_bytes())
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    batches.iter().map(RecordBatch::num_rows).sum()
}

#[test]
fn malformed_flight_data_is_refused_and_the_server_goes_on() {
    let dir = scratch("faults_malformed");
    write_file(&dir.join("good.arrow"), 3, 100);
    let (runtime, server) = serve(&dir);
    runtime.block_on(async {
        let mut client = FlightClient::connect(&server.uri()).await.unwrap();
        let descriptor = FlightDescriptor::path(["bad.arrow"]);
        let mut encoder = FlightEncoder::new(schema(), WriteOptions::default()).unwrap();
        let schema_message = encoder.schema().with_descriptor(descriptor.clone());
        let mut batch_message = encoder
            .encode(&batch(0, 10), Bytes::new())
            .unwrap()
            .remove(0);
        let body = batch_message.data_body.to_buffer();

        let garbage = FlightData {
            flight_descriptor: Some(descriptor.clone()),
            data_header: Bytes::from_static(b"not a flatbuffer at all"),
            ..FlightData::default()
        };
        // The batch's header, with a body of 10 bytes where it declares more.
        batch_message.data_body = DataBody::from(Bytes::copy_from_slice(&body[..10]));
        let short_body = batch_message.clone();
        let mut before_schema = short_body.clone();
        before_schema.flight_descriptor = Some(descriptor.clone());
        before_schema.data_body = DataBody::from(Bytes::copy_from_slice(&body));

        for (what, messages) in [
            ("an invalid flatbuffer", vec![garbage]),
            (
                "a lying body length",
                vec![schema_message.clone(), short_body],
            ),
            ("a batch before the schema", vec![before_schema]),
        ] {
            let outcome = async {
                let answers = client
                    .raw()
                    .do_put(stream::iter(messages))
                    .await?
                    .into_inner();
                answers.try_collect::<Vec<_>>().await
            }
            .await;
            let status = outcome.expect_err(what);
            assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
            // The server still serves, and wrote nothing.
            assert_eq!(
                rows_of(&mut client, "good.arrow").await,
                300,
                "after {what}"
            );
            assert_eq!(listing(&dir), ["good.arrow"], "after {what}");
        }
    });
}

#[test]
fn uploads_cut_short_or_cancelled_leave_no_file() {
    let dir = scratch("faults_uploads");
    let (runtime, server) = serve(&dir);
    runtime.block_on(async {
        let mut client = FlightClient::connect(&server.uri()).await.unwrap();
        // A batch that fails on the client's side after two went out: the call is
        // cancelled, never finished, and the error is the client's own.
        let upload = stream::iter((0..5).map(|i| match i {
            3 => Err(FlightError::protocol("the source went away")),
            _ => Ok((batch(i * 10, 10), Bytes::new())),
        }));
        let err = client
            .do_put(FlightDescriptor::path(["cut.arrow"]), schema(), upload)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("the source went away"), "{err}");
        // An upload that stalls, given up by its client.
        let stalled = stream::iter([Ok((batch(0, 10), Bytes::new()))]).chain(stream::pending());
        let mut other = client.clone();
        let gave_up = tokio::time::timeout(
            Duration::from_millis(500),
            other.do_put(FlightDescriptor::path(["stalled.arrow"]), schema(), stalled),
        )
        .await;
        assert!(gave_up.is_err());
        // The server notices the cancellations and removes the temporary files.
        let mut left = listing(&dir);
        for _ in 0..100 {
            if left.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            left = listing(&dir);
        }
        assert!(left.is_empty(), "{left:?}");
        // A whole upload does land.
        let upload = stream::iter((0..3).map(|i| Ok((batch(i * 10, 10), Bytes::new()))));
        client
            .do_put(FlightDescriptor::path(["whole.arrow"]), schema(), upload)
            .await
            .unwrap();
        assert_eq!(listing(&dir), ["whole.arrow"]);
        assert_eq!(rows_of(&mut client, "whole.arrow").await, 30);
        // Names that leave the directory are refused.
        for name in ["../escape.arrow", ".hidden", "a/b.arrow", ""] {
            let upload = stream::iter([Ok((batch(0, 1), Bytes::new()))]);
            let err = client
                .do_put(FlightDescriptor::path([name]), schema(), upload)
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{name}: {err}");
        }
        assert_eq!(listing(&dir), ["whole.arrow"]);
    });
}

#[test]
fn clients_that_leave_mid_stream_and_32_at_once_are_served() {
    let dir = scratch("faults_load");
    write_file(&dir.join("big.arrow"), 64, 20_000);
    write_file(&dir.join("small.arrow"), 4, 1000);
    let (runtime, server) = serve(&dir);
    let uri = server.uri();
    runtime.block_on(async {
        // Ten clients take one batch of the big file and go away.
        for _ in 0..10 {
            let mut client = FlightClient::connect(&uri).await.unwrap();
            let mut batches = client.do_get(b"big.arrow").await.unwrap();
            assert!(batches.try_next().await.unwrap().is_some());
        }
        // 32 clients fetch and upload at once; every batch arrives intact.
        let tasks: Vec<_> = (0..32)
            .map(|i| {
                let uri = uri.clone();
                tokio::spawn(async move {
                    let mut client = FlightClient::connect(&uri).await.unwrap();
                    let name = if i % 4 == 0 {
                        "big.arrow"
                    } else {
                        "small.arrow"
                    };
                    let batches: Vec<RecordBatch> = client
                        .do_get(name.as_bytes())
                        .await
                        .unwrap()
                        .try_collect()
                        .await
                        .unwrap();
                    let mut next = 0i64;
                    for batch in &batches {
                        let n = batch
                            .column(0)
                            .as_any()
                            .downcast_ref::<Int64Array>()
                            .unwrap();
                        for j in 0..n.len() {
                            assert_eq!(n.value(j), next);
                            next += 1;
                        }
                    }
                    let upload = stream::iter(batches.into_iter().map(|b| Ok((b, Bytes::new()))));
                    let target = format!("copy-{i}.arrow");
                    client
                        .do_put(FlightDescriptor::path([target.as_str()]), schema(), upload)
                        .await
                        .unwrap();
                    (target, next)
                })
            })
            .collect();
        let mut client = FlightClient::connect(&uri).await.unwrap();
        for task in tasks {
            let (target, rows) = tokio::time::timeout(Duration::from_secs(120), task)
                .await
                .expect("every client finishes within 120 s")
                .unwrap();
            assert_eq!(rows_of(&mut client, &target).await as i64, rows);
        }
    });
}

#[test]
fn messages_past_the_size_limit_are_refused_with_a_clear_status() {
    let dir = scratch("faults_limits");
    // Batches of about 1.6 MB.
    write_file(&dir.join("wide.arrow"), 2, 100_000);
    let runtime = runtime();
    let limit = 256 << 10;
    let server = AlkaidServer::start(
        &runtime,
        DirectoryService::new(&dir).with_uploads(Some(WriteBudget::unlimited())),
        ServerOptions::default().with_max_message_bytes(limit),
    );
    runtime.block_on(async {
        let mut client = FlightClient::connect(&server.uri()).await.unwrap();
        // Too large to send from the server.
        let err = get_error(&mut client, b"wide.arrow").await;
        // tonic's status names the sizes: "encoded message length too large: found
        // 2089112 bytes, the limit is: 262144 bytes".
        assert_eq!(err.code(), Code::OutOfRange, "{err}");
        assert!(
            err.to_string().contains("the limit is: 262144 bytes"),
            "{err}"
        );
        // Too large for the server to take.
        let upload = stream::iter([Ok((batch(0, 100_000), Bytes::new()))]);
        let err = client
            .do_put(FlightDescriptor::path(["too-big.arrow"]), schema(), upload)
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::OutOfRange, "{err}");
        assert!(
            err.to_string().contains("decoded message length too large"),
            "{err}"
        );
        assert_eq!(listing(&dir), ["wide.arrow"]);
        // Small ones pass.
        let upload = stream::iter([Ok((batch(0, 100), Bytes::new()))]);
        client
            .do_put(FlightDescriptor::path(["small.arrow"]), schema(), upload)
            .await
            .unwrap();
        // A client's own limit refuses a message larger than it.
        let small = ClientOptions::default().with_max_message_bytes(1000);
        let mut strict = FlightClient::connect_with(&server.uri(), small)
            .await
            .unwrap();
        let upload = stream::iter([Ok((batch(0, 1000), Bytes::new()))]);
        let err = strict
            .do_put(FlightDescriptor::path(["refused.arrow"]), schema(), upload)
            .await
            .unwrap_err();
        assert!(
            matches!(
                err.code(),
                Code::ResourceExhausted | Code::OutOfRange | Code::Internal
            ),
            "{err}"
        );
    });
}

/// A file truncated while it is served (from a memory map shared by its readers): the
/// streams reading it end with an error that says the file shrank, the batches sent before
/// are intact, and the server goes on serving, that file's new content included.
#[cfg(target_os = "linux")]
#[test]
fn a_file_truncated_while_served_ends_its_streams_with_an_error() {
    let dir = scratch("faults_truncated");
    let path = dir.join("shrinks.arrow");
    write_file(&path, 32, 20_000);
    write_file(&dir.join("other.arrow"), 2, 100);
    let (runtime, server) = serve(&dir);
    runtime.block_on(async {
        let mut readers = Vec::new();
        for _ in 0..3 {
            // A small window, so that the server cannot have sent the whole file before
            // the cut: it reads a few batches ahead of what the client has taken.
            let options = ClientOptions::default().with_window_bytes(64 << 10);
            let mut client = FlightClient::connect_with(&server.uri(), options)
                .await
                .unwrap();
            let mut batches = client.do_get(b"shrinks.arrow").await.unwrap();
            let first = batches.try_next().await.unwrap().unwrap();
            assert_eq!(first.num_rows(), 20_000);
            readers.push((client, batches));
        }
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len / 4)
            .unwrap();
        for (_client, mut batches) in readers {
            let mut next = 20_000i64;
            let error = loop {
                match batches.try_next().await {
                    Ok(Some(batch)) => {
                        // Read ahead before the cut: intact.
                        let n = batch
                            .column(0)
                            .as_any()
                            .downcast_ref::<Int64Array>()
                            .unwrap();
                        assert_eq!(n.value(0), next);
                        next += n.len() as i64;
                    }
                    Ok(None) => panic!("a stream of a file cut to a quarter ended cleanly"),
                    Err(e) => break e,
                }
            };
            assert!(error.to_string().contains("shrank"), "{error}");
        }
        let mut client = FlightClient::connect(&server.uri()).await.unwrap();
        assert_eq!(rows_of(&mut client, "other.arrow").await, 200);
        // The same name, written anew, is served from a map of its own.
        write_file(&path, 2, 50);
        assert_eq!(rows_of(&mut client, "shrinks.arrow").await, 100);
    });
}

/// The rows of batches of [`schema`].
fn rows(batches: &[RecordBatch]) -> Vec<(i64, String)> {
    let mut rows = Vec::new();
    for batch in batches {
        let n = batch
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let s = batch
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        rows.extend((0..batch.num_rows()).map(|i| (n.value(i), s.value(i).to_string())));
    }
    rows
}

/// A batch is validated in full when first served; a file left alone is then served from
/// its kept map without validating again, with the same rows; the same file written over
/// in place (its length unchanged) is validated afresh, and a string that is no longer
/// UTF-8 is an error, not served.
#[test]
fn a_file_written_over_in_place_is_validated_afresh() {
    let dir = scratch("faults_written_over");
    let path = dir.join("f.arrow");
    write_file(&path, 2, 1000);
    // Older than file times' granularity, so that validations are remembered.
    std::thread::sleep(Duration::from_millis(1100));
    let (runtime, server) = serve(&dir);
    runtime.block_on(async {
        let mut client = FlightClient::connect(&server.uri()).await.unwrap();
        let fetch = |client: &mut FlightClient| {
            let mut client = client.clone();
            async move {
                client
                    .do_get(b"f.arrow")
                    .await?
                    .try_collect::<Vec<RecordBatch>>()
                    .await
            }
        };
        let first = fetch(&mut client).await.unwrap();
        let again = fetch(&mut client).await.unwrap();
        let expected: Vec<(i64, String)> = (0..2000).map(|i| (i, format!("row {i}"))).collect();
        assert_eq!(rows(&first), expected);
        assert_eq!(rows(&again), expected);
        // "row 1500" in the second batch: its first digit made a byte that is not UTF-8.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.windows(8).position(|w| w == b"row 1500").unwrap() + 4;
        bytes[at] = 0xFF;
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .write_all_at(&bytes, 0)
            .unwrap();
        let error = fetch(&mut client).await.unwrap_err();
        assert!(error.to_string().contains("UTF-8"), "{error}");
    });
}

//! alkaid-flight against pyarrow's Flight, both ways: Alkaid's client with pyarrow's
//! server, and pyarrow's client with Alkaid's directory service. Random types three deep
//! (dictionaries, views, run-end encoded, unions, slices), every codec, app_metadata,
//! empty streams, a stream of 1 GiB, errors of every kind, a server dying mid-stream, and
//! TLS with a bearer token.

use crate::batches;
use crate::common;
use crate::peers;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use alkaid_array::types::Int32Type;
use alkaid_array::{ArrayRef, DictionaryArray, Int32Array, Int64Array, RecordBatch, StringArray};
use alkaid_buffer::Buffer;
use alkaid_data::{ArrayData, equal};
use alkaid_flight::{
    ClientOptions, DirectoryService, FlightClient, FlightDescriptor, FlightError, ServerOptions,
    WriteBudget,
};
use alkaid_ipc::{Compression, FileReader, FileWriter, Magic, StreamWriter, WriteOptions};
use alkaid_schema::{DataType, Field, IntegerType, Schema, SchemaRef, arbitrary};
use batches::random_batches;
use bytes::Bytes;
use common::{Rng, dictionary_of_dictionary, generatable};
use futures_util::{TryStreamExt, stream};
use peers::{AlkaidServer, PyServer, get_error, py_client, pyarrow_or_skip, runtime, scratch};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use tonic::Code;

/// `count` random schemas of types up to three deep that both libraries handle, each with
/// a batch cut into slices (so that its dictionaries stay the same across the slices).
fn cases(count: usize, seed: u64) -> Vec<(SchemaRef, Vec<RecordBatch>)> {
    let mut runner = TestRunner::deterministic();
    let strategy = proptest::collection::vec(arbitrary::data_type_with_depth(3), 1..5);
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let types = strategy.new_tree(&mut runner).unwrap().current();
        if !types
            .iter()
            .all(|t| generatable(t) && !dictionary_of_dictionary(t) && pyarrow_reads(t))
        {
            continue;
        }
        let lens = [1 + rng.below(8), rng.below(4), 1 + rng.below(8)];
        let (schema, whole) = random_batches(&types, &[lens.iter().sum()], &mut rng);
        let mut at = 0;
        let slices = lens
            .iter()
            .map(|&len| {
                at += len;
                whole[0].slice(at - len, len)
            })
            .collect();
        out.push((schema, slices));
    }
    out
}

/// Whether pyarrow reads `data_type`: Arrow C++ refuses a map whose entries may be null
/// (the format's Schema.fbs leaves that open; Alkaid reads and writes it).
fn pyarrow_reads(data_type: &DataType) -> bool {
    let children_ok = data_type
        .children()
        .iter()
        .all(|f| pyarrow_reads(f.data_type()));
    match data_type {
        DataType::Map(map) => !map.entries().is_nullable() && children_ok,
        DataType::Dictionary { value, .. } => pyarrow_reads(value),
        _ => children_ok,
    }
}

/// The rows of `batches`, as one batch.
fn joined(batches: &[RecordBatch]) -> RecordBatch {
    alkaid_select::concat_batches(batches[0].schema(), batches).unwrap()
}

/// `data` with the type `to`, which has the same layout but perhaps other field names:
/// pyarrow names the fields of every map `entries`, `key` and `value`.
fn retype(data: &ArrayData, to: &DataType) -> ArrayData {
    let mut parts = data.clone().into_parts();
    let child_types: Vec<DataType> = to
        .children()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    parts.children = parts
        .children
        .iter()
        .zip(&child_types)
        .map(|(child, to)| retype(child, to))
        .collect();
    if let DataType::Dictionary { value, .. } = to {
        parts.dictionary = parts.dictionary.map(|d| Arc::new(retype(&d, value)));
    }
    let mut builder = ArrayData::builder(to.clone())
        .len(parts.len)
        .offset(parts.offset)
        .nulls(parts.nulls)
        .buffers(parts.buffers)
        .children(parts.children);
    if let Some(dictionary) = parts.dictionary {
        builder = builder.dictionary(dictionary);
    }
    builder.build().unwrap()
}

fn assert_same_rows(read: &[RecordBatch], expected: &[RecordBatch], what: &str) {
    let rows: usize = read.iter().map(RecordBatch::num_rows).sum();
    let expected_rows: usize = expected.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, expected_rows, "{what}");
    if rows == 0 {
        return;
    }
    let (a, b) = (joined(read), joined(expected));
    for (i, (x, y)) in a.columns().iter().zip(b.columns()).enumerate() {
        let (x, y) = (retype(&x.to_data(), y.data_type()), y.to_data());
        assert!(equal(&x, &y), "{what}: column {i}");
    }
}

fn write_stream(path: &Path, schema: &SchemaRef, batches: &[RecordBatch]) {
    let mut writer =
        StreamWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    std::fs::write(path, writer.into_inner().unwrap()).unwrap();
}

fn write_file(path: &Path, schema: &SchemaRef, batches: &[RecordBatch]) {
    let options = WriteOptions::default().with_magic(Magic::Arrow);
    let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    std::fs::write(path, writer.into_inner().unwrap()).unwrap();
}

/// The batches of an IPC file or stream.
fn read_file(path: &Path) -> Vec<RecordBatch> {
    let bytes = std::fs::read(path).unwrap();
    if bytes.starts_with(b"ARROW1") || bytes.starts_with(b"ALKAID1") {
        return FileReader::from_buffer(Buffer::from(bytes))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    }
    alkaid_ipc::StreamReader::try_new(&bytes[..])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn codecs() -> [(&'static str, Compression); 3] {
    [
        ("none", Compression::None),
        ("lz4", Compression::Lz4Frame),
        ("zstd", Compression::Zstd { level: 1 }),
    ]
}

#[test]
fn alkaid_client_reads_and_writes_through_a_pyarrow_server() {
    if !pyarrow_or_skip("alkaid_client_reads_and_writes_through_a_pyarrow_server") {
        return;
    }
    let dir = scratch("py_server");
    let cases = cases(16, 25);
    for (i, (schema, batches)) in cases.iter().enumerate() {
        write_stream(&dir.join(format!("case{i}.arrows")), schema, batches);
    }
    let server = PyServer::start(&dir, &[]);
    let runtime = runtime();
    runtime.block_on(async {
        for (i, (schema, batches)) in cases.iter().enumerate() {
            let (codec_name, codec) = codecs()[i % 3];
            let options = ClientOptions::default()
                .with_write_options(WriteOptions::default().with_compression(codec));
            let mut client = FlightClient::connect_with(&server.uri(), options)
                .await
                .unwrap();
            // pyarrow sends the stream with the codec the ticket names.
            let read: Vec<RecordBatch> = client
                .do_get(format!("case{i}.arrows|{codec_name}").as_bytes())
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            assert_same_rows(&read, batches, &format!("do_get case {i} {codec_name}"));

            // Uploaded with this side's codec, stored by pyarrow, read back from its file.
            let name = format!("up{i}.arrow");
            let upload = batches
                .iter()
                .enumerate()
                .map(|(j, b)| Ok((b.clone(), Bytes::from(format!("b{j}")))))
                .collect::<Vec<_>>();
            let answers = client
                .do_put(
                    FlightDescriptor::path([name.as_str()]),
                    schema.clone(),
                    stream::iter(upload),
                )
                .await
                .unwrap();
            let echoed: Vec<Bytes> = answers.into_iter().map(|a| a.app_metadata).collect();
            let sent: Vec<Bytes> = (0..batches.len())
                .map(|j| Bytes::from(format!("b{j}")))
                .collect();
            assert_eq!(echoed, sent, "case {i}");
            assert_same_rows(
                &read_file(&dir.join(&name)),
                batches,
                &format!("do_put case {i}"),
            );
            std::fs::remove_file(dir.join(&name)).unwrap();

            // Echoed batch by batch, with each batch's app_metadata.
            let exchange = batches
                .iter()
                .enumerate()
                .map(|(j, b)| Ok((b.clone(), Bytes::from(format!("x{j}")))))
                .collect::<Vec<_>>();
            let mut echo = client
                .do_exchange(
                    FlightDescriptor::path(["echo"]),
                    schema.clone(),
                    stream::iter(exchange),
                )
                .await
                .unwrap();
            let mut back = Vec::new();
            while let Some(batch) = echo.try_next().await.unwrap() {
                assert_eq!(
                    echo.app_metadata(),
                    &Bytes::from(format!("x{}", back.len()))
                );
                back.push(batch);
            }
            assert_same_rows(&back, batches, &format!("do_exchange case {i}"));
        }
    });
}

/// Batches of one dictionary column whose dictionary grows from batch to batch.
fn growing_dictionaries() -> (SchemaRef, Vec<RecordBatch>) {
    let field = Field::new(
        "d",
        DataType::dictionary(IntegerType::Int32, DataType::Utf8),
        true,
    );
    let schema = Arc::new(Schema::new(vec![field]));
    let words = ["red", "green", "blue", "cyan", "magenta"];
    let batches = (2..=words.len())
        .map(|n| {
            let values: ArrayRef = Arc::new(StringArray::from(words[..n].to_vec()));
            let keys = Int32Array::from(
                (0..n as i32)
                    .rev()
                    .map(Some)
                    .chain([None])
                    .collect::<Vec<_>>(),
            );
            let column = DictionaryArray::<Int32Type>::try_new(keys, values).unwrap();
            RecordBatch::try_new(schema.clone(), vec![Arc::new(column) as ArrayRef]).unwrap()
        })
        .collect();
    (schema, batches)
}

#[test]
fn dictionary_deltas_cross_both_ways() {
    if !pyarrow_or_skip("dictionary_deltas_cross_both_ways") {
        return;
    }
    let dir = scratch("py_deltas");
    let (schema, batches) = growing_dictionaries();
    let options = WriteOptions::default().with_dictionary_deltas(true);
    let mut writer = StreamWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
    for batch in &batches {
        writer.write(batch).unwrap();
    }
    std::fs::write(dir.join("grow.arrows"), writer.into_inner().unwrap()).unwrap();
    let server = PyServer::start(&dir, &[]);
    runtime().block_on(async {
        let client_options = ClientOptions::default().with_write_options(options);
        let mut client = FlightClient::connect_with(&server.uri(), client_options)
            .await
            .unwrap();
        // pyarrow sends the grown dictionaries as deltas.
        let read: Vec<RecordBatch> = client
            .do_get(b"grow.arrows|none|deltas")
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(read.len(), batches.len());
        assert_same_rows(&read, &batches, "deltas from pyarrow");
        // Alkaid sends them as deltas; pyarrow takes them.
        let upload = batches
            .iter()
            .map(|b| Ok((b.clone(), Bytes::new())))
            .collect::<Vec<_>>();
        client
            .do_put(
                FlightDescriptor::path(["grown.arrow"]),
                schema.clone(),
                stream::iter(upload),
            )
            .await
            .unwrap();
        assert_same_rows(
            &read_file(&dir.join("grown.arrow")),
            &batches,
            "deltas to pyarrow",
        );
    });
}

#[test]
fn calls_and_errors_cross_with_their_codes() {
    if !pyarrow_or_skip("calls_and_errors_cross_with_their_codes") {
        return;
    }
    let dir = scratch("py_errors");
    let (schema, batches) = cases(1, 7).remove(0);
    write_file(&dir.join("one.arrow"), &schema, &batches);
    // A stream of no batches.
    write_stream(&dir.join("empty.arrows"), &schema, &[]);
    let server = PyServer::start(&dir, &[]);
    runtime().block_on(async {
        let mut client = FlightClient::connect(&server.uri()).await.unwrap();
        let infos = client.list_flights(Bytes::new()).await.unwrap();
        let names: Vec<String> = infos
            .iter()
            .map(|i| i.flight_descriptor.as_ref().unwrap().path[0].clone())
            .collect();
        assert_eq!(names, ["empty.arrows", "one.arrow"]);
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(infos[1].total_records, rows as i64);
        let info = client
            .get_flight_info(FlightDescriptor::path(["one.arrow"]))
            .await
            .unwrap();
        let described = alkaid_flight::schema_from_ipc(&info.schema).unwrap();
        // pyarrow renames the fields of maps; the rest is the file's schema.
        let names = |s: &Schema| {
            s.fields()
                .iter()
                .map(|f| f.name().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&described), names(&schema));
        let got = client
            .get_schema(FlightDescriptor::path(["one.arrow"]))
            .await
            .unwrap();
        assert_eq!(got.fields().len(), schema.fields().len());
        let empty: Vec<RecordBatch> = client
            .do_get(b"empty.arrows")
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert!(empty.is_empty());
        let actions = client.list_actions().await.unwrap();
        assert_eq!(actions[0].r#type, "echo");
        let echoed = client
            .do_action("echo", Bytes::from_static(b"hello"))
            .await
            .unwrap();
        assert_eq!(echoed, [Bytes::from_static(b"hello")]);
        for (kind, code) in [
            ("unauthenticated", Code::Unauthenticated),
            ("unauthorized", Code::PermissionDenied),
            ("unavailable", Code::Unavailable),
            ("cancelled", Code::Cancelled),
            ("timeout", Code::DeadlineExceeded),
            ("internal", Code::Internal),
            ("invalid", Code::InvalidArgument),
            ("unimplemented", Code::Unimplemented),
            ("not-found", Code::NotFound),
        ] {
            let err = client
                .do_action(&format!("raise-{kind}"), Bytes::new())
                .await
                .unwrap_err();
            assert_eq!(err.code(), code, "{kind}: {err}");
            assert!(err.to_string().contains("asked to fail"), "{kind}: {err}");
        }
        let err = get_error(&mut client, b"absent.arrow").await;
        assert!(matches!(err, FlightError::Status(_)), "{err}");
    });
}

#[test]
fn a_gibibyte_arrives_whole_and_a_dying_server_is_an_error() {
    if !pyarrow_or_skip("a_gibibyte_arrives_whole_and_a_dying_server_is_an_error") {
        return;
    }
    let dir = scratch("py_big");
    let mut server = PyServer::start(&dir, &[]);
    runtime().block_on(async {
        let mut client = FlightClient::connect(&server.uri()).await.unwrap();
        let mut big = client.do_get(b"big").await.unwrap();
        let (mut rows, mut bytes, mut last) = (0usize, 0usize, None);
        while let Some(batch) = big.try_next().await.unwrap() {
            rows += batch.num_rows();
            bytes += batch.column(0).to_data().buffers()[0].len();
            last = Some(batch);
        }
        assert_eq!(rows, 32 << 22);
        assert_eq!(bytes, 1 << 30);
        let last = last.unwrap();
        let values = last
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        assert_eq!(values.value((4 << 20) - 1), (4 << 20) - 1);

        // The server exits after three batches: an error, within a bound, never a hang.
        let dying = async {
            let stream = client.do_get(b"die").await?;
            stream.try_collect::<Vec<RecordBatch>>().await
        };
        let outcome = tokio::time::timeout(Duration::from_secs(60), dying)
            .await
            .expect("the client returns within 60 s");
        let err = outcome.unwrap_err();
        assert!(
            matches!(
                err.code(),
                Code::Unavailable | Code::Internal | Code::Unknown | Code::Cancelled
            ),
            "{err}"
        );
    });
    assert_eq!(server.wait_exit(Duration::from_secs(10)), Some(3));
}

#[test]
fn pyarrow_client_reads_and_writes_through_an_alkaid_server() {
    if !pyarrow_or_skip("pyarrow_client_reads_and_writes_through_an_alkaid_server") {
        return;
    }
    let dir = scratch("alkaid_server");
    let uploads = scratch("alkaid_server_upload");
    let cases = cases(8, 99);
    for (i, (schema, batches)) in cases.iter().enumerate() {
        write_file(&dir.join(format!("case{i}.arrow")), schema, batches);
    }
    let (schema, batches) = &cases[3];
    let upload = uploads.join("upload.arrow");
    write_file(&upload, schema, batches);
    let runtime = runtime();
    // In the clear; over TLS with a token; over mutual TLS, the token obtained by pyarrow's
    // basic-auth handshake (`authenticate_basic_token`).
    for (with_tls, token, mutual) in [
        (false, None, false),
        (true, Some("s3cret"), false),
        (true, Some("s3cret"), true),
    ] {
        let mut options = ServerOptions::default();
        let mut client_args = Vec::new();
        let cert_dir = scratch("alkaid_server_tls");
        let path = |name: &str| cert_dir.join(name).display().to_string();
        if with_tls {
            let certs = crate::certificates::Certificates::new();
            std::fs::write(cert_dir.join("ca.pem"), &certs.ca).unwrap();
            std::fs::write(cert_dir.join("client.pem"), &certs.client.0).unwrap();
            std::fs::write(cert_dir.join("client.key"), &certs.client.1).unwrap();
            options = options.with_tls(certs.server.0.clone(), certs.server.1.clone());
            client_args.extend(["--ca".to_string(), path("ca.pem")]);
            if mutual {
                options = options.with_client_ca(certs.ca.clone());
                client_args.extend([
                    "--identity".to_string(),
                    path("client.pem"),
                    path("client.key"),
                ]);
            }
        }
        if let Some(token) = token {
            options = options.with_token(token);
            match mutual {
                true => {
                    options = options.with_basic_auth("ann", "pa55");
                    client_args.extend(["--basic", "ann", "pa55"].map(String::from));
                }
                false => client_args.extend(["--token".to_string(), token.to_string()]),
            }
        }
        let _ = std::fs::remove_file(dir.join("from-pyarrow.arrow"));
        let server = AlkaidServer::start(
            &runtime,
            DirectoryService::new(&dir).with_uploads(Some(WriteBudget::unlimited())),
            options,
        );
        let scheme = if with_tls { "grpc+tls" } else { "grpc" };
        let uri = format!("{scheme}://localhost:{}", server.port);
        let mut args = vec![
            uri.clone(),
            dir.display().to_string(),
            upload.display().to_string(),
        ];
        args.extend(client_args);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = py_client(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "tls {with_tls}: {} {stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(stdout.trim(), format!("ok {}", cases.len()));
        // What pyarrow uploaded is the file it read, as Alkaid reads it back.
        assert_same_rows(
            &read_file(&dir.join("from-pyarrow.arrow")),
            batches,
            "upload",
        );
        // No temporary file is left.
        let hidden: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        assert!(hidden.is_empty(), "{hidden:?}");
        std::fs::remove_file(dir.join("from-pyarrow.arrow")).unwrap();
    }
}

#[test]
fn an_alkaid_client_with_tls_and_a_token_reaches_a_pyarrow_server() {
    if !pyarrow_or_skip("an_alkaid_client_with_tls_and_a_token_reaches_a_pyarrow_server") {
        return;
    }
    let dir = scratch("py_tls");
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
    let column: ArrayRef = Arc::new(Int64Array::from(vec![5, 6, 7]));
    let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
    write_file(&dir.join("n.arrow"), &schema, std::slice::from_ref(&batch));
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert, private) = (key.cert.pem(), key.signing_key.serialize_pem());
    let certs = scratch("py_tls_certs");
    std::fs::write(certs.join("cert.pem"), &cert).unwrap();
    std::fs::write(certs.join("key.pem"), &private).unwrap();
    let cert_path = certs.join("cert.pem").display().to_string();
    let key_path = certs.join("key.pem").display().to_string();
    let server = PyServer::start(&dir, &["--tls", &cert_path, &key_path, "--token", "t0ken"]);
    let uri = format!("grpc+tls://localhost:{}", server.port);
    runtime().block_on(async {
        let tls = ClientOptions::default().with_tls(cert.clone().into_bytes(), None);
        let mut client = FlightClient::connect_with(&uri, tls.clone().with_token("t0ken"))
            .await
            .unwrap();
        let read: Vec<RecordBatch> = client
            .do_get(b"n.arrow")
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_same_rows(&read, &[batch], "over TLS");
        let mut anonymous = FlightClient::connect_with(&uri, tls).await.unwrap();
        let err = get_error(&mut anonymous, b"n.arrow").await;
        assert_eq!(err.code(), Code::Unauthenticated, "{err}");
    });
}

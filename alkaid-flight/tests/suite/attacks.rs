//! The directory service as a hostile client would use it: uploads while read-only, a
//! symlink inside the directory that leads out, an upload over a dangling symlink, uploads
//! past the write budget, and a decompression bomb. Each is refused with a clear status,
//! nothing is written, and the server goes on serving.

use std::path::Path;
use std::sync::Arc;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
use alkaid_flight::{
    ClientOptions, DirectoryService, FlightClient, FlightDescriptor, FlightError, ServerOptions,
    WriteBudget,
};
use alkaid_ipc::{Compression, FileWriter, ReadOptions, WriteOptions};
use alkaid_schema::{DataType, Field, Schema};
use bytes::Bytes;
use futures_util::{TryStreamExt, stream};
use tonic::Code;

use crate::peers::{AlkaidServer, runtime, scratch};

/// `rows` rows of one int64 column, all `value`.
fn batch(rows: usize, value: i64) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
    let column: ArrayRef = Arc::new(Int64Array::from(vec![value; rows]));
    RecordBatch::try_new(schema, vec![column]).unwrap()
}

fn write_file(path: &Path, batch: &RecordBatch) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer =
        FileWriter::try_new(file, batch.schema().clone(), WriteOptions::default()).unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
}

/// Uploads `batch` to the server at `uri` as flight `name`, compressed with `compression`.
async fn upload(
    uri: &str,
    name: &str,
    batch: RecordBatch,
    compression: Compression,
) -> Result<(), tonic::Status> {
    let write = WriteOptions::default().with_compression(compression);
    let options = ClientOptions::default().with_write_options(write);
    let mut client = FlightClient::connect_with(uri, options).await.unwrap();
    let schema = batch.schema().clone();
    client
        .do_put(
            FlightDescriptor::path([name]),
            schema,
            stream::iter([Ok((batch, Bytes::new()))]),
        )
        .await
        .map(drop)
        .map_err(tonic::Status::from)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The rows of flight `name`, or the status that refused it.
async fn fetch(client: &mut FlightClient, name: &str) -> Result<usize, tonic::Status> {
    let batches: Vec<RecordBatch> = client
        .do_get(name.as_bytes())
        .await
        .map_err(tonic::Status::from)?
        .try_collect()
        .await
        .map_err(|e: FlightError| tonic::Status::from(e))?;
    Ok(batches.iter().map(RecordBatch::num_rows).sum())
}

#[test]
fn a_read_only_service_refuses_uploads_and_never_follows_a_symlink_out() {
    let dir = scratch("attacks_read_only");
    let outside = scratch("attacks_outside");
    write_file(&dir.join("own.arrow"), &batch(3, 1));
    write_file(&outside.join("secret.arrow"), &batch(5, 42));
    std::os::unix::fs::symlink(outside.join("secret.arrow"), dir.join("secret.arrow")).unwrap();
    std::os::unix::fs::symlink(dir.join("own.arrow"), dir.join("alias.arrow")).unwrap();
    let runtime = runtime();
    let server = AlkaidServer::start(
        &runtime,
        DirectoryService::new(&dir),
        ServerOptions::default(),
    );
    runtime.block_on(async {
        let uri = server.uri();
        let mut client = FlightClient::connect(&uri).await.unwrap();
        let refused = upload(&uri, "new.arrow", batch(2, 0), Compression::None)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
        assert!(refused.message().contains("read-only"), "{refused}");
        // Through the symlink that leads out: refused, nothing of the file sent.
        let refused = fetch(&mut client, "secret.arrow").await.unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
        assert!(!refused.message().contains(&outside.display().to_string()));
        let described = client
            .get_flight_info(FlightDescriptor::path(["secret.arrow"]))
            .await
            .map_err(tonic::Status::from)
            .unwrap_err();
        assert_eq!(described.code(), Code::PermissionDenied, "{described}");
        // A symlink to a file inside is the file.
        assert_eq!(fetch(&mut client, "alias.arrow").await.unwrap(), 3);
        assert_eq!(fetch(&mut client, "own.arrow").await.unwrap(), 3);
    });
    assert_eq!(names(&dir), ["alias.arrow", "own.arrow", "secret.arrow"]);
    assert_eq!(names(&outside), ["secret.arrow"]);
}

#[test]
fn uploads_stay_within_their_budget_and_decompressed_bound() {
    let dir = scratch("attacks_budget");
    std::os::unix::fs::symlink(dir.join("nowhere.arrow"), dir.join("dangling.arrow")).unwrap();
    let runtime = runtime();
    let budget = WriteBudget::new(200_000, 520_000);
    let service = DirectoryService::new(&dir)
        .with_read_options(ReadOptions::default().with_max_decompressed_bytes(Some(4 << 20)))
        .with_uploads(Some(budget.clone()));
    let server = AlkaidServer::start(&runtime, service, ServerOptions::default());
    runtime.block_on(async {
        let uri = server.uri();
        let mut client = FlightClient::connect(&uri).await.unwrap();
        // Over a dangling symlink: refused, the symlink stays.
        let refused = upload(&uri, "dangling.arrow", batch(2, 0), Compression::None)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::AlreadyExists, "{refused}");
        // 400 kB in one upload, past 200 kB.
        let refused = upload(&uri, "big.arrow", batch(50_000, 7), Compression::None)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(refused.message().contains("200000 bytes"), "{refused}");
        assert_eq!(
            budget.written(),
            0,
            "the refused upload's bytes are given back"
        );
        // A decompression bomb: 16 MiB of one value in a few kilobytes of zstd, past the
        // 4 MiB each message may decompress to.
        let refused = upload(&uri, "bomb.arrow", batch(2 << 20, 0), Compression::ZSTD)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused}");
        assert!(
            refused.message().contains("decompressed bytes"),
            "{refused}"
        );
        // Uploads that fit, until all of them together reach 520 kB (each file also
        // costs a block, FILE_BLOCK).
        let mut landed = 0;
        let refusal = loop {
            let name = format!("part-{landed}.arrow");
            match upload(&uri, &name, batch(15_000, landed), Compression::None).await {
                Ok(()) => landed += 1,
                Err(refusal) => break refusal,
            }
            assert!(landed < 10, "the limit in all holds");
        };
        assert_eq!(refusal.code(), Code::ResourceExhausted, "{refusal}");
        assert!(refusal.message().contains("in all"), "{refusal}");
        assert_eq!(landed, 4, "125 kB each, 520 kB in all");
        assert_eq!(fetch(&mut client, "part-0.arrow").await.unwrap(), 15_000);
    });
    let mut expected = vec!["dangling.arrow".to_string()];
    expected.extend((0..4).map(|i| format!("part-{i}.arrow")));
    assert_eq!(names(&dir), expected, "no partial or temporary file");
}

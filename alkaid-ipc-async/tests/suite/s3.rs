//! Files on a real S3-protocol server (moto, on 127.0.0.1, started and stopped here), read
//! through `object_store`'s S3 client: files written by pyarrow and by Alkaid, whole and
//! projected, against the synchronous reader of the same bytes; and files of the local
//! file system's store, which are read from their open handle.
#![cfg(feature = "object_store")]

use crate::moto;
use crate::ranges;

use std::sync::Arc;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use alkaid_buffer::Buffer;
use alkaid_data::equal;
use alkaid_ipc::{Compression, FileReader, FileWriter, ReadOptions, WriteOptions};
use alkaid_ipc_async::{AsyncFileReader, ObjectStoreSource};
use alkaid_schema::{DataType, Field, Schema};
use futures_util::TryStreamExt;
use moto::Moto;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use ranges::Counting;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn s3(moto: &Moto, bucket: &str) -> Arc<dyn ObjectStore> {
    Arc::new(
        AmazonS3Builder::new()
            .with_endpoint(moto.endpoint())
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_region("us-east-1")
            .with_access_key_id("testing")
            .with_secret_access_key("testing")
            .build()
            .unwrap(),
    )
}

/// Pyarrow's files from alkaid-ipc's fixtures.
fn pyarrow_files() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../alkaid-ipc/tests/fixtures/pyarrow");
    [
        "all_types.arrow",
        "all_types_zstd.arrow",
        "empty_offsets.arrow",
        "no_batches.arrow",
    ]
    .into_iter()
    .map(|name| {
        (
            format!("pyarrow/{name}"),
            std::fs::read(dir.join(name)).unwrap(),
        )
    })
    .collect()
}

/// An Alkaid file of 6 LZ4 batches: numbers, words and a dictionary column.
fn alkaid_file() -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, true),
        Field::new("word", DataType::Utf8, false),
        Field::new(
            "kind",
            DataType::dictionary(alkaid_schema::IntegerType::Int32, DataType::Utf8),
            true,
        ),
    ]));
    let options = WriteOptions::default().with_compression(Compression::Lz4Frame);
    let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), options).unwrap();
    let kinds = alkaid_array::DictionaryArray::<alkaid_array::types::Int32Type>::try_new(
        alkaid_array::Int32Array::from((0..4000).map(|i| i % 3).collect::<Vec<i32>>()),
        Arc::new(StringArray::from(vec!["red", "green", "blue"])),
    )
    .unwrap();
    for b in 0..6i64 {
        let n: Vec<Option<i64>> = (0..4000).map(|i| (i % 5 != 0).then_some(b * i)).collect();
        let words: Vec<String> = (0..4000).map(|i| format!("word {}", b * i)).collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(n)),
            Arc::new(StringArray::from(words)),
            Arc::new(kinds.clone()),
        ];
        writer
            .write(&RecordBatch::try_new(schema.clone(), columns).unwrap())
            .unwrap();
    }
    writer.into_inner().unwrap()
}

fn assert_same(read: &[RecordBatch], expected: &[RecordBatch], what: &str) {
    assert_eq!(read.len(), expected.len(), "{what}");
    for (a, b) in read.iter().zip(expected) {
        assert_eq!(a.schema(), b.schema(), "{what}");
        for (x, y) in a.columns().iter().zip(b.columns()) {
            assert!(equal(&x.to_data(), &y.to_data()), "{what}");
        }
    }
}

/// The options that select `projection`, and the batches the synchronous reader reads
/// from `bytes` with them.
fn read_locally(bytes: &[u8], projection: Option<Vec<usize>>) -> (ReadOptions, Vec<RecordBatch>) {
    let options = match projection {
        Some(columns) => ReadOptions::default().with_columns(columns),
        None => ReadOptions::default(),
    };
    let expected = FileReader::open(Buffer::from(bytes.to_vec()), options.clone())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    (options, expected)
}

#[test]
fn files_on_an_s3_server_read_whole_and_projected() {
    let Some(moto) = Moto::start_or_skip("files_on_an_s3_server_read_whole_and_projected") else {
        return;
    };
    moto.create_bucket("alkaid");
    let runtime = runtime();
    let store = s3(&moto, "alkaid");
    let mut files = pyarrow_files();
    files.push(("alkaid/six_batches.alkaid".into(), alkaid_file()));
    runtime.block_on(async {
        for (name, bytes) in &files {
            let path = Path::from(name.as_str());
            store.put(&path, bytes.clone().into()).await.unwrap();
            let local = FileReader::from_buffer(Buffer::from(bytes.clone())).unwrap();
            let columns = local.schema().fields().len();
            // Whole, and the last and first columns in that order.
            let projections = [None, Some(vec![columns - 1, 0])];
            for projection in projections {
                let (options, expected) = read_locally(bytes, projection);
                let source = Counting::new(ObjectStoreSource::new(store.clone(), path.clone()));
                let reader = AsyncFileReader::open(&source, options).await.unwrap();
                assert_eq!(source.requests(), 1, "{name}: one request opens the file");
                let read: Vec<RecordBatch> = reader.into_stream().try_collect().await.unwrap();
                assert_same(&read, &expected, name);
            }
            // Knowing the object from a listing, nothing asks for its length.
            let meta = store.head(&path).await.unwrap();
            let source = ObjectStoreSource::with_meta(store.clone(), meta);
            let mut reader = AsyncFileReader::open(source, ReadOptions::default())
                .await
                .unwrap();
            if reader.num_batches() > 0 {
                let last = reader.num_batches() - 1;
                let batch = reader.batch(last).await.unwrap();
                let mut local = FileReader::from_buffer(Buffer::from(bytes.clone())).unwrap();
                assert_same(&[batch], &[local.batch(last).unwrap()], name);
            }
        }
    });
}

#[test]
fn a_missing_or_replaced_object_is_an_error() {
    let Some(moto) = Moto::start_or_skip("a_missing_or_replaced_object_is_an_error") else {
        return;
    };
    moto.create_bucket("changes");
    let runtime = runtime();
    let store = s3(&moto, "changes");
    runtime.block_on(async {
        let missing = ObjectStoreSource::new(store.clone(), Path::from("nothing/here.arrow"));
        let err = AsyncFileReader::open(missing, ReadOptions::default())
            .await
            .err()
            .unwrap();
        assert!(err.to_string().contains("nothing/here.arrow"), "{err}");

        let path = Path::from("moving.alkaid");
        let file = alkaid_file();
        store.put(&path, file.clone().into()).await.unwrap();
        let source = ObjectStoreSource::new(store.clone(), path.clone());
        let mut reader = AsyncFileReader::open(source, ReadOptions::default())
            .await
            .unwrap();
        assert_eq!(reader.batch(0).await.unwrap().num_rows(), 4000);
        // Another file of the same length at the same path: later reads refuse it.
        let mut other = file.clone();
        let middle = other.len() / 2;
        other[middle] ^= 0xFF;
        store.put(&path, other.into()).await.unwrap();
        let err = reader.batch(5).await.unwrap_err();
        assert!(err.to_string().contains("moving.alkaid"), "{err}");
    });
}

#[test]
fn a_local_file_is_read_from_the_handle_its_first_answer_opened() {
    let dir = std::env::temp_dir().join(format!("alkaid-local-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = pyarrow_files();
    files.push(("six_batches.alkaid".into(), alkaid_file()));
    let store: Arc<dyn ObjectStore> =
        Arc::new(object_store::local::LocalFileSystem::new_with_prefix(&dir).unwrap());
    runtime().block_on(async {
        for (name, bytes) in &files {
            let name = name.replace('/', "_");
            std::fs::write(dir.join(&name), bytes).unwrap();
            let path = Path::from(name.as_str());
            for projection in [None, Some(vec![0])] {
                let (options, expected) = read_locally(bytes, projection);
                let source = ObjectStoreSource::new(store.clone(), path.clone());
                let reader = AsyncFileReader::open(source, options).await.unwrap();
                let read: Vec<RecordBatch> = reader.into_stream().try_collect().await.unwrap();
                assert_same(&read, &expected, &name);
            }
        }

        // A file replaced at its path while read: the reader keeps reading the file it
        // opened (the store's ranged reads would open the new one, and refuse it).
        let name = "six_batches.alkaid";
        let bytes = alkaid_file();
        let source = ObjectStoreSource::new(store.clone(), Path::from(name));
        let mut reader = AsyncFileReader::open(source, ReadOptions::default())
            .await
            .unwrap();
        let mut other = bytes.clone();
        let middle = other.len() / 2;
        other[middle] ^= 0xFF;
        std::fs::write(dir.join("replacement"), &other).unwrap();
        std::fs::rename(dir.join("replacement"), dir.join(name)).unwrap();
        let mut local = FileReader::from_buffer(Buffer::from(bytes)).unwrap();
        for b in [5, 0, 3] {
            let batch = reader.batch(b).await.unwrap();
            assert_same(
                &[batch],
                &[local.batch(b).unwrap()],
                "batch of the replaced file",
            );
        }

        // A missing file is an error that names it.
        let missing = ObjectStoreSource::new(store.clone(), Path::from("nothing.arrow"));
        let err = AsyncFileReader::open(missing, ReadOptions::default())
            .await
            .err()
            .unwrap();
        assert!(err.to_string().contains("nothing.arrow"), "{err}");
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

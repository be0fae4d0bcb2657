//! The async reader and writers against the synchronous ones, through tokio's in-memory
//! pipes: any chunking of the input, concurrent ends with backpressure, truncation, failing
//! sources, and writes dropped half way.

use crate::batches;
use crate::common;

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use alkaid_data::equal;
use alkaid_ipc::{
    Compression, Decoder, FileReader, IpcErrorKind, ReadOptions, StreamReader, StreamWriter,
    WriteOptions,
};
use alkaid_ipc_async::{AsyncFileWriter, AsyncStreamReader, AsyncStreamWriter};
use alkaid_schema::{DataType, Field, Schema, SchemaRef, arbitrary};
use batches::random_batches;
use common::{Rng, dictionary_of_dictionary, generatable};
use futures_util::{FutureExt, StreamExt};
use proptest::prelude::*;
use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// Where each message of `stream` ends.
fn message_ends(stream: &[u8]) -> Vec<usize> {
    let mut decoder = Decoder::new();
    decoder.push(stream);
    let mut ends = Vec::new();
    while decoder.next_message().unwrap().is_some() {
        let info = decoder.last_message().unwrap();
        ends.push(info.offset + info.prefix_bytes + info.metadata_bytes + info.body_bytes);
    }
    ends
}

/// `stream` sent through a pipe of `capacity` bytes in writes of `pieces` (cut points),
/// read by the async reader with `options` on the other end at the same time.
fn through_pipe(
    stream: &[u8],
    cuts: &[usize],
    capacity: usize,
    options: ReadOptions,
) -> Vec<alkaid_ipc::Result<RecordBatch>> {
    block_on(async {
        let (mut tx, rx) = tokio::io::duplex(capacity);
        let send = async move {
            let mut at = 0;
            for &cut in cuts.iter().chain(std::iter::once(&stream.len())) {
                tx.write_all(&stream[at..cut]).await.unwrap();
                at = cut;
            }
            drop(tx);
        };
        let receive = async move {
            match AsyncStreamReader::with_options(rx, options).await {
                Ok(reader) => reader.collect::<Vec<_>>().await,
                Err(e) => vec![Err(e)],
            }
        };
        tokio::join!(send, receive).1
    })
}

fn same_batches(read: &[RecordBatch], expected: &[RecordBatch]) -> Result<(), TestCaseError> {
    prop_assert_eq!(read.len(), expected.len());
    for (a, b) in read.iter().zip(expected) {
        prop_assert_eq!(a.schema(), b.schema());
        for (x, y) in a.columns().iter().zip(b.columns()) {
            prop_assert!(equal(&x.to_data(), &y.to_data()));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn any_chunking_reads_what_the_sync_reader_reads(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..4),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..10, 1..4),
        mode in 0usize..3,
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (schema, batches) = random_batches(&types, &lens, &mut rng);
        let compression = [Compression::None, Compression::Lz4Frame, Compression::Zstd { level: 1 }]
            [rng.below(3)];
        let options = WriteOptions::default()
            .with_compression(compression)
            .with_dictionary_deltas(rng.chance(0.5));
        let mut writer = StreamWriter::try_new(Vec::new(), schema, options).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        let stream = writer.into_inner().unwrap();
        // Sometimes only some columns, in another order.
        let read_options = if rng.chance(0.3) {
            ReadOptions::default().with_columns((0..types.len()).rev().step_by(2))
        } else {
            ReadOptions::default()
        };
        let expected: Vec<RecordBatch> = StreamReader::with_options(&stream[..], read_options.clone())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // Byte by byte, random pieces, or one message per write.
        let cuts: Vec<usize> = match mode {
            0 => (1..stream.len()).collect(),
            1 => {
                let mut cuts = Vec::new();
                let mut at = 0;
                while at < stream.len() {
                    at += 1 + rng.below(300);
                    cuts.push(at.min(stream.len()));
                }
                cuts
            }
            _ => message_ends(&stream),
        };
        let capacity = 1 + rng.below(4096);
        let read: Vec<RecordBatch> = through_pipe(&stream, &cuts, capacity, read_options)
            .into_iter()
            .collect::<Result<_, _>>()
            .unwrap();
        same_batches(&read, &expected)?;
    }
}

fn words_batch(rows: usize, seed: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int32, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    let n: Vec<i32> = (0..rows as i32).map(|i| i + seed as i32).collect();
    let s: Vec<String> = n.iter().map(|i| format!("word {i}")).collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(n)),
        Arc::new(StringArray::from(s)),
    ];
    RecordBatch::try_new(schema, columns).unwrap()
}

fn schema_of(batch: &RecordBatch) -> SchemaRef {
    batch.schema().clone()
}

/// A stream of `batches` word batches of `rows` rows, counting on from batch to batch.
fn words_stream(batches: usize, rows: usize) -> Vec<u8> {
    let schema = schema_of(&words_batch(1, 0));
    let mut writer = StreamWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
    for i in 0..batches {
        writer.write(&words_batch(rows, i * rows)).unwrap();
    }
    writer.into_inner().unwrap()
}

#[test]
fn a_writer_and_a_reader_on_a_small_pipe_run_together() {
    let batches: Vec<RecordBatch> = (0..20).map(|i| words_batch(500, i * 1000)).collect();
    let schema = schema_of(&batches[0]);
    let sent = batches.clone();
    let read = block_on(async move {
        // 64 bytes of pipe: every message waits for the reader to take it.
        let (client, server) = tokio::io::duplex(64);
        let send = async move {
            let options = WriteOptions::default().with_compression(Compression::Lz4Frame);
            let mut writer = AsyncStreamWriter::try_new(client, schema, options)
                .await
                .unwrap();
            for batch in &sent {
                writer.write(batch).await.unwrap();
            }
            writer.finish().await.unwrap();
        };
        let receive = async move {
            let reader = AsyncStreamReader::try_new(server).await.unwrap();
            reader.collect::<Vec<_>>().await
        };
        tokio::join!(send, receive).1
    });
    let read: Vec<RecordBatch> = read.into_iter().collect::<Result<_, _>>().unwrap();
    assert_eq!(read.len(), 20);
    for (a, b) in read.iter().zip(&batches) {
        assert!(equal(&a.column(1).to_data(), &b.column(1).to_data()));
    }
}

#[test]
fn the_async_file_writer_writes_what_the_sync_reader_reads() {
    let batches: Vec<RecordBatch> = (0..3).map(|i| words_batch(100, i * 100)).collect();
    let schema = schema_of(&batches[0]);
    let bytes = block_on(async {
        let options = WriteOptions::default().with_compression(Compression::Zstd { level: 1 });
        let mut writer = AsyncFileWriter::try_new(Vec::new(), schema, options)
            .await
            .unwrap();
        let mut metadata = alkaid_schema::Metadata::new();
        metadata.insert("k", "v");
        writer.set_footer_metadata(metadata);
        for batch in &batches {
            writer.write(batch).await.unwrap();
        }
        writer.into_inner().await.unwrap()
    });
    let mut reader = FileReader::from_buffer(alkaid_buffer::Buffer::from(bytes)).unwrap();
    assert_eq!(reader.metadata().get("k"), Some("v"));
    assert_eq!(reader.num_batches(), 3);
    let last = reader.batch(2).unwrap();
    assert!(equal(
        &last.column(0).to_data(),
        &batches[2].column(0).to_data()
    ));
}

#[test]
fn a_write_dropped_half_way_is_finished_by_the_next_call() {
    let batches: Vec<RecordBatch> = (0..4).map(|i| words_batch(2000, i * 10_000)).collect();
    let schema = schema_of(&batches[0]);
    let read = block_on(async {
        let (client, server) = tokio::io::duplex(256);
        let mut writer = AsyncStreamWriter::try_new(client, schema, WriteOptions::default())
            .now_or_never()
            .expect("the schema fits the pipe")
            .unwrap();
        // The pipe is full long before the first batch is out: polled once, then dropped.
        assert!(writer.write(&batches[0]).now_or_never().is_none());
        let send = async move {
            for batch in &batches[1..] {
                writer.write(batch).await.unwrap();
            }
            writer.finish().await.unwrap();
        };
        let receive = async move {
            let reader = AsyncStreamReader::try_new(server).await.unwrap();
            reader.collect::<Vec<_>>().await
        };
        tokio::join!(send, receive).1
    });
    // The dropped write's batch went out first, whole; the stream is valid to its end.
    let read: Vec<RecordBatch> = read.into_iter().collect::<Result<_, _>>().unwrap();
    let firsts: Vec<i32> = read
        .iter()
        .map(|b| b.column(0).to_data().buffers()[0].typed::<i32>().unwrap()[0])
        .collect();
    assert_eq!(firsts, [0, 10_000, 20_000, 30_000]);
}

#[test]
fn a_peer_closing_mid_message_is_an_error_naming_that_message() {
    let stream = words_stream(3, 300);
    let ends = message_ends(&stream);
    // Cut inside the schema, inside the second batch's prefix, metadata and body.
    let second = ends[1];
    for (cut, wanted) in [
        (5, "the message at byte 0"),
        (second + 3, &format!("the message at byte {second}") as &str),
        (second + 20, &format!("the message at byte {second}")),
        (ends[2] - 10, &format!("the message at byte {second}")),
    ] {
        let read = through_pipe(&stream[..cut], &[], 1024, ReadOptions::default());
        let err = read.last().unwrap().as_ref().unwrap_err();
        assert_eq!(err.kind(), IpcErrorKind::Truncated, "cut at {cut}: {err}");
        assert!(err.to_string().contains(wanted), "cut at {cut}: {err}");
        // The batches before the cut came through.
        let whole = read.iter().filter(|r| r.is_ok()).count();
        assert_eq!(whole, usize::from(cut > ends[1]), "cut at {cut}");
    }
}

/// Gives `bytes` a few at a time, then fails.
struct FailingHalfway {
    bytes: Vec<u8>,
    at: usize,
}

impl AsyncRead for FailingHalfway {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.at >= self.bytes.len() / 2 {
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::ConnectionReset, "gone")));
        }
        let n = buf.remaining().min(7).min(self.bytes.len() - self.at);
        let at = self.at;
        buf.put_slice(&self.bytes[at..at + n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

#[test]
fn a_source_failing_midway_ends_the_stream_with_its_error() {
    let stream = words_stream(4, 100);
    let read = block_on(async {
        let source = FailingHalfway {
            bytes: stream,
            at: 0,
        };
        let reader = AsyncStreamReader::try_new(source).await.unwrap();
        reader.collect::<Vec<_>>().await
    });
    let (last, before) = read.split_last().unwrap();
    assert!(before.iter().all(Result::is_ok) && !before.is_empty());
    let err = last.as_ref().unwrap_err();
    assert!(err.to_string().contains("gone"), "{err}");
}

#[test]
fn a_large_body_arriving_in_pieces_reads_whole_or_names_where_it_was_cut() {
    // About 5 MiB of body: the decoder moves it into memory of its own as it arrives.
    let batch = words_batch(300_000, 0);
    let stream = words_stream(1, 300_000);
    assert!(stream.len() > 4 << 20);
    let cuts: Vec<usize> = (1..stream.len() / 65_536).map(|i| i * 65_536).collect();
    let read = through_pipe(&stream, &cuts, 65_536, ReadOptions::default());
    assert_eq!(read.len(), 1);
    let read = read.into_iter().next().unwrap().unwrap();
    assert!(equal(&read.column(1).to_data(), &batch.column(1).to_data()));
    let batch_start = message_ends(&stream)[0];
    let read = through_pipe(
        &stream[..3 << 20],
        &cuts[..40],
        65_536,
        ReadOptions::default(),
    );
    let err = read.last().unwrap().as_ref().unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::Truncated);
    assert!(
        err.to_string()
            .contains(&format!("body of the message at byte {batch_start}")),
        "{err}"
    );
}

/// An output that takes a random part of each vectored write (a few bytes, or parts of
/// several slices) and answers some polls with `Pending`, waking itself.
struct Stingy {
    bytes: Vec<u8>,
    rng: Rng,
    vectored_calls: usize,
}

impl tokio::io::AsyncWrite for Stingy {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored(cx, &[io::IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        slices: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.rng.chance(0.2) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.vectored_calls += 1;
        let total: usize = slices.iter().map(|s| s.len()).sum();
        let mut left = if total == 0 {
            0
        } else {
            1 + self.rng.below(total.min(5000))
        };
        let taken = left;
        for slice in slices {
            let n = slice.len().min(left);
            self.bytes.extend_from_slice(&slice[..n]);
            left -= n;
        }
        Poll::Ready(Ok(taken))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// The async writers' vectored writes of the batches' own buffers give the sync
    /// writers' bytes, whatever part of each write the output takes.
    #[test]
    fn the_async_writers_write_the_sync_writers_bytes(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..4),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..30, 1..4),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (schema, batches) = random_batches(&types, &lens, &mut rng);
        let compression = [Compression::None, Compression::Lz4Frame, Compression::Zstd { level: 1 }]
            [rng.below(3)];
        let options = WriteOptions::default().with_compression(compression);
        let mut writer = StreamWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        let stream = writer.into_inner().unwrap();
        let mut writer = alkaid_ipc::FileWriter::try_new(Vec::new(), schema.clone(), options.clone()).unwrap();
        writer.write(&batches[0]).unwrap();
        let file = writer.into_inner().unwrap();

        let (streamed, filed) = block_on(async {
            let out = Stingy { bytes: Vec::new(), rng: Rng::new(seed ^ 7), vectored_calls: 0 };
            let mut writer = AsyncStreamWriter::try_new(out, schema.clone(), options.clone()).await.unwrap();
            for batch in &batches {
                writer.write(batch).await.unwrap();
            }
            let streamed = writer.into_inner().await.unwrap();
            let out = Stingy { bytes: Vec::new(), rng: Rng::new(seed ^ 8), vectored_calls: 0 };
            let mut writer = AsyncFileWriter::try_new(out, schema.clone(), options.clone()).await.unwrap();
            writer.write(&batches[0]).await.unwrap();
            (streamed, writer.into_inner().await.unwrap())
        });
        prop_assert!(streamed.vectored_calls > 0);
        prop_assert_eq!(streamed.bytes, stream);
        prop_assert_eq!(filed.bytes, file);
    }
}

/// What the synchronous stream writer makes of `batches` with `options`.
fn sync_stream(batches: &[RecordBatch], options: &WriteOptions) -> Vec<u8> {
    let schema = schema_of(&batches[0]);
    let mut writer = StreamWriter::try_new(Vec::new(), schema, options.clone()).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.into_inner().unwrap()
}

#[test]
fn compressing_leaves_the_runtime_worker_free_and_the_bytes_as_they_were() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    // About 5 MB of strings and 1.2 MB of integers: many milliseconds of LZ4.
    let batches = [words_batch(300_000, 0), words_batch(10, 7)];
    let options = WriteOptions::default().with_compression(Compression::Lz4Frame);
    let ticks = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let (bytes, during) = block_on({
        let (ticks, done, options, batches) = (
            ticks.clone(),
            done.clone(),
            options.clone(),
            batches.clone(),
        );
        async move {
            // Another task on the same (single) worker, counting while it gets to run.
            let ticker = tokio::spawn({
                let (ticks, done) = (ticks.clone(), done.clone());
                async move {
                    while !done.load(Ordering::Relaxed) {
                        ticks.fetch_add(1, Ordering::Relaxed);
                        tokio::task::yield_now().await;
                    }
                }
            });
            let mut writer =
                AsyncStreamWriter::try_new(Vec::new(), schema_of(&batches[0]), options)
                    .await
                    .unwrap();
            tokio::task::yield_now().await;
            let before = ticks.load(Ordering::Relaxed);
            writer.write(&batches[0]).await.unwrap();
            let during = ticks.load(Ordering::Relaxed) - before;
            writer.write(&batches[1]).await.unwrap();
            done.store(true, Ordering::Relaxed);
            ticker.await.unwrap();
            (writer.into_inner().await.unwrap(), during)
        }
    });
    // Compressed on the worker, the batch would have let the ticker run not once.
    assert!(
        during > 0,
        "the ticker ran {during} times while the batch was compressed"
    );
    assert!(bytes == sync_stream(&batches, &options));
}

#[test]
fn a_write_dropped_while_compressing_is_finished_by_the_next_call() {
    let batches: Vec<RecordBatch> = (0..3)
        .map(|i| words_batch(200_000, i * 1_000_000))
        .collect();
    let schema = schema_of(&batches[0]);
    let options = WriteOptions::default().with_compression(Compression::Lz4Frame);
    let (stream, file) = block_on(async {
        let mut writer = AsyncStreamWriter::try_new(Vec::new(), schema.clone(), options.clone())
            .await
            .unwrap();
        // Polled once: the batch has just gone to a blocking thread, whose compression
        // takes milliseconds; then dropped.
        assert!(writer.write(&batches[0]).now_or_never().is_none());
        for batch in &batches[1..] {
            writer.write(batch).await.unwrap();
        }
        let stream = writer.into_inner().await.unwrap();

        let mut writer = AsyncFileWriter::try_new(Vec::new(), schema.clone(), options.clone())
            .await
            .unwrap();
        assert!(writer.write(&batches[0]).now_or_never().is_none());
        // Set while the encoder is away with the batch: kept for it.
        let mut metadata = alkaid_schema::Metadata::new();
        metadata.insert("k", "v");
        writer.set_footer_metadata(metadata);
        assert_eq!(writer.schema(), &schema);
        writer.write(&batches[1]).await.unwrap();
        (stream, writer.into_inner().await.unwrap())
    });
    // The dropped write's batch first, whole: the synchronous writer's bytes.
    assert!(stream == sync_stream(&batches, &options));
    let mut reader = FileReader::from_buffer(alkaid_buffer::Buffer::from(file)).unwrap();
    assert_eq!(reader.metadata().get("k"), Some("v"));
    assert_eq!(reader.num_batches(), 2);
    for (i, expected) in batches[..2].iter().enumerate() {
        let batch = reader.batch(i).unwrap();
        assert!(equal(
            &batch.column(1).to_data(),
            &expected.column(1).to_data()
        ));
    }
}

#[test]
fn a_batch_refused_while_compressing_leaves_the_writer_going() {
    let batch = words_batch(1000, 0);
    let other = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int32, false)])),
        vec![Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef],
    )
    .unwrap();
    let options = WriteOptions::default().with_compression(Compression::Zstd { level: 1 });
    let bytes = block_on(async {
        let mut writer = AsyncStreamWriter::try_new(Vec::new(), schema_of(&batch), options.clone())
            .await
            .unwrap();
        let e = writer.write(&other).await.unwrap_err();
        assert_eq!(e.kind(), IpcErrorKind::InvalidArgument, "{e}");
        writer.write(&batch).await.unwrap();
        writer.into_inner().await.unwrap()
    });
    assert!(bytes == sync_stream(&[batch], &options));
}

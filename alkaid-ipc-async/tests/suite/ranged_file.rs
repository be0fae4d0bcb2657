//! The async file reader over ranged sources against the synchronous file reader: every
//! type, projections, batch and row selections; what it fetches (requests and bytes); the
//! memory a kept column holds; and hostile files and sources.

use crate::batches;
use crate::common;
use crate::ranges;

use std::io::Cursor;
use std::sync::Arc;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
use alkaid_buffer::Buffer;
use alkaid_data::equal;
use alkaid_ipc::{
    Compression, FileReader, FileWriter, IpcErrorKind, ReadOptions, Seekable, WriteOptions,
};
use alkaid_ipc_async::{AsyncFileReader, Blocking};
use alkaid_schema::{DataType, Field, Schema, arbitrary};
use batches::random_batches;
use common::{Rng, dictionary_of_dictionary, generatable};
use futures_util::TryStreamExt;
use proptest::prelude::*;
use ranges::{Counting, Misbehaving, block_on};

/// One random batch of `lens`'s total rows, cut into slices of `lens` rows (a file holds
/// one dictionary per id, which slices of one batch share).
fn sliced_batches(
    types: &[DataType],
    lens: &[usize],
    rng: &mut Rng,
) -> (Arc<Schema>, Vec<RecordBatch>) {
    let (schema, whole) = random_batches(types, &[lens.iter().sum()], rng);
    let mut at = 0;
    let batches = lens
        .iter()
        .map(|&len| {
            at += len;
            whole[0].slice(at - len, len)
        })
        .collect();
    (schema, batches)
}

fn write_file(schema: Arc<Schema>, batches: &[RecordBatch], options: WriteOptions) -> Vec<u8> {
    let mut writer = FileWriter::try_new(Vec::new(), schema, options).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.into_inner().unwrap()
}

fn same(read: &[RecordBatch], expected: &[RecordBatch]) -> Result<(), TestCaseError> {
    prop_assert_eq!(read.len(), expected.len());
    for (a, b) in read.iter().zip(expected) {
        prop_assert_eq!(a.schema(), b.schema());
        prop_assert_eq!(a.num_rows(), b.num_rows());
        for (x, y) in a.columns().iter().zip(b.columns()) {
            prop_assert!(equal(&x.to_data(), &y.to_data()));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn the_async_reader_reads_what_the_sync_reader_reads(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..5),
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..12, 1..5),
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let (schema, batches) = sliced_batches(&types, &lens, &mut rng);
        let compression = [Compression::None, Compression::Lz4Frame, Compression::Zstd { level: 1 }]
            [rng.below(3)];
        let write = WriteOptions::default()
            .with_compression(compression)
            .with_dictionary_deltas(rng.chance(0.5));
        let file = write_file(schema.clone(), &batches, write);
        // Sometimes some columns in any order; a footer prefetch that may be too short.
        let mut options = ReadOptions::default()
            .with_footer_prefetch([18, 100, 64 << 10][rng.below(3)])
            .with_fetch_gap([0, 64, 1 << 20][rng.below(3)])
            .with_concurrent_fetches(1 + rng.below(4));
        let mut columns: Vec<usize> = (0..types.len()).collect();
        if rng.chance(0.6) {
            columns.retain(|_| rng.chance(0.5));
            for i in (1..columns.len()).rev() {
                columns.swap(i, rng.below(i + 1));
            }
            options = options.with_columns(columns.clone());
        }
        let expected: Vec<RecordBatch> = FileReader::open(Buffer::from(file.clone()), options.clone())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();

        let source = Counting::new(Buffer::from(file.clone()));
        let readahead = 1 + rng.below(5);
        let read: Vec<RecordBatch> = block_on(async {
            let reader = AsyncFileReader::open(&source, options.clone()).await.unwrap();
            // At most two requests open the file; one when the footer fits the prefetch.
            let opening = source.requests();
            prop_assert!((1..=2).contains(&opening), "{} requests to open", opening);
            if options.footer_prefetch() >= 64 << 10 {
                prop_assert_eq!(opening, 1);
            }
            let stream = reader.with_readahead(readahead).into_stream();
            Ok(stream.try_collect().await.unwrap())
        })?;
        same(&read, &expected)?;
        for batch in &read {
            prop_assert_eq!(batch.num_columns(), columns.len());
        }

        // Through a synchronous source, and one batch range and one row range.
        let blocking = Blocking::new(Seekable(Cursor::new(file.clone())));
        let total: usize = lens.iter().sum();
        let (from, to) = (rng.below(total + 1), rng.below(total + 1));
        let rows = from.min(to)..from.max(to);
        let first = rng.below(lens.len());
        let (one, parts) = block_on(async {
            let mut reader = AsyncFileReader::open(blocking, options.clone()).await.unwrap();
            reader.select_batches(first..first + 1).unwrap();
            let one = reader.next_batch().await.unwrap().unwrap();
            assert!(reader.next_batch().await.is_none());
            let parts: Vec<RecordBatch> =
                reader.read_rows(rows.clone()).await.unwrap().try_collect().await.unwrap();
            (one, parts)
        });
        same(&[one], &expected[first..first + 1])?;
        let mut sync = FileReader::open(Buffer::from(file), options).unwrap();
        let expected_parts: Vec<RecordBatch> =
            sync.read_rows(rows).unwrap().collect::<Result<_, _>>().unwrap();
        same(&parts, &expected_parts)?;
    }
}

/// A file of `batches` batches of eight Int64 columns of `rows` rows, with nulls.
fn eight_columns(batches: usize, rows: usize) -> Vec<u8> {
    let fields: Vec<Field> = (0..8)
        .map(|i| Field::new(format!("c{i}"), DataType::Int64, true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batches: Vec<RecordBatch> = (0..batches)
        .map(|b| {
            let columns = (0..8)
                .map(|c| {
                    let values: Vec<Option<i64>> = (0..rows)
                        .map(|r| (r % 7 != 0).then_some((b * rows + r) as i64 * (c + 1)))
                        .collect();
                    Arc::new(Int64Array::from(values)) as ArrayRef
                })
                .collect();
            RecordBatch::try_new(schema.clone(), columns).unwrap()
        })
        .collect();
    write_file(schema, &batches, WriteOptions::default())
}

#[test]
fn one_column_of_eight_fetches_its_buffers_and_the_metadata_alone() {
    let (batches, rows) = (4, 10_000);
    let file = eight_columns(batches, rows);
    // The column's own bytes in a batch: validity and values, each padded to 64 bytes.
    let column_bytes = (rows * 8).next_multiple_of(64) + rows.div_ceil(8).next_multiple_of(64);

    let whole = Counting::new(Buffer::from(file.clone()));
    let all: Vec<RecordBatch> = block_on(async {
        let reader = AsyncFileReader::open(&whole, ReadOptions::default())
            .await
            .unwrap();
        reader.into_stream().try_collect().await.unwrap()
    });
    // The suffix; the head (no dictionaries); metadata and body per batch.
    assert_eq!(whole.requests(), 1 + 1 + 2 * batches);
    assert!(whole.bytes() >= file.len() - 64 * 1024);

    for (gap, per_batch) in [(0, 3), (64 << 10, 2)] {
        let source = Counting::new(Buffer::from(file.clone()));
        let options = ReadOptions::default().with_columns([5]).with_fetch_gap(gap);
        // One batch at a time, so that each batch's requests follow one another in the log.
        let part: Vec<RecordBatch> = block_on(async {
            let reader = AsyncFileReader::open(&source, options).await.unwrap();
            reader
                .with_readahead(1)
                .into_stream()
                .try_collect()
                .await
                .unwrap()
        });
        for (p, w) in part.iter().zip(&all) {
            assert!(equal(&p.column(0).to_data(), &w.column(5).to_data()));
        }
        let log = source.log();
        // The suffix (the whole footer, 64 KiB at most), the head, then per batch its
        // metadata, and the validity and values apart or merged across their padding.
        assert_eq!(log.len(), 2 + per_batch * batches, "gap {gap}: {log:?}");
        let suffix = log[0].1;
        let head = log[1].1;
        let fetched: usize = log[2..].iter().map(|r| r.1).sum();
        let metadata: usize = log[2..].iter().step_by(per_batch).map(|r| r.1).sum();
        assert!(metadata < 1024 * batches, "{metadata}");
        assert!(
            fetched >= metadata + batches * column_bytes - 64 * batches,
            "gap {gap}: {fetched}"
        );
        assert!(
            fetched <= metadata + batches * column_bytes,
            "gap {gap}: {fetched} bytes fetched, the column has {column_bytes} a batch"
        );
        assert!(suffix <= 64 << 10 && head < 1024, "{suffix} {head}");
    }
}

#[test]
fn a_stream_fetches_ahead_in_two_round_trips_per_group_of_batches() {
    let file = eight_columns(10, 1000);
    for (readahead, groups) in [(1, 10), (4, 3), (16, 1)] {
        for projected in [false, true] {
            let source = Counting::new(Buffer::from(file.clone()));
            let options = match projected {
                true => ReadOptions::default().with_columns([3]),
                false => ReadOptions::default(),
            };
            let read: Vec<RecordBatch> = block_on(async {
                let reader = AsyncFileReader::open(&source, options).await.unwrap();
                let stream = reader.with_readahead(readahead).into_stream();
                stream.try_collect().await.unwrap()
            });
            assert_eq!(read.len(), 10);
            // Opening; the head (no dictionaries, so no second step); then per group its
            // ranges, after its metadata when a projection needs that first.
            let per_group = if projected { 2 } else { 1 };
            assert_eq!(
                source.rounds(),
                1 + 1 + per_group * groups,
                "readahead {readahead}, projected {projected}"
            );
        }
    }
}

#[test]
fn opening_takes_a_second_request_only_for_a_footer_past_the_prefetch() {
    let file = eight_columns(200, 3);
    for (prefetch, requests) in [(64 << 10, 1), (100, 2)] {
        let source = Counting::new(Buffer::from(file.clone()));
        let options = ReadOptions::default().with_footer_prefetch(prefetch);
        block_on(async {
            let reader = AsyncFileReader::open(&source, options).await.unwrap();
            assert_eq!(reader.num_batches(), 200);
        });
        assert_eq!(source.requests(), requests, "prefetch {prefetch}");
        // Together they are the footer and the file's end, fetched once.
        let log = source.log();
        assert_eq!(
            log.iter().map(|r| r.1).sum::<usize>(),
            match requests {
                1 => (64 << 10).min(file.len()),
                _ => log[0].1 + log[1].1,
            }
        );
    }
}

#[test]
fn a_kept_column_holds_only_its_own_ranges() {
    let rows = 10_000;
    let file = eight_columns(1, rows);
    let column_bytes = rows * 8 + rows.div_ceil(8);
    let options = ReadOptions::default()
        .with_columns([2, 6])
        .with_fetch_gap(0);
    let kept = block_on(async {
        let mut reader = AsyncFileReader::open(Buffer::from(file.clone()), options)
            .await
            .unwrap();
        reader.batch(0).await.unwrap().column(0).to_data()
    });
    // From memory the column shares the file's allocation; from a source that owns each
    // fetch apart (a copy per range, as an object store's responses are), only its own.
    assert!(ranges::held::held(&kept) >= file.len());
    let copying = Misbehaving::copying(Buffer::from(file));
    let kept = block_on(async {
        let options = ReadOptions::default()
            .with_columns([2, 6])
            .with_fetch_gap(0);
        let mut reader = AsyncFileReader::open(&copying, options).await.unwrap();
        let batch = reader.batch(0).await.unwrap();
        let kept = batch.column(0).to_data();
        drop(batch);
        kept
    });
    assert!(
        ranges::held::held(&kept) >= column_bytes,
        "{}",
        ranges::held::held(&kept)
    );
    assert!(
        ranges::held::held(&kept) < column_bytes + 4096,
        "{}",
        ranges::held::held(&kept)
    );
}

#[test]
fn sources_that_lie_or_fail_are_errors() {
    let file = eight_columns(3, 100);
    let options = || ReadOptions::default().with_columns([1, 3]);
    // Fewer bytes than asked, at every request in turn.
    for at in 0..6 {
        let source = Misbehaving::short_at(Buffer::from(file.clone()), at);
        let err = block_on(read_all(&source, options())).unwrap_err();
        assert_eq!(err.kind(), IpcErrorKind::Truncated, "request {at}: {err}");
        assert!(err.to_string().contains("the source returned"), "{err}");
    }
    // Failing midway: the source's error comes back.
    for at in 0..6 {
        let source = Misbehaving::failing_at(Buffer::from(file.clone()), at);
        let err = block_on(read_all(&source, options())).unwrap_err();
        assert!(err.to_string().contains("the network went away"), "{err}");
    }
    // A length the source reports wrongly: too short or too long for what it holds.
    for len in [0, 17, file.len() as u64 - 1, file.len() as u64 + 1000] {
        let source = Misbehaving::lying_length(Buffer::from(file.clone()), len);
        assert!(block_on(read_all(&source, options())).is_err(), "{len}");
    }
}

async fn read_all<S: alkaid_ipc_async::RangeSource>(
    source: S,
    options: ReadOptions,
) -> alkaid_ipc::Result<Vec<RecordBatch>> {
    let reader = AsyncFileReader::open(source, options).await?;
    reader.into_stream().try_collect().await
}

#[test]
fn damaged_files_are_errors_never_panics() {
    let mut rng = Rng::new(7);
    let types = [
        DataType::Utf8,
        DataType::list(DataType::Int32),
        DataType::dictionary(alkaid_schema::IntegerType::Int16, DataType::Utf8),
    ];
    let (schema, batches) = sliced_batches(&types, &[5, 0, 9], &mut rng);
    let write = WriteOptions::default().with_compression(Compression::Lz4Frame);
    let file = write_file(schema, &batches, write);
    let full = FileReader::from_buffer(Buffer::from(file.clone()))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    block_on(async {
        for cut in (0..file.len()).step_by(7) {
            let short = Buffer::from(file[..cut].to_vec());
            assert!(
                read_all(short, ReadOptions::default()).await.is_err(),
                "cut {cut}"
            );
        }
        for _ in 0..400 {
            let mut bytes = file.clone();
            let at = rng.below(bytes.len());
            bytes[at] ^= 1 << rng.below(8);
            let options = match rng.chance(0.5) {
                true => ReadOptions::default().with_columns([2, 0]),
                false => ReadOptions::default(),
            };
            // Either an error, or batches that pass validation (a flipped bit in a value).
            if let Ok(read) = read_all(Buffer::from(bytes), options).await {
                assert_eq!(read.len(), full.len());
            }
        }
    });
}

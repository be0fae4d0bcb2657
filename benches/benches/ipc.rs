//! The IPC stream and file formats: a 4 Mi-row batch of seven columns (integers with nulls,
//! floats, booleans, strings, a list, a dictionary, a struct) written and read through
//! Alkaid and arrow-ipc with the same options, plus a memcpy of the same bytes as the floor.

use std::sync::Arc;

use alkaid_benches::VersusGroup;
use alkaid_benches::data::Rng;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const ROWS: usize = 4 << 20;

/// The columns' values, shared by both libraries.
struct Columns {
    ints: Vec<Option<i64>>,
    floats: Vec<f64>,
    flags: Vec<bool>,
    words: Vec<String>,
    lists: Vec<Vec<i32>>,
    keys: Vec<i32>,
    dictionary: Vec<String>,
}

fn columns(rows: usize) -> Columns {
    let mut rng = Rng::new(42);
    let mut next = |n: u64| rng.next_u64() % n;
    Columns {
        ints: (0..rows)
            .map(|i| (i % 7 != 0).then_some(next(1 << 40) as i64))
            .collect(),
        floats: (0..rows).map(|_| next(1_000_000) as f64 / 7.0).collect(),
        flags: (0..rows).map(|_| next(2) == 0).collect(),
        words: (0..rows)
            .map(|_| format!("w{}", next(1 << 30)).repeat(1 + next(2) as usize))
            .collect(),
        lists: (0..rows)
            .map(|_| (0..next(4)).map(|v| v as i32).collect())
            .collect(),
        keys: (0..rows).map(|_| next(1000) as i32).collect(),
        dictionary: (0..1000).map(|i| format!("category {i}")).collect(),
    }
}

fn alkaid_batch(c: &Columns) -> alkaid_array::RecordBatch {
    use alkaid_array::types::Int32Type;
    use alkaid_array::*;
    let mut lists = GenericListBuilder::<i32, _>::new(
        PrimitiveBuilder::<Int32Type>::with_capacity(c.lists.len() * 2),
    );
    for list in &c.lists {
        for &v in list {
            lists.values().append_value(v);
        }
        lists.append(true);
    }
    let words = StringArray::from(c.words.iter().map(String::as_str).collect::<Vec<_>>());
    let dictionary: ArrayRef = Arc::new(StringArray::from(
        c.dictionary.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    let keys = Int32Array::from(c.keys.clone());
    let struct_fields = alkaid_schema::Fields::from(vec![
        alkaid_schema::Field::new("a", alkaid_schema::DataType::Int32, false),
        alkaid_schema::Field::new("b", alkaid_schema::DataType::Float64, false),
    ]);
    let structs = StructArray::try_new(
        struct_fields,
        vec![
            Arc::new(keys.clone()),
            Arc::new(Float64Array::from(c.floats.clone())),
        ],
        None,
    )
    .unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(c.ints.clone())),
        Arc::new(Float64Array::from(c.floats.clone())),
        Arc::new(BooleanArray::from(c.flags.clone())),
        Arc::new(words),
        Arc::new(lists.finish().unwrap()),
        Arc::new(DictionaryArray::<Int32Type>::try_new(keys, dictionary).unwrap()),
        Arc::new(structs),
    ];
    let fields: Vec<alkaid_schema::Field> = [
        "ints", "floats", "flags", "words", "lists", "dict", "struct",
    ]
    .iter()
    .zip(&columns)
    .map(|(name, column)| alkaid_schema::Field::new(*name, column.data_type().clone(), true))
    .collect();
    RecordBatch::try_new(Arc::new(alkaid_schema::Schema::new(fields)), columns).unwrap()
}

fn arrow_batch(c: &Columns) -> arrow_array::RecordBatch {
    use arrow_array::types::Int32Type;
    use arrow_array::*;
    let lists = ListArray::from_iter_primitive::<Int32Type, _, _>(
        c.lists
            .iter()
            .map(|l| Some(l.iter().map(|&v| Some(v)).collect::<Vec<_>>())),
    );
    let words = StringArray::from(c.words.iter().map(String::as_str).collect::<Vec<_>>());
    let dictionary = StringArray::from(c.dictionary.iter().map(String::as_str).collect::<Vec<_>>());
    let keys = Int32Array::from(c.keys.clone());
    let structs = StructArray::from(vec![
        (
            Arc::new(arrow_schema::Field::new(
                "a",
                arrow_schema::DataType::Int32,
                false,
            )),
            Arc::new(keys.clone()) as ArrayRef,
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "b",
                arrow_schema::DataType::Float64,
                false,
            )),
            Arc::new(Float64Array::from(c.floats.clone())) as ArrayRef,
        ),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(c.ints.clone())),
        Arc::new(Float64Array::from(c.floats.clone())),
        Arc::new(BooleanArray::from(c.flags.clone())),
        Arc::new(words),
        Arc::new(lists),
        Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(dictionary)).unwrap()),
        Arc::new(structs),
    ];
    RecordBatch::try_from_iter(
        [
            "ints", "floats", "flags", "words", "lists", "dict", "struct",
        ]
        .into_iter()
        .zip(columns),
    )
    .unwrap()
}

fn alkaid_options(codec: &str) -> alkaid_ipc::WriteOptions {
    use alkaid_ipc::Compression;
    let compression = match codec {
        "lz4" => Compression::Lz4Frame,
        "zstd" => Compression::ZSTD, // level 3, what arrow-ipc uses
        _ => Compression::None,
    };
    alkaid_ipc::WriteOptions::default().with_compression(compression)
}

fn arrow_options(codec: &str) -> arrow_ipc::writer::IpcWriteOptions {
    use arrow_ipc::CompressionType;
    let compression = match codec {
        "lz4" => Some(CompressionType::LZ4_FRAME),
        "zstd" => Some(CompressionType::ZSTD),
        _ => None,
    };
    arrow_ipc::writer::IpcWriteOptions::default()
        .try_with_compression(compression)
        .unwrap()
}

fn alkaid_write(batch: &alkaid_array::RecordBatch, codec: &str, out: &mut Vec<u8>) {
    out.clear();
    let mut writer =
        alkaid_ipc::StreamWriter::try_new(out, batch.schema().clone(), alkaid_options(codec))
            .unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
}

fn arrow_write(batch: &arrow_array::RecordBatch, codec: &str, out: &mut Vec<u8>) {
    out.clear();
    let mut writer = arrow_ipc::writer::StreamWriter::try_new_with_options(
        out,
        &batch.schema(),
        arrow_options(codec),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
}

fn alkaid_file(batch: &alkaid_array::RecordBatch) -> Vec<u8> {
    let options = alkaid_options("none").with_magic(alkaid_ipc::Magic::Arrow);
    let mut writer =
        alkaid_ipc::FileWriter::try_new(Vec::new(), batch.schema().clone(), options).unwrap();
    writer.write(batch).unwrap();
    writer.into_inner().unwrap()
}

fn arrow_file(batch: &arrow_array::RecordBatch) -> Vec<u8> {
    let mut writer = arrow_ipc::writer::FileWriter::try_new(Vec::new(), &batch.schema()).unwrap();
    writer.write(batch).unwrap();
    writer.into_inner().unwrap()
}

/// arrow-ipc's zero-copy file path: footer, dictionaries, then each batch from slices.
fn arrow_zero_copy_rows(buffer: &arrow_buffer::Buffer) -> usize {
    let trailer = buffer.len() - 10;
    let footer_len =
        arrow_ipc::reader::read_footer_length(buffer[trailer..].try_into().unwrap()).unwrap();
    let footer = arrow_ipc::root_as_footer(&buffer[trailer - footer_len..trailer]).unwrap();
    let schema = arrow_ipc::convert::try_fb_to_schema(footer.schema().unwrap()).unwrap();
    // SAFETY: the bytes were written by arrow-ipc's own writer.
    let mut decoder = unsafe {
        arrow_ipc::reader::FileDecoder::new(Arc::new(schema), footer.version())
            .with_skip_validation(true)
    };
    let slice = |block: &arrow_ipc::Block| {
        let len = block.bodyLength() as usize + block.metaDataLength() as usize;
        buffer.slice_with_length(block.offset() as usize, len)
    };
    for block in footer.dictionaries().iter().flatten() {
        decoder.read_dictionary(block, &slice(block)).unwrap();
    }
    footer
        .recordBatches()
        .iter()
        .flatten()
        .map(|block| {
            decoder
                .read_record_batch(block, &slice(block))
                .unwrap()
                .unwrap()
                .num_rows()
        })
        .sum()
}

fn ipc(c: &mut Criterion) {
    let data = columns(ROWS);
    let ours = alkaid_batch(&data);
    let theirs = arrow_batch(&data);
    drop(data);
    let mut out = Vec::new();
    alkaid_write(&ours, "none", &mut out);
    let bytes = out.len() as u64;

    let mut group = VersusGroup::new(c, "ipc_write");
    group
        .group
        .sample_size(10)
        .throughput(Throughput::Bytes(bytes));
    // Each library writes into its own reused buffer.
    let mut their_out = Vec::new();
    for codec in ["none", "lz4", "zstd"] {
        group.versus(
            &format!("stream/{codec}"),
            || alkaid_write(&ours, codec, &mut out),
            || arrow_write(&theirs, codec, &mut their_out),
        );
    }
    // The floor: copying the uncompressed stream's bytes into a reused buffer.
    alkaid_write(&ours, "none", &mut out);
    let mut copy = vec![0u8; out.len()];
    group
        .group
        .bench_function(BenchmarkId::new("memcpy", "stream/none"), |b| {
            b.iter(|| copy.copy_from_slice(black_box(&out)))
        });
    // The same copy into fresh memory: what any reader that hands out owned batches pays
    // (the kernel maps and zeroes every page on first touch).
    group
        .group
        .bench_function(BenchmarkId::new("memcpy", "stream/none/fresh"), |b| {
            b.iter(|| black_box(out.to_vec()))
        });
    group.finish();

    let mut group = VersusGroup::new(c, "ipc_read");
    group
        .group
        .sample_size(10)
        .throughput(Throughput::Bytes(bytes));
    for codec in ["none", "lz4", "zstd"] {
        let mut ours_bytes = Vec::new();
        alkaid_write(&ours, codec, &mut ours_bytes);
        let mut arrow_bytes = Vec::new();
        arrow_write(&theirs, codec, &mut arrow_bytes);
        group.versus(
            &format!("stream/{codec}"),
            || {
                let reader = alkaid_ipc::StreamReader::try_new(&ours_bytes[..]).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
            || {
                let reader =
                    arrow_ipc::reader::StreamReader::try_new(&arrow_bytes[..], None).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
        );
        if codec != "none" {
            // Alkaid decompressing each message's buffers on both cores
            // (`ReadOptions::with_decompression_threads(2)`); arrow-ipc has no such option,
            // so its side is the same single-threaded read as above.
            group.versus(
                &format!("stream/{codec}_2_threads"),
                || {
                    let options = alkaid_ipc::ReadOptions::default().with_decompression_threads(2);
                    let reader =
                        alkaid_ipc::StreamReader::with_options(&ours_bytes[..], options).unwrap();
                    reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
                },
                || {
                    let reader =
                        arrow_ipc::reader::StreamReader::try_new(&arrow_bytes[..], None).unwrap();
                    reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
                },
            );
        }
    }
    group.finish();

    // Zero-copy reads of an in-memory file (a memory map, say), validation skipped on both
    // sides (both libraries' documented unsafe options): the cost should not grow with the
    // data.
    let mut group = VersusGroup::new(c, "ipc_zero_copy");
    for rows in [ROWS, ROWS / 64] {
        let ours_bytes = alkaid_file(&ours.slice(0, rows));
        let ours_buffer = alkaid_buffer::Buffer::from_slice_ref(&ours_bytes);
        let arrow_buffer = arrow_buffer::Buffer::from_vec(arrow_file(&theirs.slice(0, rows)));
        let label = format!("file/{}Ki", rows >> 10);
        group.versus(
            &label,
            || {
                // SAFETY: the bytes were written by Alkaid's own writer above.
                let options = unsafe { alkaid_ipc::ReadOptions::default().skip_full_validation() };
                let reader = alkaid_ipc::FileReader::open(ours_buffer.clone(), options).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
            || arrow_zero_copy_rows(&arrow_buffer),
        );
    }
    group.finish();

    let mut group = VersusGroup::new(c, "ipc_validate_full");
    group
        .group
        .sample_size(10)
        .throughput(Throughput::Bytes(bytes));
    group.versus(
        "batch/4Mi",
        || {
            for column in ours.columns() {
                column
                    .to_data()
                    .validate(alkaid_data::ValidationLevel::Full)
                    .unwrap();
            }
        },
        || {
            for column in theirs.columns() {
                column.to_data().validate_full().unwrap();
            }
        },
    );
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = ipc
}
criterion_main!(benches);

//! The IPC stream and file formats: a 4 Mi-row batch of seven columns (integers with nulls,
//! floats, booleans, strings, a list, a dictionary, a struct) written and read through
//! Alkaid and arrow-ipc with the same options, plus a memcpy of the same bytes as the floor.

use std::sync::Arc;

use alkaid_benches::VersusGroup;
use alkaid_benches::export;
use alkaid_benches::ipc_batch::{ROWS, alkaid_batch, arrow_batch, columns};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// Alkaid's write options for `codec` (`none`, `lz4`, `zstd`, or either codec followed by
/// `_2_threads`: compression on both cores).
fn alkaid_options(codec: &str) -> alkaid_ipc::WriteOptions {
    use alkaid_ipc::Compression;
    let (name, threads) = match codec.strip_suffix("_2_threads") {
        Some(name) => (name, 2),
        None => (codec, 1),
    };
    let compression = match name {
        "lz4" => Compression::Lz4Frame,
        "zstd" => Compression::ZSTD, // level 3, what arrow-ipc uses
        _ => Compression::None,
    };
    alkaid_ipc::WriteOptions::default()
        .with_compression(compression)
        .with_compression_threads(threads)
}

/// arrow-ipc's write options for `codec`; it has no parallel compression, so `_2_threads`
/// writes as the single-threaded codec does.
fn arrow_options(codec: &str) -> arrow_ipc::writer::IpcWriteOptions {
    use arrow_ipc::CompressionType;
    let compression = match codec.trim_end_matches("_2_threads") {
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
    alkaid_write_to(batch, codec, out);
}

/// `batch` as a stream into any output (a file, a socket).
fn alkaid_write_to(batch: &alkaid_array::RecordBatch, codec: &str, out: impl std::io::Write) {
    let mut writer =
        alkaid_ipc::StreamWriter::try_new(out, batch.schema().clone(), alkaid_options(codec))
            .unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
}

fn arrow_write(batch: &arrow_array::RecordBatch, codec: &str, out: &mut Vec<u8>) {
    out.clear();
    arrow_write_to(batch, codec, out);
}

fn arrow_write_to(batch: &arrow_array::RecordBatch, codec: &str, out: impl std::io::Write) {
    let mut writer = arrow_ipc::writer::StreamWriter::try_new_with_options(
        out,
        &batch.schema(),
        arrow_options(codec),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
}

/// The rows of the stream read from `input` by Alkaid, fully validated.
fn alkaid_rows(input: impl std::io::Read) -> usize {
    let reader = alkaid_ipc::StreamReader::try_new(input).unwrap();
    reader.map(|batch| batch.unwrap().num_rows()).sum()
}

/// The rows of the stream read from `input` by arrow-ipc, fully validated.
fn arrow_rows(input: impl std::io::Read) -> usize {
    let reader = arrow_ipc::reader::StreamReader::try_new(input, None).unwrap();
    reader.map(|batch| batch.unwrap().num_rows()).sum()
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
    for codec in ["none", "lz4", "zstd", "lz4_2_threads", "zstd_2_threads"] {
        group.versus(
            &format!("stream/{codec}"),
            || alkaid_write(&ours, codec, &mut out),
            || arrow_write(&theirs, codec, &mut their_out),
        );
    }
    // Into a new vector each time: growth and fresh pages are part of the cost.
    group.versus(
        "stream/none_new_vec",
        || {
            let mut fresh = Vec::new();
            alkaid_write(&ours, "none", &mut fresh);
            fresh
        },
        || {
            let mut fresh = Vec::new();
            arrow_write(&theirs, "none", &mut fresh);
            fresh
        },
    );
    // The floor: copying the uncompressed stream's bytes into a reused buffer.
    alkaid_write(&ours, "none", &mut out);
    let mut copy = vec![0u8; out.len()];
    group
        .group
        .bench_function(BenchmarkId::new("memcpy", "stream/none"), |b| {
            b.iter(|| copy.copy_from_slice(black_box(&out)))
        });
    // The body slices the writer copies (each buffer of the batch, then its padding), one
    // memcpy each into the same reused buffer: what any writer of the batch does at the
    // least. glibc switches to non-temporal stores only for copies past a threshold set
    // from the cache size (99 MiB on the benchmark machine): the whole stream crosses it,
    // no single buffer does.
    let messages = alkaid_ipc::MessageEncoder::new(ours.schema().clone(), alkaid_options("none"))
        .and_then(|mut encoder| encoder.encode(&ours, &Default::default()))
        .unwrap();
    let slices: Vec<&[u8]> = messages.iter().flat_map(|m| m.body_slices()).collect();
    group
        .group
        .bench_function(BenchmarkId::new("memcpy", "stream/none/buffers"), |b| {
            b.iter(|| {
                let mut at = 0;
                for slice in &slices {
                    copy[at..at + slice.len()].copy_from_slice(black_box(slice));
                    at += slice.len();
                }
            })
        });
    // The same copy into fresh memory: what any reader that hands out owned batches pays
    // (the kernel maps and zeroes every page on first touch).
    group
        .group
        .bench_function(BenchmarkId::new("memcpy", "stream/none/fresh"), |b| {
            b.iter(|| black_box(out.to_vec()))
        });
    group.finish();
    codec_alone(c, &ours, bytes);

    let mut group = VersusGroup::new(c, "ipc_read");
    group
        .group
        .sample_size(10)
        .throughput(Throughput::Bytes(bytes));
    for codec in ["none", "lz4", "zstd"] {
        let mut ours_bytes = Vec::new();
        alkaid_write(&ours, codec, &mut ours_bytes);
        export::bytes(&format!("ipc_stream_{codec}.arrows"), &ours_bytes);
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
            // The stream already in memory, read without copying its bodies out of a
            // `Read` first (Alkaid's `BufferStreamReader`, arrow-ipc's `StreamDecoder`):
            // the read that compares with the codec alone on the same buffers. Once with
            // full validation (both libraries' default), once with it skipped on both
            // sides (their documented unsafe options), as pyarrow's reads never fully
            // validate.
            let ours_buffer = alkaid_buffer::Buffer::from_slice_ref(&ours_bytes);
            let arrow_buffer = arrow_buffer::Buffer::from_vec(arrow_bytes.clone());
            for (suffix, trusted) in [("", false), ("_trusted", true)] {
                group.versus(
                    &format!("stream/{codec}_in_memory{suffix}"),
                    || {
                        let mut options = alkaid_ipc::ReadOptions::default();
                        if trusted {
                            // SAFETY: the bytes were written by Alkaid's own writer above.
                            options = unsafe { options.skip_full_validation() };
                        }
                        let reader = alkaid_ipc::BufferStreamReader::with_options(
                            ours_buffer.clone(),
                            options,
                        )
                        .unwrap();
                        reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
                    },
                    || {
                        // SAFETY: the bytes were written by arrow-ipc's own writer above.
                        let mut decoder = unsafe {
                            arrow_ipc::reader::StreamDecoder::new().with_skip_validation(trusted)
                        };
                        let mut bytes = arrow_buffer.clone();
                        let mut rows = 0;
                        while !bytes.is_empty() {
                            if let Some(batch) = decoder.decode(&mut bytes).unwrap() {
                                rows += batch.num_rows();
                            }
                        }
                        decoder.finish().unwrap();
                        rows
                    },
                );
            }
        }
    }
    // A stream pyarrow wrote (LZ4 frames of linked 64 KiB blocks, where both Rust writers
    // write independent blocks), when `pyarrow_bench.py` has run before and left it.
    let pyarrow_lz4 = export::directory()
        .and_then(|dir| std::fs::read(dir.join("pyarrow_stream_lz4.arrows")).ok());
    if let Some(stream) = pyarrow_lz4 {
        group.versus(
            "stream/lz4_from_pyarrow",
            || {
                let reader = alkaid_ipc::StreamReader::try_new(&stream[..]).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
            || {
                let reader = arrow_ipc::reader::StreamReader::try_new(&stream[..], None).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
        );
    }
    group.finish();

    // Zero-copy reads of an in-memory file (a memory map, say), validation skipped on both
    // sides (both libraries' documented unsafe options): the cost should not grow with the
    // data.
    let mut group = VersusGroup::new(c, "ipc_zero_copy");
    for rows in [ROWS, ROWS / 64] {
        let ours_bytes = export::file_bytes(&[ours.slice(0, rows)]);
        let label = format!("file/{}Ki", rows >> 10);
        export::bytes(
            &format!("ipc_{}.arrow", label.replace('/', "_")),
            &ours_bytes,
        );
        let ours_buffer = alkaid_buffer::Buffer::from_slice_ref(&ours_bytes);
        let arrow_buffer = arrow_buffer::Buffer::from_vec(arrow_file(&theirs.slice(0, rows)));
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
    async_read(c, &ours, bytes);
    let file = projected_file(c, &ours);
    object_store_file(c, &file);
}

/// A file of 64 LZ4 batches of 64 Ki rows read through `Read + Seek` from memory, whole
/// and with one column (the `Float64`) selected: Alkaid reads only that column's byte
/// ranges, arrow-ipc's `FileReader` takes the same projection; pyarrow's counterpart is
/// `IpcReadOptions(included_fields=[1])` on the same bytes.
fn projected_file(c: &mut Criterion, batch: &alkaid_array::RecordBatch) -> Vec<u8> {
    use std::io::Cursor;
    let options = alkaid_ipc::WriteOptions::default()
        .with_magic(alkaid_ipc::Magic::Arrow)
        .with_compression(alkaid_ipc::Compression::Lz4Frame);
    let mut writer =
        alkaid_ipc::FileWriter::try_new(Vec::new(), batch.schema().clone(), options).unwrap();
    let rows = ROWS / 64;
    for start in (0..ROWS).step_by(rows) {
        writer.write(&batch.slice(start, rows)).unwrap();
    }
    let file = writer.into_inner().unwrap();
    export::bytes("ipc_file_lz4_64.arrow", &file);
    let mut group = VersusGroup::new(c, "ipc_file_projected");
    group.group.sample_size(10);
    for (case, columns) in [("whole", None), ("one_column", Some(vec![1usize]))] {
        let ours_options = match &columns {
            Some(columns) => alkaid_ipc::ReadOptions::default().with_columns(columns.clone()),
            None => alkaid_ipc::ReadOptions::default(),
        };
        group.versus(
            &format!("file/{case}"),
            || {
                let source = alkaid_ipc::Seekable(Cursor::new(&file[..]));
                let reader = alkaid_ipc::FileReader::open(source, ours_options.clone()).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
            || {
                let reader =
                    arrow_ipc::reader::FileReader::try_new(Cursor::new(&file[..]), columns.clone())
                        .unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
        );
    }
    group.finish();
    file
}

/// The same file on a local object store (`object_store`'s `LocalFileSystem` over a
/// directory of the target directory), read by the async file reader through
/// `ObjectStoreSource`, whole and with the one column: every read a ranged request that
/// the store answers from the file system. The anchors read the same file from the file
/// system directly: arrow-ipc's `FileReader` over a `std::fs::File` with the projection
/// (arrow-rs has no async or ranged IPC reader), and pyarrow's `open_file` on an `OSFile`
/// with `included_fields`.
fn object_store_file(c: &mut Criterion, file: &[u8]) {
    use alkaid_ipc_async::{AsyncFileReader, ObjectStoreSource};
    use futures_util::StreamExt;
    use object_store::path::Path;
    let dir = export::directory()
        .unwrap_or_else(std::env::temp_dir)
        .join("object_store");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ipc_file_lz4_64.arrow"), file).unwrap();
    let local = dir.join("ipc_file_lz4_64.arrow");
    let store: Arc<dyn object_store::ObjectStore> =
        Arc::new(object_store::local::LocalFileSystem::new_with_prefix(&dir).unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = VersusGroup::new(c, "ipc_object_store");
    group.group.sample_size(10);
    for (case, columns) in [("whole", None), ("one_column", Some(vec![1usize]))] {
        let options = match &columns {
            Some(columns) => alkaid_ipc::ReadOptions::default().with_columns(columns.clone()),
            None => alkaid_ipc::ReadOptions::default(),
        };
        group.versus(
            &format!("file/{case}"),
            || {
                runtime.block_on(async {
                    let path = Path::from("ipc_file_lz4_64.arrow");
                    let source = ObjectStoreSource::new(store.clone(), path);
                    let reader = AsyncFileReader::open(source, options.clone())
                        .await
                        .unwrap();
                    // Fetching ahead by the default readahead, decoding batch by batch.
                    reader
                        .into_stream()
                        .map(|batch| batch.unwrap().num_rows())
                        .fold(0, |sum, rows| async move { sum + rows })
                        .await
                })
            },
            || {
                let input = std::fs::File::open(&local).unwrap();
                let reader =
                    arrow_ipc::reader::FileReader::try_new(input, columns.clone()).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
        );
    }
    group.finish();
}

/// The async stream reader (alkaid-ipc-async, on a current-thread tokio runtime) against
/// the synchronous one, both on the stream's bytes in memory: what the async layer costs.
/// Timed in alternation, as the libraries are, so that both see the same machine.
fn async_read(c: &mut Criterion, batch: &alkaid_array::RecordBatch, bytes: u64) {
    use futures_util::StreamExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut group = VersusGroup::new(c, "ipc_async_read");
    group
        .group
        .sample_size(10)
        .throughput(Throughput::Bytes(bytes));
    for codec in ["none", "lz4"] {
        let mut stream = Vec::new();
        alkaid_write(batch, codec, &mut stream);
        group.pair(
            &format!("stream/{codec}"),
            ["sync", "async"],
            || {
                let reader = alkaid_ipc::StreamReader::try_new(&stream[..]).unwrap();
                reader.map(|batch| batch.unwrap().num_rows()).sum::<usize>()
            },
            || {
                runtime.block_on(async {
                    let reader = alkaid_ipc_async::AsyncStreamReader::try_new(&stream[..])
                        .await
                        .unwrap();
                    reader
                        .map(|batch| batch.unwrap().num_rows())
                        .fold(0, |sum, rows| async move { sum + rows })
                        .await
                })
            },
        );
    }
    group.finish();
}

/// The codecs alone on the batch's buffers, the bound for the compressed rows: each buffer
/// compressed as one LZ4 block per 4 MiB (what the frame writer does, without the frame) and
/// as one zstd level 3 frame with a reused context, into reused room; then decompressed
/// into reused room of the right size.
fn codec_alone(c: &mut Criterion, batch: &alkaid_array::RecordBatch, bytes: u64) {
    let mut buffers = Vec::new();
    for column in batch.columns() {
        alkaid_benches::each_buffer(&column.to_data(), &mut |buffer| {
            buffers.push(buffer.to_vec())
        });
    }
    let largest = buffers.iter().map(Vec::len).max().unwrap_or(0);
    let mut room = vec![0u8; lz4_flex::block::get_maximum_output_size(largest) + 64];
    let mut plain = vec![0u8; largest];
    let lz4_blocks: Vec<Vec<Vec<u8>>> = buffers
        .iter()
        .map(|buffer| {
            buffer
                .chunks(4 << 20)
                .map(lz4_flex::block::compress)
                .collect()
        })
        .collect();
    let mut zstd_compressor = zstd::bulk::Compressor::new(3).unwrap();
    let mut zstd_decompressor = zstd::bulk::Decompressor::new().unwrap();
    let zstd_frames: Vec<Vec<u8>> = buffers
        .iter()
        .map(|buffer| zstd_compressor.compress(buffer).unwrap())
        .collect();

    let mut group = c.benchmark_group("codec");
    group.sample_size(10).throughput(Throughput::Bytes(bytes));
    group.bench_function(BenchmarkId::new("alone", "lz4/compress"), |b| {
        b.iter(|| {
            for buffer in &buffers {
                for block in buffer.chunks(4 << 20) {
                    black_box(lz4_flex::block::compress_into(block, &mut room).unwrap());
                }
            }
        })
    });
    group.bench_function(BenchmarkId::new("alone", "lz4/decompress"), |b| {
        b.iter(|| {
            for blocks in &lz4_blocks {
                for block in blocks {
                    black_box(lz4_flex::block::decompress_into(block, &mut plain).unwrap());
                }
            }
        })
    });
    // The codec Alkaid decompresses LZ4 with when built with `lz4-c`: the same blocks
    // through the reference C library.
    #[cfg(feature = "lz4-c")]
    group.bench_function(BenchmarkId::new("alone", "lz4_c/decompress"), |b| {
        b.iter(|| {
            for blocks in &lz4_blocks {
                for block in blocks {
                    black_box(lz4_c_decompress(block, &mut plain));
                }
            }
        })
    });
    group.bench_function(BenchmarkId::new("alone", "zstd/compress"), |b| {
        b.iter(|| {
            for buffer in &buffers {
                black_box(
                    zstd_compressor
                        .compress_to_buffer(buffer, &mut room[..])
                        .unwrap(),
                );
            }
        })
    });
    group.bench_function(BenchmarkId::new("alone", "zstd/decompress"), |b| {
        b.iter(|| {
            for frame in &zstd_frames {
                black_box(
                    zstd_decompressor
                        .decompress_to_buffer(frame, &mut plain[..])
                        .unwrap(),
                );
            }
        })
    });
    group.finish();
}

/// One LZ4 block decompressed into `out` by the C library; the bytes it produced.
#[cfg(feature = "lz4-c")]
fn lz4_c_decompress(block: &[u8], out: &mut [u8]) -> usize {
    let (Ok(src_len), Ok(dst_len)) = (i32::try_from(block.len()), i32::try_from(out.len())) else {
        panic!("an LZ4 block or its room past i32::MAX bytes");
    };
    // SAFETY: the library reads at most `src_len` bytes of `block` and writes at most
    // `dst_len` bytes into `out`, both lengths of the slices passed.
    let produced = unsafe {
        lz4_sys::LZ4_decompress_safe(
            block.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            src_len,
            dst_len,
        )
    };
    usize::try_from(produced).expect("the benchmark's own blocks decompress")
}

/// The batch written to and read from a file (in the page cache, truncated before each
/// write) and a loopback socket, uncompressed, with full validation on read: Alkaid
/// against arrow-ipc, and the floors in the same run, one `write` of the stream's bytes
/// from one buffer and one `read_exact` of them into a reused one.
fn ipc_io(c: &mut Criterion) {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::net::{TcpListener, TcpStream};

    let data = columns(ROWS);
    let ours = alkaid_batch(&data);
    let theirs = arrow_batch(&data);
    drop(data);
    let mut stream = Vec::new();
    alkaid_write(&ours, "none", &mut stream);
    let dir = export::directory().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ipc_io_bench.arrows");
    let mut file = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    let restart = |file: &mut std::fs::File| {
        file.set_len(0).unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
    };

    let mut group = VersusGroup::new(c, "ipc_io");
    group
        .group
        .sample_size(10)
        .throughput(Throughput::Bytes(stream.len() as u64));
    let mut ours_file = file.try_clone().unwrap();
    let mut theirs_file = file.try_clone().unwrap();
    group.versus(
        "write/file",
        || {
            restart(&mut ours_file);
            alkaid_write_to(&ours, "none", &ours_file);
        },
        || {
            restart(&mut theirs_file);
            arrow_write_to(&theirs, "none", &theirs_file);
        },
    );
    group
        .group
        .bench_function(BenchmarkId::new("one_write", "write/file"), |b| {
            b.iter(|| {
                restart(&mut file);
                file.write_all(black_box(&stream)).unwrap();
            })
        });
    // Read back: the file holds the stream as Alkaid wrote it (both libraries read it).
    restart(&mut file);
    file.write_all(&stream).unwrap();
    group.versus(
        "read/file",
        || {
            (&file).seek(SeekFrom::Start(0)).unwrap();
            alkaid_rows(&file)
        },
        || {
            (&file).seek(SeekFrom::Start(0)).unwrap();
            arrow_rows(&file)
        },
    );
    let mut room = vec![0u8; stream.len()];
    group
        .group
        .bench_function(BenchmarkId::new("one_read", "read/file"), |b| {
            b.iter(|| {
                let mut input = &file;
                input.seek(SeekFrom::Start(0)).unwrap();
                input.read_exact(&mut room).unwrap();
            })
        });

    // A loopback socket whose other end a thread drains into a reused buffer.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let drain = std::thread::spawn(move || {
        let (mut peer, _) = listener.accept().unwrap();
        let mut sink = vec![0u8; 1 << 20];
        while peer.read(&mut sink).is_ok_and(|n| n > 0) {}
    });
    let socket = TcpStream::connect(address).unwrap();
    socket.set_nodelay(true).unwrap();
    group.versus(
        "write/socket",
        || alkaid_write_to(&ours, "none", &socket),
        || arrow_write_to(&theirs, "none", &socket),
    );
    group
        .group
        .bench_function(BenchmarkId::new("one_write", "write/socket"), |b| {
            b.iter(|| (&socket).write_all(black_box(&stream)).unwrap())
        });
    drop(socket);
    drain.join().unwrap();

    // Reading from a socket: a thread writes the stream (from one buffer) each time it is
    // asked, and the reader reads up to its end-of-stream marker.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let (ask, asked) = std::sync::mpsc::channel::<()>();
    let bytes = stream.clone();
    let source = std::thread::spawn(move || {
        let (mut peer, _) = listener.accept().unwrap();
        while asked.recv().is_ok() {
            peer.write_all(&bytes).unwrap();
        }
    });
    let socket = TcpStream::connect(address).unwrap();
    group.versus(
        "read/socket",
        || {
            ask.send(()).unwrap();
            alkaid_rows(&socket)
        },
        || {
            ask.send(()).unwrap();
            arrow_rows(&socket)
        },
    );
    group
        .group
        .bench_function(BenchmarkId::new("one_read", "read/socket"), |b| {
            b.iter(|| {
                ask.send(()).unwrap();
                (&socket).read_exact(&mut room).unwrap();
            })
        });
    drop(ask);
    source.join().unwrap();
    group.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = ipc, ipc_io
}
criterion_main!(benches);

//! Peak resident memory of one IPC read or write, through Alkaid or arrow-rs, for
//! `benches/peak_rss.py` (which runs each measurement in a process of its own and pyarrow
//! beside it).
//!
//! ```text
//! peak_rss read    alkaid|arrow STREAM
//! peak_rss write   alkaid|arrow none|lz4|zstd FILE OUT
//! peak_rss parquet alkaid|arrow FILE ROWS
//! ```
//!
//! `read` reads every batch of the stream file `STREAM` through a `File` and drops each in
//! turn. `write` loads the one batch of the IPC file `FILE` into memory, then writes it as a
//! stream with the codec to `OUT`. `parquet` reads the Parquet file `FILE` through a `File`
//! in batches of `ROWS` rows, dropping each in turn. Each prints `baseline_kib peak_kib`:
//! the resident memory before the operation, and the most resident during it (the kernel's
//! high-water mark, reset after the baseline is taken); `parquet` adds the size of its
//! largest batch in KiB.

use std::fs::File;
use std::io::BufWriter;

/// A line of `/proc/self/status`, in KiB.
fn status_kib(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{key} in /proc/self/status"))
}

/// Takes the baseline and resets the high-water mark (`5` to `clear_refs`, Linux 4.0+).
fn baseline() -> u64 {
    std::fs::write("/proc/self/clear_refs", "5").expect("resetting the peak resident size");
    status_kib("VmRSS:")
}

fn read(library: &str, path: &str) -> (u64, u64) {
    let base = baseline();
    let rows: usize = match library {
        "alkaid" => alkaid_ipc::StreamReader::try_new(File::open(path).unwrap())
            .unwrap()
            .map(|batch| batch.unwrap().num_rows())
            .sum(),
        _ => arrow_ipc::reader::StreamReader::try_new(File::open(path).unwrap(), None)
            .unwrap()
            .map(|batch| batch.unwrap().num_rows())
            .sum(),
    };
    assert!(rows > 0, "{path} has rows");
    (base, status_kib("VmHWM:"))
}

fn write(library: &str, codec: &str, path: &str, out: &str) -> (u64, u64) {
    let bytes = std::fs::read(path).unwrap();
    let out = BufWriter::new(File::create(out).unwrap());
    match library {
        "alkaid" => {
            let reader = alkaid_ipc::FileReader::from_buffer(bytes.into()).unwrap();
            let batch = reader.into_iter().next().unwrap().unwrap();
            let compression = match codec {
                "lz4" => alkaid_ipc::Compression::Lz4Frame,
                "zstd" => alkaid_ipc::Compression::ZSTD,
                _ => alkaid_ipc::Compression::None,
            };
            let options = alkaid_ipc::WriteOptions::default().with_compression(compression);
            let base = baseline();
            let mut writer =
                alkaid_ipc::StreamWriter::try_new(out, batch.schema().clone(), options).unwrap();
            writer.write(&batch).unwrap();
            writer.finish().unwrap();
            (base, status_kib("VmHWM:"))
        }
        _ => {
            let reader =
                arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
            let batch = reader.into_iter().next().unwrap().unwrap();
            let compression = match codec {
                "lz4" => Some(arrow_ipc::CompressionType::LZ4_FRAME),
                "zstd" => Some(arrow_ipc::CompressionType::ZSTD),
                _ => None,
            };
            let options = arrow_ipc::writer::IpcWriteOptions::default()
                .try_with_compression(compression)
                .unwrap();
            let base = baseline();
            let mut writer = arrow_ipc::writer::StreamWriter::try_new_with_options(
                out,
                &batch.schema(),
                options,
            )
            .unwrap();
            writer.write(&batch).unwrap();
            writer.finish().unwrap();
            (base, status_kib("VmHWM:"))
        }
    }
}

fn parquet(library: &str, path: &str, rows: usize) -> (u64, u64, u64) {
    let base = baseline();
    let mut largest = 0usize;
    let mut read = 0usize;
    match library {
        "alkaid" => {
            let options =
                alkaid_formats::parquet::ParquetReadOptions::default().with_batch_size(rows);
            for batch in alkaid_formats::parquet::read_with(path, options).unwrap() {
                let batch = batch.unwrap();
                read += batch.num_rows();
                // The same buffers, seen by arrow-rs's count (the bridge copies nothing).
                let bytes = alkaid_arrow::arrow60::batch_to_arrow(&batch).get_array_memory_size();
                largest = largest.max(bytes);
            }
        }
        _ => {
            let file = File::open(path).unwrap();
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .unwrap()
                    .with_batch_size(rows)
                    .build()
                    .unwrap();
            for batch in reader {
                let batch = batch.unwrap();
                read += batch.num_rows();
                largest = largest.max(batch.get_array_memory_size());
            }
        }
    }
    assert!(read > 0, "{path} has rows");
    (base, status_kib("VmHWM:"), largest as u64 / 1024)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (base, peak) = match args[..] {
        ["read", library, path] => read(library, path),
        ["write", library, codec, path, out] => write(library, codec, path, out),
        ["parquet", library, path, rows] => {
            let (base, peak, batch) = parquet(library, path, rows.parse().unwrap());
            println!("{base} {peak} {batch}");
            return;
        }
        _ => {
            eprintln!(
                "usage: peak_rss read LIBRARY STREAM | write LIBRARY CODEC FILE OUT | \
                 parquet LIBRARY FILE ROWS"
            );
            std::process::exit(2);
        }
    };
    println!("{base} {peak}");
}

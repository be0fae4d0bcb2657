//! CSV and newline-delimited JSON read from a `RangeSource` in 4 MiB chunks: what they read
//! equals what the synchronous readers read from the same bytes, with lines, quoted
//! newlines and multi-byte characters cut by the chunk boundaries; a bad row past the first
//! chunk, and a source that answers short, are errors naming the place.

use std::io::Cursor;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use alkaid_array::RecordBatch;
use alkaid_array::display::pretty_format_batches;
use alkaid_buffer::Buffer;
use alkaid_formats::{csv, json};
use alkaid_ipc_async::RangeSource;
use futures_util::TryStreamExt;

/// Bytes in memory, recording the ranges asked for.
struct Logged {
    bytes: Buffer,
    log: Mutex<Vec<Range<u64>>>,
    /// Every answer one byte short.
    short: bool,
}

impl Logged {
    fn new(bytes: &[u8]) -> Self {
        Self {
            bytes: Buffer::from_slice_ref(bytes),
            log: Mutex::new(Vec::new()),
            short: false,
        }
    }
}

impl RangeSource for Logged {
    async fn size(&self) -> alkaid_ipc::Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    async fn fetch(&self, range: Range<u64>) -> alkaid_ipc::Result<Buffer> {
        self.log.lock().unwrap().push(range.clone());
        let end = range.end - u64::from(self.short);
        self.bytes.fetch(range.start..end).await
    }
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// About 9 MiB of CSV: three chunks, with quoted fields holding newlines and commas, and
/// text of two-, three- and four-byte characters, so that the boundaries cut all of them.
fn csv_text() -> Vec<u8> {
    let mut text = String::from("id,name,score,note\n");
    let mut i = 0u64;
    while text.len() < 9 << 20 {
        let note = match i % 4 {
            0 => "\"two\nlines, quoted\"".to_string(),
            1 => "ünïcödé ✓ 日本語 🦀".to_string(),
            2 => String::new(),
            _ => format!("plain {i}"),
        };
        let score = match i % 7 {
            0 => String::new(),
            _ => format!("{}.{}", i % 1000, i % 10),
        };
        text.push_str(&format!("{i},name-{},{score},{note}\n", i % 97));
        i += 1;
    }
    text.into_bytes()
}

fn json_text() -> Vec<u8> {
    let mut text = String::new();
    let mut i = 0u64;
    while text.len() < 5 << 20 {
        let inner = match i % 3 {
            0 => "null".to_string(),
            _ => format!("{{\"k\": \"ü{i}🦀\", \"xs\": [{i}, {}]}}", i * 2),
        };
        text.push_str(&format!("{{\"id\": {i}, \"nested\": {inner}}}\n"));
        i += 1;
    }
    text.into_bytes()
}

fn shown(batches: &[RecordBatch]) -> String {
    pretty_format_batches(batches, None).to_string()
}

#[test]
fn csv_in_chunks_reads_as_csv_whole() {
    let text = csv_text();
    let whole = csv::reader(
        Cursor::new(text.clone()),
        "t.csv".into(),
        csv::CsvReadOptions::default(),
    )
    .unwrap()
    .collect_all()
    .unwrap();
    let source = Arc::new(Logged::new(&text));
    let chunked: Vec<RecordBatch> = block_on(async {
        csv::read_source(
            Arc::clone(&source),
            "s3://b/t.csv",
            csv::CsvReadOptions::default(),
        )
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
    });
    assert_eq!(whole[0].schema(), chunked[0].schema());
    assert_eq!(shown(&whole), shown(&chunked));
    // The sample, then the text in three chunks.
    let log = source.log.lock().unwrap().clone();
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(
        log[1..].iter().all(|r| r.end - r.start <= 4 << 20),
        "{log:?}"
    );
}

#[test]
fn json_in_chunks_reads_as_json_whole() {
    let text = json_text();
    let whole = json::reader(
        Cursor::new(text.clone()),
        "t.ndjson".into(),
        json::JsonReadOptions::default(),
    )
    .unwrap()
    .collect_all()
    .unwrap();
    let source = Arc::new(Logged::new(&text));
    let chunked: Vec<RecordBatch> = block_on(async {
        json::read_source(
            Arc::clone(&source),
            "t.ndjson",
            json::JsonReadOptions::default(),
        )
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
    });
    assert_eq!(whole[0].schema(), chunked[0].schema());
    assert_eq!(shown(&whole), shown(&chunked));
}

#[test]
fn a_bad_row_past_the_first_chunk_is_an_error_naming_the_place() {
    let mut text = csv_text();
    text.extend_from_slice(b"1,2\n");
    let error = block_on(async {
        csv::read_source(
            Logged::new(&text),
            "s3://b/ragged.csv",
            csv::CsvReadOptions::default(),
        )
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err()
        .to_string()
    });
    assert!(error.starts_with("s3://b/ragged.csv: batch "), "{error}");
    let mut text = json_text();
    text.extend_from_slice(b"{\"id\": 1, \"nested\": {\"k\": \n");
    let error = block_on(async {
        json::read_source(
            Logged::new(&text),
            "cut.ndjson",
            json::JsonReadOptions::default(),
        )
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err()
        .to_string()
    });
    assert!(error.starts_with("cut.ndjson: batch "), "{error}");
    // The line is named, read whole or in chunks.
    let line = text.iter().filter(|&&b| b == b'\n').count();
    let named = format!("line {line}, column 26: not JSON");
    assert!(error.contains(&named), "{error}");
    let whole = json::reader(
        Cursor::new(text.clone()),
        "cut.ndjson".into(),
        json::JsonReadOptions::default(),
    )
    .unwrap()
    .collect_all()
    .unwrap_err()
    .to_string();
    assert!(whole.contains(&named), "{whole}");
    // A value that does not fit the schema's type, past the rows inference reads.
    let mut text = json_text();
    text.extend_from_slice(b"{\"id\": \"seven\"}\n");
    let line = text.iter().filter(|&&b| b == b'\n').count();
    let error = block_on(async {
        json::read_source(
            Logged::new(&text),
            "late.ndjson",
            json::JsonReadOptions::default(),
        )
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err()
        .to_string()
    });
    assert!(error.contains(&format!("line {line}: ")), "{error}");
    assert!(error.contains("seven"), "{error}");
}

#[test]
fn a_short_answer_is_an_error_not_a_wrong_read() {
    let text = b"a,b\n1,2\n".to_vec();
    let mut source = Logged::new(&text);
    source.short = true;
    let error = block_on(csv::read_source(
        source,
        "short.csv",
        csv::CsvReadOptions::default(),
    ))
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("short.csv") && error.contains("returned"),
        "{error}"
    );
    // An empty object: no rows, no request.
    let empty = Arc::new(Logged::new(b""));
    let batches: Vec<RecordBatch> = block_on(async {
        csv::read_source(
            Arc::clone(&empty),
            "empty.csv",
            csv::CsvReadOptions::default(),
        )
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
    });
    assert!(batches.is_empty());
    assert!(empty.log.lock().unwrap().is_empty());
}

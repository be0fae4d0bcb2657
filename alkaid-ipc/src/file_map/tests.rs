use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use alkaid_array::{ArrayRef, Int64Array, RecordBatch};
use alkaid_schema::{DataType, Field, Schema};

use super::*;
use crate::{FileReader, FileWriter, IpcErrorKind, ReadOptions};

/// A fresh path in the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("alkaid-file-map-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir.join("file"))
    }

    fn write(&self, bytes: &[u8]) {
        File::create(&self.0).unwrap().write_all(bytes).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
    }
}

const PAGE: usize = 4096;

#[test]
fn a_map_holds_the_files_bytes() {
    let scratch = Scratch::new("bytes");
    let bytes: Vec<u8> = (0..3 * PAGE + 17).map(|i| (i % 251) as u8).collect();
    scratch.write(&bytes);
    let map = FileMap::open(&scratch.0).unwrap();
    assert_eq!(map.buffer().as_slice(), &bytes[..]);
    assert_eq!(map.is_mapped(), cfg!(target_os = "linux"));
    map.check().unwrap();
}

#[test]
fn an_empty_file_is_an_empty_buffer() {
    let scratch = Scratch::new("empty");
    scratch.write(&[]);
    let map = FileMap::open(&scratch.0).unwrap();
    assert!(map.buffer().is_empty());
    map.check().unwrap();
}

#[test]
fn a_missing_file_is_an_io_error() {
    let scratch = Scratch::new("missing");
    let e = FileMap::open(scratch.0.with_extension("nothing")).unwrap_err();
    assert_eq!(e.kind(), IpcErrorKind::Io);
}

/// A file truncated under its map: the missing pages read as zeros, the pages that are still
/// there keep their bytes, and `check` says the file shrank.
#[cfg(target_os = "linux")]
#[test]
fn a_file_that_shrinks_under_its_map_is_an_error_not_a_crash() {
    let scratch = Scratch::new("shrinks");
    scratch.write(&vec![0xAB; 5 * PAGE]);
    let map = FileMap::open(&scratch.0).unwrap();
    assert!(map.is_mapped());
    let bytes = map.buffer().clone();
    assert_eq!(bytes[0], 0xAB);
    map.check().unwrap();
    File::options()
        .write(true)
        .open(&scratch.0)
        .unwrap()
        .set_len(PAGE as u64 + 100)
        .unwrap();
    // A page past the new end: without the guard, this read raises SIGBUS.
    assert_eq!(std::hint::black_box(&bytes[3 * PAGE + 5]), &0);
    assert!(bytes[2 * PAGE..].iter().all(|&b| b == 0));
    assert_eq!(bytes[..PAGE + 100], vec![0xAB; PAGE + 100][..]);
    let e = map.check().unwrap_err();
    assert_eq!(e.kind(), IpcErrorKind::Truncated);
    assert!(e.to_string().contains("shrank"), "{e}");
}

/// An IPC file truncated while a reader reads batches from its map: each batch either fails
/// to decode or validate, or `check` reports the shrinking; the batches before are intact.
#[cfg(target_os = "linux")]
#[test]
fn reading_batches_of_a_file_that_shrinks_ends_in_an_error() {
    let scratch = Scratch::new("ipc");
    let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
    let file = File::create(&scratch.0).unwrap();
    let mut writer = FileWriter::try_new(file, schema.clone(), Default::default()).unwrap();
    for b in 0..8i64 {
        let column: ArrayRef = Arc::new(Int64Array::from(Vec::from_iter(
            (0..8192).map(|i| b * 8192 + i),
        )));
        writer
            .write(&RecordBatch::try_new(schema.clone(), vec![column]).unwrap())
            .unwrap();
    }
    writer.finish().unwrap();
    let map = FileMap::open(&scratch.0).unwrap();
    let mut reader = FileReader::open(map.buffer().clone(), ReadOptions::default()).unwrap();
    let first = reader.batch(0).unwrap();
    map.check().unwrap();
    let len = map.buffer().len();
    File::options()
        .write(true)
        .open(&scratch.0)
        .unwrap()
        .set_len(len as u64 / 3)
        .unwrap();
    let mut failed = false;
    for i in 0..reader.num_batches() {
        let read = reader.batch(i);
        if read.is_err() || map.check().is_err() {
            failed = true;
        }
    }
    assert!(
        failed,
        "a read of a file that lost two thirds of its bytes must fail"
    );
    assert!(map.check().is_err());
    // The first batch was read before: its first page is still the file's.
    let values = first
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(values.value(0), 0);
}

/// More maps than the handler's table holds: the rest are read, with the same bytes, and
/// dropped maps give their places back.
#[test]
fn past_the_tables_size_files_are_read() {
    let scratch = Scratch::new("many");
    let bytes: Vec<u8> = (0..PAGE + 3).map(|i| (i % 7) as u8).collect();
    scratch.write(&bytes);
    let maps: Vec<FileMap> = (0..600)
        .map(|_| FileMap::open(&scratch.0).unwrap())
        .collect();
    assert!(maps.iter().all(|m| m.buffer().as_slice() == &bytes[..]));
    let read = maps.iter().filter(|m| !m.is_mapped()).count();
    if cfg!(target_os = "linux") {
        assert!(read >= 600 - 512, "{read} of 600 read");
    }
    drop(maps);
    let again = FileMap::open(&scratch.0).unwrap();
    assert_eq!(again.is_mapped(), cfg!(target_os = "linux"));
}

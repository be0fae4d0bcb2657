//! The inputs the Rust benchmarks measure, written as IPC files for `pyarrow_bench.py`, so
//! that pyarrow times the same operations on the same bytes.
//!
//! Every bench binary writes its inputs under `bench-data/` in the target directory when it
//! starts (a second or two of its run). Failing to write only warns: the Rust figures do not
//! depend on it.

use std::path::PathBuf;

use alkaid_array::RecordBatch;

/// The directory the exported inputs go to: `bench-data/` in the target directory.
pub fn directory() -> Option<PathBuf> {
    crate::target_dir().map(|target| target.join("bench-data"))
}

/// Writes `bytes` to `bench-data/{name}`.
pub fn bytes(name: &str, bytes: &[u8]) {
    let Some(dir) = directory() else { return };
    let file = dir.join(name);
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, bytes)) {
        eprintln!("could not write {}: {e}", file.display());
    }
}

/// `batches` as an uncompressed IPC file with the `ARROW1` magic, which pyarrow reads.
pub fn file_bytes(batches: &[RecordBatch]) -> Vec<u8> {
    let options = alkaid_ipc::WriteOptions::default().with_magic(alkaid_ipc::Magic::Arrow);
    let schema = batches[0].schema().clone();
    let mut writer = alkaid_ipc::FileWriter::try_new(Vec::new(), schema, options)
        .expect("the benchmark's schema encodes");
    for batch in batches {
        writer.write(batch).expect("the benchmark's batch encodes");
    }
    writer.into_inner().expect("writing into a Vec cannot fail")
}

/// Writes `batch` as `bench-data/{name}.arrow`, an uncompressed IPC file.
pub fn batch(name: &str, batch: &RecordBatch) {
    bytes(
        &format!("{name}.arrow"),
        &file_bytes(std::slice::from_ref(batch)),
    );
}

//! SQL through DataFusion 55 over four IPC files of the `ipc.rs` columns (1 Mi rows each,
//! 4 Mi in all, 64 Ki-row batches): alkaid-datafusion's provider against DataFusion's own
//! Arrow IPC reader, on the same `ARROW1` files, uncompressed and LZ4, timed in
//! alternation. Queries: a scan of one column and of all seven, a filter and aggregate,
//! and a top-k.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alkaid_benches::{VersusGroup, ipc_batch};
use alkaid_datafusion::AlkaidContextExt;
use alkaid_ipc::{Compression, FileWriter, Magic, WriteOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use datafusion::execution::options::ArrowReadOptions;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures_util::StreamExt;

const FILES: usize = 4;
const ROWS_PER_FILE: usize = 1 << 20;
const BATCH_ROWS: usize = 64 << 10;

/// Writes the four files under `target/bench-data/datafusion/{name}/` once.
fn files(name: &str, compression: Compression) -> PathBuf {
    let dir = alkaid_benches::target_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("bench-data/datafusion")
        .join(name);
    if dir.join(format!("part-{}.arrow", FILES - 1)).exists() {
        return dir;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let batch = ipc_batch::alkaid_batch(&ipc_batch::columns(ROWS_PER_FILE));
    for part in 0..FILES {
        let options = WriteOptions::default()
            .with_compression(compression)
            .with_magic(Magic::Arrow);
        let file = std::fs::File::create(dir.join(format!("part-{part}.arrow"))).unwrap();
        let mut writer = FileWriter::try_new(file, batch.schema().clone(), options).unwrap();
        for start in (0..ROWS_PER_FILE).step_by(BATCH_ROWS) {
            writer.write(&batch.slice(start, BATCH_ROWS)).unwrap();
        }
        writer.finish().unwrap();
    }
    dir
}

fn context() -> SessionContext {
    // Two partitions: the machine's two cores.
    SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2))
}

/// Rows of `query`'s result, streamed (not collected: a scan of all columns would hold
/// 250 MB).
async fn rows(ctx: &SessionContext, query: &str) -> usize {
    let mut stream = ctx
        .sql(query)
        .await
        .unwrap()
        .execute_stream()
        .await
        .unwrap();
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        rows += batch.unwrap().num_rows();
    }
    rows
}

const QUERIES: [(&str, &str); 4] = [
    ("scan_1_of_7", "SELECT floats FROM t"),
    ("scan_7_of_7", "SELECT * FROM t"),
    (
        "filter_aggregate",
        "SELECT count(*), sum(floats), max(words) FROM t WHERE ints > 549755813888 AND flags",
    ),
    (
        "top_k",
        "SELECT ints, words FROM t ORDER BY floats DESC, ints LIMIT 10",
    ),
];

fn datafusion(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = VersusGroup::new(c, "datafusion");
    group.group.sample_size(10);
    for (name, compression) in [("none", Compression::None), ("lz4", Compression::Lz4Frame)] {
        let dir = files(name, compression);
        let url = format!("{}/", Path::new(&dir).display());
        let (ours, theirs) = runtime.block_on(async {
            let ours = context();
            ours.register_alkaid("t", &url).await.unwrap();
            let theirs = context();
            theirs
                .register_arrow("t", &url, ArrowReadOptions::default())
                .await
                .unwrap();
            (Arc::new(ours), Arc::new(theirs))
        });
        for (query_name, query) in QUERIES {
            // Both give the same number of rows before anything is timed.
            let (a, b) =
                runtime.block_on(async { (rows(&ours, query).await, rows(&theirs, query).await) });
            assert_eq!(a, b, "{query}");
            group.versus(
                &format!("{query_name}/{name}"),
                || runtime.block_on(rows(&ours, query)),
                || runtime.block_on(rows(&theirs, query)),
            );
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = datafusion
}
criterion_main!(benches);

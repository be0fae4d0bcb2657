//! Replays every input committed under `regressions/<target>/` (minimised crashes that
//! fuzzing found, fixed since) and the interop fixtures through each target's body: none
//! may panic.

use std::path::Path;

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 11] = [
    ("ipc_stream", alkaid_fuzz::ipc_stream),
    ("ipc_file", alkaid_fuzz::ipc_file),
    ("ipc_zero_copy", alkaid_fuzz::ipc_zero_copy),
    ("array_data", alkaid_fuzz::array_data),
    ("c_data", alkaid_fuzz::c_data),
    ("tensor", alkaid_fuzz::tensor),
    ("integration_json", alkaid_fuzz::integration_json),
    ("cast_text", alkaid_fuzz::cast_text),
    ("parquet", alkaid_fuzz::parquet),
    ("csv", alkaid_fuzz::csv),
    ("json", alkaid_fuzz::json),
];

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// The Flight SQL service's target, with the feature that builds it.
#[cfg(feature = "flight_sql")]
#[test]
fn flight_sql_regressions_and_seeds_replay_without_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = files(&root.join("regressions/flight_sql"));
    inputs.extend(files(&root.join("seeds/flight_sql")));
    assert!(inputs.len() >= 10, "the seeds are there");
    for path in inputs {
        alkaid_fuzz::flight_sql(&std::fs::read(&path).unwrap());
    }
}

#[test]
fn regressions_and_fixtures_replay_without_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut fixtures = files(&root.join("../alkaid-ipc/tests/fixtures/pyarrow"));
    fixtures.extend(files(&root.join("../alkaid-integration/tests/data")));
    assert!(fixtures.len() > 10, "the fixtures are there");
    let mut replayed = 0;
    for (name, target) in TARGETS {
        for path in files(&root.join("regressions").join(name))
            .iter()
            .chain(&fixtures)
        {
            let bytes = std::fs::read(path).unwrap();
            target(&bytes);
            replayed += 1;
        }
    }
    assert!(replayed >= TARGETS.len() * fixtures.len());
}

//! Shared pieces of the benchmarks: seeded data generators and the criterion settings.
//!
//! Every bench binary runs the same work through Alkaid and through arrow-rs in one criterion
//! group, so the two figures of a row come from one binary, one allocator and one set of
//! build flags. `report.py` beside this crate turns criterion's output into the table in
//! `benches/README.md`.

pub mod data;

use std::time::Duration;

use criterion::Criterion;

/// Criterion settings sized for a 2-core machine: short warm-up, a few seconds per figure.
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
        .configure_from_args()
}

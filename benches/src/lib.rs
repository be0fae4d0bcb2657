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

/// Registers the figures `alkaid/{id}` and `arrow/{id}` in `group`, each timed in
/// alternation with the other: every timed run of one library is followed by an untimed
/// run of the other.
///
/// On this shared machine, a library's time for the same work moves by 20% and more over
/// tens of seconds (both libraries' times for a random gather of `i32`s switch between
/// about 0.93 and 1.23 ms), so two figures measured one after the other can differ by
/// that much for no reason in either library. Alternating puts both under the same
/// conditions at each moment: in a standalone A/B loop that alternates, `take` of `i32`
/// read 1.00× in eight runs out of eight, while back-to-back criterion runs read 0.74× to
/// 1.31×. Each figure costs twice the time to measure.
pub fn versus<O, T>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    mut ours: impl FnMut() -> O,
    mut theirs: impl FnMut() -> T,
) {
    group.bench_function(criterion::BenchmarkId::new("alkaid", id), |b| {
        b.iter_custom(|iters| alternate(iters, &mut ours, &mut theirs))
    });
    group.bench_function(criterion::BenchmarkId::new("arrow", id), |b| {
        b.iter_custom(|iters| alternate(iters, &mut theirs, &mut ours))
    });
}

/// The time `iters` runs of `timed` take, each followed by an untimed run of `other`. The
/// timed run's result is dropped inside the timing, as `Bencher::iter` does.
fn alternate<A, B>(
    iters: u64,
    timed: &mut impl FnMut() -> A,
    other: &mut impl FnMut() -> B,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = std::time::Instant::now();
        drop(std::hint::black_box(timed()));
        total += start.elapsed();
        drop(std::hint::black_box(other()));
    }
    total
}

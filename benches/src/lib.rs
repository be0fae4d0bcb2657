//! Shared pieces of the benchmarks: seeded data generators and the criterion settings.
//!
//! Every bench binary runs the same work through Alkaid and through arrow-rs in one criterion
//! group, so the two figures of a row come from one binary, one allocator and one set of
//! build flags. `report.py` beside this crate turns criterion's output into the table in
//! `benches/README.md`. Each binary also writes its inputs as IPC files ([`export`]) for
//! `pyarrow_bench.py`, which times pyarrow on the same bytes.

/// With the `mimalloc` feature, both libraries in every bench binary allocate through
/// mimalloc; without it, through the system allocator (glibc's malloc here).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod compute_inputs;
pub mod data;
pub mod export;
pub mod ipc_batch;
pub mod select_inputs;

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

/// A criterion benchmark group that knows its name, so that [`VersusGroup::versus`] can
/// file its paired times under it. Other figures (memcpy floors) go through `group`.
pub struct VersusGroup<'a> {
    /// The criterion group, for settings and for figures that are not pairs.
    pub group: criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>,
    name: &'static str,
}

impl<'a> VersusGroup<'a> {
    /// Opens the group `name`.
    pub fn new(c: &'a mut Criterion, name: &'static str) -> Self {
        Self {
            group: c.benchmark_group(name),
            name,
        }
    }

    /// Registers the figures `alkaid/{id}` and `arrow/{id}`, each measured in alternation
    /// with the other: every run of one library is followed by a run of the other, and both
    /// are timed. Criterion's figures are the timed runs of the library they name; the sums
    /// of both libraries' runs, paired run by run across both figures, go to
    /// `criterion/paired/{group}/{id}.json` beside criterion's output, where `report.py`
    /// takes the ratio from.
    ///
    /// On this shared machine, a library's time for the same work moves by 20% and more
    /// from one stretch of seconds to the next (both libraries' times for a random gather
    /// of `i32`s switch between about 0.93 and 1.23 ms), and criterion measures one figure
    /// after the other, so two figures can differ by that much for no reason in either
    /// library. Runs timed next to each other see the same machine: a standalone loop that
    /// alternates read `take` of `i32` at 1.00× in eight runs out of eight, while
    /// criterion's figures for it read 0.74× to 1.31× on the same day.
    pub fn versus<O, T>(&mut self, id: &str, ours: impl FnMut() -> O, theirs: impl FnMut() -> T) {
        let paired = self.alternated(id, ["alkaid", "arrow"], ours, theirs);
        paired.save(self.name, id);
    }

    /// Registers the figures `{names[0]}/{id}` and `{names[1]}/{id}` of two ways of doing
    /// the same work, measured in alternation as [`versus`](Self::versus) measures the two
    /// libraries (two Alkaid paths, say); nothing goes to `criterion/paired/`.
    pub fn pair<O, T>(
        &mut self,
        id: &str,
        names: [&str; 2],
        first: impl FnMut() -> O,
        second: impl FnMut() -> T,
    ) {
        self.alternated(id, names, first, second);
    }

    /// Both figures, each timed in alternation with the other; the paired sums.
    fn alternated<O, T>(
        &mut self,
        id: &str,
        names: [&str; 2],
        mut first: impl FnMut() -> O,
        mut second: impl FnMut() -> T,
    ) -> Paired {
        let mut paired = Paired::default();
        self.group
            .bench_function(criterion::BenchmarkId::new(names[0], id), |b| {
                b.iter_custom(|iters| {
                    let (timed, other) = alternate(iters, &mut first, &mut second);
                    paired.add(timed, other, iters);
                    timed
                })
            });
        self.group
            .bench_function(criterion::BenchmarkId::new(names[1], id), |b| {
                b.iter_custom(|iters| {
                    let (timed, other) = alternate(iters, &mut second, &mut first);
                    paired.add(other, timed, iters);
                    timed
                })
            });
        paired
    }

    /// Closes the group.
    pub fn finish(self) {
        self.group.finish();
    }
}

/// Calls `f` with every buffer `data` holds: its own, its validity bitmap's, its children's
/// and its dictionary's.
pub fn each_buffer(data: &alkaid_data::ArrayData, f: &mut impl FnMut(&[u8])) {
    for buffer in data.buffers() {
        f(buffer);
    }
    if let Some(nulls) = data.nulls() {
        f(nulls.validity().inner());
    }
    for child in data.children() {
        each_buffer(child, f);
    }
    if let Some(dictionary) = data.dictionary() {
        each_buffer(dictionary, f);
    }
}

/// Where criterion writes its results: `$CRITERION_HOME` (so that a run with the other
/// allocator can keep its own, `CRITERION_HOME=target/criterion-mimalloc`), or `criterion/`
/// in the target directory.
pub fn criterion_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("CRITERION_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| target_dir().map(|target| target.join("criterion")))
}

/// The target directory: `$CARGO_TARGET_DIR`, or the one the bench binary was built in.
pub fn target_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            // target/<profile>/deps/<binary>
            exe.ancestors().nth(3).map(std::path::Path::to_path_buf)
        })
}

/// Both libraries' times over the runs [`VersusGroup::versus`] paired.
#[derive(Default)]
struct Paired {
    alkaid: Duration,
    arrow: Duration,
    pairs: u64,
}

impl Paired {
    fn add(&mut self, alkaid: Duration, arrow: Duration, pairs: u64) {
        self.alkaid += alkaid;
        self.arrow += arrow;
        self.pairs += pairs;
    }

    /// Writes the sums as JSON under [`criterion_dir`]. Nothing is written when
    /// no run was paired (a filter skipped both figures); failing to write only warns.
    fn save(&self, group_name: &str, id: &str) {
        if self.pairs == 0 {
            return;
        }
        let Some(criterion) = criterion_dir() else {
            return;
        };
        let dir = criterion.join("paired").join(group_name);
        let file = dir.join(format!("{}.json", id.replace('/', "_")));
        let json = format!(
            "{{\"group\": \"{group_name}\", \"id\": \"{id}\", \"alkaid_ns\": {}, \"arrow_ns\": {}, \"pairs\": {}}}\n",
            self.alkaid.as_nanos(),
            self.arrow.as_nanos(),
            self.pairs
        );
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, json)) {
            eprintln!("could not write {}: {e}", file.display());
        }
    }
}

/// The times of `iters` runs of `timed` and of the run of `other` that follows each. A
/// result is dropped inside its run's timing, as `Bencher::iter` does.
fn alternate<A, B>(
    iters: u64,
    timed: &mut impl FnMut() -> A,
    other: &mut impl FnMut() -> B,
) -> (Duration, Duration) {
    let (mut timed_total, mut other_total) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..iters {
        let start = std::time::Instant::now();
        drop(std::hint::black_box(timed()));
        let middle = std::time::Instant::now();
        drop(std::hint::black_box(other()));
        timed_total += middle - start;
        other_total += middle.elapsed();
    }
    (timed_total, other_total)
}

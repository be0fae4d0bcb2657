//! Progress on standard error for long work (`convert`, `validate`, `get`, `put`): batches,
//! rows and bytes done, and the rate, redrawn in place by indicatif. Only when standard
//! error is a terminal, and only once the work has taken a second (a short command prints
//! nothing more than its answer); piped or redirected, nothing is drawn. The line is
//! cleared when the work ends, so the command's own answer follows on a clean screen.
//!
//! `ALKAID_PROGRESS_AFTER_MS` sets the wait in milliseconds (the tests set 0).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use alkaid_array::RecordBatch;
use alkaid_data::ArrayData;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before its progress is drawn, unless the environment says.
const SHOWN_AFTER: Duration = Duration::from_secs(1);

/// The progress of one command's work.
pub struct Report {
    what: &'static str,
    started: Instant,
    shown_after: Duration,
    terminal: bool,
    bar: Option<ProgressBar>,
    batches: u64,
    rows: u64,
    bytes: u64,
}

impl Report {
    /// Starts timing `what` ("converting", say).
    pub fn new(what: &'static str) -> Self {
        let shown_after = std::env::var("ALKAID_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(SHOWN_AFTER, Duration::from_millis);
        Self {
            what,
            started: Instant::now(),
            shown_after,
            terminal: std::io::stderr().is_terminal(),
            bar: None,
            batches: 0,
            rows: 0,
            bytes: 0,
        }
    }

    /// Notes that `batch` is done.
    pub fn batch(&mut self, batch: &RecordBatch) {
        // Piped or redirected, nothing is ever drawn: nothing is counted either, so a
        // script's `convert` does no work per batch for it.
        if !self.terminal {
            return;
        }
        self.batches += 1;
        self.rows += batch.num_rows() as u64;
        self.bytes += batch
            .columns()
            .iter()
            .map(|c| data_bytes(&c.to_data()))
            .sum::<u64>();
        if self.started.elapsed() < self.shown_after {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {prefix}: {msg}, {binary_bytes} ({binary_bytes_per_sec}), {elapsed}",
                )
                .expect("a valid template"),
            );
            bar.set_prefix(self.what);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        bar.set_position(self.bytes);
        bar.set_message(format!("{} batches, {} rows", self.batches, self.rows));
    }
}

impl Drop for Report {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The bytes of an array's buffers, its children's included (views of shared memory
/// counted at their length: the work done, not the memory held).
fn data_bytes(data: &ArrayData) -> u64 {
    let own: usize = data.buffers().iter().map(|b| b.len()).sum();
    let nulls = data.nulls().map_or(0, |n| n.validity().inner().len());
    let children: u64 = data.children().iter().map(data_bytes).sum();
    (own + nulls) as u64 + children
}

//! Progress on standard error for work that takes more than a couple of seconds.

use std::time::{Duration, Instant};

/// Reports rows done every two seconds, after the first two.
pub struct Report {
    what: &'static str,
    started: Instant,
    last: Instant,
}

impl Report {
    /// Starts timing `what` ("converting", say).
    pub fn new(what: &'static str) -> Self {
        let now = Instant::now();
        Self {
            what,
            started: now,
            last: now,
        }
    }

    /// Notes that `rows` rows are done; prints a line if two seconds passed since the last.
    pub fn tick(&mut self, rows: usize) {
        if self.last.elapsed() >= Duration::from_secs(2) {
            eprintln!("{}: {rows} rows, {:.0?}", self.what, self.started.elapsed());
            self.last = Instant::now();
        }
    }
}

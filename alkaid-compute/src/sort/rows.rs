//! Sorting row numbers by a list of [`Column`]s: the one algorithm behind every sort,
//! top-k, rank and the ranks of nested values.
//!
//! Rows that are null in the first key go to one end, sorted by the remaining keys; the
//! others are sorted as (word, row) pairs: by a radix sort of the words when there are
//! many, then rows with equal words by the full comparison (the first column's values,
//! the next columns, finally the row number, which is what makes every sort here
//! stable); small inputs sort with that comparison directly. Asked for only the first
//! `limit` rows, the pairs are partitioned around the `limit`-th first and only those
//! before it are sorted.

use std::cmp::Ordering;

use super::radix::{RADIX_MIN_LEN, radix_sort};

/// What sorting needs of a column: a word per row whose order is the requested order,
/// and a comparison for rows whose words are equal (`sort/key.rs` makes them).
pub(super) trait Column {
    /// Row `row`'s word (meaningless for null rows).
    fn word(&self, row: usize) -> u64;
    /// Whether row `row` is null.
    fn is_null(&self, row: usize) -> bool;
    /// Whether null rows come before the values.
    fn nulls_first(&self) -> bool;
    /// Whether equal words can hide unequal values.
    fn has_ties(&self) -> bool;
    /// How valid rows `a` and `b` compare in the requested order.
    fn compare_valid(&self, a: usize, b: usize) -> Ordering;
    /// For byte values: row `row`'s word at `depth` (bytes `8 * depth` on) and how many
    /// bytes it has there (at most 8), in the requested order; `None` for other columns.
    fn word_at(&self, row: usize, depth: usize) -> Option<(u64, u8)>;

    /// How rows `a` and `b` compare in the requested order, nulls placed as asked.
    #[inline]
    fn compare(&self, a: usize, b: usize) -> Ordering {
        match (self.is_null(a), self.is_null(b)) {
            (false, false) => self.compare_valid(a, b),
            (true, true) => Ordering::Equal,
            (true, false) if self.nulls_first() => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if self.nulls_first() => Ordering::Greater,
            (false, true) => Ordering::Less,
        }
    }
}

/// How rows `a` and `b` compare by `keys`, in order (equal if every key says so).
#[inline]
pub(super) fn compare_rows<C: Column>(keys: &[C], a: usize, b: usize) -> Ordering {
    for key in keys {
        match key.compare(a, b) {
            Ordering::Equal => continue,
            unequal => return unequal,
        }
    }
    Ordering::Equal
}

/// The first `limit` of `rows` in the order of `keys`, ties in the order of row numbers
/// (`rows` need not be ascending: ties are broken by row number, not position).
pub(super) fn sort_rows<C: Column>(keys: &[C], rows: Vec<u32>, limit: usize) -> Vec<u32> {
    let Some((first, rest)) = keys.split_first() else {
        let mut rows = rows;
        rows.sort_unstable();
        rows.truncate(limit);
        return rows;
    };
    let (nulls, valid): (Vec<u32>, Vec<u32>) =
        rows.into_iter().partition(|&r| first.is_null(r as usize));
    let (nulls_wanted, valid_wanted) = if first.nulls_first() {
        let n = nulls.len().min(limit);
        (n, (limit - n).min(valid.len()))
    } else {
        let v = valid.len().min(limit);
        ((limit - v).min(nulls.len()), v)
    };
    let nulls = sort_rows(rest, nulls, nulls_wanted);
    let valid = sort_valid(first, rest, valid, valid_wanted);
    let (mut head, tail) = if first.nulls_first() {
        (nulls, valid)
    } else {
        (valid, nulls)
    };
    head.extend(tail);
    head
}

/// The first `limit` of `rows` (all valid in `first`) in the order of `first`, then of
/// `rest`, then of row number.
fn sort_valid<C: Column>(first: &C, rest: &[C], rows: Vec<u32>, limit: usize) -> Vec<u32> {
    let exact = !first.has_ties() && rest.is_empty();
    // Rows with equal words: by the first column in full, then the rest, then row number.
    let refine = |a: &(u64, u32), b: &(u64, u32)| {
        first
            .compare_valid(a.1 as usize, b.1 as usize)
            .then_with(|| compare_rows(rest, a.1 as usize, b.1 as usize))
            .then(a.1.cmp(&b.1))
    };
    if limit > 0 && limit <= TOP_MAX && rows.len() >= 8 * limit {
        return top_rows(first, &rows, limit, |a, b| {
            a.0.cmp(&b.0).then_with(|| refine(a, b))
        });
    }
    let mut pairs: Vec<(u64, u32)> = rows
        .into_iter()
        .map(|r| (first.word(r as usize), r))
        .collect();
    if limit < pairs.len() || pairs.len() < RADIX_MIN_LEN {
        if exact {
            // Words say everything: (word, row) pairs compare as tuples of integers.
            partial_sort(&mut pairs, limit, |a, b| a.cmp(b));
        } else {
            partial_sort(&mut pairs, limit, |a, b| {
                a.0.cmp(&b.0).then_with(|| refine(a, b))
            });
        }
    } else {
        // Whole and large: by word in linear passes (stable, so rows stay in order within
        // a word), then each run of equal words by the full comparison if words can tie.
        radix_sort(&mut pairs);
        if !exact {
            let bytes = pairs
                .first()
                .is_some_and(|p| first.word_at(p.1 as usize, 0).is_some());
            for run in pairs.chunk_by_mut(|a, b| a.0 == b.0) {
                if run.len() < 2 {
                    continue;
                }
                if bytes {
                    let mut rows: Vec<u32> = run.iter().map(|p| p.1).collect();
                    refine_bytes(first, rest, &mut rows, 0);
                    for (pair, row) in run.iter_mut().zip(rows) {
                        pair.1 = row;
                    }
                } else {
                    run.sort_unstable_by(refine);
                }
            }
        }
    }
    pairs.into_iter().map(|(_, row)| row).collect()
}

/// The largest limit [`top_rows`] keeps: it inserts into a sorted list of this many.
const TOP_MAX: usize = 256;

/// The first `limit` of `rows` by `compare` (word first, a total order), by one scan that
/// keeps the best `limit` so far, sorted: most rows are turned away by one comparison of
/// their word with the worst row kept.
fn top_rows<C: Column>(
    first: &C,
    rows: &[u32],
    limit: usize,
    compare: impl Fn(&(u64, u32), &(u64, u32)) -> Ordering,
) -> Vec<u32> {
    let mut best: Vec<(u64, u32)> = Vec::with_capacity(limit + 1);
    for &row in rows {
        let candidate = (first.word(row as usize), row);
        if let Some(worst) = best.get(limit - 1)
            && (candidate.0 > worst.0 || compare(&candidate, worst) != Ordering::Less)
        {
            continue;
        }
        let at = best.partition_point(|kept| compare(kept, &candidate) == Ordering::Less);
        best.insert(at, candidate);
        best.truncate(limit);
    }
    best.into_iter().map(|(_, row)| row).collect()
}

/// Sorts `rows` (valid in `first`, whose byte values agree before byte `8 * depth`) by
/// `first`'s bytes from there on, then by `rest`, then by row number: a run at a time by
/// (word, byte count, row) integer tuples, deeper only where a run's words fill all
/// eight bytes. No value is compared in full.
fn refine_bytes<C: Column>(first: &C, rest: &[C], rows: &mut [u32], depth: usize) {
    let mut keyed: Vec<(u64, u8, u32)> = rows
        .iter()
        .map(|&row| {
            let (word, count) = first.word_at(row as usize, depth).unwrap_or_default();
            (word, count, row)
        })
        .collect();
    keyed.sort_unstable();
    for (slot, &(_, _, row)) in rows.iter_mut().zip(&keyed) {
        *slot = row;
    }
    let mut start = 0;
    for run in keyed.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
        let (end, count) = (start + run.len(), run[0].1);
        if run.len() > 1 {
            // Eight bytes here, in the requested order (a descending count is inverted).
            let full = count == 8 || count == !8;
            if full {
                refine_bytes(first, rest, &mut rows[start..end], depth + 1);
            } else if !rest.is_empty() {
                // Equal values: by the next columns, ties in row order (a stable sort of
                // rows that are in row order already).
                rows[start..end].sort_by(|&a, &b| compare_rows(rest, a as usize, b as usize));
            }
        }
        start = end;
    }
}

/// Sorts the first `limit` elements of `items` into place (by `compare`, a total order)
/// and drops the rest.
fn partial_sort<T>(items: &mut Vec<T>, limit: usize, compare: impl Fn(&T, &T) -> Ordering) {
    if limit == 0 {
        items.clear();
        return;
    }
    if limit < items.len() {
        items.select_nth_unstable_by(limit - 1, &compare);
        items.truncate(limit);
    }
    items.sort_unstable_by(compare);
}

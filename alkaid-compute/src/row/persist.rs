//! Rows on disk and back, and a k-way merge of sorted runs of them: what an external sort
//! spills and merges.
//!
//! A block of rows is written as:
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | `AKRW` |
//! | 1 | the version, 1 |
//! | 8 | the number of rows `n`, little-endian |
//! | 8 | the number of row bytes `b`, little-endian |
//! | 4 · n | each row's length, `u32` little-endian |
//! | b | the rows' bytes, one after another |
//!
//! A file of a sorted run is blocks one after another. Reading trusts nothing: the magic,
//! the version, the lengths adding up to `b` and the input's end are checked, and memory
//! grows only as bytes arrive (a header claiming 2^60 rows allocates nothing until they
//! come). The bytes of a row are not checked here: [`super::RowConverter::convert_rows`]
//! refuses rows no column encodes.

use std::io::{self, Read, Write};

use super::layout::Rows;
use crate::error::ComputeError;

const MAGIC: &[u8; 4] = b"AKRW";
const VERSION: u8 = 1;
/// Rows, lengths and bytes are read in pieces of at most this many bytes each.
const PIECE: u64 = 1 << 20;

impl Rows {
    /// Writes the rows as one block: `AKRW`, a version byte (1), the number of rows `n` and
    /// of row bytes as little-endian `u64`s, `n` row lengths as little-endian `u32`s, then
    /// the rows' bytes. A sorted run spilled to disk is such blocks one after another;
    /// [`Rows::read_block`] reads them back and [`RowMerger`] merges runs.
    ///
    /// # Errors
    /// If `out` fails, or a row is longer than `u32::MAX` bytes.
    pub fn write_block(&self, out: &mut impl Write) -> io::Result<()> {
        let mut header = Vec::with_capacity(21 + 4 * self.len());
        header.extend_from_slice(MAGIC);
        header.push(VERSION);
        header.extend_from_slice(&(self.len() as u64).to_le_bytes());
        header.extend_from_slice(&(self.data.len() as u64).to_le_bytes());
        for row in self.iter() {
            let len = u32::try_from(row.len()).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidInput, "a row longer than 4 GiB")
            })?;
            header.extend_from_slice(&len.to_le_bytes());
        }
        out.write_all(&header)?;
        out.write_all(&self.data)
    }

    /// Reads one block of rows; `None` at the input's end (before a block starts).
    ///
    /// # Errors
    /// If the input fails, ends inside a block, or is not a block of this version.
    pub fn read_block(input: &mut impl Read) -> Result<Option<Self>, ComputeError> {
        let corrupt = |what: String| ComputeError::InvalidArgument(format!("rows block: {what}"));
        let mut header = [0u8; 21];
        let first = read_some(input, &mut header)?;
        if first == 0 {
            return Ok(None);
        }
        if first < header.len() {
            return Err(corrupt(format!(
                "the input ends after {first} bytes of a header"
            )));
        }
        if &header[..4] != MAGIC {
            return Err(corrupt(format!(
                "expected the magic AKRW, found {:?}",
                &header[..4]
            )));
        }
        if header[4] != VERSION {
            return Err(corrupt(format!(
                "version {} (this build reads version {VERSION})",
                header[4]
            )));
        }
        let count = u64::from_le_bytes(header[5..13].try_into().expect("8 bytes"));
        let bytes = u64::from_le_bytes(header[13..21].try_into().expect("8 bytes"));
        let lengths = read_exact_growing(input, count.saturating_mul(4), "row lengths")?;
        let mut offsets = Vec::with_capacity(lengths.len() / 4 + 1);
        let mut end = 0u64;
        offsets.push(0usize);
        for length in lengths.chunks_exact(4) {
            end += u64::from(u32::from_le_bytes(length.try_into().expect("4 bytes")));
            if end > bytes {
                return Err(corrupt(format!(
                    "row lengths add up past the {bytes} bytes declared"
                )));
            }
            offsets.push(usize::try_from(end).map_err(|_| corrupt("too large".into()))?);
        }
        if end != bytes {
            return Err(corrupt(format!(
                "row lengths add up to {end}, not the {bytes} declared"
            )));
        }
        let data = read_exact_growing(input, bytes, "row bytes")?;
        Ok(Some(Rows { data, offsets }))
    }
}

/// Fills `buffer` as far as the input goes; the number of bytes read.
fn read_some(input: &mut impl Read, buffer: &mut [u8]) -> Result<usize, ComputeError> {
    let mut filled = 0;
    while filled < buffer.len() {
        match input.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ComputeError::InvalidArgument(format!("rows block: {e}"))),
        }
    }
    Ok(filled)
}

/// Exactly `len` bytes, read a piece at a time, so that memory grows with what arrives.
fn read_exact_growing(
    input: &mut impl Read,
    len: u64,
    what: &str,
) -> Result<Vec<u8>, ComputeError> {
    let mut out = Vec::new();
    let mut remaining = len;
    while remaining > 0 {
        let piece = remaining.min(PIECE) as usize;
        let start = out.len();
        out.resize(start + piece, 0);
        let got = read_some(input, &mut out[start..])?;
        if got < piece {
            return Err(ComputeError::InvalidArgument(format!(
                "rows block: the input ends {} bytes into {len} bytes of {what}",
                len - remaining + got as u64
            )));
        }
        remaining -= piece as u64;
    }
    Ok(out)
}

/// Where a merged row came from: its run, and its position in that run (counting every
/// block of the run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// The run, by its position in the list given to [`RowMerger::new`].
    pub run: usize,
    /// The row's position in the run.
    pub row: u64,
}

/// A run being merged: its current block and the next row in it.
struct Cursor<I> {
    blocks: I,
    block: Rows,
    next: usize,
    /// Rows of the run before the current block.
    before: u64,
}

/// A k-way merge of sorted runs of rows (each a sequence of blocks, as [`Rows::read_block`]
/// gives them): the rows of all runs in order, equal rows in run order (a stable merge of
/// runs that are themselves stably sorted). Rows are compared as bytes, as the row format
/// orders them.
///
/// ```
/// use alkaid_array::Int32Array;
/// use alkaid_compute::row::{RowConverter, RowMerger, Rows, SortField};
/// use alkaid_compute::sort::SortOptions;
/// use alkaid_schema::DataType;
/// let converter = RowConverter::new(vec![SortField::new(DataType::Int32, SortOptions::ASCENDING)])?;
/// let run = |values: Vec<i32>| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
///     let mut file = Vec::new();
///     converter.convert_columns(&[&Int32Array::from(values)])?.write_block(&mut file)?;
///     Ok(file)
/// };
/// let (a, b) = (run(vec![1, 4, 9])?, run(vec![2, 3, 10])?);
/// let blocks = |file: Vec<u8>| {
///     let mut input = std::io::Cursor::new(file);
///     std::iter::from_fn(move || Rows::read_block(&mut input).transpose())
/// };
/// let mut merger = RowMerger::new(vec![blocks(a), blocks(b)])?;
/// let (rows, _origins) = merger.next_batch(100)?.expect("rows");
/// let merged = converter.convert_rows(&rows)?;
/// let merged = alkaid_array::AsArray::as_primitive::<alkaid_array::types::Int32Type>(merged[0].as_ref());
/// assert_eq!(merged.values().as_slice(), &[1, 2, 3, 4, 9, 10]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RowMerger<I> {
    cursors: Vec<Cursor<I>>,
    /// A binary min-heap of the runs that have rows left, by their next row.
    heap: Vec<usize>,
}

impl<I: Iterator<Item = Result<Rows, ComputeError>>> RowMerger<I> {
    /// A merge of `runs`, each the blocks of one sorted run.
    ///
    /// # Errors
    /// If reading a run's first block fails.
    pub fn new(runs: Vec<I>) -> Result<Self, ComputeError> {
        let mut cursors = Vec::with_capacity(runs.len());
        for blocks in runs {
            cursors.push(Cursor {
                blocks,
                block: Rows::default(),
                next: 0,
                before: 0,
            });
        }
        let mut merger = Self {
            cursors,
            heap: Vec::new(),
        };
        for run in 0..merger.cursors.len() {
            if merger.advance_block(run)? {
                merger.push(run);
            }
        }
        Ok(merger)
    }

    /// Up to `max_rows` next rows, in order, and where each came from; `None` when every
    /// run is done.
    ///
    /// # Errors
    /// If reading a run's next block fails.
    pub fn next_batch(
        &mut self,
        max_rows: usize,
    ) -> Result<Option<(Rows, Vec<Origin>)>, ComputeError> {
        if self.heap.is_empty() {
            return Ok(None);
        }
        let mut rows = Rows {
            data: Vec::new(),
            offsets: vec![0],
        };
        let mut origins = Vec::new();
        while origins.len() < max_rows.max(1) {
            let Some(&run) = self.heap.first() else { break };
            let cursor = &mut self.cursors[run];
            rows.data.extend_from_slice(cursor.block.row(cursor.next));
            rows.offsets.push(rows.data.len());
            origins.push(Origin {
                run,
                row: cursor.before + cursor.next as u64,
            });
            cursor.next += 1;
            let more = cursor.next < cursor.block.len() || self.advance_block(run)?;
            if more {
                self.sift_down(0);
            } else {
                let last = self.heap.pop().expect("the run was in the heap");
                if !self.heap.is_empty() {
                    self.heap[0] = last;
                    self.sift_down(0);
                }
            }
        }
        Ok(Some((rows, origins)))
    }

    /// Moves run `run` to its next block with rows; whether there is one.
    fn advance_block(&mut self, run: usize) -> Result<bool, ComputeError> {
        let cursor = &mut self.cursors[run];
        cursor.before += cursor.block.len() as u64;
        loop {
            match cursor.blocks.next().transpose()? {
                Some(block) if block.is_empty() => continue,
                Some(block) => {
                    cursor.block = block;
                    cursor.next = 0;
                    return Ok(true);
                }
                None => {
                    cursor.block = Rows::default();
                    cursor.next = 0;
                    return Ok(false);
                }
            }
        }
    }

    /// Whether run `a`'s next row comes before run `b`'s (ties: the earlier run).
    fn before(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.cursors[a], &self.cursors[b]);
        match x.block.row(x.next).cmp(y.block.row(y.next)) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => a < b,
        }
    }

    fn push(&mut self, run: usize) {
        self.heap.push(run);
        let mut at = self.heap.len() - 1;
        while at > 0 {
            let parent = (at - 1) / 2;
            if !self.before(self.heap[at], self.heap[parent]) {
                break;
            }
            self.heap.swap(at, parent);
            at = parent;
        }
    }

    fn sift_down(&mut self, mut at: usize) {
        loop {
            let (left, right) = (2 * at + 1, 2 * at + 2);
            let mut first = at;
            for child in [left, right] {
                if child < self.heap.len() && self.before(self.heap[child], self.heap[first]) {
                    first = child;
                }
            }
            if first == at {
                return;
            }
            self.heap.swap(at, first);
            at = first;
        }
    }
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Int64Array, StringArray};
    use alkaid_schema::DataType;

    use super::*;
    use crate::row::{RowConverter, SortField};
    use crate::sort::SortOptions;

    fn converter() -> RowConverter {
        RowConverter::new(vec![
            SortField::new(DataType::Utf8, SortOptions::ASCENDING),
            SortField::new(DataType::Int64, SortOptions::DESCENDING),
        ])
        .unwrap()
    }

    fn rows(words: &[Option<&str>], numbers: &[i64]) -> Rows {
        let words = StringArray::from(words.to_vec());
        let numbers = Int64Array::from(numbers.to_vec());
        converter().convert_columns(&[&words, &numbers]).unwrap()
    }

    fn blocks(file: Vec<u8>) -> impl Iterator<Item = Result<Rows, ComputeError>> {
        let mut input = io::Cursor::new(file);
        std::iter::from_fn(move || Rows::read_block(&mut input).transpose())
    }

    #[test]
    fn blocks_round_trip_and_several_follow_each_other() {
        let first = rows(&[Some("a"), None, Some("日本")], &[1, 2, 3]);
        let empty = rows(&[], &[]);
        let mut file = Vec::new();
        for block in [&first, &empty, &first] {
            block.write_block(&mut file).unwrap();
        }
        let read: Vec<Rows> = blocks(file).collect::<Result<_, _>>().unwrap();
        assert_eq!(read, [first.clone(), empty, first]);
    }

    #[test]
    fn hostile_blocks_are_errors_not_allocations() {
        let good = rows(&[Some("x")], &[7]);
        let mut file = Vec::new();
        good.write_block(&mut file).unwrap();
        let read = |bytes: &[u8]| Rows::read_block(&mut io::Cursor::new(bytes.to_vec()));
        for cut in [3, 21, 25, file.len() - 1] {
            let error = read(&file[..cut]).unwrap_err().to_string();
            assert!(error.contains("ends"), "cut at {cut}: {error}");
        }
        let mut wrong = file.clone();
        wrong[0] = b'X';
        assert!(read(&wrong).unwrap_err().to_string().contains("magic"));
        wrong = file.clone();
        wrong[4] = 2;
        assert!(read(&wrong).unwrap_err().to_string().contains("version 2"));
        // A header that claims 2^60 rows: refused when the input ends, having allocated
        // no more than a piece.
        let mut huge = file[..21].to_vec();
        huge[5..13].copy_from_slice(&(1u64 << 60).to_le_bytes());
        assert!(read(&huge).unwrap_err().to_string().contains("ends"));
        // Lengths that do not add up to the bytes declared.
        wrong = file.clone();
        wrong[13] += 1;
        assert!(read(&wrong).unwrap_err().to_string().contains("add up"));
        assert!(read(&[]).unwrap().is_none());
    }

    #[test]
    fn merging_runs_is_stable_and_spans_blocks() {
        let words = [Some("b"), Some("a"), None, Some("b"), Some("c"), Some("a")];
        let numbers = [1, 2, 3, 1, 5, 2];
        // Three runs, each sorted, the first in two blocks; equal rows across runs.
        fn sorted(w: &[Option<&'static str>], n: &[i64]) -> (Vec<Option<&'static str>>, Vec<i64>) {
            let all = rows(w, n);
            let mut order: Vec<usize> = (0..all.len()).collect();
            order.sort_by(|&x, &y| all.row(x).cmp(all.row(y)));
            (
                order.iter().map(|&i| w[i]).collect(),
                order.iter().map(|&i| n[i]).collect(),
            )
        }
        let (w0, n0) = sorted(&words[..4], &numbers[..4]);
        let mut run0 = Vec::new();
        rows(&w0[..2], &n0[..2]).write_block(&mut run0).unwrap();
        rows(&w0[2..], &n0[2..]).write_block(&mut run0).unwrap();
        let mut run1 = Vec::new();
        rows(&[Some("a"), Some("b")], &[2, 1])
            .write_block(&mut run1)
            .unwrap();
        let mut run2 = Vec::new();
        rows(&[Some("c")], &[5]).write_block(&mut run2).unwrap();
        let mut merger = RowMerger::new(vec![blocks(run0), blocks(run1), blocks(run2)]).unwrap();
        let mut merged = Vec::new();
        let mut origins = Vec::new();
        while let Some((batch, from)) = merger.next_batch(3).unwrap() {
            assert!(batch.len() <= 3);
            merged.extend(batch.iter().map(<[u8]>::to_vec));
            origins.extend(from);
        }
        assert_eq!(merged.len(), 7);
        assert!(merged.windows(2).all(|w| w[0] <= w[1]), "in order");
        // ("a", 2) twice: run 0's first, then run 1's.
        let twins: Vec<Origin> = origins
            .iter()
            .zip(&merged)
            .filter(|(_, row)| **row == rows(&[Some("a")], &[2]).row(0))
            .map(|(o, _)| *o)
            .collect();
        assert_eq!(
            twins,
            [Origin { run: 0, row: 0 }, Origin { run: 1, row: 0 }]
        );
        let decoded = converter().convert_rows(&{
            let mut all = Rows {
                data: Vec::new(),
                offsets: vec![0],
            };
            for row in &merged {
                all.data.extend_from_slice(row);
                all.offsets.push(all.data.len());
            }
            all
        });
        assert_eq!(decoded.unwrap()[0].len(), 7);
        let mut none =
            RowMerger::new(Vec::<std::vec::IntoIter<Result<Rows, ComputeError>>>::new()).unwrap();
        assert!(none.next_batch(10).unwrap().is_none());
    }
}

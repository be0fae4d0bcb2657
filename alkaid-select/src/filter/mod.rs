//! Filtering: keep the slots a boolean mask selects.
//!
//! A [`FilterPredicate`] is prepared once from the mask (nulls in the mask count as false)
//! and reused for every column of a batch. It picks its strategy from the mask's shape, not
//! its selectivity alone: everything, nothing, a list of runs when runs are long (copied a
//! range at a time), a list of indices when few slots are selected, or else the mask's set
//! bits walked word by word for each column (gathered one at a time).
//!
//! With runs, each layout is copied a run at a time ([`runs`]). With indices, every layout
//! goes through `take`.

mod runs;

use std::sync::OnceLock;

use alkaid_array::{Array, ArrayRef, BooleanArray, RecordBatch, make_array};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;

use crate::batch::each_column;
use crate::error::SelectError;
use crate::take::gather::{Present, SetBits};
use crate::take::take_data;
use runs::Runs;
pub(crate) use runs::joins_whole_children;

/// How a prepared mask selects.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Strategy {
    All,
    None,
    /// Half-open ranges of selected slots: how many (or a close bound), found in the mask
    /// by each copy of whole values, and listed in [`FilterPredicate::runs`] when a column
    /// first needs them as a list.
    Runs(usize),
    /// Scattered slots: the mask's set bits, walked afresh for each column (a word at a
    /// time, which costs less than reading a list of indices back from memory).
    Scattered,
    /// Few slots (fewer than one per 64): their indices, listed once, so that no column
    /// walks the whole mask again.
    Sparse(Vec<usize>),
}

/// A mask prepared for filtering arrays of its length, reusable across columns.
///
/// ```
/// use alkaid_array::{BooleanArray, Int32Array};
/// use alkaid_select::FilterPredicate;
/// let mask = BooleanArray::from(vec![Some(true), None, Some(false), Some(true)]);
/// let predicate = FilterPredicate::new(&mask);
/// assert_eq!(predicate.count(), 2); // the null counts as false
/// let kept = predicate.filter(&Int32Array::from(vec![1, 2, 3, 4]))?;
/// assert_eq!(kept.len(), 2);
/// # Ok::<(), alkaid_select::SelectError>(())
/// ```
#[derive(Debug, Clone)]
pub struct FilterPredicate {
    /// The mask's true (and valid) slots.
    bits: BooleanBuffer,
    len: usize,
    count: usize,
    strategy: Strategy,
    /// The runs of [`Strategy::Runs`], listed when a column first needs them as a list
    /// (rebased offsets, joined slices). Copies of whole values find them in the mask as
    /// they go instead, and a boolean column of short runs, filtered word by word, needs
    /// only their number: listing 8 Ki runs cost about 12% of an `i32` filter, and more
    /// than a boolean filter itself (1 Mi slots in runs of 64).
    runs: OnceLock<Vec<(usize, usize)>>,
}

/// Runs at least this long on average are copied a run at a time; shorter ones are
/// gathered slot by slot.
pub(crate) const LONG_RUN: usize = 8;

impl FilterPredicate {
    /// Prepares `mask`; null mask slots count as false.
    pub fn new(mask: &BooleanArray) -> Self {
        let bits = true_bits(mask);
        let len = bits.len();
        let count = bits.count_set_bits();
        let strategy = if count == len {
            Strategy::All
        } else if count == 0 {
            Strategy::None
        } else if count < len / 64 {
            Strategy::Sparse(bits.set_indices().collect())
        } else if len - count < count / LONG_RUN {
            // Runs are separated by unset bits, so there are at most `len - count + 1` of
            // them: with few unset bits, no need to count (13 µs of 85 at 0.999 of 1 Mi).
            Strategy::Runs(len - count + 1)
        } else if let Some(runs) = bits.count_set_runs_at_most(count / LONG_RUN) {
            Strategy::Runs(runs)
        } else {
            Strategy::Scattered
        };
        Self {
            bits,
            len,
            count,
            strategy,
            runs: OnceLock::new(),
        }
    }

    /// Number of selected slots.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The selected slots of `array`.
    ///
    /// # Errors
    /// If `array`'s length differs from the mask's.
    pub fn filter(&self, array: &dyn Array) -> Result<ArrayRef, SelectError> {
        Ok(make_array(self.filter_data(&array.to_data())?))
    }

    /// The selected slots of `data`.
    ///
    /// # Errors
    /// If `data`'s length differs from the mask's.
    pub fn filter_data(&self, data: &ArrayData) -> Result<ArrayData, SelectError> {
        if data.len() != self.len {
            return Err(SelectError::Mismatch(format!(
                "expected an array of {} slots for the mask, found {}",
                self.len,
                data.len()
            )));
        }
        let positions = SetBits {
            bits: &self.bits,
            count: self.count,
        };
        let runs = match &self.strategy {
            Strategy::All => return Ok(data.clone()),
            Strategy::None => return Ok(data.slice(0, 0)),
            // Scattered slots: gathered one at a time, as `take` does.
            Strategy::Scattered => return take_data(data, &positions),
            Strategy::Sparse(indices) => return take_data(data, &Present(indices)),
            Strategy::Runs(run_count) => Runs {
                runs: &self.runs,
                run_count: *run_count,
                count: self.count,
                mask: Some(&self.bits),
            },
        };
        runs.filter(data)
    }
}

/// The slots where `mask` is true and not null, as bits: how every mask kernel reads a
/// mask.
pub(crate) fn true_bits(mask: &BooleanArray) -> BooleanBuffer {
    match mask.nulls() {
        Some(nulls) => mask.values() & nulls.validity(),
        None => mask.values().clone(),
    }
}

/// The slots of `array` where `mask` is true (null mask slots count as false).
///
/// # Errors
/// If the lengths differ.
pub fn filter(array: &dyn Array, mask: &BooleanArray) -> Result<ArrayRef, SelectError> {
    FilterPredicate::new(mask).filter(array)
}

/// The rows of `batch` where `mask` is true, every column filtered with one prepared mask.
///
/// # Errors
/// If the lengths differ.
pub fn filter_record_batch(
    batch: &RecordBatch,
    mask: &BooleanArray,
) -> Result<RecordBatch, SelectError> {
    let predicate = FilterPredicate::new(mask);
    if mask.len() != batch.num_rows() {
        return Err(SelectError::Mismatch(format!(
            "expected a mask of {} rows, found {}",
            batch.num_rows(),
            mask.len()
        )));
    }
    each_column(batch, predicate.count(), |column| predicate.filter(column))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use alkaid_array::types::Int32Type;
    use alkaid_array::{AsArray, Int32Array, LargeBinaryArray, StringArray};
    use alkaid_schema::{DataType, Field, Schema};

    #[test]
    fn strategies_follow_the_mask_shape() {
        let pick = |bits: Vec<bool>| FilterPredicate::new(&BooleanArray::from(bits)).strategy;
        assert_eq!(pick(vec![true; 4]), Strategy::All);
        assert_eq!(pick(vec![false; 4]), Strategy::None);
        let long: Vec<bool> = (0..64).map(|i| i < 40).collect();
        assert_eq!(pick(long), Strategy::Runs(1));
        let few_unset: Vec<bool> = (0..100).map(|i| i != 30 && i != 31 && i != 70).collect();
        let predicate = FilterPredicate::new(&BooleanArray::from(few_unset));
        // Not counted: at most one more run than unset slots.
        assert_eq!(predicate.strategy, Strategy::Runs(4));
        let kept = predicate
            .filter(&Int32Array::from((0..100).collect::<Vec<i32>>()))
            .unwrap();
        let kept: Vec<i32> = kept.as_primitive::<Int32Type>().values().to_vec();
        assert_eq!(
            kept,
            (0..100)
                .filter(|i| ![30, 31, 70].contains(i))
                .collect::<Vec<_>>()
        );
        // Whole values are copied as the runs are found in the mask: no list made.
        assert!(predicate.runs.get().is_none());
        // Offsets are rebased from the list, made on first use.
        let words = StringArray::from((0..100).map(|i| i.to_string()).collect::<Vec<_>>());
        let kept_words = predicate.filter(&words).unwrap();
        assert_eq!(kept_words.len(), 97);
        assert_eq!(kept_words.as_string::<i32>().value(30), "32");
        assert_eq!(
            predicate.runs.get().unwrap(),
            &[(0, 30), (32, 70), (71, 100)]
        );
        let scattered: Vec<bool> = (0..64).map(|i| i % 3 == 0).collect();
        assert_eq!(pick(scattered), Strategy::Scattered);
        let sparse: Vec<bool> = (0..1000).map(|i| i % 300 == 7).collect();
        assert_eq!(pick(sparse), Strategy::Sparse(vec![7, 307, 607, 907]));
    }

    #[test]
    fn batches_filter_with_one_mask() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int32, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![1, 2, 3])),
            Arc::new(StringArray::from(vec!["a", "b", "c"])),
        ];
        let batch = RecordBatch::try_new(schema, columns).unwrap();
        let kept =
            filter_record_batch(&batch, &BooleanArray::from(vec![true, false, true])).unwrap();
        assert_eq!(kept.num_rows(), 2);
        assert_eq!(kept.column(0).as_primitive::<Int32Type>().value(1), 3);
        assert_eq!(kept.column(1).as_string::<i32>().value(1), "c");
        let short = BooleanArray::from(vec![true]);
        assert!(matches!(
            filter_record_batch(&batch, &short),
            Err(SelectError::Mismatch(_))
        ));
        assert!(filter(batch.column(0).as_ref(), &short).is_err());
    }

    #[test]
    fn bitmaps_of_many_short_runs_filter_word_by_word_with_the_same_result() {
        // Runs of 64 and of 10 (both many per mask word), over booleans with nulls and
        // over an integer column's validity, sliced at an offset that is not a multiple of 8.
        let values: Vec<Option<bool>> = (0..5_000)
            .map(|i| (i % 7 != 3).then_some(i % 3 == 0))
            .collect();
        let ints: Vec<Option<i32>> = (0..5_000).map(|i| (i % 5 != 1).then_some(i)).collect();
        for run in [64, 10] {
            let bits: Vec<bool> = (0..4_000).map(|i| (i / run) % 2 == 0).collect();
            let predicate = FilterPredicate::new(&BooleanArray::from(bits.clone()));
            assert!(
                matches!(predicate.strategy, Strategy::Runs(_)),
                "runs of {run}"
            );
            let flags = BooleanArray::from(values.clone()).slice(13, 4_000);
            let kept = predicate.filter(flags.as_ref()).unwrap();
            // A boolean column alone filters word by word: the runs were never listed.
            assert!(predicate.runs.get().is_none(), "runs of {run}");
            drop(kept);
            let flags = BooleanArray::from(values.clone()).slice(13, 4_000);
            let kept = predicate.filter(flags.as_ref()).unwrap();
            let kept = kept.as_boolean();
            let expected: Vec<Option<bool>> = (0..4_000)
                .filter(|&i| bits[i])
                .map(|i| values[13 + i])
                .collect();
            assert_eq!(kept.iter().collect::<Vec<_>>(), expected, "runs of {run}");
            let numbers = Int32Array::from(ints.clone()).slice(13, 4_000);
            let kept = predicate.filter(numbers.as_ref()).unwrap();
            let expected: Vec<Option<i32>> = (0..4_000)
                .filter(|&i| bits[i])
                .map(|i| ints[13 + i])
                .collect();
            let kept = kept.as_primitive::<Int32Type>();
            assert_eq!(kept.iter().collect::<Vec<_>>(), expected, "runs of {run}");
        }
    }

    #[test]
    fn strings_of_many_short_runs_copy_each_runs_bytes() {
        // Text and large binary with nulls and empty values, sliced at an offset, filtered by
        // runs of 64 and of 9: each run's offsets rebased, its bytes copied once.
        let words: Vec<Option<String>> = (0..3_000)
            .map(|i| (i % 11 != 4).then(|| "ab".repeat(i % 5)))
            .collect();
        for run in [64, 9] {
            let bits: Vec<bool> = (0..2_500).map(|i| (i / run) % 3 != 1).collect();
            let predicate = FilterPredicate::new(&BooleanArray::from(bits.clone()));
            assert!(
                matches!(predicate.strategy, Strategy::Runs(_)),
                "runs of {run}"
            );
            let expected: Vec<Option<String>> = (0..2_500)
                .filter(|&i| bits[i])
                .map(|i| words[17 + i].clone())
                .collect();
            let text = StringArray::from(words.clone()).slice(17, 2_500);
            let kept = predicate.filter(text.as_ref()).unwrap();
            let kept: Vec<Option<String>> = kept
                .as_string::<i32>()
                .iter()
                .map(|s| s.map(str::to_owned))
                .collect();
            assert_eq!(kept, expected, "runs of {run}");
            let bytes: Vec<Option<&[u8]>> = words
                .iter()
                .map(|w| w.as_deref().map(str::as_bytes))
                .collect();
            let binary = LargeBinaryArray::from(bytes).slice(17, 2_500);
            let kept = predicate.filter(binary.as_ref()).unwrap();
            let kept: Vec<Option<String>> = kept
                .as_typed::<LargeBinaryArray>()
                .unwrap()
                .iter()
                .map(|b| b.map(|b| String::from_utf8(b.to_vec()).unwrap()))
                .collect();
            assert_eq!(kept, expected, "runs of {run}");
            // The copy starts at the first selected value, whatever the slice's offsets.
            assert_eq!(
                predicate.filter(text.as_ref()).unwrap().to_data().buffers()[0]
                    .typed::<i32>()
                    .unwrap()[0],
                0
            );
        }
    }
}

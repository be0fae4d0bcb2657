//! Distinct values: a hash table of row numbers keyed by the row hash, with the crate's row
//! equality deciding between rows whose hashes meet.

use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, Int64Array, StructArray, UInt64Array};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Field};
use alkaid_select::take;
use hashbrown::HashTable;

use super::values::value_hashes;
use crate::error::ComputeError;
use crate::row_eq::row_eq;
use crate::validity::logical_nulls;

/// The distinct rows of an array, in the order they first appear.
pub(crate) struct DistinctRows {
    /// The first row of each distinct value.
    pub firsts: Vec<usize>,
    /// How many (selected) rows hold each distinct value.
    pub counts: Vec<u64>,
    /// The position in `firsts` of the null value, if a selected row is null.
    pub null: Option<usize>,
}

impl DistinctRows {
    /// The distinct values among the rows of `data` that `selection` keeps (every row if
    /// `None`).
    pub fn of(data: &ArrayData, selection: Option<&BooleanBuffer>) -> Result<Self, ComputeError> {
        let hashes = value_hashes(data)?;
        let equal = row_eq(data, data)?;
        let nulls = logical_nulls(data)?;
        let mut table: HashTable<usize> = HashTable::new();
        let mut distinct = Self {
            firsts: Vec::new(),
            counts: Vec::new(),
            null: None,
        };
        let mut add = |row: usize| {
            let hash = hashes[row];
            let firsts = &distinct.firsts;
            let found = table.find(hash, |&k| {
                hashes[firsts[k]] == hash && equal(firsts[k], row)
            });
            match found {
                Some(&k) => distinct.counts[k] += 1,
                None => {
                    let k = distinct.firsts.len();
                    if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                        distinct.null = Some(k);
                    }
                    distinct.firsts.push(row);
                    distinct.counts.push(1);
                    let firsts = &distinct.firsts;
                    table.insert_unique(hash, k, |&k| hashes[firsts[k]]);
                }
            }
        };
        match selection {
            Some(selection) => selection.set_indices().for_each(&mut add),
            None => (0..data.len()).for_each(&mut add),
        }
        Ok(distinct)
    }

    /// The number of distinct values that are not null.
    pub fn count_non_null(&self) -> usize {
        self.firsts.len() - usize::from(self.null.is_some())
    }

    /// The first rows as take indices.
    fn indices(&self) -> UInt64Array {
        UInt64Array::from(self.firsts.iter().map(|&r| r as u64).collect::<Vec<u64>>())
    }
}

/// The distinct values of `array`, in the order they first appear; a null, if any, once.
///
/// # Errors
/// If `array` holds a type that does not hash (none so far) or is not valid.
///
/// # Examples
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// use alkaid_compute::unique;
/// let words = StringArray::from(vec![Some("b"), None, Some("a"), Some("b"), None]);
/// let distinct = unique(&words)?;
/// let distinct = distinct.as_string::<i32>();
/// assert_eq!(distinct.iter().collect::<Vec<_>>(), [Some("b"), None, Some("a")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn unique(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let distinct = DistinctRows::of(&array.to_data(), None)?;
    Ok(take(array, &distinct.indices())?)
}

/// The distinct values of `array` and how often each occurs, as a struct array of
/// `values` (the array's type) and `counts` (`Int64`, never null), in the order the values
/// first appear; nulls are counted as one value.
///
/// # Errors
/// As [`unique`].
///
/// # Examples
/// ```
/// use alkaid_array::{AsArray, Int32Array};
/// use alkaid_array::types::{Int32Type, Int64Type};
/// use alkaid_compute::value_counts;
/// let counted = value_counts(&Int32Array::from(vec![3, 1, 3, 3]))?;
/// let values = counted.column(0).as_primitive::<Int32Type>();
/// let counts = counted.column(1).as_primitive::<Int64Type>();
/// assert_eq!((values.value(0), counts.value(0)), (3, 3));
/// assert_eq!((values.value(1), counts.value(1)), (1, 1));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn value_counts(array: &dyn Array) -> Result<StructArray, ComputeError> {
    let distinct = DistinctRows::of(&array.to_data(), None)?;
    let values = take(array, &distinct.indices())?;
    let counts: Vec<i64> = distinct.counts.iter().map(|&c| c as i64).collect();
    let fields = vec![
        Field::new("values", array.data_type().clone(), true),
        Field::new("counts", DataType::Int64, false),
    ];
    let columns: Vec<ArrayRef> = vec![values, Arc::new(Int64Array::from(counts))];
    Ok(StructArray::try_new(fields.into(), columns, None)?)
}

//! A set of values hashed once, to be probed by many arrays.

use std::fmt;

use alkaid_array::{Array, make_array};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use alkaid_select::take;
use hashbrown::HashTable;

use super::bits::BitsTable;
use crate::bits::collect_bits;
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::hash::{DistinctRows, value_hashes};
use crate::row_eq::row_eq;
use crate::validity::logical_nulls;

/// The distinct values of an array, hashed once: the right side of `x IN (…)`, probed by
/// [`is_in`](super::is_in) and [`index_in`](super::index_in) batch after batch.
///
/// Values are equal as the crate's [equality](crate::hash) says: `NaN` equals `NaN`,
/// `-0.0` equals `0.0`, text of any layout equals text, and encoded values are the values
/// they stand for.
///
/// ```
/// use alkaid_array::{BooleanArray, StringArray};
/// use alkaid_compute::{ValueSet, is_in};
/// let wanted = ValueSet::new(&StringArray::from(vec!["north", "east"]))?;
/// let found = is_in(&StringArray::from(vec!["east", "south"]), &wanted)?;
/// assert_eq!(found, BooleanArray::from(vec![true, false]));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub struct ValueSet {
    /// The distinct values that are not null, decoded.
    values: ArrayData,
    /// Their value hashes.
    hashes: Vec<u64>,
    /// Row numbers into `values`, keyed by hash.
    table: HashTable<usize>,
    /// For each of `values`, the position of its first occurrence in the array the set was
    /// built from.
    positions: Vec<usize>,
    /// The first position of a null in that array, if it has one.
    null: Option<usize>,
    /// The type of the values the set was built from.
    data_type: DataType,
    /// The fast path's table, for fixed-width values of up to 8 bytes.
    bits: Option<BitsTable>,
}

impl ValueSet {
    /// The set of `values`' distinct values (nulls among them remembered, not stored).
    ///
    /// # Errors
    /// If `values` is not valid.
    pub fn new(values: &dyn Array) -> Result<Self, ComputeError> {
        let data = values.to_data();
        let distinct = DistinctRows::of(&data, None)?;
        let nulls = logical_nulls(&data)?;
        let positions: Vec<usize> = distinct
            .firsts
            .iter()
            .copied()
            .filter(|&row| nulls.as_ref().is_none_or(|n| n.is_valid(row)))
            .collect();
        let null = distinct.null.map(|k| distinct.firsts[k]);
        let bits = match data.data_type() {
            DataType::Dictionary { .. } | DataType::RunEndEncoded(_) => None,
            _ => BitsTable::of(&data, &positions)?,
        };
        let indices = alkaid_array::UInt64Array::from(
            positions.iter().map(|&p| p as u64).collect::<Vec<u64>>(),
        );
        let kept = take(make_array(data.clone()).as_ref(), &indices)?;
        let values = decoded(&kept.to_data())?;
        let hashes = value_hashes(&values)?;
        let mut table = HashTable::with_capacity(hashes.len());
        for (row, &hash) in hashes.iter().enumerate() {
            table.insert_unique(hash, row, |&r| hashes[r]);
        }
        Ok(Self {
            values,
            hashes,
            table,
            positions,
            null,
            data_type: data.data_type().clone(),
            bits,
        })
    }

    /// The number of distinct values that are not null.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the set holds no value other than null.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Whether the array the set was built from holds a null.
    pub fn contains_null(&self) -> bool {
        self.null.is_some()
    }

    /// The type of the values the set was built from.
    pub fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// For each row of the plain array `probe`: `Some(position)` of its value's first
    /// occurrence in the set's array, `None` where it is absent. Null rows are answered
    /// `None` too; the caller applies its null rules.
    pub(crate) fn find(&self, probe: &ArrayData) -> Result<Vec<Option<usize>>, ComputeError> {
        if let Some(found) = self
            .bits
            .as_ref()
            .map(|b| b.find(probe))
            .transpose()?
            .flatten()
        {
            return Ok(found);
        }
        let hashes = value_hashes(probe)?;
        if self.is_empty() {
            return Ok(vec![None; probe.len()]);
        }
        let equal = row_eq(probe, &self.values).map_err(|_| self.mismatch(probe.data_type()))?;
        Ok(hashes
            .iter()
            .enumerate()
            .map(|(row, &hash)| {
                self.table
                    .find(hash, |&k| self.hashes[k] == hash && equal(row, k))
                    .map(|&k| self.positions[k])
            })
            .collect())
    }

    /// A bit per row of the plain array `probe`: whether its value is in the set (null
    /// rows answered on whatever their slot holds; the caller applies its null rules).
    pub(crate) fn contains(&self, probe: &ArrayData) -> Result<BooleanBuffer, ComputeError> {
        if let Some(found) = self
            .bits
            .as_ref()
            .map(|b| b.contains(probe))
            .transpose()?
            .flatten()
        {
            return Ok(found);
        }
        let found = self.find(probe)?;
        Ok(collect_bits(found.len(), |row| found[row].is_some()))
    }

    fn mismatch(&self, probe: &DataType) -> ComputeError {
        ComputeError::unsupported(
            "is_in",
            format!(
                "cannot look for {probe} values in a set of {}",
                self.data_type
            ),
        )
    }
}

impl fmt::Debug for ValueSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValueSet")
            .field("data_type", &self.data_type)
            .field("len", &self.len())
            .field("contains_null", &self.contains_null())
            .finish_non_exhaustive()
    }
}

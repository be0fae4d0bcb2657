//! A set of values hashed once, to be probed by many arrays.

use std::fmt;

use alkaid_array::{Array, make_array};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use alkaid_select::take;
use hashbrown::HashTable;

use super::bits::BitsTable;
use crate::access::{ByteAccess, BytesVisitor, is_binary_like, visit_bytes};
use crate::bits::collect_bits;
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::hash::{DistinctRows, bytes_hash, value_hashes};
use crate::row_eq::{RowEq, row_eq};
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
    /// For byte values, the lengths the set's values have.
    lengths: Option<Lengths>,
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
        let lengths = match is_binary_like(values.data_type().to_physical()) {
            true => visit_bytes(&values, CollectLengths(values.len()))?,
            false => None,
        };
        Ok(Self {
            lengths,
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
            .map(|(row, &hash)| self.lookup(&equal, row, hash).map(|k| self.positions[k]))
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
        if self.is_empty() {
            return Ok(BooleanBuffer::new_unset(probe.len()));
        }
        let equal = row_eq(probe, &self.values).map_err(|_| self.mismatch(probe.data_type()))?;
        let found = |row: usize, hash: u64| self.lookup(&equal, row, hash).is_some();
        // Bytes are hashed as they are probed: no hash per row kept (for 4 Mi rows, 32 MB
        // of hashes and 64 MB of positions were built before the bits, 152 ms against
        // pyarrow's 74).
        if is_binary_like(probe.data_type().to_physical()) {
            let probe_bytes = ProbeBytes {
                len: probe.len(),
                lengths: self.lengths.unwrap_or(Lengths::ANY),
                found,
            };
            if let Some(bits) = visit_bytes(probe, probe_bytes)? {
                return Ok(bits);
            }
        }
        let hashes = value_hashes(probe)?;
        Ok(collect_bits(hashes.len(), |row| found(row, hashes[row])))
    }

    /// The set's index of the value of probe row `row` (of hash `hash`), if it holds it;
    /// `equal` compares a probe row with a set value.
    #[inline(always)]
    fn lookup(&self, equal: &RowEq, row: usize, hash: u64) -> Option<usize> {
        self.table
            .find(hash, |&k| self.hashes[k] == hash && equal(row, k))
            .copied()
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

/// Whether each value of a byte array is in the set: a value of a length no value of the
/// set has is not, without hashing it; the others are `found(row, hash)` of the value's
/// hash, computed as it is read.
struct ProbeBytes<F> {
    len: usize,
    lengths: Lengths,
    found: F,
}

impl<'a, F: Fn(usize, u64) -> bool> BytesVisitor<'a> for ProbeBytes<F> {
    type Output = BooleanBuffer;

    fn visit<B: ByteAccess<'a>>(self, values: B) -> BooleanBuffer {
        collect_bits(self.len, |row| {
            let value = values.value(row);
            self.lengths.may_hold(value.len()) && (self.found)(row, bytes_hash(value))
        })
    }
}

/// The lengths of a set's byte values: one bit for each length below 64, and one for any
/// longer (a set of codes or words has few lengths, and a probe of another length is
/// answered with one test).
#[derive(Debug, Clone, Copy)]
struct Lengths {
    short: u64,
    long: bool,
}

impl Lengths {
    /// Every length may be held.
    const ANY: Self = Self {
        short: u64::MAX,
        long: true,
    };

    #[inline(always)]
    fn may_hold(self, len: usize) -> bool {
        match len < 64 {
            true => self.short >> len & 1 == 1,
            false => self.long,
        }
    }
}

/// Collects [`Lengths`] of the first `.0` values.
struct CollectLengths(usize);

impl<'a> BytesVisitor<'a> for CollectLengths {
    type Output = Lengths;

    fn visit<B: ByteAccess<'a>>(self, values: B) -> Lengths {
        let mut lengths = Lengths {
            short: 0,
            long: false,
        };
        for row in 0..self.0 {
            match values.value_len(row) {
                short @ 0..64 => lengths.short |= 1 << short,
                _ => lengths.long = true,
            }
        }
        lengths
    }
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Array, BinaryArray, StringArray};

    use super::*;

    #[test]
    fn byte_probes_pass_the_length_filter_only_where_a_length_is_held() {
        let long = "x".repeat(70);
        let set = ValueSet::new(&StringArray::from(vec![
            Some("a"),
            None,
            Some(long.as_str()),
        ]))
        .unwrap();
        let lengths = set.lengths.unwrap();
        assert!(lengths.may_hold(1) && lengths.may_hold(64) && lengths.may_hold(70));
        assert!(!lengths.may_hold(0) && !lengths.may_hold(2) && !lengths.may_hold(63));
        let other_long = "y".repeat(70);
        let probe = StringArray::from(vec!["a", "", "b", "ab", long.as_str(), other_long.as_str()]);
        let found = set.contains(&probe.slice(0, 6).to_data()).unwrap();
        let found: Vec<bool> = found.iter().collect();
        assert_eq!(found, [true, false, false, false, true, false]);
        // An empty set holds no length; binary probes of a text set are refused.
        let empty = ValueSet::new(&StringArray::from(Vec::<&str>::new())).unwrap();
        assert!(!empty.contains(&probe.to_data()).unwrap().iter().any(|b| b));
        let bytes = BinaryArray::from(vec![&b"a"[..]]);
        assert!(set.contains(&bytes.to_data()).is_err());
    }
}

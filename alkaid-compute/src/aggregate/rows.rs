//! The rows an aggregate reads: the values, which of them count, and how many times.
//!
//! A plain array's rows count where they are valid and the mask (if any) is true. A
//! dictionary or run-end encoded array is aggregated over its values, each counted as
//! many times as rows use it: the keys are counted once into a histogram, and a run's
//! weight is its length (or the mask's set bits inside it). Sums and means multiply by
//! those weights; `min`, `max`, `any`, `all` and distinct counts only need to know that a
//! value is used.

use alkaid_array::{Array, BooleanArray};
use alkaid_buffer::{BooleanBuffer, NativeType};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use crate::access::native_values;
use crate::encoding::{Runs, decoded, dictionary_keys, is_encoded};
use crate::error::ComputeError;
use crate::validity::logical_nulls;
use alkaid_array::with_integer;

/// The rows of one aggregate's input.
pub(crate) struct Rows {
    /// The values: the array itself, or the values of its dictionary or runs.
    pub data: ArrayData,
    /// The values that count: valid, selected by the mask, used by some row. `None` when
    /// every value counts.
    pub selection: Option<BooleanBuffer>,
    /// How many rows each value stands for, for encoded inputs; `None` means one each.
    pub weights: Option<Vec<u64>>,
}

impl Rows {
    /// The rows of `array` that `mask` keeps (null mask rows count as false).
    ///
    /// # Errors
    /// If the mask's length differs from the array's.
    pub fn of(array: &dyn Array, mask: Option<&BooleanArray>) -> Result<Self, ComputeError> {
        let data = array.to_data();
        let mask = match mask {
            Some(mask) => Some(mask_bits(mask, data.len())?),
            None => None,
        };
        match data.data_type() {
            DataType::Dictionary { .. } if dictionary_of_plain(&data) => dictionary(&data, mask),
            DataType::RunEndEncoded(_) if run_values_plain(&data)? => runs(&data, mask),
            _ => {
                let data = if is_encoded(&data) {
                    decoded(&data)?
                } else {
                    data
                };
                let selection = and_optional(logical_nulls(&data)?.map(|n| n.into_inner()), mask);
                Ok(Self {
                    data,
                    selection,
                    weights: None,
                })
            }
        }
    }

    /// Whether value `i` counts.
    pub fn selected(&self, i: usize) -> bool {
        self.selection.as_ref().is_none_or(|s| s.value(i))
    }

    /// The number of rows that count (weights included).
    pub fn count(&self) -> u64 {
        match (&self.weights, &self.selection) {
            (Some(weights), _) => (0..weights.len())
                .filter(|&i| self.selected(i))
                .map(|i| weights[i])
                .sum(),
            (None, Some(selection)) => selection.count_set_bits() as u64,
            (None, None) => self.data.len() as u64,
        }
    }
}

/// The rows a mask keeps, as bits.
pub(crate) fn mask_bits(mask: &BooleanArray, len: usize) -> Result<BooleanBuffer, ComputeError> {
    if mask.len() != len {
        return Err(ComputeError::LengthMismatch {
            what: "the mask",
            expected: len,
            found: mask.len(),
        });
    }
    Ok(match mask.nulls() {
        Some(nulls) => mask.values() & nulls.validity(),
        None => mask.values().clone(),
    })
}

/// `a & b`, where `None` stands for all bits set.
pub(crate) fn and_optional(
    a: Option<BooleanBuffer>,
    b: Option<BooleanBuffer>,
) -> Option<BooleanBuffer> {
    match (a, b) {
        (Some(a), Some(b)) => Some(&a & &b),
        (a, b) => a.or(b),
    }
}

fn dictionary_of_plain(data: &ArrayData) -> bool {
    data.dictionary().is_some_and(|values| !is_encoded(values))
}

fn run_values_plain(data: &ArrayData) -> Result<bool, ComputeError> {
    Ok(!is_encoded(&data.children()[1]))
}

/// A dictionary: each entry weighted by the number of kept rows whose key points at it.
fn dictionary(data: &ArrayData, mask: Option<BooleanBuffer>) -> Result<Rows, ComputeError> {
    let values = data
        .dictionary()
        .cloned()
        .unwrap_or_else(|| ArrayData::new_empty(&DataType::Null));
    let keys = dictionary_keys(data)?;
    let kept = and_optional(keys.nulls().map(|n| n.validity().clone()), mask);
    let mut weights = vec![0u64; values.len()];
    let PhysicalType::Primitive(p) = keys.data_type().to_physical() else {
        return Err(ComputeError::InvalidArgument(
            "dictionary keys are not integers".into(),
        ));
    };
    with_integer!(p, |K| {
        let positions = native_values::<K>(&keys)?;
        let mut count = |row: usize| {
            if let Some(weight) = positions[row]
                .to_i64()
                .and_then(|k| usize::try_from(k).ok())
                .and_then(|k| weights.get_mut(k))
            {
                *weight += 1;
            }
        };
        match &kept {
            Some(kept) => kept.set_indices().for_each(&mut count),
            None => (0..positions.len()).for_each(&mut count),
        }
    });
    weighted(values, weights)
}

/// Run-end encoded values: each covered run weighted by its kept rows.
fn runs(data: &ArrayData, mask: Option<BooleanBuffer>) -> Result<Rows, ComputeError> {
    let runs = Runs::of(data)?;
    let mut weights = Vec::with_capacity(runs.lengths.len());
    let mut start = 0;
    for &length in &runs.lengths {
        weights.push(match &mask {
            Some(mask) => mask.slice(start, length).count_set_bits() as u64,
            None => length as u64,
        });
        start += length;
    }
    weighted(runs.values, weights)
}

fn weighted(values: ArrayData, weights: Vec<u64>) -> Result<Rows, ComputeError> {
    let used: BooleanBuffer = weights.iter().map(|&w| w > 0).collect();
    let valid = logical_nulls(&values)?.map(|n| n.into_inner());
    Ok(Rows {
        selection: and_optional(Some(used), valid),
        data: values,
        weights: Some(weights),
    })
}

/// The value of a fixed-width type as stored, for the native-typed paths.
pub(crate) fn natives<T: NativeType>(
    rows: &Rows,
) -> Result<alkaid_buffer::ScalarBuffer<T>, ComputeError> {
    native_values::<T>(&rows.data)
}

//! The logical validity of any array: a row is null where its own bitmap says so, or
//! where what it stands for is null (a dictionary entry, a run's value, a union member),
//! and every row of a `Null` array is null.

use alkaid_array::{Array, BooleanArray, make_array};
use alkaid_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, UnionMode};
use alkaid_select::take;

use crate::encoding::{Runs, dictionary_keys};
use crate::error::ComputeError;

/// The logical validity of `data`: `None` if every row is valid.
pub(crate) fn logical_nulls(data: &ArrayData) -> Result<Option<NullBuffer>, ComputeError> {
    let nulls = match data.data_type() {
        DataType::Null => Some(NullBuffer::new_null(data.len())),
        DataType::Dictionary { .. } => {
            let values = data.dictionary().ok_or_else(|| {
                ComputeError::InvalidArgument("a dictionary array without its dictionary".into())
            })?;
            match logical_nulls(values)? {
                None => data.nulls().cloned(),
                Some(value_nulls) => {
                    let keys = make_array(dictionary_keys(data)?);
                    gathered_validity(value_nulls, keys.as_ref())?
                }
            }
        }
        DataType::RunEndEncoded(_) => {
            let runs = Runs::of(data)?;
            match logical_nulls(&runs.values)? {
                None => None,
                Some(value_nulls) => gathered_validity(value_nulls, runs.row_indices().as_ref())?,
            }
        }
        DataType::Union(union) => {
            let children = data
                .children()
                .iter()
                .map(logical_nulls)
                .collect::<Result<Vec<_>, _>>()?;
            if children.iter().all(Option::is_none) {
                return Ok(None);
            }
            let (offset, len) = (data.offset(), data.len());
            let ids = &data.buffers()[0][offset..offset + len];
            let dense_offsets = match union.mode() {
                UnionMode::Dense => Some(
                    ScalarBuffer::<i32>::new_realigned(data.buffers()[1].clone(), offset, len)
                        .map_err(|e| ComputeError::Data(e.into()))?,
                ),
                UnionMode::Sparse => None,
            };
            let valid: BooleanBuffer = (0..len)
                .map(|i| {
                    let child = union.child_index(ids[i] as i8);
                    let slot = match &dense_offsets {
                        Some(offsets) => offsets[i] as usize,
                        None => offset + i,
                    };
                    child.is_some_and(|c| children[c].as_ref().is_none_or(|n| n.is_valid(slot)))
                })
                .collect();
            Some(NullBuffer::new(valid))
        }
        _ => data.nulls().cloned(),
    };
    Ok(nulls.filter(|n| n.null_count() > 0))
}

/// Validity of values (by value) taken to rows through `indices` (null index: null row).
fn gathered_validity(
    value_nulls: NullBuffer,
    indices: &dyn Array,
) -> Result<Option<NullBuffer>, ComputeError> {
    let flags = BooleanArray::try_new(value_nulls.into_inner(), None)?;
    let taken = take(&flags, indices)?;
    let taken = taken
        .as_any()
        .downcast_ref::<BooleanArray>()
        .expect("taking from a boolean array gives one");
    let valid = match taken.nulls() {
        Some(nulls) => taken.values() & nulls.validity(),
        None => taken.values().clone(),
    };
    Ok(Some(NullBuffer::new(valid)))
}

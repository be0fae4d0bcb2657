//! Full validation of union type ids and dense offsets.

use alkaid_schema::{DataType, UnionMode};

use super::slots::{end, typed_slots};
use crate::{ArrayData, DataError, DataErrorKind};

/// Every type id is one the type declares; for dense unions, every offset is inside the
/// child that the type id selects, and the offsets of each child never decrease (the spec
/// requires each child's offsets to be in order).
pub(super) fn check(data: &ArrayData) -> Result<(), DataError> {
    let DataType::Union(union) = &data.data_type else {
        return Ok(());
    };
    let mut child_of_id = [None; 128];
    for (index, &id) in union.type_ids().iter().enumerate() {
        child_of_id[id as usize] = Some(index);
    }
    let type_ids = typed_slots::<i8>(data, 0, data.offset, end(data))?;
    let offsets = match union.mode() {
        UnionMode::Dense => Some(typed_slots::<i32>(data, 1, data.offset, end(data))?),
        UnionMode::Sparse => None,
    };
    // The last offset seen for each child, for the order check.
    let mut last_offset = vec![-1i32; union.fields().len()];
    for (slot, &id) in type_ids.iter().enumerate() {
        let Some(child) = usize::try_from(id)
            .ok()
            .and_then(|id| child_of_id.get(id).copied().flatten())
        else {
            return Err(DataError::new(
                DataErrorKind::UnionTypeId,
                format!(
                    "type id {id} at slot {slot} of {} is not one of {:?}",
                    data.data_type,
                    union.type_ids()
                ),
            ));
        };
        if let Some(offsets) = offsets {
            let offset = offsets[slot];
            let child_len = data.children[child].len();
            if usize::try_from(offset).map_or(true, |o| o >= child_len) {
                return Err(DataError::new(
                    DataErrorKind::UnionOffset,
                    format!(
                        "offset {offset} at slot {slot} of {} is outside child {:?} of {child_len} slots",
                        data.data_type,
                        union.fields()[child].name()
                    ),
                ));
            }
            let last = std::mem::replace(&mut last_offset[child], offset);
            if offset < last {
                return Err(DataError::new(
                    DataErrorKind::UnionOffset,
                    format!(
                        "offset {offset} at slot {slot} of {} is less than offset {last} before it for child {:?}",
                        data.data_type,
                        union.fields()[child].name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

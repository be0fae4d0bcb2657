//! The validity of taken slots, shared by the flat gathers (`take/mod.rs`) and the nested
//! ones (`nested.rs`).

use alkaid_buffer::{BooleanBuffer, NullBuffer};
use alkaid_data::ArrayData;

use super::gather::Positions;

/// The validity of the taken slots: null where the index is null or the slot was; `None`
/// when nothing is null.
pub(crate) fn taken_nulls<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Option<NullBuffer> {
    match data.nulls().filter(|n| n.null_count() > 0) {
        None => indices.nulls(),
        Some(nulls) => {
            let validity = nulls.validity();
            let bits = indices.gather_bits(validity.inner(), validity.offset());
            Some(NullBuffer::new(BooleanBuffer::new(bits, 0, indices.len())))
        }
    }
}

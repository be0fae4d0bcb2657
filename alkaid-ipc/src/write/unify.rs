//! A file holds one dictionary per id, which may grow by deltas but not be replaced. An
//! engine makes new dictionaries per batch (a `GROUP BY` over a dictionary column, a stream
//! that replaces them), so a file writer may unify instead of refusing
//! ([`FileDictionaries::Unify`](crate::FileDictionaries::Unify)): a batch whose dictionary
//! differs from the one the file holds has its values appended to the file's (sent as a
//! delta) and its keys moved past the file's values. The rows read back are the rows
//! written; only the keys differ.
//!
//! The cost is the batch's own: the file's dictionary is held as the pieces it was sent
//! in ([`HeldDictionary`]), never concatenated, and a batch's dictionary is compared with
//! the part of it that could match (its start, its end, or the batch's own prefix), so
//! writing `n` batches costs what their bytes cost, not `n²`. The batch itself is not
//! rebuilt: the encoder writes the moved keys in place of its keys ([`Unified::keys`]).

use std::collections::HashMap;
use std::sync::Arc;

use alkaid_array::{RecordBatch, with_integer};
use alkaid_buffer::Buffer;
use alkaid_data::{ArrayData, equal};
use alkaid_schema::{DataType, PhysicalType};

use crate::dictionary::{DictionaryIds, count_dictionaries};
use crate::error::{IpcError, Result};

/// A dictionary a file holds: the values sent for its id, first the dictionary then each
/// delta, in order.
#[derive(Debug, Default, Clone)]
pub(crate) struct HeldDictionary {
    pieces: Vec<Arc<ArrayData>>,
    /// Where each piece starts in the whole.
    starts: Vec<usize>,
    len: usize,
}

impl HeldDictionary {
    /// Appends `values` (sent as the dictionary or a delta).
    pub fn push(&mut self, values: Arc<ArrayData>) {
        if values.is_empty() {
            return;
        }
        self.starts.push(self.len);
        self.len += values.len();
        self.pieces.push(values);
    }

    /// Whether the held values from `at` on begin with `values`.
    fn matches_at(&self, at: usize, values: &ArrayData) -> bool {
        let Some(end) = at.checked_add(values.len()).filter(|&end| end <= self.len) else {
            return false;
        };
        if values.is_empty() {
            return true;
        }
        // The piece holding `at`, then each piece up to `end`.
        let mut piece = self.starts.partition_point(|&start| start <= at) - 1;
        let mut position = at;
        while position < end {
            let (start, held) = (self.starts[piece], &self.pieces[piece]);
            let upto = end.min(start + held.len());
            let here = held.slice(position - start, upto - position);
            let theirs = values.slice(position - at, upto - position);
            if !equal(&here, &theirs) {
                return false;
            }
            position = upto;
            piece += 1;
        }
        true
    }

    /// Whether `values` is exactly the one piece held (the same object, or the same
    /// memory): the common case of batches that share their source's dictionary.
    fn is_only(&self, values: &Arc<ArrayData>) -> bool {
        match self.pieces.as_slice() {
            [only] => Arc::ptr_eq(only, values) || same_memory(only, values),
            _ => false,
        }
    }
}

/// Whether `a` and `b` are views of the same memory, without children.
fn same_memory(a: &ArrayData, b: &ArrayData) -> bool {
    a.len() == b.len()
        && a.offset() == b.offset()
        && a.data_type() == b.data_type()
        && a.children().is_empty()
        && b.children().is_empty()
        && a.buffers().len() == b.buffers().len()
        && a.buffers()
            .iter()
            .zip(b.buffers())
            .all(|(x, y)| x.as_ptr() == y.as_ptr() && x.len() == y.len())
        && a.nulls()
            .map(|n| (n.validity().inner().as_ptr(), n.validity().offset()))
            == b.nulls()
                .map(|n| (n.validity().inner().as_ptr(), n.validity().offset()))
}

/// What the file sends for a dictionary id a batch uses.
#[derive(Debug, Clone)]
pub(crate) enum Send {
    /// The id's first dictionary, as the batch has it.
    First(Arc<ArrayData>),
    /// Values to append to the held dictionary, as a delta.
    Delta(Arc<ArrayData>),
}

impl Send {
    /// The values sent.
    pub fn values(&self) -> &Arc<ArrayData> {
        match self {
            Send::First(values) | Send::Delta(values) => values,
        }
    }
}

/// How one batch goes into a unifying file.
#[derive(Debug, Default)]
pub(crate) struct Unified {
    /// Keys to write in place of a dictionary array's own, by its walk position: its keys
    /// moved to where its values lie in the file's dictionary.
    pub keys: HashMap<usize, Buffer>,
    /// What to send for each id; an id the batch uses and this lacks is held already.
    pub sends: HashMap<i64, Send>,
}

/// What one id's dictionary came to within a batch: its values, and where they lie in
/// the file's dictionary.
struct Decided {
    values: Arc<ArrayData>,
    shift: usize,
}

/// Unifies batches onto the dictionaries a file holds.
pub(crate) struct Unifier<'a> {
    pub ids: &'a DictionaryIds,
    pub held: &'a HashMap<i64, HeldDictionary>,
}

impl Unifier<'_> {
    /// How `batch` goes into the file: its moved keys and what to send.
    pub fn batch(&self, batch: &RecordBatch) -> Result<Unified> {
        let mut unified = Unified::default();
        let mut decided = HashMap::new();
        let mut cursor = 0;
        for column in batch.columns() {
            self.array(&column.to_data(), &mut cursor, &mut decided, &mut unified)?;
        }
        Ok(unified)
    }

    /// Decides every dictionary in `data`. `cursor` is the walk position of its first
    /// dictionary, as the encoder counts them.
    fn array(
        &self,
        data: &ArrayData,
        cursor: &mut usize,
        decided: &mut HashMap<i64, Decided>,
        unified: &mut Unified,
    ) -> Result<()> {
        if let DataType::Dictionary { value, .. } = data.data_type() {
            let position = *cursor;
            *cursor += 1 + count_dictionaries(value);
            return self.dictionary(data, position, decided, unified);
        }
        for child in data.children() {
            self.array(child, cursor, decided, unified)?;
        }
        Ok(())
    }

    /// Decides the dictionary array `data` at walk `position`.
    fn dictionary(
        &self,
        data: &ArrayData,
        position: usize,
        decided: &mut HashMap<i64, Decided>,
        unified: &mut Unified,
    ) -> Result<()> {
        let DataType::Dictionary {
            key,
            value,
            ordered,
        } = data.data_type()
        else {
            unreachable!("called on dictionary arrays")
        };
        let id = self.ids.id_at(position);
        let Some(values) = data.shared_dictionary() else {
            return Ok(());
        };
        // A second field of the id in this batch: the same dictionary, the same place.
        if let Some(earlier) = decided.get(&id) {
            let same = Arc::ptr_eq(&earlier.values, values)
                || (earlier.values.len() == values.len() && equal(&earlier.values, values));
            if !same {
                return Err(IpcError::invalid_argument(format!(
                    "fields sharing dictionary id {id} hold different dictionaries in one batch"
                )));
            }
            if earlier.shift > 0 {
                let keys = shift_keys(data, &key.to_data_type(), earlier.shift, usize::MAX)?;
                unified.keys.insert(position, keys);
            }
            return Ok(());
        }
        let Some(held) = self.held.get(&id) else {
            unified.sends.insert(id, Send::First(Arc::clone(values)));
            let values = Arc::clone(values);
            decided.insert(id, Decided { values, shift: 0 });
            return Ok(());
        };
        let shift = if held.is_only(values) {
            0
        } else if values.len() >= held.len && held.matches_at(0, &values.slice(0, held.len)) {
            // The file's dictionary, grown: the new values are appended as they are.
            let grown = values.slice(held.len, values.len() - held.len);
            if !grown.is_empty() {
                unified.sends.insert(id, Send::Delta(Arc::new(grown)));
            }
            0
        } else if let Some(at) = [0, held.len.saturating_sub(values.len())]
            .into_iter()
            .find(|&at| held.matches_at(at, values))
        {
            // A dictionary the file holds already, at its start (the first one again) or
            // at its end (the last one appended, again): its keys point there.
            at
        } else {
            if *ordered {
                return Err(IpcError::invalid_argument(format!(
                    "dictionary {id} changed between batches and is ordered: appending its \
                     values to the file's would break the order (write a stream to replace it)"
                )));
            }
            if count_dictionaries(value) > 0 {
                return Err(IpcError::invalid_argument(format!(
                    "dictionary {id} changed between batches and its values hold dictionaries \
                     of their own, which are not unified (write a stream to replace it)"
                )));
            }
            unified.sends.insert(id, Send::Delta(Arc::clone(values)));
            held.len
        };
        let grows = unified.sends.get(&id).map_or(0, |send| send.values().len());
        let merged_len = held.len + grows;
        if shift > 0 || merged_len > held.len {
            let keys = shift_keys(data, &key.to_data_type(), shift, merged_len)
                .map_err(|e| e.context(format!("dictionary {id}")))?;
            if shift > 0 {
                unified.keys.insert(position, keys);
            }
        }
        let values = Arc::clone(values);
        decided.insert(id, Decided { values, shift });
        Ok(())
    }
}

/// The keys of `data` (of `key_type`) plus `shift`, for a dictionary of `len` values
/// (`usize::MAX`: checked already); null slots get 0. Slots before the array's offset
/// are kept as zeros, so the offset holds.
fn shift_keys(data: &ArrayData, key_type: &DataType, shift: usize, len: usize) -> Result<Buffer> {
    let PhysicalType::Primitive(kind) = key_type.to_physical() else {
        unreachable!("dictionary keys are integers")
    };
    with_integer!(kind, |K| {
        let keys = data.buffers()[0]
            .typed::<K>()
            .map_err(|e| IpcError::invalid_argument(format!("keys: {e}")))?;
        let too_many = || {
            IpcError::invalid_argument(format!(
                "a unified dictionary of {len} values needs keys wider than {key_type}"
            ))
        };
        // The largest key the merged dictionary needs must fit the key type.
        if len != usize::MAX && len > 0 && K::try_from(len - 1).is_err() {
            return Err(too_many());
        }
        let mut shifted = vec![K::default(); data.offset() + data.len()];
        for i in 0..data.len() {
            if data.is_valid(i) {
                // Through i128, which holds every key type and any shift.
                let key = i128::from(keys[data.offset() + i]) + shift as i128;
                shifted[data.offset() + i] = K::try_from(key).map_err(|_| too_many())?;
            }
        }
        Ok(Buffer::from_vec(shifted))
    })
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Array, StringArray};

    use super::*;

    fn values(strings: &[&str]) -> Arc<ArrayData> {
        Arc::new(StringArray::from(strings.to_vec()).to_data())
    }

    #[test]
    fn a_held_dictionary_matches_across_its_pieces() {
        let mut held = HeldDictionary::default();
        held.push(values(&["a", "b"]));
        held.push(values(&[]));
        held.push(values(&["c"]));
        held.push(values(&["d", "e"]));
        assert_eq!(held.len, 5);
        assert_eq!(held.pieces.len(), 3, "an empty piece is not kept");
        assert!(held.matches_at(0, &values(&["a", "b", "c", "d"])));
        assert!(held.matches_at(1, &values(&["b", "c", "d"])));
        assert!(held.matches_at(3, &values(&["d", "e"])));
        assert!(held.matches_at(5, &values(&[])));
        assert!(!held.matches_at(1, &values(&["b", "x"])));
        assert!(!held.matches_at(4, &values(&["e", "f"])), "past the end");
        assert!(!held.matches_at(usize::MAX, &values(&["a"])));
    }
}

//! A file holds one dictionary per id, which may grow by deltas but not be replaced. An
//! engine makes new dictionaries per batch (a `GROUP BY` over a dictionary column, a stream
//! that replaces them), so a file writer may unify instead of refusing
//! ([`FileDictionaries::Unify`](crate::FileDictionaries::Unify)): a batch whose dictionary
//! differs from the one the file holds is rewritten before it is encoded, its dictionary
//! appended to the file's (sent as a delta) and its keys moved past the file's values. The
//! rows read back are the rows written; only the keys differ.

use std::collections::HashMap;
use std::sync::Arc;

use alkaid_array::{RecordBatch, with_integer};
use alkaid_buffer::Buffer;
use alkaid_data::{ArrayData, concat, equal};
use alkaid_schema::{DataType, PhysicalType};

use crate::dictionary::{DictionaryIds, count_dictionaries};
use crate::error::{IpcError, Result};

/// The dictionaries a file holds so far, by id, and how the batches' ids are assigned.
pub(crate) struct Unifier<'a> {
    pub ids: &'a DictionaryIds,
    pub sent: &'a HashMap<i64, Arc<ArrayData>>,
}

impl Unifier<'_> {
    /// `batch` with every dictionary the file cannot take as it is (the same, or grown)
    /// rewritten onto the file's.
    pub fn batch(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let mut cursor = 0;
        let mut columns = Vec::with_capacity(batch.num_columns());
        let mut changed = false;
        for column in batch.columns() {
            let data = column.to_data();
            match self.array(&data, &mut cursor)? {
                Some(rewritten) => {
                    changed = true;
                    columns.push(alkaid_array::make_array(rewritten));
                }
                None => columns.push(column.clone()),
            }
        }
        if !changed {
            return Ok(batch.clone());
        }
        let options = alkaid_array::RecordBatchOptions {
            num_rows: Some(batch.num_rows()),
            check_nullability: false,
        };
        RecordBatch::try_new_with_options(batch.schema().clone(), columns, &options)
            .map_err(|e| IpcError::invalid_argument(e.to_string()))
    }

    /// `data` rewritten, or `None` when nothing in it needs to be. `cursor` is the walk
    /// position of its first dictionary, as the encoder counts them.
    fn array(&self, data: &ArrayData, cursor: &mut usize) -> Result<Option<ArrayData>> {
        if let DataType::Dictionary { value, .. } = data.data_type() {
            let position = *cursor;
            *cursor += 1 + count_dictionaries(value);
            return self.dictionary(data, self.ids.id_at(position));
        }
        let mut children = Vec::with_capacity(data.children().len());
        let mut changed = false;
        for child in data.children() {
            match self.array(child, cursor)? {
                Some(rewritten) => {
                    changed = true;
                    children.push(rewritten);
                }
                None => children.push(child.clone()),
            }
        }
        if !changed {
            return Ok(None);
        }
        let rebuilt = ArrayData::builder(data.data_type().clone())
            .len(data.len())
            .offset(data.offset())
            .nulls(data.nulls().cloned())
            .buffers(data.buffers().to_vec())
            .children(children)
            .build()
            .map_err(|e| IpcError::invalid_argument(e.to_string()))?;
        Ok(Some(rebuilt))
    }

    /// A dictionary array of id `id`, onto the file's dictionary of that id: `None` when
    /// the file has none yet, or holds this one or one it extends.
    fn dictionary(&self, data: &ArrayData, id: i64) -> Result<Option<ArrayData>> {
        let DataType::Dictionary {
            key,
            value,
            ordered,
        } = data.data_type()
        else {
            unreachable!("called on dictionary arrays")
        };
        let (Some(values), Some(held)) = (data.shared_dictionary(), self.sent.get(&id)) else {
            return Ok(None);
        };
        let grows = held.len() <= values.len() && equal(held, &values.slice(0, held.len()));
        if Arc::ptr_eq(held, values) || grows {
            return Ok(None);
        }
        if *ordered {
            return Err(IpcError::invalid_argument(format!(
                "dictionary {id} changed between batches and is ordered: appending its values \
                 to the file's would break the order (write a stream to replace it)"
            )));
        }
        if count_dictionaries(value) > 0 {
            return Err(IpcError::invalid_argument(format!(
                "dictionary {id} changed between batches and its values hold dictionaries of \
                 their own, which are not unified (write a stream to replace it)"
            )));
        }
        // A dictionary the file holds already, at its start (the first one again) or at its
        // end (the last one appended, again): its keys point there, nothing is appended.
        let held_at = |at: usize| {
            let fits = at
                .checked_add(values.len())
                .is_some_and(|end| end <= held.len());
            fits && equal(&held.slice(at, values.len()), values)
        };
        let tail = held.len().saturating_sub(values.len());
        let found = [0, tail].into_iter().find(|&at| held_at(at));
        let (merged, shift) = match found {
            Some(at) => (Arc::clone(held), at),
            None => {
                let merged = concat(&[held.as_ref(), values.as_ref()])
                    .map_err(|e| IpcError::invalid_argument(format!("dictionary {id}: {e}")))?;
                (Arc::new(merged), held.len())
            }
        };
        let keys = shift_keys(data, &key.to_data_type(), shift, merged.len())
            .map_err(|e| e.context(format!("dictionary {id}")))?;
        let rebuilt = ArrayData::builder(data.data_type().clone())
            .len(data.len())
            .offset(data.offset())
            .nulls(data.nulls().cloned())
            .buffers(vec![keys])
            .dictionary(merged)
            .build()
            .map_err(|e| IpcError::invalid_argument(e.to_string()))?;
        Ok(Some(rebuilt))
    }
}

/// The keys of `data` (of `key_type`) plus `shift`, for a dictionary of `len` values; null
/// slots get 0. Slots before the array's offset are kept as zeros, so the offset holds.
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
        if len > 0 && K::try_from(len - 1).is_err() {
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

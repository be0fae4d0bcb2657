//! Concatenation of arrays and of record batches.
//!
//! The copying itself is alkaid-data's [`concat`](alkaid_data::concat), which handles every
//! layout. What this kernel adds is dictionaries: arrays whose dictionaries differ are
//! merged into one dictionary, deduplicated where the values can be compared by their
//! bytes (every flat type, views included), with the keys rewritten; a merged dictionary
//! too large for the key type is an error.

use alkaid_array::{Array, ArrayRef, RecordBatch, make_array};
use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::native::ByteView;
use alkaid_buffer::{MutableBuffer, NullBuffer};
use alkaid_data::{ArrayData, equal};
use alkaid_schema::{DataType, IntegerType, PhysicalType, SchemaRef};
use std::collections::HashMap;

use crate::error::SelectError;

/// `arrays`, one after another, as one array.
///
/// # Errors
/// If there are no arrays, their types differ, or merged dictionaries overflow their keys.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, AsArray, StringArray};
/// use alkaid_select::concat;
/// let a = StringArray::from(vec!["x", "y"]);
/// let b = StringArray::from(vec!["z"]);
/// let tail = a.slice(1, 1); // an ArrayRef
/// let joined = concat(&[tail.as_ref(), &b as &dyn Array])?;
/// assert_eq!(joined.as_string::<i32>().value(1), "z");
/// # Ok::<(), alkaid_select::SelectError>(())
/// ```
pub fn concat(arrays: &[&dyn Array]) -> Result<ArrayRef, SelectError> {
    let data: Vec<ArrayData> = arrays.iter().map(|a| a.to_data()).collect();
    Ok(make_array(concat_data(&data.iter().collect::<Vec<_>>())?))
}

/// The rows of `batches`, one after another, as one batch with `schema`.
///
/// # Errors
/// If a batch's schema differs from `schema`, or a column cannot be concatenated.
pub fn concat_batches(
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<RecordBatch, SelectError> {
    if let Some(other) = batches
        .iter()
        .find(|b| !b.schema().eq_ignoring_metadata(schema))
    {
        return Err(SelectError::Mismatch(format!(
            "expected batches with schema {schema}, found one with {}",
            other.schema()
        )));
    }
    let rows = batches.iter().map(RecordBatch::num_rows).sum();
    let columns = (0..schema.fields().len())
        .map(|c| {
            let parts: Vec<ArrayData> = batches.iter().map(|b| b.column(c).to_data()).collect();
            let data = if parts.is_empty() {
                empty(schema.fields()[c].data_type())?
            } else {
                concat_data(&parts.iter().collect::<Vec<_>>())?
            };
            Ok(make_array(data))
        })
        .collect::<Result<Vec<_>, SelectError>>()?;
    Ok(RecordBatch::try_new_with_rows(
        schema.clone(),
        columns,
        rows,
    )?)
}

/// An empty array of `data_type`.
fn empty(data_type: &DataType) -> Result<ArrayData, SelectError> {
    Ok(alkaid_array::make_builder(data_type, 0)?
        .try_finish()?
        .to_data())
}

/// The ArrayData version of [`concat()`].
pub fn concat_data(parts: &[&ArrayData]) -> Result<ArrayData, SelectError> {
    let Some(first) = parts.first() else {
        return Err(SelectError::Mismatch(
            "expected at least one array to concatenate, found none".into(),
        ));
    };
    if let Some(other) = parts.iter().find(|p| p.data_type() != first.data_type()) {
        return Err(SelectError::Mismatch(format!(
            "expected arrays of type {}, found one of type {}",
            first.data_type(),
            other.data_type()
        )));
    }
    if let DataType::Dictionary { key, .. } = first.data_type() {
        let dictionary = |p: &ArrayData| p.dictionary().cloned();
        let shared = parts
            .iter()
            .all(|p| match (dictionary(p), dictionary(first)) {
                (Some(a), Some(b)) => equal(&a, &b),
                _ => false,
            });
        if !shared {
            return merge_dictionaries(parts, *key);
        }
    }
    // Children go through this function too, so dictionaries below the top merge.
    alkaid_data::concat_with(parts, &mut |children| concat_data(children))
}

/// Bytes that identify value `i` of `values` among values of its type, or `None` when the
/// type has no such bytes (nested values are then kept without deduplication).
fn identity(values: &ArrayData, i: usize) -> Option<Vec<u8>> {
    if values.is_null(i) {
        return Some(vec![0]);
    }
    let at = values.offset() + i;
    let buffers = values.buffers();
    let mut out = vec![1];
    match values.data_type().to_physical() {
        PhysicalType::Boolean => out.push(u8::from(buffers[0][at / 8] >> (at % 8) & 1 == 1)),
        PhysicalType::Primitive(p) => {
            let w = p.byte_width();
            out.extend_from_slice(&buffers[0][at * w..(at + 1) * w]);
        }
        PhysicalType::FixedSizeBinary(w) => {
            let w = usize::try_from(w).unwrap_or(0);
            out.extend_from_slice(&buffers[0][at * w..(at + 1) * w]);
        }
        PhysicalType::Binary => {
            let offsets: &[i32] = buffers[0].typed().ok()?;
            out.extend_from_slice(&buffers[1][offsets[at] as usize..offsets[at + 1] as usize]);
        }
        PhysicalType::LargeBinary => {
            let offsets: &[i64] = buffers[0].typed().ok()?;
            out.extend_from_slice(&buffers[1][offsets[at] as usize..offsets[at + 1] as usize]);
        }
        PhysicalType::BinaryView => {
            let view = buffers[0].typed::<ByteView>().ok()?[at];
            match view.inline_bytes() {
                Some(bytes) => out.extend_from_slice(bytes),
                None => {
                    let data = &buffers[1 + view.buffer_index() as usize];
                    let start = view.offset() as usize;
                    out.extend_from_slice(&data[start..start + view.len()]);
                }
            }
        }
        _ => return None,
    }
    Some(out)
}

/// The largest number of dictionary values keys of type `key` can address.
fn key_capacity(key: IntegerType) -> u128 {
    let bits = key.byte_width() as u32 * 8;
    if key.is_signed() {
        1u128 << (bits - 1)
    } else {
        1u128 << bits
    }
}

fn merge_dictionaries(parts: &[&ArrayData], key: IntegerType) -> Result<ArrayData, SelectError> {
    let missing = || SelectError::Mismatch("a dictionary array has no dictionary".into());
    // Merged values are runs of the inputs' dictionaries; `remaps[p][k]` is the merged index
    // of part p's dictionary entry k.
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut runs: Vec<ArrayData> = Vec::new();
    let mut remaps: Vec<Vec<usize>> = Vec::with_capacity(parts.len());
    let mut merged = 0usize;
    for part in parts {
        let values = part.dictionary().ok_or_else(missing)?;
        let mut remap = Vec::with_capacity(values.len());
        let mut run_start = None;
        for i in 0..values.len() {
            let identity = identity(values, i);
            let known = identity.as_ref().and_then(|id| seen.get(id).copied());
            match known {
                Some(index) => {
                    if let Some(start) = run_start.take() {
                        runs.push(values.slice(start, i - start));
                    }
                    remap.push(index);
                }
                None => {
                    if let Some(id) = identity {
                        seen.insert(id, merged);
                    }
                    run_start.get_or_insert(i);
                    remap.push(merged);
                    merged += 1;
                }
            }
        }
        if let Some(start) = run_start {
            runs.push(values.slice(start, values.len() - start));
        }
        remaps.push(remap);
    }
    if merged as u128 > key_capacity(key) {
        return Err(SelectError::Overflow(format!(
            "the merged dictionary has {merged} values, more than {key:?} keys can address"
        )));
    }
    let dictionary = if runs.is_empty() {
        parts[0].dictionary().ok_or_else(missing)?.slice(0, 0)
    } else {
        // Through this kernel again, so that dictionaries inside the values merge too.
        concat_data(&runs.iter().collect::<Vec<_>>())?
    };
    // The keys, rewritten; null slots get key 0.
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let width = key.byte_width();
    let mut keys = MutableBuffer::with_capacity(len * width);
    let mut validity = BooleanBufferBuilder::new(len);
    let any_null = parts.iter().any(|p| p.null_count() > 0);
    for (part, remap) in parts.iter().zip(&remaps) {
        let raw = &part.buffers()[0];
        for slot in 0..part.len() {
            let valid = part.is_valid(slot);
            let new = if valid {
                let at = (part.offset() + slot) * width;
                let mut bytes = [0u8; 8];
                bytes[..width].copy_from_slice(&raw[at..at + width]);
                remap[u64::from_le_bytes(bytes) as usize]
            } else {
                0
            };
            keys.extend_from_slice(&(new as u64).to_le_bytes()[..width]);
            if any_null {
                validity.append(valid);
            }
        }
    }
    let nulls = any_null.then(|| NullBuffer::new(validity.finish()));
    Ok(ArrayData::builder(parts[0].data_type().clone())
        .len(len)
        .nulls(nulls)
        .buffers(vec![keys.into_buffer()])
        .dictionary(dictionary)
        .build()?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use alkaid_array::types::Int8Type;
    use alkaid_array::{AsArray, DictionaryArray, Int8Array, StringArray, StringViewArray};

    fn dict(keys: Vec<Option<i8>>, values: ArrayRef) -> ArrayRef {
        Arc::new(DictionaryArray::<Int8Type>::try_new(Int8Array::from(keys), values).unwrap())
    }

    fn words(array: &ArrayRef) -> Vec<Option<String>> {
        let d = array
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        let values = make_array(d.values().to_data());
        (0..d.len())
            .map(|i| {
                d.keys().is_valid(i).then(|| {
                    let k = d.keys().value(i) as usize;
                    let one = values.slice(k, 1);
                    match one.data_type() {
                        DataType::Utf8View => one
                            .as_any()
                            .downcast_ref::<StringViewArray>()
                            .unwrap()
                            .value(0)
                            .to_string(),
                        _ => one.as_string::<i32>().value(0).to_string(),
                    }
                })
            })
            .collect()
    }

    #[test]
    fn different_dictionaries_merge_without_duplicates() {
        let a = dict(
            vec![Some(0), Some(1), None],
            Arc::new(StringArray::from(vec!["red", "blue"])),
        );
        let b = dict(
            vec![Some(1), Some(0)],
            Arc::new(StringArray::from(vec!["blue", "green"])),
        );
        let joined = concat(&[a.as_ref(), b.as_ref()]).unwrap();
        let d = joined
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        assert_eq!(d.values().len(), 3, "red, blue, green once each");
        let s = |w: &str| Some(w.to_string());
        assert_eq!(
            words(&joined),
            [s("red"), s("blue"), None, s("green"), s("blue")]
        );
    }

    #[test]
    fn view_dictionaries_merge_too() {
        let long = "a value longer than twelve bytes";
        let a = dict(
            vec![Some(0)],
            Arc::new(StringViewArray::from_iter_values([long, "x"])),
        );
        let b = dict(
            vec![Some(1), Some(0)],
            Arc::new(StringViewArray::from_iter_values(["y", long])),
        );
        let joined = concat(&[a.as_ref(), b.as_ref()]).unwrap();
        let d = joined
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        assert_eq!(d.values().len(), 3);
        let s = |w: &str| Some(w.to_string());
        assert_eq!(words(&joined), [s(long), s(long), s("y")]);
    }

    #[test]
    fn key_overflow_is_an_error() {
        let many = |from: usize| -> ArrayRef {
            let values: Vec<String> = (from..from + 100).map(|i| format!("v{i}")).collect();
            let strings = StringArray::from(values.iter().map(String::as_str).collect::<Vec<_>>());
            dict(vec![Some(0)], Arc::new(strings))
        };
        let (a, b) = (many(0), many(100));
        let err = concat(&[a.as_ref(), b.as_ref()]).unwrap_err();
        assert!(matches!(err, SelectError::Overflow(_)), "{err}");
        assert!(err.to_string().contains("200 values"), "{err}");
    }

    #[test]
    fn batches_concatenate_column_by_column() {
        use alkaid_schema::{Field, Schema};
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int8, true),
            Field::new("s", DataType::Utf8, false),
        ]));
        let batch = |n: Vec<i8>, s: Vec<&str>| {
            let columns: Vec<ArrayRef> =
                vec![Arc::new(Int8Array::from(n)), Arc::new(StringArray::from(s))];
            RecordBatch::try_new(schema.clone(), columns).unwrap()
        };
        let joined = concat_batches(
            &schema,
            &[batch(vec![1, 2], vec!["a", "b"]), batch(vec![3], vec!["c"])],
        )
        .unwrap();
        assert_eq!(joined.num_rows(), 3);
        assert_eq!(joined.column(1).as_string::<i32>().value(2), "c");
        let none = concat_batches(&schema, &[]).unwrap();
        assert_eq!((none.num_rows(), none.num_columns()), (0, 2));
        let other = Arc::new(Schema::new(vec![Field::new("x", DataType::Int8, true)]));
        let odd = RecordBatch::try_new(other, vec![Arc::new(Int8Array::from(vec![1])) as ArrayRef])
            .unwrap();
        assert!(matches!(
            concat_batches(&schema, &[odd]),
            Err(SelectError::Mismatch(_))
        ));
    }

    #[test]
    fn mismatched_inputs_are_errors() {
        let a: ArrayRef = Arc::new(StringArray::from(vec!["x"]));
        let b: ArrayRef = Arc::new(Int8Array::from(vec![1]));
        assert!(matches!(
            concat(&[a.as_ref(), b.as_ref()]),
            Err(SelectError::Mismatch(_))
        ));
        assert!(matches!(concat(&[]), Err(SelectError::Mismatch(_))));
    }
}

//! Full validation of offsets, byte values, lists, list views and dictionary keys: the
//! checks that read values (the dispatcher is `check_values` in `mod.rs`).

use alkaid_buffer::OffsetSize;
use alkaid_schema::{DataType, IntegerType};

use super::slots::{end, typed_slots, utf8};
use crate::{ArrayData, DataError, DataErrorKind};

/// Checks the `len + 1` offsets of the array's slots: the first non-negative, none less than
/// the one before, the last at most `limit`. Returns the first and last as `usize`; an
/// empty array with an empty offsets buffer gives `(0, 0)`.
pub(super) fn check_offsets<O: OffsetSize>(
    data: &ArrayData,
    limit: usize,
    limit_name: &str,
) -> Result<(usize, usize), DataError> {
    if data.buffers[0].is_empty() && end(data) == 0 {
        return Ok((0, 0));
    }
    let offsets = typed_slots::<O>(data, 0, data.offset, end(data) + 1)?;
    let data_type = &data.data_type;
    let first = offsets[0].to_usize().ok_or_else(|| {
        DataError::new(
            DataErrorKind::Offsets,
            format!(
                "offset {:?} at slot 0 of {data_type} is negative",
                offsets[0]
            ),
        )
    })?;
    // One pass without an early exit vectorises; the position is searched only on failure.
    let monotonic = offsets
        .windows(2)
        .fold(true, |ok, pair| ok & (pair[0] <= pair[1]));
    if !monotonic {
        let slot = offsets
            .windows(2)
            .position(|pair| pair[0] > pair[1])
            .unwrap_or(0)
            + 1;
        return Err(DataError::new(
            DataErrorKind::Offsets,
            format!(
                "offset {:?} at slot {slot} of {data_type} is less than offset {:?} before it",
                offsets[slot],
                offsets[slot - 1]
            ),
        ));
    }
    let last_offset = offsets[offsets.len() - 1];
    let last = last_offset.to_usize().filter(|&last| last <= limit).ok_or_else(|| {
        DataError::new(
            DataErrorKind::Offsets,
            format!(
                "offset {last_offset:?} at slot {} of {data_type} is past the end of the {limit_name} ({limit})",
                offsets.len() - 1
            ),
        )
    })?;
    Ok((first, last))
}

pub(super) fn check_binary<O: OffsetSize>(data: &ArrayData) -> Result<(), DataError> {
    let bytes = &data.buffers[1];
    let (first, last) = check_offsets::<O>(data, bytes.len(), "data")?;
    if data.data_type.is_string() {
        let offsets = if data.buffers[0].is_empty() {
            &[][..]
        } else {
            typed_slots::<O>(data, 0, data.offset, end(data) + 1)?
        };
        check_utf8_with_boundaries(&data.data_type, &bytes[first..last], first, offsets)?;
    }
    Ok(())
}

/// Checks that `text` (which starts at byte `start` of the data) is UTF-8 and that no offset
/// falls inside a character.
fn check_utf8_with_boundaries<O: OffsetSize>(
    data_type: &DataType,
    text: &[u8],
    start: usize,
    offsets: &[O],
) -> Result<(), DataError> {
    // ASCII text (the common case) is valid UTF-8 that no offset can split, and the check
    // for it runs a word at a time.
    if text.is_ascii() {
        return Ok(());
    }
    if let Err(e) = utf8(text) {
        return Err(DataError::new(
            DataErrorKind::Utf8,
            format!(
                "invalid UTF-8 in {data_type} data at byte {}",
                start + e.valid_up_to()
            ),
        ));
    }
    // Offsets were checked to lie in `start..=start + text.len()`, and non-ASCII text is
    // not empty. A continuation byte (0b10xx_xxxx) cannot start a character; the scan has
    // no branch per offset, and the slot is searched only on failure.
    let last = text.len() - 1;
    let splits = |offset: &O| {
        let position = offset.as_usize().wrapping_sub(start);
        (position <= last) & (text[position.min(last)] & 0xc0 == 0x80)
    };
    const CHUNK: usize = 1024;
    if offsets
        .chunks(CHUNK)
        .any(|chunk| chunk.iter().fold(false, |any, o| any | splits(o)))
    {
        let slot = offsets.iter().position(splits).unwrap_or(0);
        return Err(DataError::new(
            DataErrorKind::Utf8,
            format!(
                "offset {:?} at slot {slot} of {data_type} splits a UTF-8 character",
                offsets[slot]
            ),
        ));
    }
    Ok(())
}

pub(super) fn check_list<O: OffsetSize>(data: &ArrayData) -> Result<(), DataError> {
    let child = &data.children[0];
    let (first, last) = check_offsets::<O>(data, child.len(), "child")?;
    if let DataType::Map(_) = &data.data_type {
        check_map_keys(&data.data_type, child, first, last)?;
    }
    Ok(())
}

/// Map keys in the entries `[first, last)` must not be null.
fn check_map_keys(
    map_type: &DataType,
    entries: &ArrayData,
    first: usize,
    last: usize,
) -> Result<(), DataError> {
    let Some(keys) = entries.children.first() else {
        return Ok(());
    };
    let Some(nulls) = keys.nulls() else {
        return Ok(());
    };
    let (from, to) = (entries.offset + first, entries.offset + last);
    let in_range = nulls.validity().slice(from, to - from);
    if in_range.count_set_bits() != in_range.len() {
        let slot = (from..to).find(|&i| nulls.is_null(i)).unwrap_or(from);
        return Err(DataError::new(
            DataErrorKind::MapKey,
            format!("key at entry {slot} of {map_type} is null"),
        ));
    }
    Ok(())
}

pub(super) fn check_list_view<O: OffsetSize>(data: &ArrayData) -> Result<(), DataError> {
    let offsets = typed_slots::<O>(data, 0, data.offset, end(data))?;
    let sizes = typed_slots::<O>(data, 1, data.offset, end(data))?;
    let child_len = data.children[0].len();
    for (slot, (&offset, &size)) in offsets.iter().zip(sizes).enumerate() {
        let range = offset.to_usize().zip(size.to_usize());
        let inside = range
            .and_then(|(o, s)| o.checked_add(s))
            .is_some_and(|end| end <= child_len);
        if !inside {
            return Err(DataError::new(
                DataErrorKind::ListView,
                format!(
                    "list view at slot {slot} of {} (offset {offset:?}, size {size:?}) leaves the child of {child_len} slots",
                    data.data_type
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn check_keys(data: &ArrayData, key: IntegerType) -> Result<(), DataError> {
    let dictionary_len = data.dictionary.as_ref().map_or(0, |d| d.len());
    match key {
        IntegerType::Int8 => check_keys_of::<i8>(data, dictionary_len),
        IntegerType::Int16 => check_keys_of::<i16>(data, dictionary_len),
        IntegerType::Int32 => check_keys_of::<i32>(data, dictionary_len),
        IntegerType::Int64 => check_keys_of::<i64>(data, dictionary_len),
        IntegerType::UInt8 => check_keys_of::<u8>(data, dictionary_len),
        IntegerType::UInt16 => check_keys_of::<u16>(data, dictionary_len),
        IntegerType::UInt32 => check_keys_of::<u32>(data, dictionary_len),
        IntegerType::UInt64 => check_keys_of::<u64>(data, dictionary_len),
    }
}

/// Keys of valid slots must index the dictionary; null slots may hold any key.
fn check_keys_of<K>(data: &ArrayData, dictionary_len: usize) -> Result<(), DataError>
where
    K: alkaid_buffer::NativeType + TryInto<usize> + std::fmt::Debug,
{
    let keys = typed_slots::<K>(data, 0, data.offset, end(data))?;
    let in_range = |key: K| key.try_into().is_ok_and(|k: usize| k < dictionary_len);
    // Chunks checked without an early exit vectorise; null slots may hold any key, so the
    // validity is consulted only when some key is out of range.
    const CHUNK: usize = 1024;
    let all_in_range = keys
        .chunks(CHUNK)
        .all(|chunk| chunk.iter().fold(true, |ok, &k| ok & in_range(k)));
    let bad = match (all_in_range, data.nulls()) {
        (true, _) => None,
        (false, None) => keys.iter().position(|&k| !in_range(k)),
        (false, Some(nulls)) => nulls.valid_indices().find(|&i| !in_range(keys[i])),
    };
    match bad {
        None => Ok(()),
        Some(slot) => Err(DataError::new(
            DataErrorKind::DictionaryKey,
            format!(
                "key {:?} at slot {slot} of {} is outside the dictionary of {dictionary_len} values",
                keys[slot], data.data_type
            ),
        )),
    }
}

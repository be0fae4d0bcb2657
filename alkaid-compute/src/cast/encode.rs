//! Casts into and out of dictionaries and run-end encoding, and into the `Null` type.
//! Values are cast first and encoded after; a dictionary's values are cast once (not once
//! per row) and its keys kept.

use alkaid_array::{Array, UInt32Array, make_array, make_builder};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, IntegerType, RunEndEncodedType};
use alkaid_select::take;
use hashbrown::HashTable;

use super::numeric;
use super::options::CastOptions;
use crate::error::ComputeError;
use crate::row_eq::row_eq;
use crate::validity::logical_nulls;

/// `len` nulls of `to`.
pub(super) fn nulls_of(to: &DataType, len: usize) -> Result<ArrayData, ComputeError> {
    let mut builder = make_builder(to, len)?;
    for _ in 0..len {
        builder.append_null();
    }
    Ok(builder.try_finish()?.to_data())
}

/// `data` as the `Null` type: every row must already be null, unless the cast is safe.
pub(super) fn to_null(data: &ArrayData, options: CastOptions) -> Result<ArrayData, ComputeError> {
    let nulls = logical_nulls(data)?;
    if !options.safe
        && let Some(row) = (0..data.len()).find(|&r| nulls.as_ref().is_none_or(|n| n.is_valid(r)))
    {
        return Err(ComputeError::Cast {
            row,
            message: format!("a {} value is not null", data.data_type()),
        });
    }
    nulls_of(&DataType::Null, data.len())
}

/// The first row of each distinct value of `data` and each row's entry among them
/// (`None` for null rows).
fn distinct_rows(data: &ArrayData) -> Result<(Vec<u32>, Vec<Option<u32>>), ComputeError> {
    let array = make_array(data.clone());
    let hashes = crate::hash::hash_rows(&[array.as_ref()], 0)?;
    let equal = row_eq(data, data)?;
    let nulls = logical_nulls(data)?;
    let mut table: HashTable<u32> = HashTable::new();
    let mut firsts: Vec<u32> = Vec::new();
    let mut entries = Vec::with_capacity(data.len());
    for row in 0..data.len() {
        if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            entries.push(None);
            continue;
        }
        let hash = hashes.value(row);
        let entry = table.entry(
            hash,
            |&e| equal(firsts[e as usize] as usize, row),
            |&e| hashes.value(firsts[e as usize] as usize),
        );
        let index = match entry {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get(),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let index = firsts.len() as u32;
                firsts.push(row as u32);
                slot.insert(index);
                index
            }
        };
        entries.push(Some(index));
    }
    Ok((firsts, entries))
}

/// Keys (`Int64` first, then narrowed to `key`, which fails if there are too many).
fn keys_of(entries: Vec<Option<i64>>, key: IntegerType) -> Result<ArrayData, ComputeError> {
    let wide = alkaid_array::Int64Array::from(entries).to_data();
    numeric::numbers(&wide, &key.to_data_type(), CastOptions::STRICT).map_err(|e| match e {
        ComputeError::Cast { row, .. } => ComputeError::Cast {
            row,
            message: format!("more distinct values than {key:?} keys can number"),
        },
        other => other,
    })
}

/// Plain values (already of the dictionary's value type) dictionary-encoded.
pub(super) fn dictionary_encode(
    values: &ArrayData,
    key: IntegerType,
    ordered: bool,
) -> Result<ArrayData, ComputeError> {
    let (firsts, entries) = distinct_rows(values)?;
    let dictionary = take(
        make_array(values.clone()).as_ref(),
        &UInt32Array::from(firsts),
    )?;
    let keys = keys_of(entries.into_iter().map(|e| e.map(i64::from)).collect(), key)?;
    let data_type = DataType::Dictionary {
        key,
        value: Box::new(values.data_type().clone()),
        ordered,
    };
    Ok(ArrayData::builder(data_type)
        .len(values.len())
        .nulls(keys.nulls().cloned())
        .buffers(keys.buffers().to_vec())
        .dictionary(dictionary.to_data())
        .build()?)
}

/// Plain values (already of the runs' value type) run-end encoded: adjacent equal values
/// (nulls included) are one run.
pub(super) fn run_encode(
    values: &ArrayData,
    ree: &RunEndEncodedType,
) -> Result<ArrayData, ComputeError> {
    let equal = row_eq(values, values)?;
    let nulls = logical_nulls(values)?;
    let null = |r: usize| nulls.as_ref().is_some_and(|n| n.is_null(r));
    let mut starts: Vec<u32> = Vec::new();
    let mut ends: Vec<Option<i64>> = Vec::new();
    for row in 0..values.len() {
        let same = row > 0 && {
            let previous = row - 1;
            match (null(previous), null(row)) {
                (true, true) => true,
                (false, false) => equal(previous, row),
                _ => false,
            }
        };
        if same {
            *ends.last_mut().expect("a run is open") = Some(row as i64 + 1);
        } else {
            starts.push(row as u32);
            ends.push(Some(row as i64 + 1));
        }
    }
    let run_values = take(
        make_array(values.clone()).as_ref(),
        &UInt32Array::from(starts),
    )?;
    let run_ends = keys_of(
        ends,
        match ree.run_end_type() {
            alkaid_schema::RunEndType::Int16 => IntegerType::Int16,
            alkaid_schema::RunEndType::Int32 => IntegerType::Int32,
            alkaid_schema::RunEndType::Int64 => IntegerType::Int64,
        },
    )?;
    Ok(ArrayData::builder(DataType::RunEndEncoded(ree.clone()))
        .len(values.len())
        .children(vec![run_ends, run_values.to_data()])
        .build()?)
}

//! Lifting kernels over dictionaries and run-end encoding.
//!
//! A kernel written for plain arrays is *lifted* over an encoded input:
//!
//! - beside a scalar (or alone, for unary kernels), it runs on the dictionary's values or
//!   the runs' values only (a dictionary of 100 strings is compared with a scalar in 100
//!   string comparisons, whatever the number of rows), and its result is mapped back to
//!   the rows: gathered through the keys or runs into a plain array ([`Lift::Gather`],
//!   what comparisons do, since their result is a boolean array), or kept in the input's
//!   encoding with new values ([`Lift::Keep`], what arithmetic does: a dictionary plus a
//!   scalar is a dictionary, a run-end encoded array times a scalar stays run-end encoded);
//! - against an array, the encoded side is decoded first (gathered into a plain array),
//!   since each row may meet a different value.
//!
//! A fallible kernel that fails on a dictionary's values is run again with the entries no
//! key points at set to null (they are nobody's value, so their failure is nobody's
//! error); only the runs a slice covers are computed in the first place. If it still
//! fails, it runs on the decoded rows, so that the error names the row, not a dictionary
//! position.

use alkaid_array::{Array, BooleanArray, make_array};
use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::{NativeType, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use alkaid_select::take;

use crate::access::native_values;
use crate::bits::vectorized;
use crate::encoding::{Runs, decoded, dictionary_keys, encoded_values, is_encoded};
use crate::error::ComputeError;
use crate::operand::Operand;
use crate::pack::map_bits;
use alkaid_array::with_integer;

/// How a result computed over encoded values returns to the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lift {
    /// Gathered into a plain array.
    Gather,
    /// Kept in the input's encoding, with the result as the new values.
    Keep,
}

/// A result computed over the values of `encoded` (from [`encoded_values`]), returned to
/// its rows as `lift` says.
pub(crate) fn lift_back(
    encoded: &ArrayData,
    result: ArrayData,
    lift: Lift,
) -> Result<ArrayData, ComputeError> {
    let booleans = *result.data_type() == DataType::Boolean;
    match (encoded.data_type(), lift) {
        (DataType::Dictionary { .. }, Lift::Gather) if booleans => {
            booleans_by_key(encoded, &result)
        }
        (DataType::RunEndEncoded(_), Lift::Gather) if booleans => booleans_by_run(encoded, &result),
        (DataType::Dictionary { .. }, Lift::Gather) => {
            let keys = make_array(dictionary_keys(encoded)?);
            Ok(take(make_array(result).as_ref(), keys.as_ref())?.to_data())
        }
        (DataType::Dictionary { key, ordered, .. }, Lift::Keep) => {
            let data_type = DataType::Dictionary {
                key: *key,
                value: Box::new(result.data_type().clone()),
                ordered: *ordered,
            };
            Ok(ArrayData::builder(data_type)
                .len(encoded.len())
                .offset(encoded.offset())
                .nulls(encoded.nulls().cloned())
                .buffers(encoded.buffers().to_vec())
                .dictionary(result)
                .build()?)
        }
        (_, Lift::Gather) => {
            let runs = Runs::of(encoded)?;
            let indices = runs.row_indices();
            Ok(take(make_array(result).as_ref(), indices.as_ref())?.to_data())
        }
        (_, Lift::Keep) => Runs::of(encoded)?.with_values(result),
    }
}

/// Booleans computed per dictionary entry (a comparison's answers), looked up by each row's
/// key: a table of the entries' answers, then one vectorised pass over the keys. This is
/// what makes a dictionary compared with a scalar cost the dictionary's size plus one pass
/// over the keys.
fn booleans_by_key(encoded: &ArrayData, result: &ArrayData) -> Result<ArrayData, ComputeError> {
    let answers = BooleanArray::try_from(result.clone())?;
    // Bit 0: the answer; bit 1: whether it is valid.
    let table: Vec<u8> = (0..answers.len())
        .map(|e| u8::from(answers.value(e)) | u8::from(answers.is_valid(e)) << 1)
        .collect();
    let keys = dictionary_keys(encoded)?;
    let alkaid_schema::PhysicalType::Primitive(p) = keys.data_type().to_physical() else {
        return Err(ComputeError::InvalidArgument(
            "dictionary keys are not integers".into(),
        ));
    };
    let (values, valid) = with_integer!(p, |K| {
        let keys = native_values::<K>(&keys)?;
        // A key under a null row may be anything; one outside the table reads as 0.
        let lookup = |key: K| table.get(key as usize).copied().unwrap_or(0);
        let values = vectorized(|| map_bits(&keys, |key| lookup(key) & 1 != 0));
        let valid = match answers.null_count() {
            0 => None,
            _ => Some(vectorized(|| map_bits(&keys, |key| lookup(key) & 2 != 0))),
        };
        (values, valid)
    });
    let valid = match (valid, keys.nulls()) {
        (Some(valid), Some(nulls)) => Some(&valid & nulls.validity()),
        (valid, nulls) => valid.or_else(|| nulls.map(|n| n.validity().clone())),
    };
    let nulls = valid.map(NullBuffer::new).filter(|n| n.null_count() > 0);
    Ok(BooleanArray::try_new(values, nulls)?.to_data())
}

/// Booleans computed per run, spread over each run's rows.
fn booleans_by_run(encoded: &ArrayData, result: &ArrayData) -> Result<ArrayData, ComputeError> {
    let answers = BooleanArray::try_from(result.clone())?;
    let runs = Runs::of(encoded)?;
    let mut values = BooleanBufferBuilder::new(encoded.len());
    let mut valid = BooleanBufferBuilder::new(encoded.len());
    for (run, &length) in runs.lengths.iter().enumerate() {
        values.append_n(length, answers.value(run));
        valid.append_n(length, answers.is_valid(run));
    }
    let nulls = Some(NullBuffer::new(valid.finish())).filter(|n| n.null_count() > 0);
    Ok(BooleanArray::try_new(values.finish(), nulls)?.to_data())
}

/// A unary kernel over `input`, seen through its encoding (see the module docs).
pub(crate) fn lift_unary(
    input: &ArrayData,
    lift: Lift,
    kernel: &dyn Fn(&ArrayData) -> Result<ArrayData, ComputeError>,
) -> Result<ArrayData, ComputeError> {
    if !is_encoded(input) {
        return kernel(input);
    }
    let values = encoded_values(input)?;
    let attempt =
        lift_unary(&values, lift, kernel).or_else(|error| match referenced_only(input)? {
            Some(values) => lift_unary(&values, lift, kernel),
            None => Err(error),
        });
    match attempt {
        Ok(result) => lift_back(input, result, lift),
        Err(_) => kernel(&decoded(input)?),
    }
}

/// A binary kernel over two operands, seen through their encodings (see the module docs).
/// `kernel` sees plain operands only.
pub(crate) fn lift_binary(
    left: &Operand,
    right: &Operand,
    lift: Lift,
    kernel: &dyn Fn(&Operand, &Operand) -> Result<ArrayData, ComputeError>,
) -> Result<ArrayData, ComputeError> {
    let (left_encoded, right_encoded) = (is_encoded(&left.data), is_encoded(&right.data));
    if !left_encoded && !right_encoded {
        return kernel(left, right);
    }
    // An encoded array beside a scalar: the kernel runs on its values alone.
    let values_first = left_encoded && !left.scalar && right.scalar;
    if values_first || (right_encoded && !right.scalar && left.scalar) {
        let (encoded, scalar) = if values_first {
            (left, right)
        } else {
            (right, left)
        };
        let scalar = plain(scalar)?;
        let run = |values: ArrayData| {
            let values = Operand::array(values);
            match values_first {
                true => lift_binary(&values, &scalar, lift, kernel),
                false => lift_binary(&scalar, &values, lift, kernel),
            }
        };
        let attempt = run(encoded_values(&encoded.data)?).or_else(|error| {
            match referenced_only(&encoded.data)? {
                Some(values) => run(values),
                None => Err(error),
            }
        });
        if let Ok(result) = attempt {
            return lift_back(&encoded.data, result, lift);
        }
    }
    kernel(&plain(left)?, &plain(right)?)
}

/// A dictionary's values with the entries no valid key points at set to null; `None` for
/// other arrays (a run-end encoded array's covered runs are all used) and for values whose
/// type has no validity of its own.
fn referenced_only(data: &ArrayData) -> Result<Option<ArrayData>, ComputeError> {
    let (DataType::Dictionary { .. }, Some(values)) = (data.data_type(), data.dictionary()) else {
        return Ok(None);
    };
    if !alkaid_data::layout(values.data_type()).has_validity {
        return Ok(None);
    }
    let keys = dictionary_keys(data)?;
    let mut used = vec![false; values.len()];
    with_integer!(integer_layout(keys.data_type()), |K| {
        let positions = native_values::<K>(&keys)?;
        for (row, &key) in positions.iter().enumerate() {
            if keys.is_valid(row)
                && let Some(position) = key.to_i64().and_then(|k| usize::try_from(k).ok())
                && let Some(flag) = used.get_mut(position)
            {
                *flag = true;
            }
        }
    });
    let mut valid = alkaid_buffer::BooleanBuffer::from(used);
    if let Some(nulls) = values.nulls() {
        valid = &valid & nulls.validity();
    }
    let mut builder = ArrayData::builder(values.data_type().clone())
        .len(values.len())
        .offset(values.offset())
        .nulls(Some(NullBuffer::new(valid)))
        .buffers(values.buffers().to_vec())
        .children(values.children().to_vec());
    if let Some(dictionary) = values.shared_dictionary() {
        builder = builder.dictionary(std::sync::Arc::clone(dictionary));
    }
    Ok(Some(builder.build()?))
}

/// The physical integer type of a key type.
fn integer_layout(data_type: &DataType) -> alkaid_schema::NativeKind {
    match data_type.to_physical() {
        alkaid_schema::PhysicalType::Primitive(p) => p,
        _ => alkaid_schema::NativeKind::Int64,
    }
}

/// The operand with its encoding expanded.
fn plain(operand: &Operand) -> Result<Operand, ComputeError> {
    Ok(operand.with_data(decoded(&operand.data)?))
}

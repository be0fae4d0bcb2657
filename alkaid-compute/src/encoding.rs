//! Dictionaries and run-end encoding: kernels see through them here, once for all.
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

use alkaid_array::{ArrayRef, UInt32Array, UInt64Array, make_array};
use alkaid_buffer::{NativeType, ScalarBuffer};
use alkaid_data::{ArrayData, run_span};
use alkaid_schema::{DataType, Field, RunEndEncodedType, RunEndType};
use alkaid_select::take;

use crate::error::ComputeError;
use crate::operand::Operand;

/// How a result computed over encoded values returns to the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lift {
    /// Gathered into a plain array.
    Gather,
    /// Kept in the input's encoding, with the result as the new values.
    Keep,
}

/// Whether `data` is dictionary-encoded or run-end encoded at the top.
pub(crate) fn is_encoded(data: &ArrayData) -> bool {
    matches!(
        data.data_type(),
        DataType::Dictionary { .. } | DataType::RunEndEncoded(_)
    )
}

/// The values an encoded array's rows draw from: the whole dictionary, or the runs that
/// the array's window covers.
pub(crate) fn encoded_values(data: &ArrayData) -> Result<ArrayData, ComputeError> {
    match data.data_type() {
        DataType::Dictionary { .. } => Ok(dictionary_of(data)?.clone()),
        _ => Ok(Runs::of(data)?.values),
    }
}

/// The dictionary of a dictionary array.
fn dictionary_of(data: &ArrayData) -> Result<&ArrayData, ComputeError> {
    data.dictionary().ok_or_else(|| {
        ComputeError::InvalidArgument("a dictionary array without its dictionary".into())
    })
}

/// The keys of a dictionary array as an integer array, with the keys' validity.
pub(crate) fn dictionary_keys(data: &ArrayData) -> Result<ArrayData, ComputeError> {
    let DataType::Dictionary { key, .. } = data.data_type() else {
        return Err(ComputeError::InvalidArgument(format!(
            "expected a dictionary array, found {}",
            data.data_type()
        )));
    };
    let keys = ArrayData::builder(key.to_data_type())
        .len(data.len())
        .offset(data.offset())
        .nulls(data.nulls().cloned())
        .buffers(data.buffers().to_vec())
        .build()?;
    Ok(keys)
}

/// The runs a run-end encoded array's window covers, and how many of its rows each holds.
pub(crate) struct Runs {
    /// The values of the covered runs, in order.
    pub values: ArrayData,
    /// Rows of the window in each covered run (all but the first and last are whole runs).
    pub lengths: Vec<usize>,
    /// The run ends' integer type.
    pub run_end_type: RunEndType,
}

impl Runs {
    /// The runs of `data`, a run-end encoded array.
    pub fn of(data: &ArrayData) -> Result<Self, ComputeError> {
        let DataType::RunEndEncoded(ree) = data.data_type() else {
            return Err(ComputeError::InvalidArgument(format!(
                "expected a run-end encoded array, found {}",
                data.data_type()
            )));
        };
        let (run_ends, values) = (&data.children()[0], &data.children()[1]);
        let span = run_span(run_ends, data.offset(), data.len())?;
        let ends = run_end_positions(run_ends, span.clone());
        let (start, stop) = (data.offset(), data.offset() + data.len());
        let mut lengths = Vec::with_capacity(ends.len());
        let mut previous = start;
        for end in ends {
            let end = end.min(stop);
            lengths.push(end - previous);
            previous = end;
        }
        Ok(Self {
            values: values.slice(span.start, span.len()),
            lengths,
            run_end_type: ree.run_end_type(),
        })
    }

    /// For each row of the window, its run's position among the covered runs.
    pub fn row_indices(&self) -> ArrayRef {
        let rows: usize = self.lengths.iter().sum();
        if u32::try_from(self.lengths.len()).is_ok() {
            let mut indices = Vec::with_capacity(rows);
            for (run, &length) in self.lengths.iter().enumerate() {
                indices.extend(std::iter::repeat_n(run as u32, length));
            }
            std::sync::Arc::new(UInt32Array::from(indices))
        } else {
            let mut indices = Vec::with_capacity(rows);
            for (run, &length) in self.lengths.iter().enumerate() {
                indices.extend(std::iter::repeat_n(run as u64, length));
            }
            std::sync::Arc::new(UInt64Array::from(indices))
        }
    }

    /// A run-end encoded array of these runs holding `values` (one per covered run).
    pub fn with_values(&self, values: ArrayData) -> Result<ArrayData, ComputeError> {
        let rows: usize = self.lengths.iter().sum();
        let mut end = 0usize;
        let ends = self.lengths.iter().map(|length| {
            end += length;
            end as i64
        });
        let run_ends = match self.run_end_type {
            RunEndType::Int16 => {
                int_array(ends.map(|e| e as i16).collect::<Vec<_>>(), DataType::Int16)
            }
            RunEndType::Int32 => {
                int_array(ends.map(|e| e as i32).collect::<Vec<_>>(), DataType::Int32)
            }
            RunEndType::Int64 => int_array(ends.collect::<Vec<_>>(), DataType::Int64),
        }?;
        let field = Field::new("values", values.data_type().clone(), true);
        let data_type = DataType::RunEndEncoded(RunEndEncodedType::new(self.run_end_type, field));
        Ok(ArrayData::builder(data_type)
            .len(rows)
            .children(vec![run_ends, values])
            .build()?)
    }
}

/// An integer array of `values` (no nulls).
fn int_array<T: NativeType>(
    values: Vec<T>,
    data_type: DataType,
) -> Result<ArrayData, ComputeError> {
    let len = values.len();
    Ok(ArrayData::builder(data_type)
        .len(len)
        .buffers(vec![ScalarBuffer::from(values).into_inner()])
        .build()?)
}

/// The run ends at positions `span` of `run_ends` (an `Int16`, `Int32` or `Int64` array,
/// valid: positive and increasing), as positions.
fn run_end_positions(run_ends: &ArrayData, span: std::ops::Range<usize>) -> Vec<usize> {
    let buffer = &run_ends.buffers()[0];
    let first = run_ends.offset() + span.start;
    let read = |width: usize| -> Vec<usize> {
        (first..first + span.len())
            .map(|k| {
                let mut raw = [0u8; 8];
                raw[..width].copy_from_slice(&buffer[k * width..(k + 1) * width]);
                let shift = 64 - 8 * width as u32;
                ((i64::from_le_bytes(raw) << shift) >> shift).max(0) as usize
            })
            .collect()
    };
    match run_ends.data_type() {
        DataType::Int16 => read(2),
        DataType::Int32 => read(4),
        _ => read(8),
    }
}

/// `data` with its top-level dictionary or runs expanded into a plain array of the values'
/// type (again if the values are themselves encoded); plain data is returned as it is.
pub(crate) fn decoded(data: &ArrayData) -> Result<ArrayData, ComputeError> {
    let plain = match data.data_type() {
        DataType::Dictionary { .. } => {
            let keys = make_array(dictionary_keys(data)?);
            let values = make_array(dictionary_of(data)?.clone());
            take(values.as_ref(), keys.as_ref())?.to_data()
        }
        DataType::RunEndEncoded(_) => {
            let runs = Runs::of(data)?;
            let values = make_array(runs.values.clone());
            take(values.as_ref(), runs.row_indices().as_ref())?.to_data()
        }
        _ => return Ok(data.clone()),
    };
    decoded(&plain)
}

/// A result computed over the values of `encoded` (from [`encoded_values`]), returned to
/// its rows as `lift` says.
pub(crate) fn lift_back(
    encoded: &ArrayData,
    result: ArrayData,
    lift: Lift,
) -> Result<ArrayData, ComputeError> {
    match (encoded.data_type(), lift) {
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
    crate::native::with_integer!(integer_layout(keys.data_type()), |K| {
        let positions = crate::access::native_values::<K>(&keys)?;
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
        .nulls(Some(alkaid_buffer::NullBuffer::new(valid)))
        .buffers(values.buffers().to_vec())
        .children(values.children().to_vec());
    if let Some(dictionary) = values.shared_dictionary() {
        builder = builder.dictionary(std::sync::Arc::clone(dictionary));
    }
    Ok(Some(builder.build()?))
}

/// The physical integer type of a key type.
fn integer_layout(data_type: &DataType) -> alkaid_schema::PrimitiveType {
    match data_type.to_physical() {
        alkaid_schema::PhysicalType::Primitive(p) => p,
        _ => alkaid_schema::PrimitiveType::Int64,
    }
}

/// The operand with its encoding expanded.
fn plain(operand: &Operand) -> Result<Operand, ComputeError> {
    Ok(operand.with_data(decoded(&operand.data)?))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::types::{Int16Type, Int32Type};
    use alkaid_array::{Array, DictionaryArray, Int32Array, RunArray, StringArray};

    use super::*;

    fn runs() -> ArrayData {
        // a a b b b c, sliced to rows 1..5: a b b b
        let values: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c"]));
        let runs =
            RunArray::<Int16Type>::try_new(alkaid_array::Int16Array::from(vec![2, 5, 6]), values)
                .unwrap();
        runs.to_data().slice(1, 4)
    }

    #[test]
    fn runs_of_a_slice_count_only_its_rows() {
        let runs = Runs::of(&runs()).unwrap();
        assert_eq!(runs.lengths, [1, 3]);
        assert_eq!(runs.values.len(), 2);
        let rebuilt = runs.with_values(runs.values.clone()).unwrap();
        assert!(alkaid_data::equal(
            &decoded(&rebuilt).unwrap(),
            &decoded(&self::runs()).unwrap()
        ));
    }

    #[test]
    fn decoding_expands_dictionaries_and_runs() {
        let decoded_runs = make_array(decoded(&runs()).unwrap());
        let strings = decoded_runs.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(strings.iter().flatten().collect::<String>(), "abbb");
        let keys = Int32Array::from(vec![Some(1), None, Some(0)]);
        let values: ArrayRef = Arc::new(StringArray::from(vec!["x", "y"]));
        let dictionary = DictionaryArray::<Int32Type>::try_new(keys, values).unwrap();
        let plain = make_array(decoded(&dictionary.to_data()).unwrap());
        let plain = plain.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(
            plain.iter().collect::<Vec<_>>(),
            [Some("y"), None, Some("x")]
        );
    }
}

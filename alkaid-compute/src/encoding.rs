//! Dictionaries and run-end encoding taken apart: their values, their keys, the runs a
//! window covers, and the rows decoded into a plain array. How kernels are lifted over
//! them is in `lift.rs`.

use alkaid_array::{ArrayRef, UInt32Array, UInt64Array, make_array};
use alkaid_buffer::{NativeType, ScalarBuffer};
use alkaid_data::{ArrayData, run_span};
use alkaid_schema::{DataType, Field, RunEndEncodedType, RunEndType};
use alkaid_select::take;

use crate::error::ComputeError;

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

//! Conditionals and nulls: a choice between two branches by a condition, the first value
//! that is not null among several, and nulls filled from a value or from their neighbours.
//!
//! | kernel | result |
//! | --- | --- |
//! | [`if_else`] | the true branch where the condition is true, the false branch where it is false, null where it is null (Arrow C++'s `if_else`) |
//! | [`coalesce`] | per row, the first argument that is not null (SQL's `COALESCE`) |
//! | [`fill_null`] | the array with its nulls replaced by a scalar's value or another array's row |
//! | [`fill_null_forward`], [`fill_null_backward`] | each null replaced by the nearest earlier (later) value that is not null |
//! | [`nullif`] | alkaid-select's `nullif` (the rows a mask picks made null), re-exported |
//!
//! Every kernel takes every type, nested and encoded ones included, and arguments that
//! are arrays of one length or [`Scalar`]s standing for every row.
//! The arguments must be of one type (the caller casts first, as an engine's planner
//! does); a dictionary-encoded result merges the arguments' dictionaries. "Null" means the
//! row's logical validity: a dictionary entry or a run's value that is null makes the row
//! null, a struct row with null fields is not. Results are assembled by alkaid-select's
//! `interleave` (or `take`, for the fills), so every layout is built the one way those
//! build it.
//!
//! For SQL's `CASE WHEN c THEN a ELSE b END`, where a null condition picks the `ELSE`
//! branch, use alkaid-select's `zip` (a null mask slot counts as false).

mod bytes;
mod coalesce;
mod fill;
mod fixed;
mod if_else;

use alkaid_array::{Array, Datum, Scalar};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::error::ComputeError;
use crate::operand::Operand;

pub use alkaid_select::nullif;
pub use coalesce::{coalesce, fill_null};
pub use fill::{fill_null_backward, fill_null_forward};
pub use if_else::if_else;

/// The value arguments of a conditional: their data, one type, and the length of the
/// result (the arrays' common length, or 1 if every argument is a scalar).
struct Branches {
    operands: Vec<Operand>,
    data_type: DataType,
    len: usize,
}

impl Branches {
    /// Checks that `arguments` (named by `names` in errors) are of one type and that the
    /// arrays among them have `len` rows (or one common length, if `len` is `None`).
    fn of(
        kernel: &'static str,
        arguments: &[(&str, &dyn Datum)],
        len: Option<usize>,
    ) -> Result<Self, ComputeError> {
        let operands: Vec<Operand> = arguments.iter().map(|(_, d)| Operand::of(*d)).collect();
        let Some(first) = operands.first() else {
            return Err(ComputeError::InvalidArgument(format!(
                "{kernel}: expected at least one argument, found none"
            )));
        };
        let data_type = first.data.data_type().clone();
        let mut len = len;
        for ((name, _), operand) in arguments.iter().zip(&operands) {
            if operand.data.data_type() != &data_type {
                return Err(ComputeError::unsupported(
                    kernel,
                    format!(
                        "{name} is {}, {} is {data_type}: the arguments must be of one type",
                        operand.data.data_type(),
                        arguments[0].0
                    ),
                ));
            }
            if operand.scalar {
                if operand.data.len() != 1 {
                    return Err(ComputeError::InvalidArgument(format!(
                        "{kernel}: expected {name} to be a scalar of one slot, found {} slots",
                        operand.data.len()
                    )));
                }
                continue;
            }
            match len {
                None => len = Some(operand.data.len()),
                Some(expected) if expected != operand.data.len() => {
                    return Err(ComputeError::LengthMismatch {
                        what: "every array argument",
                        expected,
                        found: operand.data.len(),
                    });
                }
                Some(_) => {}
            }
        }
        Ok(Self {
            operands,
            data_type,
            len: len.unwrap_or(1),
        })
    }

    /// The row of argument `k` that stands for result row `row`.
    fn row(&self, k: usize, row: usize) -> usize {
        if self.operands[k].scalar { 0 } else { row }
    }

    /// The arguments' data, for `interleave`, with a one-slot null of their type last
    /// (its index is `self.operands.len()`).
    fn sources_with_null(&self) -> Result<Vec<ArrayData>, ComputeError> {
        let null = Scalar::new_null(&self.data_type)?;
        let mut sources: Vec<ArrayData> = self.operands.iter().map(|o| o.data.clone()).collect();
        sources.push(null.array().to_data());
        Ok(sources)
    }
}

/// The rows `pairs` pick (argument, row) from `sources`, as one array.
fn assemble(
    sources: &[ArrayData],
    pairs: &[(usize, usize)],
) -> Result<alkaid_array::ArrayRef, ComputeError> {
    let arrays: Vec<alkaid_array::ArrayRef> = sources
        .iter()
        .cloned()
        .map(alkaid_array::make_array)
        .collect();
    let views: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
    Ok(alkaid_select::interleave(&views, pairs)?)
}

//! Kernel inputs: a [`Datum`] resolved to its data, and the length of the result.

use alkaid_array::Datum;
use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;

use crate::error::ComputeError;
use crate::validity::logical_nulls;

/// One input of a kernel: its data, and whether it is a scalar (one slot that stands for
/// every row).
#[derive(Debug, Clone)]
pub(crate) struct Operand {
    /// The array, or the scalar's one-slot array.
    pub data: ArrayData,
    /// Whether `data` is a scalar.
    pub scalar: bool,
}

impl Operand {
    /// The input behind a datum.
    pub fn of(datum: &dyn Datum) -> Self {
        let (array, scalar) = datum.get();
        Self {
            data: array.to_data(),
            scalar,
        }
    }

    /// An array operand.
    pub fn array(data: ArrayData) -> Self {
        Self {
            data,
            scalar: false,
        }
    }

    /// The same kind of operand (array or scalar) over other data.
    pub fn with_data(&self, data: ArrayData) -> Self {
        Self {
            data,
            scalar: self.scalar,
        }
    }
}

/// The two inputs of a binary kernel and the length of its result: the arrays' common
/// length, the array's length beside a scalar, or 1 for two scalars.
///
/// # Errors
/// If two arrays differ in length.
pub(crate) fn binary_operands(
    left: &dyn Datum,
    right: &dyn Datum,
) -> Result<(Operand, Operand, usize), ComputeError> {
    let (left, right) = (Operand::of(left), Operand::of(right));
    for operand in [&left, &right] {
        // `Scalar` guarantees one slot; a `Datum` of the caller's own may not.
        if operand.scalar && operand.data.len() != 1 {
            return Err(ComputeError::InvalidArgument(format!(
                "expected a scalar of one slot, found {} slots",
                operand.data.len()
            )));
        }
    }
    let len = match (left.scalar, right.scalar) {
        (true, true) => 1,
        (true, false) => right.data.len(),
        (false, true) => left.data.len(),
        (false, false) => {
            if left.data.len() != right.data.len() {
                return Err(ComputeError::LengthMismatch {
                    what: "the right input",
                    expected: left.data.len(),
                    found: right.data.len(),
                });
            }
            left.data.len()
        }
    };
    Ok((left, right, len))
}

/// The length of a binary kernel's result over two plain operands.
pub(crate) fn result_len(left: &Operand, right: &Operand) -> usize {
    match (left.scalar, right.scalar) {
        (false, _) => left.data.len(),
        (true, false) => right.data.len(),
        (true, true) => 1,
    }
}

/// The validity an operand gives a result of `len` rows: its own (a scalar's spread over
/// every row), `None` if every row is valid.
pub(crate) fn operand_validity(
    operand: &Operand,
    len: usize,
) -> Result<Option<NullBuffer>, ComputeError> {
    let nulls = logical_nulls(&operand.data)?;
    Ok(match (operand.scalar, nulls) {
        (true, Some(nulls)) if nulls.is_null(0) => Some(NullBuffer::new_null(len)),
        (true, _) => None,
        (false, nulls) => nulls,
    })
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Array, Int32Array};

    use super::*;

    /// A datum that claims to be a scalar but holds two slots.
    struct TwoSlotScalar(Int32Array);

    impl Datum for TwoSlotScalar {
        fn get(&self) -> (&dyn Array, bool) {
            (&self.0, true)
        }
    }

    #[test]
    fn a_scalar_must_have_one_slot() {
        let bad = TwoSlotScalar(Int32Array::from(vec![1, 2]));
        let values = Int32Array::from(vec![1, 2, 3]);
        let error = binary_operands(&values, &bad).unwrap_err();
        assert!(error.to_string().contains("one slot"), "{error}");
        let (_, _, len) = binary_operands(&values, &alkaid_array::Scalar::from(1i32)).unwrap();
        assert_eq!(len, 3);
    }
}

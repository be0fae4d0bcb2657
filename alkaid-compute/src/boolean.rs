//! Boolean logic, a 64-bit word at a time: `and`, `or`, `xor`, `and_not` and `not`, where a
//! null on either side makes the row null, and SQL's three-valued `and_kleene` and
//! `or_kleene`, where a known answer wins over a null (`false AND null` is `false`,
//! `true OR null` is `true`).
//!
//! Every kernel takes booleans, as arrays or scalars; dictionary and run-end encoded
//! booleans are expanded first (`not` of one keeps the dictionary's keys or the runs).

use alkaid_array::{Array, BooleanArray, Datum};
use alkaid_buffer::{BooleanBuffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::error::ComputeError;
use crate::lift::{Lift, lift_binary, lift_unary};
use crate::operand::{Operand, binary_operands, operand_validity, result_len};

/// A binary boolean operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Logic {
    And,
    Or,
    Xor,
    AndNot,
    AndKleene,
    OrKleene,
}

impl Logic {
    fn name(self) -> &'static str {
        match self {
            Self::And => "and",
            Self::Or => "or",
            Self::Xor => "xor",
            Self::AndNot => "and_not",
            Self::AndKleene => "and_kleene",
            Self::OrKleene => "or_kleene",
        }
    }
}

macro_rules! logic {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// If either input is not boolean, or two arrays differ in length.
        pub fn $name(left: &dyn Datum, right: &dyn Datum) -> Result<BooleanArray, ComputeError> {
            binary(Logic::$op, left, right)
        }
    };
}

logic!(
    /// `left AND right`; null where either side is null.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::BooleanArray;
    /// use alkaid_compute::and;
    /// let left = BooleanArray::from(vec![Some(true), Some(false), None]);
    /// let right = BooleanArray::from(vec![Some(true), None, Some(false)]);
    /// let result = and(&left, &right)?;
    /// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(true), None, None]);
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    and, And
);
logic!(
    /// `left OR right`; null where either side is null.
    or, Or
);
logic!(
    /// `left XOR right`; null where either side is null.
    xor, Xor
);
logic!(
    /// `left AND NOT right`; null where either side is null.
    and_not, AndNot
);
logic!(
    /// SQL's `AND`: false where either side is false, true where both are true, else null.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::BooleanArray;
    /// use alkaid_compute::and_kleene;
    /// let left = BooleanArray::from(vec![Some(false), Some(true), None]);
    /// let right = BooleanArray::from(vec![None, None, None]);
    /// let result = and_kleene(&left, &right)?;
    /// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(false), None, None]);
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    and_kleene, AndKleene
);
logic!(
    /// SQL's `OR`: true where either side is true, false where both are false, else null.
    or_kleene, OrKleene
);

/// `NOT array`; null where the array is null.
///
/// # Errors
/// If `array` is not boolean.
///
/// # Examples
/// ```
/// use alkaid_array::BooleanArray;
/// use alkaid_compute::not;
/// let result = not(&BooleanArray::from(vec![Some(true), None]))?;
/// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(false), None]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn not(array: &dyn Array) -> Result<BooleanArray, ComputeError> {
    let data = lift_unary(&array.to_data(), Lift::Gather, &|data| {
        check_boolean("not", data.data_type())?;
        let values = !&bits(data);
        Ok(BooleanArray::try_new(values, data.nulls().cloned())?.to_data())
    })?;
    Ok(BooleanArray::try_from(data)?)
}

fn check_boolean(kernel: &'static str, data_type: &DataType) -> Result<(), ComputeError> {
    match data_type {
        DataType::Boolean => Ok(()),
        other => Err(ComputeError::unsupported(
            kernel,
            format!("expected Boolean inputs, found {other}"),
        )),
    }
}

/// The value bits of boolean data.
fn bits(data: &ArrayData) -> BooleanBuffer {
    BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len())
}

fn binary(op: Logic, left: &dyn Datum, right: &dyn Datum) -> Result<BooleanArray, ComputeError> {
    let (left, right, _) = binary_operands(left, right)?;
    let data = lift_binary(&left, &right, Lift::Gather, &|l, r| plain(op, l, r))?;
    Ok(BooleanArray::try_from(data)?)
}

/// An operand's values as `len` bits (a scalar repeated).
fn operand_bits(operand: &Operand, len: usize) -> BooleanBuffer {
    let values = bits(&operand.data);
    match operand.scalar {
        false => values,
        true if values.value(0) => BooleanBuffer::new_set(len),
        true => BooleanBuffer::new_unset(len),
    }
}

fn plain(op: Logic, left: &Operand, right: &Operand) -> Result<ArrayData, ComputeError> {
    check_boolean(op.name(), left.data.data_type())?;
    check_boolean(op.name(), right.data.data_type())?;
    let len = result_len(left, right);
    let (l, r) = (operand_bits(left, len), operand_bits(right, len));
    let (ln, rn) = (operand_validity(left, len)?, operand_validity(right, len)?);
    let (values, nulls) = match op {
        Logic::And => (&l & &r, NullBuffer::union(ln.as_ref(), rn.as_ref())),
        Logic::Or => (&l | &r, NullBuffer::union(ln.as_ref(), rn.as_ref())),
        Logic::Xor => (&l ^ &r, NullBuffer::union(ln.as_ref(), rn.as_ref())),
        Logic::AndNot => (l.and_not(&r), NullBuffer::union(ln.as_ref(), rn.as_ref())),
        Logic::AndKleene | Logic::OrKleene => kleene(op, &l, ln, &r, rn),
    };
    Ok(BooleanArray::try_new(values, nulls)?.to_data())
}

/// Three-valued logic: the known-true and known-false rows of each side decide.
fn kleene(
    op: Logic,
    l: &BooleanBuffer,
    ln: Option<NullBuffer>,
    r: &BooleanBuffer,
    rn: Option<NullBuffer>,
) -> (BooleanBuffer, Option<NullBuffer>) {
    if ln.is_none() && rn.is_none() {
        let values = if op == Logic::AndKleene { l & r } else { l | r };
        return (values, None);
    }
    let known = |values: &BooleanBuffer, nulls: &Option<NullBuffer>| match nulls {
        Some(nulls) => (values & nulls.validity(), nulls.validity().and_not(values)),
        None => (values.clone(), !values),
    };
    let ((l_true, l_false), (r_true, r_false)) = (known(l, &ln), known(r, &rn));
    let (is_true, is_false) = match op {
        Logic::AndKleene => (&l_true & &r_true, &l_false | &r_false),
        _ => (&l_true | &r_true, &l_false & &r_false),
    };
    let valid = &is_true | &is_false;
    (
        is_true,
        Some(NullBuffer::new(valid)).filter(|n| n.null_count() > 0),
    )
}

#[cfg(test)]
mod tests {
    use alkaid_array::Scalar;

    use super::*;

    fn all() -> BooleanArray {
        // Every pair of (true, false, null) on the two sides.
        BooleanArray::from(vec![
            Some(true),
            Some(true),
            Some(true),
            Some(false),
            Some(false),
            Some(false),
            None,
            None,
            None,
        ])
    }

    fn other() -> BooleanArray {
        BooleanArray::from(vec![
            Some(true),
            Some(false),
            None,
            Some(true),
            Some(false),
            None,
            Some(true),
            Some(false),
            None,
        ])
    }

    fn run(
        kernel: fn(&dyn Datum, &dyn Datum) -> Result<BooleanArray, ComputeError>,
    ) -> Vec<Option<bool>> {
        kernel(&all(), &other()).unwrap().iter().collect()
    }

    #[test]
    fn kleene_logic_has_sql_truth_tables() {
        let (t, f, n) = (Some(true), Some(false), None);
        assert_eq!(run(and_kleene), [t, f, n, f, f, f, n, f, n]);
        assert_eq!(run(or_kleene), [t, t, t, t, f, n, t, n, n]);
    }

    #[test]
    fn plain_logic_is_null_where_either_side_is() {
        let (t, f, n) = (Some(true), Some(false), None);
        assert_eq!(run(and), [t, f, n, f, f, n, n, n, n]);
        assert_eq!(run(or), [t, t, n, t, f, n, n, n, n]);
        assert_eq!(run(xor), [f, t, n, t, f, n, n, n, n]);
        assert_eq!(run(and_not), [f, t, n, f, f, n, n, n, n]);
    }

    #[test]
    fn scalars_and_slices_line_up() {
        let values = BooleanArray::from((0..130).map(|i| i % 3 == 0).collect::<Vec<_>>());
        let sliced = values.slice(5, 100);
        let result = and(&sliced, &Scalar::from(true)).unwrap();
        for i in 0..100 {
            assert_eq!(result.value(i), (i + 5) % 3 == 0);
        }
        let nothing = and_kleene(&sliced, &Scalar::new_null(&DataType::Boolean).unwrap()).unwrap();
        for i in 0..100 {
            let expected = if (i + 5) % 3 == 0 { None } else { Some(false) };
            assert_eq!(nothing.iter().nth(i).unwrap(), expected);
        }
        let negated = not(sliced.as_ref()).unwrap();
        assert_eq!(negated.value(1), (6 % 3) != 0);
    }

    #[test]
    fn non_booleans_are_an_error() {
        let ints = alkaid_array::Int32Array::from(vec![1]);
        let error = and(&ints, &ints).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("expected Boolean inputs, found Int32"),
            "{error}"
        );
        assert!(not(&ints).is_err());
    }
}

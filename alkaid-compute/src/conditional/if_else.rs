//! `if_else`: one of two branches per row, by a boolean condition.

use alkaid_array::{ArrayRef, BooleanArray, Datum, make_array};
use alkaid_schema::DataType;

use super::{Branches, assemble, bytes, fixed};
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::operand::Operand;
use crate::validity::logical_nulls;

/// `truthy` where `condition` is true, `falsy` where it is false, and null where it is null
/// (as Arrow C++'s `if_else`; for SQL's `CASE`, where a null condition picks the `ELSE`
/// branch, see alkaid-select's `zip`). Any of the three may be a
/// [`Scalar`](alkaid_array::Scalar); the branches are of one type, any type.
///
/// # Errors
/// If the condition is not boolean (a dictionary or run-end encoded boolean is), the
/// branches' types differ, or arrays differ in length.
///
/// ```
/// use alkaid_array::{AsArray, BooleanArray, Scalar, StringArray};
/// use alkaid_compute::if_else;
/// let condition = BooleanArray::from(vec![Some(true), Some(false), None]);
/// let names = StringArray::from(vec!["ann", "bob", "cy"]);
/// let picked = if_else(&condition, &names, &Scalar::from("-"))?;
/// let picked = picked.as_string::<i32>();
/// assert_eq!(picked.iter().collect::<Vec<_>>(), [Some("ann"), Some("-"), None]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn if_else(
    condition: &dyn Datum,
    truthy: &dyn Datum,
    falsy: &dyn Datum,
) -> Result<ArrayRef, ComputeError> {
    let condition = Operand::of(condition);
    let plain = decoded(&condition.data)?;
    if plain.data_type() != &DataType::Boolean {
        return Err(ComputeError::unsupported(
            "if_else",
            format!(
                "expected a boolean condition, found {}",
                condition.data.data_type()
            ),
        ));
    }
    let known = (!condition.scalar).then_some(plain.len());
    let branches = Branches::of(
        "if_else",
        &[("the true branch", truthy), ("the false branch", falsy)],
        known,
    )?;
    let nulls = logical_nulls(&plain)?;
    let values = BooleanArray::try_from(plain)?;
    if let (Some(kind), false) = (fixed::kind(&branches), condition.scalar) {
        let data = fixed::if_else(kind, values.values(), nulls.as_ref(), &branches)?;
        return Ok(make_array(data));
    }
    if bytes::is_bytes(&branches) && !condition.scalar {
        let data = bytes::if_else(values.values(), nulls.as_ref(), &branches)?;
        return Ok(make_array(data));
    }
    let pick = |row: usize| -> (usize, usize) {
        let at = if condition.scalar { 0 } else { row };
        if nulls.as_ref().is_some_and(|n| n.is_null(at)) {
            (2, 0)
        } else if values.value(at) {
            (0, branches.row(0, row))
        } else {
            (1, branches.row(1, row))
        }
    };
    let pairs: Vec<(usize, usize)> = (0..branches.len).map(pick).collect();
    assemble(&branches.sources_with_null()?, &pairs)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::types::{Int8Type, Int32Type};
    use alkaid_array::{
        Array, AsArray, DictionaryArray, Int8Array, Int32Array, Int64Array, Scalar, StringArray,
    };

    use super::*;

    fn ints(array: &ArrayRef) -> Vec<Option<i32>> {
        array.as_primitive::<Int32Type>().iter().collect()
    }

    #[test]
    fn nulls_in_the_condition_give_nulls_and_branch_nulls_stay() {
        let condition = BooleanArray::from(vec![Some(true), None, Some(false), Some(true)]);
        let truthy = Int32Array::from(vec![Some(1), Some(2), Some(3), None]);
        let falsy = Int32Array::from(vec![10, 20, 30, 40]);
        let result = if_else(&condition, &truthy, &falsy).unwrap();
        assert_eq!(ints(&result), [Some(1), None, Some(30), None]);
    }

    #[test]
    fn scalars_on_every_side() {
        let condition = BooleanArray::from(vec![true, false, true]);
        let result = if_else(&condition, &Scalar::from(7i32), &Scalar::from(9i32)).unwrap();
        assert_eq!(ints(&result), [Some(7), Some(9), Some(7)]);
        let all = if_else(
            &Scalar::from(false),
            &Scalar::from(7i32),
            &Scalar::from(9i32),
        )
        .unwrap();
        assert_eq!(ints(&all), [Some(9)]);
        let broadcast = if_else(
            &Scalar::from(true),
            &Scalar::from(1i32),
            &Int32Array::from(vec![5, 6]),
        )
        .unwrap();
        assert_eq!(ints(&broadcast), [Some(1), Some(1)]);
        let null = Scalar::new_null(&DataType::Boolean).unwrap();
        let none = if_else(&null, &Int32Array::from(vec![5, 6]), &Scalar::from(0i32)).unwrap();
        assert_eq!(ints(&none), [None, None]);
    }

    #[test]
    fn sliced_inputs_and_a_dictionary_condition() {
        let condition = BooleanArray::from(vec![false, true, false, true, true]).slice(1, 3);
        let truthy = Int32Array::from(vec![0, 1, 2, 3, 4, 5]).slice(2, 3);
        let falsy = Int32Array::from(vec![-1, -2, -3]);
        let result = if_else(&condition, &truthy, &falsy).unwrap();
        assert_eq!(ints(&result), [Some(2), Some(-2), Some(4)]);

        let values: ArrayRef = Arc::new(BooleanArray::from(vec![Some(true), None]));
        let keys = Int8Array::from(vec![Some(1), Some(0), None]);
        let condition = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
        let result = if_else(&condition, &Scalar::from(1i32), &Scalar::from(0i32)).unwrap();
        assert_eq!(ints(&result), [None, Some(1), None]);
    }

    #[test]
    fn dictionary_branches_merge_their_dictionaries() {
        let left: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
        let right: ArrayRef = Arc::new(StringArray::from(vec!["x"]));
        let truthy =
            DictionaryArray::<Int8Type>::try_new(Int8Array::from(vec![0, 1, 1]), left).unwrap();
        let falsy =
            DictionaryArray::<Int8Type>::try_new(Int8Array::from(vec![0, 0, 0]), right).unwrap();
        let condition = BooleanArray::from(vec![true, false, true]);
        let result = if_else(&condition, &truthy, &falsy).unwrap();
        let result = result.as_typed::<DictionaryArray<Int8Type>>().unwrap();
        let text = alkaid_select::take(result.values().as_ref(), result.keys()).unwrap();
        let text: Vec<_> = text.as_string::<i32>().iter().collect();
        assert_eq!(text, [Some("a"), Some("x"), Some("b")]);
    }

    #[test]
    fn empty_and_mismatched_inputs() {
        let empty = if_else(
            &BooleanArray::from(Vec::<bool>::new()),
            &Int32Array::from(Vec::<i32>::new()),
            &Scalar::from(1i32),
        )
        .unwrap();
        assert_eq!(empty.len(), 0);
        let condition = BooleanArray::from(vec![true, false]);
        let error = if_else(
            &condition,
            &Int32Array::from(vec![1, 2]),
            &Int64Array::from(vec![1, 2]),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("the false branch is Int64"), "{error}");
        let error = if_else(
            &condition,
            &Int32Array::from(vec![1, 2, 3]),
            &Scalar::from(1i32),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("found 3"), "{error}");
        let error = if_else(
            &Int32Array::from(vec![1]),
            &Scalar::from(1i32),
            &Scalar::from(1i32),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("expected a boolean condition, found Int32"),
            "{error}"
        );
    }
}

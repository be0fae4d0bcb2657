//! Membership: whether each row's value is in a set of values ([`is_in`]), and where
//! ([`index_in`]), against a [`ValueSet`] hashed once and probed batch after batch.
//!
//! Nulls follow SQL's `x IN (…)`:
//!
//! | row | in the set | set holds a null | `is_in` | `index_in` |
//! | --- | --- | --- | --- | --- |
//! | null | – | – | null | null |
//! | value | yes | – | true | its first position in the set's array |
//! | value | no | no | false | null |
//! | value | no | yes | null (unknown) | null |
//!
//! (pyarrow's `is_in` answers false in the null cases instead, and with
//! `skip_nulls=False` matches a null row to a null in the set.) A dictionary or run-end
//! encoded input is looked up once per distinct entry or run, and the answers mapped back
//! to its rows.

mod bits;
mod value_set;

use alkaid_array::{Array, BooleanArray, Int32Array};
use alkaid_buffer::NullBuffer;

use crate::error::ComputeError;
use crate::lift::{Lift, lift_unary};
use crate::validity::logical_nulls;

pub use value_set::ValueSet;

/// Whether each row of `array` is one of `set`'s values, with SQL's null rules (see the
/// [module docs](self)).
///
/// # Errors
/// If `array`'s values do not compare with the set's (text compares with text of any
/// layout, other types with their own).
///
/// ```
/// use alkaid_array::{BooleanArray, Int32Array};
/// use alkaid_compute::{ValueSet, is_in};
/// let set = ValueSet::new(&Int32Array::from(vec![Some(1), Some(5), None]))?;
/// let found = is_in(&Int32Array::from(vec![Some(5), Some(2), None]), &set)?;
/// // 2 is not in the set, but the set holds a null: unknown, as in SQL.
/// assert_eq!(found, BooleanArray::from(vec![Some(true), None, None]));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn is_in(array: &dyn Array, set: &ValueSet) -> Result<BooleanArray, ComputeError> {
    let answer = lift_unary(&array.to_data(), Lift::Gather, &|plain| {
        let found = set.contains(plain)?;
        let nulls = logical_nulls(plain)?;
        // A null row is null (and false); an absent value is null where the set holds one.
        let values = match &nulls {
            Some(nulls) => &found & nulls.validity(),
            None => found.clone(),
        };
        let valid = match (nulls, set.contains_null()) {
            (None, false) => None,
            (None, true) => Some(found),
            (Some(nulls), false) => Some(nulls.into_inner()),
            (Some(nulls), true) => Some(&found & nulls.validity()),
        };
        let nulls = valid.map(NullBuffer::new).filter(|n| n.null_count() > 0);
        Ok(BooleanArray::try_new(values, nulls)?.to_data())
    })?;
    Ok(BooleanArray::try_from(answer)?)
}

/// The position in the set's array of each row's value (its first occurrence), null where
/// the row is null or its value is absent (see the [module docs](self)).
///
/// # Errors
/// As [`is_in`], and if a position does not fit an `Int32`.
///
/// ```
/// use alkaid_array::{Int32Array, StringArray};
/// use alkaid_compute::{ValueSet, index_in};
/// let set = ValueSet::new(&StringArray::from(vec!["a", "b", "a"]))?;
/// let found = index_in(&StringArray::from(vec![Some("b"), Some("z"), Some("a"), None]), &set)?;
/// assert_eq!(found, Int32Array::from(vec![Some(1), None, Some(0), None]));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn index_in(array: &dyn Array, set: &ValueSet) -> Result<Int32Array, ComputeError> {
    let answer = lift_unary(&array.to_data(), Lift::Gather, &|plain| {
        let found = set.find(plain)?;
        let nulls = logical_nulls(plain)?;
        let positions = found
            .iter()
            .enumerate()
            .map(|(row, position)| match position {
                Some(_) if nulls.as_ref().is_some_and(|n| n.is_null(row)) => Ok(None),
                Some(p) => i32::try_from(*p).map(Some).map_err(|_| {
                    ComputeError::InvalidArgument(format!(
                        "index_in: position {p} does not fit an Int32"
                    ))
                }),
                None => Ok(None),
            })
            .collect::<Result<Vec<Option<i32>>, ComputeError>>()?;
        Ok(Int32Array::from(positions).to_data())
    })?;
    Ok(Int32Array::try_from(answer)?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::types::{Int8Type, Int32Type};
    use alkaid_array::{
        ArrayRef, DictionaryArray, Float64Array, Int8Array, Int64Array, LargeStringArray, RunArray,
        StringArray, StringViewArray,
    };

    use super::*;

    #[test]
    fn sql_null_rules() {
        let with_null = ValueSet::new(&Int64Array::from(vec![Some(3), None, Some(3)])).unwrap();
        let without = ValueSet::new(&Int64Array::from(vec![3, 4])).unwrap();
        let probe = Int64Array::from(vec![Some(3), Some(9), None]);
        assert_eq!(
            is_in(&probe, &with_null).unwrap(),
            BooleanArray::from(vec![Some(true), None, None])
        );
        assert_eq!(
            is_in(&probe, &without).unwrap(),
            BooleanArray::from(vec![Some(true), Some(false), None])
        );
        assert_eq!(
            index_in(&probe, &with_null).unwrap(),
            Int32Array::from(vec![Some(0), None, None])
        );
        assert_eq!((with_null.len(), with_null.contains_null()), (1, true));
    }

    #[test]
    fn floats_match_in_the_crates_total_order() {
        let set = ValueSet::new(&Float64Array::from(vec![f64::NAN, 0.0])).unwrap();
        let probe = Float64Array::from(vec![-f64::NAN, -0.0, 1.0]);
        assert_eq!(
            is_in(&probe, &set).unwrap(),
            BooleanArray::from(vec![true, true, false])
        );
    }

    #[test]
    fn text_of_any_layout_and_encoded_probes() {
        let set = ValueSet::new(&LargeStringArray::from(vec![
            "a",
            "ü",
            "a longer value here",
        ]))
        .unwrap();
        let views = StringViewArray::from_iter_values(["a longer value here", "b", "ü"]);
        assert_eq!(
            index_in(&views, &set).unwrap(),
            Int32Array::from(vec![Some(2), None, Some(1)])
        );
        let words: ArrayRef = Arc::new(StringArray::from(vec![Some("ü"), Some("q"), None]));
        let keys = Int8Array::from(vec![Some(0), Some(1), Some(2), None, Some(0)]);
        let dictionary = DictionaryArray::<Int8Type>::try_new(keys, words).unwrap();
        assert_eq!(
            is_in(dictionary.slice(1, 4).as_ref(), &set).unwrap(),
            BooleanArray::from(vec![Some(false), None, None, Some(true)])
        );
        let values: ArrayRef = Arc::new(StringArray::from(vec!["a", "q"]));
        let runs = RunArray::<Int32Type>::try_new(Int32Array::from(vec![2, 3]), values).unwrap();
        assert_eq!(
            is_in(&runs, &set).unwrap(),
            BooleanArray::from(vec![true, true, false])
        );
    }

    #[test]
    fn empty_sets_and_probes_and_type_errors() {
        let empty = ValueSet::new(&Int64Array::from(Vec::<i64>::new())).unwrap();
        assert!(empty.is_empty());
        assert_eq!(
            is_in(&Int64Array::from(vec![Some(1), None]), &empty).unwrap(),
            BooleanArray::from(vec![Some(false), None])
        );
        let set = ValueSet::new(&Int64Array::from(vec![1])).unwrap();
        assert_eq!(
            is_in(&Int64Array::from(Vec::<i64>::new()), &set)
                .unwrap()
                .len(),
            0
        );
        let error = is_in(&StringArray::from(vec!["1"]), &set)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("cannot look for Utf8 values in a set of Int64"),
            "{error}"
        );
    }
}

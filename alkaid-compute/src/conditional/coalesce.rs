//! `coalesce` and `fill_null`: per row, the first argument that is not null.

use alkaid_array::{Array, ArrayRef, Datum, make_array};
use alkaid_buffer::NullBuffer;

use super::{Branches, assemble, fixed};
use crate::error::ComputeError;
use crate::validity::logical_nulls;

/// Per row, the first of `arguments` that is not null there, or null if none is (SQL's
/// `COALESCE`). Arguments are arrays of one length or scalars, of one type, any type.
///
/// # Errors
/// If there are no arguments, their types differ, or arrays differ in length.
///
/// ```
/// use alkaid_array::{AsArray, Int64Array, Scalar};
/// use alkaid_array::types::Int64Type;
/// use alkaid_compute::coalesce;
/// let a = Int64Array::from(vec![Some(1), None, None]);
/// let b = Int64Array::from(vec![Some(10), Some(20), None]);
/// let result = coalesce(&[&a, &b, &Scalar::from(0i64)])?;
/// let result: Vec<_> = result.as_primitive::<Int64Type>().iter().collect();
/// assert_eq!(result, [Some(1), Some(20), Some(0)]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn coalesce(arguments: &[&dyn Datum]) -> Result<ArrayRef, ComputeError> {
    let names: Vec<String> = (1..=arguments.len())
        .map(|k| format!("argument {k}"))
        .collect();
    let named: Vec<(&str, &dyn Datum)> = names
        .iter()
        .map(String::as_str)
        .zip(arguments.iter().copied())
        .collect();
    first_valid("coalesce", &named, None)
}

/// `array` with each null replaced by `fill`'s value: a scalar's, or the same row of an
/// array of `array`'s length (`coalesce(array, fill)`).
///
/// # Errors
/// If the types differ, or `fill` is an array of another length.
///
/// ```
/// use alkaid_array::{AsArray, Scalar, StringArray};
/// use alkaid_compute::fill_null;
/// let names = StringArray::from(vec![Some("ann"), None]);
/// let filled = fill_null(&names, &Scalar::from("?"))?;
/// let filled: Vec<_> = filled.as_string::<i32>().iter().collect();
/// assert_eq!(filled, [Some("ann"), Some("?")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn fill_null(array: &dyn Array, fill: &dyn Datum) -> Result<ArrayRef, ComputeError> {
    let named: [(&str, &dyn Datum); 2] = [("the array", &array), ("the fill value", fill)];
    first_valid("fill_null", &named, Some(array.len()))
}

/// The row of the first argument valid at each row.
fn first_valid(
    kernel: &'static str,
    arguments: &[(&str, &dyn Datum)],
    len: Option<usize>,
) -> Result<ArrayRef, ComputeError> {
    let branches = Branches::of(kernel, arguments, len)?;
    let validity: Vec<Option<NullBuffer>> = branches
        .operands
        .iter()
        .map(|o| logical_nulls(&o.data))
        .collect::<Result<_, _>>()?;
    // Where the first argument is an array without nulls, it is the answer as it is.
    if !branches.operands[0].scalar && validity[0].is_none() {
        return Ok(make_array(branches.operands[0].data.clone()));
    }
    if let Some(kind) = fixed::kind(&branches) {
        return Ok(make_array(fixed::coalesce(kind, &branches)?));
    }
    let last = branches.operands.len() - 1;
    let pairs: Vec<(usize, usize)> = (0..branches.len)
        .map(|row| {
            let valid = |k: usize| {
                let at = branches.row(k, row);
                validity[k].as_ref().is_none_or(|n| n.is_valid(at))
            };
            match (0..=last).find(|&k| valid(k)) {
                Some(k) => (k, branches.row(k, row)),
                // No argument has a value here: the null of the last one's type.
                None => (last + 1, 0),
            }
        })
        .collect();
    assemble(&branches.sources_with_null()?, &pairs)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::types::{Int16Type, Int32Type};
    use alkaid_array::{
        AsArray, DictionaryArray, Int16Array, Int32Array, NullArray, Scalar, StringArray,
        StructArray,
    };
    use alkaid_schema::{DataType, Field};

    use super::*;

    fn ints(array: &ArrayRef) -> Vec<Option<i32>> {
        array.as_primitive::<Int32Type>().iter().collect()
    }

    #[test]
    fn the_first_value_wins_and_all_null_rows_stay_null() {
        let a = Int32Array::from(vec![None, Some(2), None, None]);
        let b = Int32Array::from(vec![Some(10), Some(20), None, None]);
        let c = Int32Array::from(vec![Some(100), None, Some(300), None]);
        assert_eq!(
            ints(&coalesce(&[&a, &b, &c]).unwrap()),
            [Some(10), Some(2), Some(300), None]
        );
        assert_eq!(
            ints(&coalesce(&[&a]).unwrap()),
            ints(&(Arc::new(a.clone()) as ArrayRef))
        );
        let null_scalar = Scalar::new_null(&DataType::Int32).unwrap();
        assert_eq!(
            ints(&coalesce(&[&null_scalar, &a, &Scalar::from(0i32)]).unwrap()),
            [Some(0), Some(2), Some(0), Some(0)]
        );
        assert_eq!(
            ints(&coalesce(&[&Scalar::from(5i32), &a]).unwrap()),
            [Some(5); 4]
        );
    }

    #[test]
    fn a_first_argument_without_nulls_is_returned_as_it_is() {
        let a = Int32Array::from(vec![1, 2, 3]).slice(1, 2);
        let result = coalesce(&[&a, &Scalar::from(0i32)]).unwrap();
        assert_eq!(ints(&result), [Some(2), Some(3)]);
        let (ours, input) = (result.to_data(), a.to_data());
        assert_eq!(
            ours.buffers()[0].as_ptr(),
            input.buffers()[0].as_ptr(),
            "not a copy"
        );
    }

    #[test]
    fn nulls_are_logical_and_nested_nulls_are_values() {
        let values: ArrayRef = Arc::new(StringArray::from(vec![Some("x"), None]));
        let keys = Int16Array::from(vec![Some(0), Some(1), None]);
        let dictionary = DictionaryArray::<Int16Type>::try_new(keys, values).unwrap();
        let fill: ArrayRef = Arc::new(StringArray::from(vec!["y"]));
        let fill =
            DictionaryArray::<Int16Type>::try_new(Int16Array::from(vec![0, 0, 0]), fill).unwrap();
        let result = fill_null(&dictionary, &fill).unwrap();
        let result = result.as_typed::<DictionaryArray<Int16Type>>().unwrap();
        let text = alkaid_select::take(result.values().as_ref(), result.keys()).unwrap();
        let text: Vec<_> = text.as_string::<i32>().iter().collect();
        assert_eq!(text, [Some("x"), Some("y"), Some("y")]);

        // A struct row whose field is null is a value: it is kept.
        let field = Arc::new(Int32Array::from(vec![None, Some(1)])) as ArrayRef;
        let fields = vec![Field::new("a", DataType::Int32, true)];
        let rows = StructArray::try_new(
            fields.clone().into(),
            vec![field],
            Some(NullBuffer::from(vec![true, false])),
        )
        .unwrap();
        let other = StructArray::try_new(
            fields.into(),
            vec![Arc::new(Int32Array::from(vec![7, 8])) as ArrayRef],
            None,
        )
        .unwrap();
        let result = coalesce(&[&rows, &other]).unwrap();
        let result = result.as_typed::<StructArray>().unwrap();
        assert!(result.is_valid(0) && result.column(0).is_null(0));
        assert_eq!(result.column(0).as_primitive::<Int32Type>().value(1), 8);
    }

    #[test]
    fn null_typed_and_empty_arguments() {
        let nulls = NullArray::new(3);
        let result = coalesce(&[&nulls, &NullArray::new(3)]).unwrap();
        assert_eq!((result.len(), result.data_type()), (3, &DataType::Null));
        let empty = fill_null(&Int32Array::from(Vec::<i32>::new()), &Scalar::from(1i32)).unwrap();
        assert_eq!(empty.len(), 0);
        let error = coalesce(&[]).unwrap_err().to_string();
        assert!(error.contains("at least one argument"), "{error}");
        let error = fill_null(&Int32Array::from(vec![1]), &Scalar::from("x"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("the fill value is Utf8"), "{error}");
        let error = fill_null(&Int32Array::from(vec![1]), &Int32Array::from(vec![1, 2]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("found 2"), "{error}");
    }
}

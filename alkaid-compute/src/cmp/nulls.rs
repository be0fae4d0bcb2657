//! Null and NaN tests, by each row's logical validity (see `validity.rs`).

use alkaid_array::{Array, BooleanArray};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, NativeKind, PhysicalType};

use crate::access::native_values;
use crate::error::ComputeError;
use crate::lift::{Lift, lift_unary};
use crate::pack::map_bits;
use crate::validity::logical_nulls;

/// Whether each row is null (never null itself).
///
/// # Errors
/// If a dictionary or run-end encoded array cannot be read.
///
/// # Examples
/// ```
/// use alkaid_array::Int32Array;
/// use alkaid_compute::is_null;
/// let result = is_null(&Int32Array::from(vec![Some(1), None]))?;
/// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(false), Some(true)]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn is_null(array: &dyn Array) -> Result<BooleanArray, ComputeError> {
    let data = array.to_data();
    let values = match logical_nulls(&data)? {
        Some(nulls) => !nulls.validity(),
        None => BooleanBuffer::new_unset(data.len()),
    };
    Ok(BooleanArray::try_new(values, None)?)
}

/// Whether each row is not null (never null itself).
///
/// # Errors
/// As [`is_null`].
pub fn is_not_null(array: &dyn Array) -> Result<BooleanArray, ComputeError> {
    let data = array.to_data();
    let values = match logical_nulls(&data)? {
        Some(nulls) => nulls.validity().clone(),
        None => BooleanBuffer::new_set(data.len()),
    };
    Ok(BooleanArray::try_new(values, None)?)
}

/// Whether each value is NaN; null where the value is null. Integers and decimals are never
/// NaN. Dictionaries and runs are tested on their values once.
///
/// # Errors
/// If `array` is not numeric.
///
/// # Examples
/// ```
/// use alkaid_array::Float64Array;
/// use alkaid_compute::is_nan;
/// let result = is_nan(&Float64Array::from(vec![Some(f64::NAN), Some(1.0), None]))?;
/// assert_eq!(result.iter().collect::<Vec<_>>(), [Some(true), Some(false), None]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn is_nan(array: &dyn Array) -> Result<BooleanArray, ComputeError> {
    let data = lift_unary(&array.to_data(), Lift::Gather, &nan_flags)?;
    Ok(BooleanArray::try_from(data)?)
}

fn nan_flags(data: &ArrayData) -> Result<ArrayData, ComputeError> {
    let data_type = data.data_type();
    let values = match data_type.to_physical() {
        PhysicalType::Primitive(NativeKind::Float16) => {
            #[allow(clippy::eq_op)] // `v != v` is the NaN test
            map_bits(&native_values::<half::f16>(data)?, |v| v != v)
        }
        PhysicalType::Primitive(NativeKind::Float32) =>
        {
            #[allow(clippy::eq_op)]
            map_bits(&native_values::<f32>(data)?, |v| v != v)
        }
        PhysicalType::Primitive(NativeKind::Float64) =>
        {
            #[allow(clippy::eq_op)]
            map_bits(&native_values::<f64>(data)?, |v| v != v)
        }
        _ if data_type.is_numeric() || matches!(data_type, DataType::Null) => {
            BooleanBuffer::new_unset(data.len())
        }
        _ => {
            return Err(ComputeError::unsupported(
                "is_nan",
                format!("expected a numeric array, found {data_type}"),
            ));
        }
    };
    Ok(BooleanArray::try_new(values, logical_nulls(data)?)?.to_data())
}

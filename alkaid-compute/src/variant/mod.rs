//! Kernels over Variant columns (`arrow.parquet.variant`, shredded or not): a value at a
//! path as a typed column ([`variant_get`]), the type of each value ([`variant_type`]),
//! which values are Variant null ([`is_variant_null`]), and shredding both ways
//! ([`shred`], [`unshred`]).
//!
//! A Variant column is its storage struct (`metadata`, `value`, `typed_value`); the
//! kernels take any array whose type fits the extension's storage rules. Values are read
//! through alkaid-array's [`VariantArray`], which follows shredded columns along a path
//! without putting whole rows together.
//!
//! ```
//! use alkaid_array::AsArray;
//! use alkaid_array::types::Int64Type;
//! use alkaid_array::variant::VariantArray;
//! use alkaid_compute::variant::{variant_get, variant_type};
//! use alkaid_compute::CastOptions;
//! use alkaid_schema::DataType;
//!
//! let rows = [Some(r#"{"id": 7, "tags": ["a"]}"#), Some(r#"{"id": "x"}"#), Some("12")];
//! let column = VariantArray::from_json(rows)?;
//! let column = column.storage();
//! let id = "id".parse()?;
//! let ids = variant_get(column, &id, Some(&DataType::Int64), CastOptions::SAFE)?;
//! let ids = ids.as_primitive::<Int64Type>();
//! assert_eq!(ids.iter().collect::<Vec<_>>(), [Some(7), None, None]);
//! assert!(variant_get(column, &id, Some(&DataType::Int64), CastOptions::STRICT).is_err());
//! let types = variant_type(column)?;
//! assert_eq!(types.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("object"), Some("object"), Some("int8")]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod convert;
mod get;
mod shred;

use alkaid_array::variant::{Variant, VariantArray, VariantPath};
use alkaid_array::{Array, ArrayRef, BooleanArray, StringArray, StructArray};

pub use get::variant_get;
pub use shred::{shred, unshred};

use crate::ComputeError;

/// `array` as Variants.
pub(crate) fn variants(array: &dyn Array) -> Result<VariantArray, ComputeError> {
    let storage = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| {
            ComputeError::InvalidArgument(format!(
                "expected a Variant column (a struct of metadata and value), found {}",
                array.data_type()
            ))
        })?;
    VariantArray::try_new(storage).map_err(ComputeError::Array)
}

/// Calls `each` with every row's value (null rows as `None`), read and checked whole.
fn for_each_value(
    array: &dyn Array,
    mut each: impl FnMut(Option<Variant<'_, '_>>),
) -> Result<(), ComputeError> {
    let variants = variants(array)?;
    variants.for_each_at(&VariantPath::default(), |i, row| {
        match row {
            None => each(None),
            Some((metadata, value)) => {
                let variant = Variant::try_new(metadata, &value).map_err(|e| located(i, e))?;
                each(Some(variant));
            }
        }
        Ok::<(), ComputeError>(())
    })
}

/// A Variant error of row `i`, as a compute error.
fn located(i: usize, error: alkaid_array::variant::VariantError) -> ComputeError {
    ComputeError::InvalidArgument(format!("row {i}: {error}"))
}

/// Whether each value is Variant null (`true`), another value (`false`), or a null row
/// (null). A row missing its value (both `value` and `typed_value` null) is Variant null,
/// by the spec's rule.
///
/// # Errors
/// When `array` is not a Variant column or a row's bytes do not read.
pub fn is_variant_null(array: &dyn Array) -> Result<BooleanArray, ComputeError> {
    let mut out = Vec::with_capacity(array.len());
    for_each_value(array, |v| out.push(v.map(|v| matches!(v, Variant::Null))))?;
    Ok(out.into_iter().collect())
}

/// The type of each value, in the spec's words (`null`, `boolean`, `int8` … `int64`,
/// `float`, `double`, `decimal4`, `decimal8`, `decimal16`, `date`, `timestamp`,
/// `timestamp_ntz`, `timestamp_nanos`, `timestamp_ntz_nanos`, `time`, `binary`,
/// `string`, `uuid`, `object`, `array`); null for a null row.
///
/// # Errors
/// When `array` is not a Variant column or a row's bytes do not read.
pub fn variant_type(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let mut out = Vec::with_capacity(array.len());
    for_each_value(array, |v| out.push(v.map(|v| v.type_name())))?;
    Ok(std::sync::Arc::new(StringArray::from(out)))
}

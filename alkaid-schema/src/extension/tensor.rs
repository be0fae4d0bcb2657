//! The canonical tensor extension types: `arrow.fixed_shape_tensor` (one tensor of a fixed
//! shape per slot, stored as a fixed-size list) and `arrow.variable_shape_tensor` (one
//! tensor of any shape per slot, stored as a struct of its data and its shape).
//!
//! Both describe their layout in JSON: optional dimension names, and an optional
//! permutation that says which physical dimension each logical one is. Every parameter is
//! checked when a type is made or read: a permutation must hold each of `0..ndim` once,
//! names must be one per dimension, a shape's element count must fit a list size.

use std::any::Any;
use std::sync::Arc;

use super::canonical::storage_error;
use super::{ExtensionFactory, ExtensionType};
use crate::json::{JsonValue, parse_json, write_json_string};
use crate::{DataType, Field, Fields, SchemaError};

/// `arrow.fixed_shape_tensor`: tensors of one shape, each stored row-major in one slot of a
/// `FixedSizeList(value_type, product(shape))`.
///
/// ```
/// use alkaid_schema::extension::{ExtensionRegistry, FixedShapeTensor, Namespace};
/// use alkaid_schema::{DataType, Field};
///
/// let tensor = FixedShapeTensor::try_new(DataType::Float32, vec![2, 3], None, Some(vec![1, 0]))?;
/// assert_eq!(tensor.storage_type().to_string(), "FixedSizeList(6, item: Float32)");
/// let field = Field::new("t", tensor.storage_type(), true)
///     .with_extension_type(&tensor, Namespace::Arrow)?;
/// let resolved = ExtensionRegistry::with_canonical().resolve(&field)?.unwrap();
/// let read = resolved.as_any().downcast_ref::<FixedShapeTensor>().unwrap();
/// assert_eq!(read.shape(), &[2, 3]);
/// assert_eq!(read.permutation(), Some(&[1, 0][..]));
/// # Ok::<(), alkaid_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedShapeTensor {
    value_type: DataType,
    shape: Vec<usize>,
    dim_names: Option<Vec<String>>,
    permutation: Option<Vec<usize>>,
}

const FIXED: &str = "arrow.fixed_shape_tensor";
const VARIABLE: &str = "arrow.variable_shape_tensor";

fn error(name: &str, reason: impl Into<String>) -> SchemaError {
    SchemaError::Extension {
        name: name.to_string(),
        reason: reason.into(),
    }
}

impl FixedShapeTensor {
    /// A tensor type of `shape` holding `value_type` elements.
    ///
    /// # Errors
    /// If the element count does not fit a list size (`i32`), `dim_names` does not name
    /// each dimension once, or `permutation` is not a permutation of `0..shape.len()`.
    pub fn try_new(
        value_type: DataType,
        shape: Vec<usize>,
        dim_names: Option<Vec<String>>,
        permutation: Option<Vec<usize>>,
    ) -> Result<Self, SchemaError> {
        list_size(&shape)?;
        check_layout(
            FIXED,
            shape.len(),
            dim_names.as_deref(),
            permutation.as_deref(),
        )?;
        Ok(Self {
            value_type,
            shape,
            dim_names,
            permutation,
        })
    }

    /// The type of the elements.
    pub fn value_type(&self) -> &DataType {
        &self.value_type
    }

    /// The size of each dimension, in physical (row-major) order.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The names of the dimensions, if given.
    pub fn dim_names(&self) -> Option<&[String]> {
        self.dim_names.as_deref()
    }

    /// Which physical dimension each logical dimension is, if given.
    pub fn permutation(&self) -> Option<&[usize]> {
        self.permutation.as_deref()
    }

    /// The storage: `FixedSizeList(item: value_type, product(shape))`.
    pub fn storage_type(&self) -> DataType {
        let size = list_size(&self.shape).expect("checked when made");
        DataType::FixedSizeList(
            Arc::new(Field::new("item", self.value_type.clone(), true)),
            size,
        )
    }
}

/// The number of elements of `shape` as a list size.
fn list_size(shape: &[usize]) -> Result<i32, SchemaError> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| {
            error(
                FIXED,
                format!("shape {shape:?} holds more than 2^31 - 1 elements"),
            )
        })
}

/// Checks the optional names and permutation of an `ndim`-dimensional tensor.
fn check_layout(
    name: &str,
    ndim: usize,
    dim_names: Option<&[String]>,
    permutation: Option<&[usize]>,
) -> Result<(), SchemaError> {
    if let Some(names) = dim_names
        && names.len() != ndim
    {
        return Err(error(
            name,
            format!("expected {ndim} dimension names, found {}", names.len()),
        ));
    }
    if let Some(permutation) = permutation {
        let mut seen = vec![false; ndim];
        let is_permutation = permutation.len() == ndim
            && permutation
                .iter()
                .all(|&i| i < ndim && !std::mem::replace(&mut seen[i], true));
        if !is_permutation {
            return Err(error(
                name,
                format!("permutation {permutation:?} does not hold each of 0..{ndim} once"),
            ));
        }
    }
    Ok(())
}

/// Reads the description as a JSON object; an absent one is `{}`.
fn parse_description(name: &str, metadata: Option<&str>) -> Result<JsonValue, SchemaError> {
    let value = match metadata.map(str::trim) {
        None | Some("") => JsonValue::Object(Vec::new()),
        Some(text) => parse_json(text).map_err(|e| error(name, format!("metadata: {e}")))?,
    };
    match value {
        JsonValue::Object(_) => Ok(value),
        _ => Err(error(name, "metadata is not a JSON object")),
    }
}

/// Member `key` of `object` as a list of `T`, each read by `item`; absent or null is `None`.
fn list_of<T>(
    name: &str,
    object: &JsonValue,
    key: &str,
    what: &str,
    item: impl Fn(&JsonValue) -> Option<T>,
) -> Result<Option<Vec<T>>, SchemaError> {
    let Some(value) = object.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let items = value
        .as_array()
        .ok_or_else(|| error(name, format!("{key} is not a list")))?;
    items
        .iter()
        .map(|v| item(v).ok_or_else(|| error(name, format!("{key} holds {v:?}, not {what}"))))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn index(v: &JsonValue) -> Option<usize> {
    v.as_i64().and_then(|i| usize::try_from(i).ok())
}

fn text(v: &JsonValue) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// Writes `"key":[…]` members for the parameters that are present.
fn write_members(out: &mut String, members: &[(&str, Option<Vec<String>>)]) {
    out.push('{');
    let mut first = true;
    for (key, items) in members {
        let Some(items) = items else { continue };
        if !std::mem::take(&mut first) {
            out.push(',');
        }
        write_json_string(out, key);
        out.push_str(":[");
        out.push_str(&items.join(","));
        out.push(']');
    }
    out.push('}');
}

fn numbers(items: Option<&[usize]>) -> Option<Vec<String>> {
    items.map(|items| items.iter().map(usize::to_string).collect())
}

fn strings(items: Option<&[String]>) -> Option<Vec<String>> {
    items.map(|items| {
        items
            .iter()
            .map(|s| {
                let mut out = String::new();
                write_json_string(&mut out, s);
                out
            })
            .collect()
    })
}

impl ExtensionType for FixedShapeTensor {
    fn name(&self) -> &str {
        FIXED
    }

    fn metadata(&self) -> Option<String> {
        let mut out = String::new();
        write_members(
            &mut out,
            &[
                ("shape", numbers(Some(&self.shape))),
                ("dim_names", strings(self.dim_names())),
                ("permutation", numbers(self.permutation())),
            ],
        );
        Some(out)
    }

    fn check_storage(&self, storage: &DataType) -> Result<(), SchemaError> {
        if storage.eq_ignoring_metadata(&self.storage_type()) {
            Ok(())
        } else {
            Err(storage_error(
                FIXED,
                &self.storage_type().to_string(),
                storage,
            ))
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Builds [`FixedShapeTensor`]s from fields.
#[derive(Debug, Clone, Copy, Default)]
pub struct FixedShapeTensorFactory;

impl ExtensionFactory for FixedShapeTensorFactory {
    fn name(&self) -> &str {
        FIXED
    }

    fn build(
        &self,
        storage: &DataType,
        metadata: Option<&str>,
    ) -> Result<Arc<dyn ExtensionType>, SchemaError> {
        let DataType::FixedSizeList(item, _) = storage else {
            return Err(storage_error(FIXED, "FixedSizeList", storage));
        };
        let description = parse_description(FIXED, metadata)?;
        let shape = list_of(FIXED, &description, "shape", "a dimension size", index)?
            .ok_or_else(|| error(FIXED, "metadata has no shape"))?;
        let tensor = FixedShapeTensor::try_new(
            item.data_type().clone(),
            shape,
            list_of(FIXED, &description, "dim_names", "a string", text)?,
            list_of(FIXED, &description, "permutation", "an index", index)?,
        )?;
        tensor.check_storage(storage)?;
        Ok(Arc::new(tensor))
    }
}

/// `arrow.variable_shape_tensor`: one tensor of any shape per slot, stored as
/// `Struct(data: List(value_type), shape: FixedSizeList(Int32, ndim))`.
///
/// ```
/// use alkaid_schema::extension::{ExtensionRegistry, Namespace, VariableShapeTensor};
/// use alkaid_schema::{DataType, Field};
///
/// let tensor = VariableShapeTensor::try_new(DataType::Int64, 2, None, None, Some(vec![None, Some(3)]))?;
/// let field = Field::new("t", tensor.storage_type(), true)
///     .with_extension_type(&tensor, Namespace::Arrow)?;
/// let resolved = ExtensionRegistry::with_canonical().resolve(&field)?.unwrap();
/// let read = resolved.as_any().downcast_ref::<VariableShapeTensor>().unwrap();
/// assert_eq!(read.uniform_shape(), Some(&[None, Some(3)][..]));
/// # Ok::<(), alkaid_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableShapeTensor {
    value_type: DataType,
    ndim: usize,
    dim_names: Option<Vec<String>>,
    permutation: Option<Vec<usize>>,
    uniform_shape: Option<Vec<Option<usize>>>,
}

impl VariableShapeTensor {
    /// A tensor type of `ndim` dimensions holding `value_type` elements; `uniform_shape`
    /// gives the size of the dimensions that every tensor shares (`None` where it varies).
    ///
    /// # Errors
    /// If `ndim` does not fit a list size, `dim_names` or `uniform_shape` does not have one
    /// entry per dimension, a uniform size does not fit `i32`, or `permutation` is not a
    /// permutation of `0..ndim`.
    pub fn try_new(
        value_type: DataType,
        ndim: usize,
        dim_names: Option<Vec<String>>,
        permutation: Option<Vec<usize>>,
        uniform_shape: Option<Vec<Option<usize>>>,
    ) -> Result<Self, SchemaError> {
        if i32::try_from(ndim).is_err() {
            return Err(error(VARIABLE, format!("{ndim} dimensions")));
        }
        check_layout(VARIABLE, ndim, dim_names.as_deref(), permutation.as_deref())?;
        if let Some(uniform) = &uniform_shape {
            if uniform.len() != ndim {
                return Err(error(
                    VARIABLE,
                    format!(
                        "expected {ndim} uniform_shape entries, found {}",
                        uniform.len()
                    ),
                ));
            }
            if let Some(size) = uniform
                .iter()
                .flatten()
                .find(|&&s| i32::try_from(s).is_err())
            {
                return Err(error(
                    VARIABLE,
                    format!("uniform size {size} does not fit i32"),
                ));
            }
        }
        Ok(Self {
            value_type,
            ndim,
            dim_names,
            permutation,
            uniform_shape,
        })
    }

    /// The type of the elements.
    pub fn value_type(&self) -> &DataType {
        &self.value_type
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.ndim
    }

    /// The names of the dimensions, if given.
    pub fn dim_names(&self) -> Option<&[String]> {
        self.dim_names.as_deref()
    }

    /// Which physical dimension each logical dimension is, if given.
    pub fn permutation(&self) -> Option<&[usize]> {
        self.permutation.as_deref()
    }

    /// The sizes every tensor shares, `None` for dimensions that vary, if given.
    pub fn uniform_shape(&self) -> Option<&[Option<usize>]> {
        self.uniform_shape.as_deref()
    }

    /// The storage: `Struct(data: List(value_type), shape: FixedSizeList(Int32, ndim))`.
    pub fn storage_type(&self) -> DataType {
        let ndim = i32::try_from(self.ndim).expect("checked when made");
        let shape =
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Int32, true)), ndim);
        DataType::Struct(Fields::from(vec![
            Field::new("data", DataType::list(self.value_type.clone()), true),
            Field::new("shape", shape, true),
        ]))
    }
}

impl ExtensionType for VariableShapeTensor {
    fn name(&self) -> &str {
        VARIABLE
    }

    fn metadata(&self) -> Option<String> {
        let uniform = self.uniform_shape().map(|sizes| {
            sizes
                .iter()
                .map(|s| s.map_or_else(|| "null".to_string(), |s| s.to_string()))
                .collect()
        });
        let mut out = String::new();
        write_members(
            &mut out,
            &[
                ("dim_names", strings(self.dim_names())),
                ("permutation", numbers(self.permutation())),
                ("uniform_shape", uniform),
            ],
        );
        Some(out)
    }

    /// Field names and nullability are not compared: only the two children's order and
    /// types are, as other implementations do.
    fn check_storage(&self, storage: &DataType) -> Result<(), SchemaError> {
        let expected = self.storage_type();
        let fits = match storage {
            DataType::Struct(fields) => {
                fields.len() == 2
                    && fields.iter().zip(expected.children()).all(|(f, e)| {
                        f.name() == e.name() && f.data_type().eq_ignoring_metadata(e.data_type())
                    })
            }
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            Err(storage_error(VARIABLE, &expected.to_string(), storage))
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Builds [`VariableShapeTensor`]s from fields.
#[derive(Debug, Clone, Copy, Default)]
pub struct VariableShapeTensorFactory;

impl ExtensionFactory for VariableShapeTensorFactory {
    fn name(&self) -> &str {
        VARIABLE
    }

    fn build(
        &self,
        storage: &DataType,
        metadata: Option<&str>,
    ) -> Result<Arc<dyn ExtensionType>, SchemaError> {
        let expected = "Struct(data: List, shape: FixedSizeList(Int32, ndim))";
        let DataType::Struct(fields) = storage else {
            return Err(storage_error(VARIABLE, expected, storage));
        };
        let (value_type, ndim) = match (fields.first(), fields.get(1)) {
            (Some(data), Some(shape)) => match (data.data_type(), shape.data_type()) {
                (DataType::List(item), DataType::FixedSizeList(_, ndim)) => (
                    item.data_type().clone(),
                    usize::try_from(*ndim).unwrap_or(0),
                ),
                _ => return Err(storage_error(VARIABLE, expected, storage)),
            },
            _ => return Err(storage_error(VARIABLE, expected, storage)),
        };
        let description = parse_description(VARIABLE, metadata)?;
        let uniform = |v: &JsonValue| match v {
            JsonValue::Null => Some(None),
            other => index(other).map(Some),
        };
        let tensor = VariableShapeTensor::try_new(
            value_type,
            ndim,
            list_of(VARIABLE, &description, "dim_names", "a string", text)?,
            list_of(VARIABLE, &description, "permutation", "an index", index)?,
            list_of(
                VARIABLE,
                &description,
                "uniform_shape",
                "a size or null",
                uniform,
            )?,
        )?;
        tensor.check_storage(storage)?;
        Ok(Arc::new(tensor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extension::{ExtensionRegistry, Namespace};

    fn resolve(
        storage: DataType,
        metadata: &str,
        name: &str,
    ) -> Result<Arc<dyn ExtensionType>, SchemaError> {
        let field = Field::new("t", storage, true)
            .with_metadata_entry("ARROW:extension:name", name)
            .with_metadata_entry("ARROW:extension:metadata", metadata);
        ExtensionRegistry::with_canonical()
            .resolve(&field)
            .map(|t| t.expect("registered"))
    }

    fn fixed_storage(size: i32) -> DataType {
        DataType::fixed_size_list(DataType::Float32, size).unwrap()
    }

    #[test]
    fn fixed_shape_metadata_is_parsed_and_checked() {
        let read = resolve(
            fixed_storage(6),
            r#"{"shape": [2, 3], "dim_names": ["H", "W"], "permutation": [1, 0]}"#,
            FIXED,
        )
        .unwrap();
        let tensor = read.as_any().downcast_ref::<FixedShapeTensor>().unwrap();
        assert_eq!(tensor.shape(), &[2, 3]);
        assert_eq!(tensor.dim_names().unwrap(), ["H", "W"]);
        assert_eq!(tensor.value_type(), &DataType::Float32);
        assert_eq!(
            tensor.metadata().unwrap(),
            r#"{"shape":[2,3],"dim_names":["H","W"],"permutation":[1,0]}"#
        );
        for (storage, metadata, reason) in [
            (
                fixed_storage(5),
                r#"{"shape": [2, 3]}"#,
                "expected FixedSizeList(6, item: Float32) storage",
            ),
            (
                fixed_storage(6),
                r#"{"dim_names": []}"#,
                "metadata has no shape",
            ),
            (fixed_storage(6), r#"{"shape": [2, -3]}"#, "shape holds"),
            (
                fixed_storage(6),
                r#"{"shape": [2, 3], "permutation": [0, 0]}"#,
                "does not hold each of 0..2 once",
            ),
            (
                fixed_storage(6),
                r#"{"shape": [2, 3], "dim_names": ["a"]}"#,
                "expected 2 dimension names, found 1",
            ),
            (fixed_storage(6), r#"{"shape": [2, 3],}"#, "metadata: "),
            (fixed_storage(6), "[2, 3]", "not a JSON object"),
            (
                DataType::Int8,
                r#"{"shape": [1]}"#,
                "expected FixedSizeList storage",
            ),
            (
                fixed_storage(6),
                r#"{"shape": [65536, 65536]}"#,
                "more than 2^31 - 1 elements",
            ),
        ] {
            let error = resolve(storage, metadata, FIXED).unwrap_err().to_string();
            assert!(error.contains(reason), "{metadata}: {error}");
        }
    }

    #[test]
    fn a_zero_dimensional_fixed_tensor_holds_one_element() {
        let tensor = FixedShapeTensor::try_new(DataType::Int8, vec![], None, None).unwrap();
        assert_eq!(
            tensor.storage_type(),
            DataType::fixed_size_list(DataType::Int8, 1).unwrap()
        );
    }

    #[test]
    fn variable_shape_metadata_is_parsed_and_checked() {
        let tensor = VariableShapeTensor::try_new(
            DataType::Int64,
            3,
            Some(vec!["a".into(), "b".into(), "c".into()]),
            Some(vec![2, 0, 1]),
            Some(vec![Some(4), None, Some(1)]),
        )
        .unwrap();
        let field = Field::new("t", tensor.storage_type(), true)
            .with_extension_type(&tensor, Namespace::Alkaid)
            .unwrap();
        let read = ExtensionRegistry::with_canonical()
            .resolve(&field)
            .unwrap()
            .unwrap();
        assert_eq!(
            read.as_any().downcast_ref::<VariableShapeTensor>(),
            Some(&tensor)
        );
        assert_eq!(
            tensor.metadata().unwrap(),
            r#"{"dim_names":["a","b","c"],"permutation":[2,0,1],"uniform_shape":[4,null,1]}"#
        );
        let storage = tensor.storage_type();
        assert!(
            resolve(storage.clone(), "", VARIABLE).is_ok(),
            "no metadata is allowed"
        );
        for (storage, metadata, reason) in [
            (
                storage.clone(),
                r#"{"uniform_shape": [1, 2]}"#,
                "expected 3 uniform_shape entries",
            ),
            (
                storage.clone(),
                r#"{"uniform_shape": [1, "x", 2]}"#,
                "not a size or null",
            ),
            (
                storage.clone(),
                r#"{"permutation": [0, 1, 3]}"#,
                "does not hold each of 0..3 once",
            ),
            (
                DataType::Struct(storage.children()[..1].to_vec().into()),
                "{}",
                "expected Struct(data: List",
            ),
        ] {
            let error = resolve(storage, metadata, VARIABLE)
                .unwrap_err()
                .to_string();
            assert!(error.contains(reason), "{metadata}: {error}");
        }
    }
}

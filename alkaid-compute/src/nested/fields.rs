//! Fields of structs and maps: a struct's field by name, a map's keys, values, and the
//! value of one key.

use alkaid_array::{Array, ArrayRef, BooleanArray, Scalar, UInt64Array, make_array};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use alkaid_select::{nullif, take};

use super::Lists;
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::row_eq::row_eq;
use crate::validity::logical_nulls;

/// The field `name` of each struct (the first of that name), null where the struct is
/// null (as pyarrow's `struct_field`).
///
/// # Errors
/// If the input is not a struct or has no such field (the error lists the fields it has).
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, StructArray};
/// use alkaid_schema::{DataType, Field};
/// let ids: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
/// let rows = StructArray::try_new(vec![Field::new("id", DataType::Int32, false)].into(), vec![ids], None)?;
/// let id = alkaid_compute::struct_field(&rows, "id")?;
/// assert_eq!(alkaid_array::AsArray::as_primitive::<alkaid_array::types::Int32Type>(id.as_ref()), &Int32Array::from(vec![1, 2]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn struct_field(array: &dyn Array, name: &str) -> Result<ArrayRef, ComputeError> {
    let data = decoded(&array.to_data())?;
    let DataType::Struct(fields) = data.data_type() else {
        return Err(ComputeError::unsupported(
            "struct_field",
            format!("expected a struct, found {}", data.data_type()),
        ));
    };
    let Some(index) = fields.iter().position(|f| f.name() == name) else {
        let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
        return Err(ComputeError::InvalidArgument(format!(
            "struct_field: no field {name:?} in a struct of {names:?}"
        )));
    };
    let child = make_array(data.children()[index].slice(data.offset(), data.len()));
    null_where_null(child, &data)
}

/// `values` with the rows where `parent` is null made null.
fn null_where_null(values: ArrayRef, parent: &ArrayData) -> Result<ArrayRef, ComputeError> {
    match logical_nulls(parent)? {
        None => Ok(values),
        Some(nulls) => {
            let null_rows = BooleanArray::try_new(!nulls.validity(), None)?;
            Ok(nullif(values.as_ref(), &null_rows)?)
        }
    }
}

/// Each map's keys, as a list that shares the map's offsets and entries (no copy).
///
/// # Errors
/// If the input is not a map.
pub fn map_keys(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    map_column("map_keys", array, 0)
}

/// Each map's values, as a list that shares the map's offsets and entries (no copy).
///
/// # Errors
/// If the input is not a map.
pub fn map_values(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    map_column("map_values", array, 1)
}

fn map_column(
    kernel: &'static str,
    array: &dyn Array,
    column: usize,
) -> Result<ArrayRef, ComputeError> {
    let data = decoded(&array.to_data())?;
    let DataType::Map(map) = data.data_type() else {
        return Err(ComputeError::unsupported(
            kernel,
            format!("expected a map, found {}", data.data_type()),
        ));
    };
    let field = if column == 0 { map.key() } else { map.value() };
    let entries = &data.children()[0];
    let child = entries.children()[column].slice(entries.offset(), entries.len());
    let list = ArrayData::builder(DataType::List(field.clone()))
        .len(data.len())
        .offset(data.offset())
        .nulls(data.nulls().cloned())
        .buffers(data.buffers().to_vec())
        .children(vec![child])
        .build()?;
    Ok(make_array(list))
}

/// The value of `key` in each map: that of its first entry with the key, null where the
/// map is null, has no such key, or `key` is null.
///
/// # Errors
/// If the input is not a map, or `key` does not compare with its keys.
///
/// ```
/// use alkaid_array::{AsArray, Int32Array, MapBuilder, Scalar, StringArray};
/// use alkaid_array::types::Int32Type;
/// let mut maps = MapBuilder::new(StringArray::builder(0, 0), Int32Array::builder(0));
/// for (key, value) in [("a", 1), ("b", 2)] {
///     maps.keys().append_value(key);
///     maps.values().append_value(value);
/// }
/// maps.append(true)?;
/// maps.append(false)?;
/// let found = alkaid_compute::map_lookup(&maps.finish()?, &Scalar::from("b"))?;
/// assert_eq!(found.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(), [Some(2), None]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_lookup(array: &dyn Array, key: &Scalar) -> Result<ArrayRef, ComputeError> {
    let data = decoded(&array.to_data())?;
    if !matches!(data.data_type(), DataType::Map(_)) {
        return Err(ComputeError::unsupported(
            "map_lookup",
            format!("expected a map, found {}", data.data_type()),
        ));
    }
    let lists = Lists::of("map_lookup", make_array(data.clone()).as_ref())?;
    let entries = &lists.child;
    let keys = entries.children()[0].slice(entries.offset(), entries.len());
    let values = entries.children()[1].slice(entries.offset(), entries.len());
    let needle = key.array().to_data();
    let positions: Vec<Option<u64>> = if logical_nulls(&needle)?.is_some() {
        vec![None; lists.len()]
    } else {
        let equal = row_eq(&keys, &needle).map_err(|_| {
            ComputeError::unsupported(
                "map_lookup",
                format!(
                    "cannot look for a {} key among {} keys",
                    needle.data_type(),
                    keys.data_type()
                ),
            )
        })?;
        (0..lists.len())
            .map(|row| {
                let (start, len) = lists.ranges[row];
                (start..start + len)
                    .find(|&i| lists.is_valid(row) && equal(i, 0))
                    .map(|i| i as u64)
            })
            .collect()
    };
    Ok(take(
        make_array(values).as_ref(),
        &UInt64Array::from(positions),
    )?)
}

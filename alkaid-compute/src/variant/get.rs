//! `variant_get`: the value at a path of every row, as a Variant column or a typed one.

use std::sync::Arc;

use alkaid_array::variant::{
    PathSegment, Variant, VariantArray, VariantColumnBuilder, VariantPath,
};
use alkaid_array::{Array, ArrayRef, AsArray, StructArray, make_array};
use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use super::convert::Column;
use super::{located, variants};
use crate::{CastOptions, ComputeError};

/// The value at `path` of every row of the Variant column `array`: as a Variant column
/// (`as_type` `None`: metadata and value, null where the path finds nothing), or cast to
/// `as_type`.
///
/// A value converts as a value of its Arrow type converts with [`cast`](crate::cast())
/// (an `int8` as an Int8, a `decimal4` of scale 2 as a `Decimal(38, 2)`, a `timestamp`
/// as a `Timestamp(µs, "UTC")`, a string as Utf8, so `"12"` to Int64 is 12): the cast
/// kernel's rules, written once. Variant null and a path that finds nothing are null;
/// an object or an array converts to nothing. A value that does not convert: null when
/// `options` are safe, else an error naming the row.
///
/// A shredded column is read along its typed columns. When the path goes through typed
/// objects' fields only (no row holding its object in bytes on the way), the answer shares
/// the columns it ends in, without reading a value's bytes: as a Variant, the shredded
/// group there (still shredded); as the type of a typed column whose group's `value`
/// holds nothing, that column.
///
/// # Errors
/// When `array` is not a Variant column, `as_type` is one no Variant converts to, a
/// row's bytes do not read, or (strict) a value does not convert.
pub fn variant_get(
    array: &dyn Array,
    path: &VariantPath,
    as_type: Option<&DataType>,
    options: CastOptions,
) -> Result<ArrayRef, ComputeError> {
    let variants = variants(array)?;
    let Some(target) = as_type else {
        if let Some(column) = shredded_variants(variants.storage(), path)? {
            return Ok(column);
        }
        return as_variants(&variants, path);
    };
    if let Some(column) = shredded_column(variants.storage(), path, target)? {
        return Ok(column);
    }
    let mut column = Column::for_type(target, options)?;
    variants.for_each_at(path, |i, row| {
        let Some((metadata, value)) = row else {
            column.push_null();
            return Ok(());
        };
        let variant = Variant::parse(metadata, &value).map_err(|e| located(i, e))?;
        if !column.push(&variant)? {
            if !options.safe {
                return Err(ComputeError::Cast {
                    row: i,
                    message: format!(
                        "the Variant {} at {path} does not convert to {target}",
                        variant.type_name()
                    ),
                });
            }
            column.push_null();
        }
        Ok(())
    })?;
    column.finish()
}

/// The values at `path` as an unshredded Variant column.
fn as_variants(variants: &VariantArray, path: &VariantPath) -> Result<ArrayRef, ComputeError> {
    let mut column = VariantColumnBuilder::with_capacity(variants.len());
    variants.for_each_at(path, |_, row| {
        match row {
            Some((m, v)) => column.append(m.as_bytes(), &v),
            None => column.append_null(),
        }
        Ok::<(), ComputeError>(())
    })?;
    Ok(Arc::new(column.finish()?))
}

/// The shredded group at the end of `path` through typed objects' fields, and which rows
/// reach it (null where a struct on the way is); `None` when the path leaves the typed
/// columns, or when a row on the way holds its object in bytes (a row whose typed object
/// is null but whose `value` is not: the path must then be looked for in the bytes).
fn shredded_group<'s>(
    storage: &'s StructArray,
    path: &VariantPath,
) -> Option<(&'s StructArray, Option<NullBuffer>)> {
    let mut group = storage;
    let mut nulls = storage.nulls().cloned();
    for segment in path.segments() {
        let PathSegment::Field(name) = segment else {
            return None;
        };
        let object = group
            .column_by_name("typed_value")
            .ok()?
            .as_typed::<StructArray>()?;
        if !no_value_where_null(group, object.nulls()) {
            return None;
        }
        let next = object
            .column_by_name(name)
            .ok()?
            .as_typed::<StructArray>()?;
        nulls = NullBuffer::union(nulls.as_ref(), object.nulls());
        group = next;
    }
    Some((group, nulls))
}

/// Whether `group`'s `value` is null wherever `typed` (validity of its typed column) is.
fn no_value_where_null(group: &StructArray, typed: Option<&NullBuffer>) -> bool {
    let Ok(value) = group.column_by_name("value") else {
        return true;
    };
    let Some(typed) = typed.filter(|t| t.null_count() > 0) else {
        return true;
    };
    match value.nulls() {
        None => false,
        Some(value) => value.validity().and_not(typed.validity()).count_set_bits() == 0,
    }
}

/// The typed column at the end of `path` through the shredded columns of `storage`, when
/// it is of type `target` and its group's `value` holds nothing; with a row null wherever
/// a struct on the way is.
fn shredded_column(
    storage: &StructArray,
    path: &VariantPath,
    target: &DataType,
) -> Result<Option<ArrayRef>, ComputeError> {
    let Some((group, nulls)) = shredded_group(storage, path) else {
        return Ok(None);
    };
    let Ok(leaf) = group.column_by_name("typed_value") else {
        return Ok(None);
    };
    let value_unused = group
        .column_by_name("value")
        .map_or(true, |value| value.null_count() == value.len());
    if leaf.data_type() != target || !value_unused {
        return Ok(None);
    }
    Ok(Some(with_nulls(leaf, nulls)?))
}

/// `array` with a row null wherever `nulls` says so too.
fn with_nulls(array: &ArrayRef, nulls: Option<NullBuffer>) -> Result<ArrayRef, ComputeError> {
    let data = array.to_data();
    let nulls = NullBuffer::union(nulls.as_ref(), data.nulls()).filter(|n| n.null_count() > 0);
    let data = ArrayData::builder(data.data_type().clone())
        .len(data.len())
        .offset(data.offset())
        .nulls(nulls)
        .buffers(data.buffers().to_vec())
        .children(data.children().to_vec())
        .build()?;
    Ok(make_array(data))
}

/// The values at `path` as a Variant column that shares the shredded group at its end,
/// without a copy: the top's metadata, the group's `value` and `typed_value`; a row null
/// where a struct on the way is or the group holds nothing (the path finds no value).
fn shredded_variants(
    storage: &StructArray,
    path: &VariantPath,
) -> Result<Option<ArrayRef>, ComputeError> {
    if path.is_empty() {
        return Ok(None);
    }
    let Some((group, nulls)) = shredded_group(storage, path) else {
        return Ok(None);
    };
    // A row holds something where either column is valid (all rows, when one has no nulls).
    let present = match group.columns().iter().any(|c| c.null_count() == 0) {
        true => None,
        false => group
            .columns()
            .iter()
            .filter_map(|c| c.nulls().cloned())
            .reduce(|a, b| NullBuffer::new(a.validity() | b.validity())),
    };
    let nulls = NullBuffer::union(nulls.as_ref(), present.as_ref()).filter(|n| n.null_count() > 0);
    let metadata_field = storage
        .fields()
        .iter()
        .find(|f| f.name() == "metadata")
        .ok_or_else(|| ComputeError::InvalidArgument("a Variant column without metadata".into()))?;
    let mut fields = vec![metadata_field.as_ref().clone()];
    fields.extend(group.fields().iter().map(|f| f.as_ref().clone()));
    let mut columns = vec![storage.column_by_name("metadata")?.clone()];
    columns.extend(group.columns().iter().cloned());
    let column = StructArray::try_new_with_len(fields.into(), columns, nulls, storage.len())?;
    Ok(Some(Arc::new(column)))
}

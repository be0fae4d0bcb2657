//! `variant_get`: the value at a path of every row, as a Variant column or a typed one.

use std::sync::Arc;

use alkaid_array::variant::{PathSegment, Variant, VariantArray, VariantMetadata, VariantPath};
use alkaid_array::{
    Array, ArrayRef, AsArray, GenericBinaryType, GenericByteBuilder, StructArray, make_array,
};
use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use alkaid_schema::extension::ParquetVariant;

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
/// A shredded column is read along its typed columns; when the path ends in a typed
/// column of the asked type that holds every row (no residual `value` on the way), that
/// column is the answer, without reading a value's bytes.
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
        let metadata = VariantMetadata::try_new(&metadata).map_err(|e| located(i, e))?;
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
    let len = variants.len();
    let mut metadata = GenericByteBuilder::<GenericBinaryType<i32>>::with_capacity(len, 0);
    let mut values = GenericByteBuilder::<GenericBinaryType<i32>>::with_capacity(len, 0);
    let mut found = Vec::with_capacity(len);
    variants.for_each_at(path, |_, row| {
        found.push(row.is_some());
        match row {
            Some((m, v)) => {
                metadata.append_value(&m);
                values.append_value(&v);
            }
            None => {
                metadata.append_value(alkaid_array::variant::EMPTY_METADATA);
                values.append_null();
            }
        }
        Ok::<(), ComputeError>(())
    })?;
    let nulls = NullBuffer::from(found);
    let column = StructArray::try_new(
        ParquetVariant::storage_fields(),
        vec![
            Arc::new(metadata.finish()) as ArrayRef,
            Arc::new(values.finish()),
        ],
        (nulls.null_count() > 0).then_some(nulls),
    )?;
    Ok(Arc::new(column))
}

/// The typed column at the end of `path` through the shredded columns of `storage`, when
/// it is of type `target` and no `value` on the way holds anything; with a row null
/// wherever a struct on the way is.
fn shredded_column(
    storage: &StructArray,
    path: &VariantPath,
    target: &DataType,
) -> Result<Option<ArrayRef>, ComputeError> {
    let mut group = storage;
    let mut nulls = storage.nulls().cloned();
    let unused = |group: &StructArray| {
        group
            .column_by_name("value")
            .map_or(true, |value| value.null_count() == value.len())
    };
    for segment in path.segments() {
        let PathSegment::Field(name) = segment else {
            return Ok(None);
        };
        let Ok(typed) = group.column_by_name("typed_value") else {
            return Ok(None);
        };
        let (Some(object), true) = (typed.as_typed::<StructArray>(), unused(group)) else {
            return Ok(None);
        };
        let Some(next) = object
            .column_by_name(name)
            .ok()
            .and_then(|field| field.as_typed::<StructArray>())
        else {
            return Ok(None);
        };
        nulls = NullBuffer::union(nulls.as_ref(), object.nulls());
        group = next;
    }
    let Ok(leaf) = group.column_by_name("typed_value") else {
        return Ok(None);
    };
    if leaf.data_type() != target || !unused(group) || leaf.as_typed::<StructArray>().is_some() {
        return Ok(None);
    }
    let data = leaf.to_data();
    let nulls = NullBuffer::union(nulls.as_ref(), data.nulls()).filter(|n| n.null_count() > 0);
    let data = ArrayData::builder(data.data_type().clone())
        .len(data.len())
        .offset(data.offset())
        .nulls(nulls)
        .buffers(data.buffers().to_vec())
        .children(data.children().to_vec())
        .build()?;
    Ok(Some(make_array(data)))
}

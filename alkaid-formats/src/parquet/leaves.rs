//! The Arrow types of a Parquet file's leaf columns, and how a read changes some of them:
//! INT96 in microseconds (`int96.rs`), byte arrays too large for 32-bit offsets with 64-bit
//! ones. arrow-rs takes such changes as a supplied schema, whose leaves it reads as hints;
//! a leaf of that schema is found by its position, the Parquet column it reads, depth
//! first as arrow-rs builds its schema from the Parquet one.

use std::sync::Arc;

use arrow_schema_60::{DataType, Field, Fields, Schema};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::basic::Type as PhysicalType;
use parquet::file::metadata::ParquetMetaData;

use crate::batches::unpanicked;

/// `metadata` with each leaf for which `changed` (given the file, the leaf's column and
/// its type) names another type read as that type; the same metadata when none changes.
///
/// # Errors
/// What arrow-rs says of the amended schema.
pub(crate) fn retyped(
    metadata: ArrowReaderMetadata,
    options: ArrowReaderOptions,
    changed: impl Fn(&ParquetMetaData, usize, &DataType) -> Option<DataType>,
) -> Result<ArrowReaderMetadata, String> {
    let file = Arc::clone(metadata.metadata());
    let leaves = leaf_types(metadata.schema().fields());
    let any = leaves
        .iter()
        .enumerate()
        .any(|(column, leaf)| changed(&file, column, leaf).is_some());
    if !any {
        return Ok(metadata);
    }
    let mut leaf = 0;
    let fields = retype_fields(metadata.schema().fields(), &mut leaf, &|column, leaf| {
        changed(&file, column, leaf)
    });
    let schema = Schema::new(fields).with_metadata(metadata.schema().metadata().clone());
    let options = options.with_schema(Arc::new(schema));
    unpanicked(|| ArrowReaderMetadata::try_new(file, options))?.map_err(|e| e.to_string())
}

/// The physical type of leaf `column` of `metadata`'s file.
pub(crate) fn physical_type(metadata: &ParquetMetaData, column: usize) -> PhysicalType {
    metadata
        .file_metadata()
        .schema_descr()
        .column(column)
        .physical_type()
}

/// A byte-array leaf (`column` of `metadata`'s file) read with 64-bit offsets when one of
/// its column chunks holds more than 32-bit offsets reach: its values would overflow them
/// in a single batch (a dictionary is decoded whole, so no batch size helps then). `None`
/// for any other leaf.
pub(crate) fn with_large_offsets(
    metadata: &ParquetMetaData,
    column: usize,
    leaf: &DataType,
) -> Option<DataType> {
    let byte_array = physical_type(metadata, column) == PhysicalType::BYTE_ARRAY;
    let large = metadata
        .row_groups()
        .iter()
        .any(|group| group.column(column).uncompressed_size() > i64::from(i32::MAX));
    match leaf {
        DataType::Utf8 if byte_array && large => Some(DataType::LargeUtf8),
        DataType::Binary if byte_array && large => Some(DataType::LargeBinary),
        _ => None,
    }
}

/// The types of `fields`' leaves in the order of the Parquet columns they read.
pub(crate) fn leaf_types(fields: &Fields) -> Vec<DataType> {
    let mut leaves = Vec::new();
    for field in fields {
        match children(field.data_type()) {
            Some(children) => leaves.extend(leaf_types(&children)),
            None => leaves.push(field.data_type().clone()),
        }
    }
    leaves
}

/// The child fields of a nested type, `None` for a leaf.
fn children(data_type: &DataType) -> Option<Fields> {
    match data_type {
        DataType::Struct(fields) => Some(fields.clone()),
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::ListView(item)
        | DataType::LargeListView(item)
        | DataType::FixedSizeList(item, _)
        | DataType::Map(item, _) => Some(Fields::from(vec![Arc::clone(item)])),
        _ => None,
    }
}

/// A leaf's new type, given its column and type.
type Change<'a> = dyn Fn(usize, &DataType) -> Option<DataType> + 'a;

/// `fields` with their leaves changed by `changed`, the first leaf being column `leaf`.
fn retype_fields(fields: &Fields, leaf: &mut usize, changed: &Change) -> Fields {
    fields
        .iter()
        .map(|field| Arc::new(retype(field, leaf, changed)))
        .collect()
}

fn retype(field: &Field, leaf: &mut usize, changed: &Change) -> Field {
    let mut item = |item: &Arc<Field>| Arc::new(retype(item, leaf, changed));
    let data_type = match field.data_type() {
        DataType::Struct(fields) => DataType::Struct(retype_fields(fields, leaf, changed)),
        DataType::List(i) => DataType::List(item(i)),
        DataType::LargeList(i) => DataType::LargeList(item(i)),
        DataType::ListView(i) => DataType::ListView(item(i)),
        DataType::LargeListView(i) => DataType::LargeListView(item(i)),
        DataType::FixedSizeList(i, n) => DataType::FixedSizeList(item(i), *n),
        DataType::Map(i, sorted) => DataType::Map(item(i), *sorted),
        other => {
            let column = *leaf;
            *leaf += 1;
            changed(column, other).unwrap_or_else(|| other.clone())
        }
    };
    field.clone().with_data_type(data_type)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema_60::TimeUnit;

    #[test]
    fn leaves_are_retyped_in_the_order_of_the_columns() {
        let ns = DataType::Timestamp(TimeUnit::Nanosecond, None);
        let item = Arc::new(Field::new("item", ns.clone(), true));
        let fields = Fields::from(vec![
            Field::new("a", ns.clone(), true),
            Field::new(
                "s",
                DataType::Struct(Fields::from(vec![
                    Field::new("b", DataType::Int32, true),
                    Field::new("c", DataType::List(item), true),
                ])),
                true,
            ),
            Field::new("d", ns.clone(), true),
        ]);
        let mut leaf = 0;
        let us = DataType::Timestamp(TimeUnit::Microsecond, None);
        let changed = |column: usize, _: &DataType| (column >= 2).then(|| us.clone());
        let retyped = retype_fields(&fields, &mut leaf, &changed);
        assert_eq!(
            leaf_types(&retyped),
            vec![ns, DataType::Int32, us.clone(), us]
        );
        assert_eq!(leaf, 4);
    }
}

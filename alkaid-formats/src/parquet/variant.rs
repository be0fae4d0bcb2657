//! Parquet's `VARIANT` logical type and `arrow.parquet.variant`, both ways.
//!
//! arrow-rs maps the logical type to the extension only with its `variant_experimental`
//! feature, which brings its Variant crates (work in progress) into every build. Alkaid
//! has its own Variant layer (`alkaid_array::variant`), so the mapping is done here, on
//! the schemas alone: on read, a group the footer marks `VARIANT` becomes a field
//! annotated `arrow.parquet.variant` (its storage checked against the extension's rules,
//! so a file shredding into a type the Variant lacks is refused by name); on write, a
//! field so annotated becomes a group marked `VARIANT` in the Parquet schema arrow-rs
//! would write, handed to its writer.

use std::sync::Arc;

use alkaid_schema::extension::{ExtensionType, ParquetVariant};
use arrow_schema_60::{DataType, Field, Schema};
use parquet::basic::LogicalType;
use parquet::schema::types::{SchemaDescriptor, Type, TypePtr};

const NAME_KEY: &str = "ARROW:extension:name";
const METADATA_KEY: &str = "ARROW:extension:metadata";
const ALKAID_NAME_KEY: &str = "ALKAID:extension:name";
const VARIANT: &str = "arrow.parquet.variant";

/// `schema` (arrow-rs's reading of a file whose Parquet schema is `parquet`) with every
/// field the file marks `VARIANT` annotated as `arrow.parquet.variant`, at any depth of
/// structs.
///
/// # Errors
/// When a `VARIANT` field's storage does not fit the extension's rules.
pub(crate) fn annotate(schema: Schema, parquet: &SchemaDescriptor) -> Result<Schema, String> {
    let groups = parquet.root_schema().get_fields();
    if !groups.iter().any(|t| holds_variant(t)) {
        return Ok(schema);
    }
    let fields = schema
        .fields()
        .iter()
        .map(|field| annotate_field(field, find(groups, field.name())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

fn find<'a>(types: &'a [TypePtr], name: &str) -> Option<&'a TypePtr> {
    types.iter().find(|t| t.name() == name)
}

fn is_variant(parquet: &Type) -> bool {
    matches!(
        parquet.get_basic_info().logical_type_ref(),
        Some(LogicalType::Variant(_))
    )
}

fn holds_variant(parquet: &Type) -> bool {
    is_variant(parquet)
        || (parquet.is_group() && parquet.get_fields().iter().any(|t| holds_variant(t)))
}

fn annotate_field(field: &Arc<Field>, parquet: Option<&TypePtr>) -> Result<Arc<Field>, String> {
    let Some(parquet) = parquet.filter(|t| holds_variant(t)) else {
        return Ok(field.clone());
    };
    if is_variant(parquet) {
        let storage = alkaid_arrow::arrow60::data_type_from_arrow(field.data_type())
            .map_err(|e| format!("Variant column {:?}: {e}", field.name()))?;
        ParquetVariant
            .check_storage(&storage)
            .map_err(|e| format!("Variant column {:?}: {e}", field.name()))?;
        let mut metadata = field.metadata().clone();
        metadata.insert(NAME_KEY.to_string(), VARIANT.to_string());
        metadata.insert(METADATA_KEY.to_string(), String::new());
        return Ok(Arc::new(field.as_ref().clone().with_metadata(metadata)));
    }
    match field.data_type() {
        DataType::Struct(children) => {
            let children = children
                .iter()
                .map(|child| annotate_field(child, find(parquet.get_fields(), child.name())))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(DataType::Struct(children.into())),
            ))
        }
        // Variants inside lists and maps keep their plain storage type for now.
        _ => Ok(field.clone()),
    }
}

/// Whether `field` is annotated `arrow.parquet.variant` (in either namespace).
fn annotated(field: &Field) -> bool {
    [NAME_KEY, ALKAID_NAME_KEY]
        .iter()
        .any(|key| field.metadata().get(key).map(String::as_str) == Some(VARIANT))
}

/// The Parquet schema for `schema` that arrow-rs would write (`converted`), with every
/// group whose field is annotated `arrow.parquet.variant` marked `VARIANT`; `None` when
/// there is none.
pub(crate) fn marked(schema: &Schema, converted: &SchemaDescriptor) -> Option<SchemaDescriptor> {
    if !schema.fields().iter().any(|f| holds_annotated(f)) {
        return None;
    }
    let root = converted.root_schema();
    let fields = schema
        .fields()
        .iter()
        .zip(root.get_fields())
        .map(|(field, parquet)| mark(field, parquet))
        .collect();
    let root = Type::group_type_builder(root.name())
        .with_fields(fields)
        .build()
        .ok()?;
    Some(SchemaDescriptor::new(Arc::new(root)))
}

fn holds_annotated(field: &Field) -> bool {
    annotated(field)
        || matches!(field.data_type(), DataType::Struct(children) if children.iter().any(|c| holds_annotated(c)))
}

fn mark(field: &Field, parquet: &TypePtr) -> TypePtr {
    if !holds_annotated(field) || !parquet.is_group() {
        return parquet.clone();
    }
    let info = parquet.get_basic_info();
    let children = match field.data_type() {
        DataType::Struct(children) if !annotated(field) => children
            .iter()
            .zip(parquet.get_fields())
            .map(|(child, parquet)| mark(child, parquet))
            .collect(),
        _ => parquet.get_fields().to_vec(),
    };
    let logical = if annotated(field) {
        Some(LogicalType::variant(Some(1)))
    } else {
        info.logical_type_ref().cloned()
    };
    let marked = Type::group_type_builder(info.name())
        .with_repetition(info.repetition())
        .with_id(info.has_id().then(|| info.id()))
        .with_logical_type(logical)
        .with_fields(children)
        .build();
    marked.map_or_else(|_| parquet.clone(), Arc::new)
}

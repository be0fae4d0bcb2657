//! The catalog commands' result sets: catalogs, schemas, tables (with their schemas),
//! table types, and the key commands, in the schemas Flight SQL fixes for them (the types'
//! rows are `xdbc_types.rs`'s).
//! The directory has one catalog, one schema and no keys: those results are empty, with
//! their columns.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BinaryArray, RecordBatch, StringArray, new_empty_array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;

use crate::proto::{
    CommandGetCatalogs, CommandGetDbSchemas, CommandGetTableTypes, CommandGetTables,
};
use crate::tables::{CATALOG, SCHEMA};

/// The only table type.
pub const TABLE_TYPE: &str = "TABLE";

/// A field of a result schema: `(name, type, nullable)`.
type Column = (&'static str, DataType, bool);

fn schema_of(columns: &[Column]) -> SchemaRef {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, data_type, nullable)| Field::new(*name, data_type.clone(), *nullable))
        .collect();
    Arc::new(Schema::new(fields))
}

/// `GetCatalogs`' schema.
pub fn catalogs_schema() -> SchemaRef {
    schema_of(&[("catalog_name", DataType::Utf8, false)])
}

/// `GetDbSchemas`' schema.
pub fn db_schemas_schema() -> SchemaRef {
    schema_of(&[
        ("catalog_name", DataType::Utf8, true),
        ("db_schema_name", DataType::Utf8, false),
    ])
}

/// `GetTables`' schema, with the `table_schema` column when asked for.
pub fn tables_schema(include_schema: bool) -> SchemaRef {
    let mut columns = vec![
        ("catalog_name", DataType::Utf8, true),
        ("db_schema_name", DataType::Utf8, true),
        ("table_name", DataType::Utf8, false),
        ("table_type", DataType::Utf8, false),
    ];
    if include_schema {
        columns.push(("table_schema", DataType::Binary, false));
    }
    schema_of(&columns)
}

/// `GetTableTypes`' schema.
pub fn table_types_schema() -> SchemaRef {
    schema_of(&[("table_type", DataType::Utf8, false)])
}

/// `GetPrimaryKeys`' schema.
pub fn primary_keys_schema() -> SchemaRef {
    schema_of(&[
        ("catalog_name", DataType::Utf8, true),
        ("db_schema_name", DataType::Utf8, true),
        ("table_name", DataType::Utf8, false),
        ("column_name", DataType::Utf8, false),
        ("key_name", DataType::Utf8, true),
        ("key_sequence", DataType::Int32, false),
    ])
}

/// The schema of `GetExportedKeys`, `GetImportedKeys` and `GetCrossReference`.
pub fn foreign_keys_schema() -> SchemaRef {
    schema_of(&[
        ("pk_catalog_name", DataType::Utf8, true),
        ("pk_db_schema_name", DataType::Utf8, true),
        ("pk_table_name", DataType::Utf8, false),
        ("pk_column_name", DataType::Utf8, false),
        ("fk_catalog_name", DataType::Utf8, true),
        ("fk_db_schema_name", DataType::Utf8, true),
        ("fk_table_name", DataType::Utf8, false),
        ("fk_column_name", DataType::Utf8, false),
        ("key_sequence", DataType::Int32, false),
        ("fk_key_name", DataType::Utf8, true),
        ("pk_key_name", DataType::Utf8, true),
        ("update_rule", DataType::UInt8, false),
        ("delete_rule", DataType::UInt8, false),
    ])
}

/// `GetXdbcTypeInfo`'s schema.
pub fn xdbc_type_info_schema() -> SchemaRef {
    let create_params = DataType::List(Arc::new(Field::new("item", DataType::Utf8, false)));
    schema_of(&[
        ("type_name", DataType::Utf8, false),
        ("data_type", DataType::Int32, false),
        ("column_size", DataType::Int32, true),
        ("literal_prefix", DataType::Utf8, true),
        ("literal_suffix", DataType::Utf8, true),
        ("create_params", create_params, true),
        ("nullable", DataType::Int32, false),
        ("case_sensitive", DataType::Boolean, false),
        ("searchable", DataType::Int32, false),
        ("unsigned_attribute", DataType::Boolean, true),
        ("fixed_prec_scale", DataType::Boolean, false),
        ("auto_increment", DataType::Boolean, true),
        ("local_type_name", DataType::Utf8, true),
        ("minimum_scale", DataType::Int32, true),
        ("maximum_scale", DataType::Int32, true),
        ("sql_data_type", DataType::Int32, false),
        ("datetime_subcode", DataType::Int32, true),
        ("num_prec_radix", DataType::Int32, true),
        ("interval_precision", DataType::Int32, true),
    ])
}

/// An empty result of `schema`.
pub fn empty(schema: SchemaRef) -> RecordBatch {
    let columns = schema
        .fields()
        .iter()
        .map(|f| new_empty_array(f.data_type()))
        .collect();
    RecordBatch::try_new(schema, columns).expect("empty columns of the schema's types")
}

/// Whether `text` matches the SQL LIKE `pattern`: `%` any run of characters, `_` one,
/// `\` makes the next character literal.
pub fn like(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    // The positions in `text` the pattern so far can end at; a set, so a pattern of many
    // `%` costs its length times the text's, never more.
    let mut at = vec![false; text.len() + 1];
    at[0] = true;
    let mut p = 0;
    while p < pattern.len() {
        let mut next = vec![false; text.len() + 1];
        match pattern[p] {
            '%' => {
                let mut reached = false;
                for i in 0..=text.len() {
                    reached |= at[i];
                    next[i] = reached;
                }
            }
            c => {
                let (literal, any) = match c {
                    '\\' if p + 1 < pattern.len() => {
                        p += 1;
                        (Some(pattern[p]), false)
                    }
                    '_' => (None, true),
                    c => (Some(c), false),
                };
                for i in 0..text.len() {
                    if at[i] && (any || literal == Some(text[i])) {
                        next[i + 1] = true;
                    }
                }
            }
        }
        at = next;
        p += 1;
    }
    at[text.len()]
}

/// Whether the one catalog is among those `catalog` asks for (all, when absent).
fn catalog_asked(catalog: Option<&str>) -> bool {
    catalog.is_none_or(|c| c == CATALOG)
}

/// Whether the one schema matches `catalog` and the schema `pattern`.
fn schema_asked(catalog: Option<&str>, pattern: Option<&str>) -> bool {
    catalog_asked(catalog) && pattern.is_none_or(|p| like(p, SCHEMA))
}

fn strings(values: Vec<String>) -> ArrayRef {
    Arc::new(StringArray::from(values))
}

/// `GetCatalogs`.
pub fn catalogs(_: &CommandGetCatalogs) -> RecordBatch {
    let columns = vec![strings(vec![CATALOG.into()])];
    RecordBatch::try_new(catalogs_schema(), columns).expect("the schema's types")
}

/// `GetDbSchemas`.
pub fn db_schemas(command: &CommandGetDbSchemas) -> RecordBatch {
    let asked = schema_asked(
        command.catalog.as_deref(),
        command.db_schema_filter_pattern.as_deref(),
    );
    let rows = usize::from(asked);
    let columns = vec![
        strings(vec![CATALOG.into(); rows]),
        strings(vec![SCHEMA.into(); rows]),
    ];
    RecordBatch::try_new(db_schemas_schema(), columns).expect("the schema's types")
}

/// `GetTableTypes`.
pub fn table_types(_: &CommandGetTableTypes) -> RecordBatch {
    let columns = vec![strings(vec![TABLE_TYPE.into()])];
    RecordBatch::try_new(table_types_schema(), columns).expect("the schema's types")
}

/// Whether `command` asks for tables of the directory's catalog, schema and type at all.
pub fn tables_asked(command: &CommandGetTables) -> bool {
    schema_asked(
        command.catalog.as_deref(),
        command.db_schema_filter_pattern.as_deref(),
    ) && (command.table_types.is_empty() || command.table_types.iter().any(|t| t == TABLE_TYPE))
}

/// Whether `command` asks for the table `name`: the directory's catalog, schema and type,
/// and the name pattern.
pub fn table_wanted(command: &CommandGetTables, name: &str) -> bool {
    let pattern = command.table_name_filter_pattern.as_deref();
    tables_asked(command) && pattern.is_none_or(|p| like(p, name))
}

/// `GetTables` over `tables`: each name that the command's pattern matches, with its
/// schema (an encapsulated IPC schema message) when the command asks for them.
pub fn tables(
    command: &CommandGetTables,
    tables: Vec<(String, Option<bytes::Bytes>)>,
) -> Result<RecordBatch, ArrowError> {
    let chosen: Vec<_> = tables
        .into_iter()
        .filter(|(name, _)| table_wanted(command, name))
        .collect();
    let rows = chosen.len();
    let mut columns = vec![
        strings(vec![CATALOG.into(); rows]),
        strings(vec![SCHEMA.into(); rows]),
        strings(chosen.iter().map(|(name, _)| name.clone()).collect()),
        strings(vec![TABLE_TYPE.into(); rows]),
    ];
    if command.include_schema {
        let schemas: Vec<&[u8]> = chosen
            .iter()
            .map(|(_, schema)| schema.as_deref().unwrap_or_default())
            .collect();
        columns.push(Arc::new(BinaryArray::from(schemas)));
    }
    RecordBatch::try_new(tables_schema(command.include_schema), columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns_match_as_sql_does() {
        assert!(like("%", ""));
        assert!(like("t%", "trips"));
        assert!(like("_rips", "trips"));
        assert!(!like("_rips", "rips"));
        assert!(like("%i%s", "trips"));
        assert!(!like("trip", "trips"));
        assert!(like("a\\_b", "a_b"));
        assert!(!like("a\\_b", "axb"));
        assert!(like("ü_", "üx"));
        // Many wildcards over a long text stay quick (a set of positions, no backtracking).
        let long = "a".repeat(2_000);
        assert!(!like(&format!("{}b", "%a".repeat(200)), &long));
    }

    #[test]
    fn results_follow_the_filters() {
        let all = CommandGetDbSchemas {
            catalog: None,
            db_schema_filter_pattern: None,
        };
        assert_eq!(db_schemas(&all).num_rows(), 1);
        let other = CommandGetDbSchemas {
            catalog: Some("elsewhere".into()),
            db_schema_filter_pattern: None,
        };
        assert_eq!(db_schemas(&other).num_rows(), 0);
        let command = CommandGetTables {
            catalog: None,
            db_schema_filter_pattern: Some("pub%".into()),
            table_name_filter_pattern: Some("t%".into()),
            table_types: vec!["TABLE".into()],
            include_schema: true,
        };
        let listed = vec![
            ("trips".to_string(), Some(bytes::Bytes::from_static(b"s"))),
            ("users".to_string(), Some(bytes::Bytes::from_static(b"u"))),
        ];
        let batch = tables(&command, listed.clone()).unwrap();
        assert_eq!(batch.num_rows(), 1);
        assert_eq!(batch.num_columns(), 5);
        let views = CommandGetTables {
            table_types: vec!["VIEW".into()],
            ..command
        };
        assert_eq!(tables(&views, listed).unwrap().num_rows(), 0);
        assert_eq!(empty(foreign_keys_schema()).num_columns(), 13);
    }
}

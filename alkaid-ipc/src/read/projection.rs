//! Projection: the top-level columns a reader decodes ([`ReadOptions::with_columns`]),
//! resolved against the schema once it is read.
//!
//! The body walk still steps over every column (the message lists the nodes and buffers of
//! all of them, in order), but it only counts those of the columns left out: their buffers
//! are never sliced, decompressed or validated, and dictionary batches that only they use
//! are passed over.
//!
//! [`ReadOptions::with_columns`]: crate::ReadOptions::with_columns

use std::sync::Arc;

use alkaid_schema::{Schema, SchemaRef};

use crate::dictionary::count_dictionaries;
use crate::error::{IpcError, Result};
use crate::read::options::Columns;

/// The caller's selection of columns, resolved against one schema.
#[derive(Debug, Clone)]
pub(crate) struct Projection {
    /// The selected fields' indices in the schema, in the caller's order.
    pub columns: Vec<usize>,
    /// Whether each field of the schema is decoded.
    pub decoded: Vec<bool>,
    /// Whether each dictionary position of the schema (in walk order) lies inside a
    /// decoded field.
    pub dictionaries: Vec<bool>,
    /// The schema of the batches: the selected fields, in the caller's order, with the
    /// schema's metadata.
    pub schema: SchemaRef,
}

impl Projection {
    /// Resolves `columns` against `schema`.
    ///
    /// # Errors
    /// An index past the schema's fields, or a name that several fields have, or (but for
    /// [`Columns::PresentNames`]) none.
    pub fn resolve(columns: &Columns, schema: &Schema) -> Result<Self> {
        let fields = schema.fields();
        let indices = match columns {
            Columns::Indices(indices) => {
                if let Some(&bad) = indices.iter().find(|&&i| i >= fields.len()) {
                    return Err(IpcError::invalid_argument(format!(
                        "column {bad} selected, but the schema has {} fields",
                        fields.len()
                    )));
                }
                indices.clone()
            }
            Columns::Names(names) => names
                .iter()
                .map(|name| {
                    schema.index_of(name).map_err(|e| {
                        IpcError::invalid_argument(format!("selecting column {name:?}: {e}"))
                    })
                })
                .collect::<Result<_>>()?,
            Columns::PresentNames(names) => names
                .iter()
                .filter(|name| fields.iter().any(|f| f.name() == name.as_str()))
                .map(|name| {
                    schema.index_of(name).map_err(|e| {
                        IpcError::invalid_argument(format!("selecting column {name:?}: {e}"))
                    })
                })
                .collect::<Result<_>>()?,
        };
        let mut decoded = vec![false; fields.len()];
        for &i in &indices {
            decoded[i] = true;
        }
        let dictionaries = fields
            .iter()
            .zip(&decoded)
            .flat_map(|(field, &wanted)| {
                std::iter::repeat_n(wanted, count_dictionaries(field.data_type()))
            })
            .collect();
        let projected = schema
            .project(&indices)
            .map_err(|e| IpcError::invalid_argument(e.to_string()))?;
        Ok(Self {
            columns: indices,
            decoded,
            dictionaries,
            schema: Arc::new(projected),
        })
    }
}

#[cfg(test)]
mod tests {
    use alkaid_schema::{DataType, Field, IntegerType};

    use super::*;

    fn schema() -> Schema {
        let words = DataType::dictionary(IntegerType::Int32, DataType::Utf8);
        let nested = DataType::Struct(
            vec![
                Field::new("w", words.clone(), true),
                Field::new("n", DataType::Int64, true),
            ]
            .into(),
        );
        Schema::new(vec![
            Field::new("a", DataType::Int32, false),
            Field::new("b", words, true),
            Field::new("c", nested, true),
            Field::new("b2", DataType::Utf8, true),
        ])
    }

    #[test]
    fn indices_and_names_resolve_to_fields_in_the_callers_order() {
        let schema = schema();
        let by_index = Projection::resolve(&Columns::Indices(vec![2, 0, 2]), &schema).unwrap();
        assert_eq!(by_index.columns, [2, 0, 2]);
        assert_eq!(by_index.decoded, [true, false, true, false]);
        // `b` holds dictionary position 0, `c` position 1.
        assert_eq!(by_index.dictionaries, [false, true]);
        let names: Vec<&str> = by_index.schema.fields().iter().map(|f| f.name()).collect();
        assert_eq!(names, ["c", "a", "c"]);
        let by_name =
            Projection::resolve(&Columns::Names(vec!["b".into(), "b2".into()]), &schema).unwrap();
        assert_eq!(by_name.columns, [1, 3]);
        assert_eq!(by_name.dictionaries, [true, false]);
        let none = Projection::resolve(&Columns::Indices(vec![]), &schema).unwrap();
        assert!(none.schema.fields().is_empty());
        assert_eq!(none.dictionaries, [false, false]);
    }

    #[test]
    fn unknown_columns_are_named_in_the_error() {
        let schema = schema();
        let err = Projection::resolve(&Columns::Indices(vec![1, 4]), &schema).unwrap_err();
        assert!(
            err.to_string()
                .contains("column 4 selected, but the schema has 4 fields"),
            "{err}"
        );
        let err = Projection::resolve(&Columns::Names(vec!["zz".into()]), &schema).unwrap_err();
        assert!(err.to_string().contains("\"zz\""), "{err}");
    }
}

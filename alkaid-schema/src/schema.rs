//! [`Schema`]: the fields of a record batch, plus schema-level metadata.

use std::fmt;
use std::sync::Arc;

use crate::{FieldRef, Fields, Metadata, SchemaError};

/// A shared [`Schema`].
pub type SchemaRef = Arc<Schema>;

/// The ordered fields of a record batch and the schema's own metadata.
///
/// Field names may repeat (the format allows it); [`index_of`](Self::index_of) then reports
/// the ambiguity instead of picking one.
///
/// # Examples
/// ```
/// use alkaid_schema::{DataType, Field, Schema};
/// let schema = Schema::new(vec![
///     Field::new("id", DataType::Int64, false),
///     Field::new("name", DataType::Utf8, true),
///     Field::new("score", DataType::Float64, true),
/// ]);
/// assert_eq!(schema.index_of("score").unwrap(), 2);
/// let projected = schema.project(&[2, 0]).unwrap();
/// assert_eq!(projected.to_string(), "score: Float64, id: Int64 not null");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Schema {
    fields: Fields,
    metadata: Metadata,
}

impl Schema {
    /// A schema of `fields` without metadata.
    pub fn new(fields: impl Into<Fields>) -> Self {
        Self {
            fields: fields.into(),
            metadata: Metadata::new(),
        }
    }

    /// A schema without fields.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The same schema with other metadata.
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = metadata;
        self
    }

    /// The fields.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// The schema-level metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Field `index`.
    ///
    /// # Errors
    /// [`SchemaError::IndexOutOfBounds`] past the last field.
    pub fn field(&self, index: usize) -> Result<&FieldRef, SchemaError> {
        self.fields.get(index).ok_or(SchemaError::IndexOutOfBounds {
            index,
            len: self.fields.len(),
        })
    }

    /// The index of the one field named `name`.
    ///
    /// # Errors
    /// [`SchemaError::FieldNotFound`], or [`SchemaError::AmbiguousField`] when several
    /// fields have the name.
    pub fn index_of(&self, name: &str) -> Result<usize, SchemaError> {
        self.fields.index_of(name)
    }

    /// The one field named `name`.
    ///
    /// # Errors
    /// As [`index_of`](Self::index_of).
    pub fn field_with_name(&self, name: &str) -> Result<&FieldRef, SchemaError> {
        self.fields.find(name)
    }

    /// The fields at `indices`, in that order, keeping the schema metadata.
    ///
    /// # Errors
    /// [`SchemaError::IndexOutOfBounds`] for an index past the end.
    pub fn project(&self, indices: &[usize]) -> Result<Schema, SchemaError> {
        Ok(Self {
            fields: self.fields.project(indices)?,
            metadata: self.metadata.clone(),
        })
    }

    /// Equality that ignores metadata: the schema's and every field's, at any depth.
    pub fn eq_ignoring_metadata(&self, other: &Schema) -> bool {
        self.fields.len() == other.fields.len()
            && self
                .fields
                .iter()
                .zip(other.fields.iter())
                .all(|(a, b)| a.eq_ignoring_metadata(b))
    }
}

impl fmt::Display for Schema {
    /// The fields in the type notation, separated by commas.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, field) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{field}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Schema({self})")?;
        if !self.metadata.is_empty() {
            write!(f, " {:?}", self.metadata)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataType, Field};

    #[test]
    fn lookups_report_missing_ambiguous_and_out_of_range() {
        let schema = Schema::new(vec![
            Field::new("a", DataType::Int8, true),
            Field::new("a", DataType::Int16, true),
        ]);
        assert!(matches!(
            schema.index_of("a"),
            Err(SchemaError::AmbiguousField { .. })
        ));
        assert_eq!(
            schema.field_with_name("b"),
            Err(SchemaError::FieldNotFound { name: "b".into() })
        );
        assert_eq!(schema.field(1).unwrap().data_type(), &DataType::Int16);
        assert_eq!(
            schema.field(2),
            Err(SchemaError::IndexOutOfBounds { index: 2, len: 2 })
        );
        assert_eq!(Schema::empty().fields().len(), 0);
    }

    #[test]
    fn metadata_takes_part_in_equality_unless_ignored() {
        let plain = Schema::new(vec![Field::new("a", DataType::Int8, true)]);
        let tagged = plain
            .clone()
            .with_metadata(Metadata::from_iter([("k", "v")]));
        assert_ne!(plain, tagged);
        assert!(plain.eq_ignoring_metadata(&tagged));
        assert_eq!(format!("{tagged:?}"), r#"Schema(a: Int8) {"k": "v"}"#);
        let projected = tagged.project(&[0]).unwrap();
        assert_eq!(projected.metadata().get("k"), Some("v"));
    }
}

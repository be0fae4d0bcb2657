//! [`Field`], [`FieldRef`] and [`Fields`]: named, typed columns and children.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::{DataType, Metadata, SchemaError};

/// A shared [`Field`]; what data types and schemas hold.
pub type FieldRef = Arc<Field>;

/// A name, a data type, whether nulls are allowed, and custom metadata.
///
/// Fields are cheap to clone (the name and metadata are shared) and are built with `with_*`
/// helpers. `==` compares everything including metadata at every depth;
/// [`eq_ignoring_metadata`](Self::eq_ignoring_metadata) ignores metadata at every depth.
///
/// # Examples
/// ```
/// use alkaid_schema::{DataType, Field, Metadata};
/// let field = Field::new("temperature", DataType::Float32, true)
///     .with_metadata(Metadata::from_iter([("unit", "°C")]));
/// assert_eq!(field.name(), "temperature");
/// assert_eq!(field.metadata().get("unit"), Some("°C"));
/// let plain = field.clone().with_metadata(Metadata::new());
/// assert_ne!(field, plain);
/// assert!(field.eq_ignoring_metadata(&plain));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Field {
    name: Arc<str>,
    data_type: DataType,
    nullable: bool,
    metadata: Metadata,
}

impl Field {
    /// A field without metadata.
    pub fn new(name: impl Into<Arc<str>>, data_type: DataType, nullable: bool) -> Self {
        Self {
            name: name.into(),
            data_type,
            nullable,
            metadata: Metadata::new(),
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The data type.
    pub fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// Whether the field may hold nulls.
    pub fn is_nullable(&self) -> bool {
        self.nullable
    }

    /// The custom metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The same field with another name.
    pub fn with_name(mut self, name: impl Into<Arc<str>>) -> Self {
        self.name = name.into();
        self
    }

    /// The same field with another data type.
    pub fn with_data_type(mut self, data_type: DataType) -> Self {
        self.data_type = data_type;
        self
    }

    /// The same field with another nullability.
    pub fn with_nullable(mut self, nullable: bool) -> Self {
        self.nullable = nullable;
        self
    }

    /// The same field with other metadata.
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = metadata;
        self
    }

    /// The same field with one more metadata pair (replacing the key's old value).
    pub fn with_metadata_entry(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.insert(key, value);
        self
    }

    /// Equality that ignores metadata, on this field and every child field at any depth.
    pub fn eq_ignoring_metadata(&self, other: &Field) -> bool {
        self.name == other.name
            && self.nullable == other.nullable
            && self.data_type.eq_ignoring_metadata(&other.data_type)
    }
}

impl fmt::Debug for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The type notation already prints names, nullability and metadata readably.
        write!(f, "Field({self})")
    }
}

impl fmt::Display for Field {
    /// `name: Type`, then ` not null` and `{"key": "value"}` metadata when present: the
    /// notation fields have inside nested data types.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::datatype::write_field(f, self)
    }
}

/// The ordered child fields of a struct or union, or the fields of a schema; O(1) to clone.
///
/// Duplicate names are allowed (the format does not forbid them); lookups by name say so.
///
/// # Examples
/// ```
/// use alkaid_schema::{DataType, Field, Fields};
/// let fields = Fields::from(vec![
///     Field::new("id", DataType::Int64, false),
///     Field::new("name", DataType::Utf8, true),
/// ]);
/// assert_eq!(fields.index_of("name").unwrap(), 1);
/// assert!(fields.index_of("missing").is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Fields(Arc<[FieldRef]>);

impl Fields {
    /// No fields.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The index of the one field named `name`.
    ///
    /// # Errors
    /// [`SchemaError::FieldNotFound`] if none has the name, [`SchemaError::AmbiguousField`]
    /// (listing every index) if several do.
    pub fn index_of(&self, name: &str) -> Result<usize, SchemaError> {
        let mut matches = self.indices_of(name);
        match (matches.next(), matches.next()) {
            (Some(index), None) => Ok(index),
            (None, _) => Err(SchemaError::FieldNotFound {
                name: name.to_string(),
            }),
            (Some(_), Some(_)) => Err(SchemaError::AmbiguousField {
                name: name.to_string(),
                indices: self.indices_of(name).collect(),
            }),
        }
    }

    /// The indices of every field named `name`.
    pub fn indices_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.0
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.name() == name)
            .map(|(i, _)| i)
    }

    /// The one field named `name`.
    ///
    /// # Errors
    /// As [`index_of`](Self::index_of).
    pub fn find(&self, name: &str) -> Result<&FieldRef, SchemaError> {
        self.index_of(name).map(|i| &self.0[i])
    }

    /// The fields at `indices`, in that order.
    ///
    /// # Errors
    /// [`SchemaError::IndexOutOfBounds`] for an index past the end.
    pub fn project(&self, indices: &[usize]) -> Result<Fields, SchemaError> {
        indices
            .iter()
            .map(|&index| {
                self.0
                    .get(index)
                    .cloned()
                    .ok_or(SchemaError::IndexOutOfBounds {
                        index,
                        len: self.0.len(),
                    })
            })
            .collect()
    }
}

impl Deref for Fields {
    type Target = [FieldRef];
    fn deref(&self) -> &[FieldRef] {
        &self.0
    }
}

impl fmt::Debug for Fields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl From<Vec<Field>> for Fields {
    fn from(fields: Vec<Field>) -> Self {
        fields.into_iter().map(Arc::new).collect()
    }
}

impl From<Vec<FieldRef>> for Fields {
    fn from(fields: Vec<FieldRef>) -> Self {
        // No fields share the one empty slice: leaf fields (most of a schema) then cost no
        // allocation.
        if fields.is_empty() {
            return Self::empty();
        }
        Self(fields.into())
    }
}

impl From<&[FieldRef]> for Fields {
    fn from(fields: &[FieldRef]) -> Self {
        Self(fields.into())
    }
}

impl FromIterator<FieldRef> for Fields {
    fn from_iter<I: IntoIterator<Item = FieldRef>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl FromIterator<Field> for Fields {
    fn from_iter<I: IntoIterator<Item = Field>>(iter: I) -> Self {
        iter.into_iter().map(Arc::new).collect()
    }
}

impl<'a> IntoIterator for &'a Fields {
    type Item = &'a FieldRef;
    type IntoIter = std::slice::Iter<'a, FieldRef>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_built_empty_and_full_hold_what_they_were_given() {
        let from_vec = Fields::from(Vec::<FieldRef>::new());
        let collected: Fields = std::iter::empty::<FieldRef>().collect();
        assert!(from_vec.is_empty() && collected.is_empty());
        assert_eq!(from_vec, Fields::empty());
        assert_eq!(collected, Fields::empty());
        let two: Fields = [
            Field::new("a", DataType::Int8, true),
            Field::new("b", DataType::Utf8, false),
        ]
        .into_iter()
        .collect();
        assert_eq!(two.len(), 2);
        assert_eq!(two[1].name(), "b");
    }

    #[test]
    fn duplicate_names_make_lookup_ambiguous() {
        let fields = Fields::from(vec![
            Field::new("a", DataType::Int8, true),
            Field::new("b", DataType::Int8, true),
            Field::new("a", DataType::Utf8, true),
        ]);
        assert_eq!(
            fields.index_of("a"),
            Err(SchemaError::AmbiguousField {
                name: "a".into(),
                indices: vec![0, 2]
            })
        );
        assert_eq!(fields.indices_of("a").collect::<Vec<_>>(), [0, 2]);
        assert_eq!(fields.find("b").unwrap().data_type(), &DataType::Int8);
        assert_eq!(
            fields.index_of("c").unwrap_err().to_string(),
            "no field named \"c\""
        );
    }

    #[test]
    fn projection_reorders_and_checks_bounds() {
        let fields = Fields::from(vec![
            Field::new("a", DataType::Int8, true),
            Field::new("b", DataType::Int16, true),
        ]);
        let projected = fields.project(&[1, 0, 1]).unwrap();
        assert_eq!(
            projected.iter().map(|f| f.name()).collect::<Vec<_>>(),
            ["b", "a", "b"]
        );
        assert_eq!(
            fields.project(&[2]),
            Err(SchemaError::IndexOutOfBounds { index: 2, len: 2 })
        );
    }

    #[test]
    fn with_helpers_change_one_thing() {
        let field = Field::new("x", DataType::Int32, false);
        assert_eq!(field.clone().with_name("y").name(), "y");
        assert!(field.clone().with_nullable(true).is_nullable());
        assert_eq!(
            field.clone().with_data_type(DataType::Utf8).data_type(),
            &DataType::Utf8
        );
        let tagged = field
            .with_metadata_entry("k", "v")
            .with_metadata_entry("k", "w");
        assert_eq!(tagged.metadata().get("k"), Some("w"));
        assert_eq!(
            format!("{tagged:?}"),
            r#"Field(x: Int32 not null {"k": "w"})"#
        );
    }
}

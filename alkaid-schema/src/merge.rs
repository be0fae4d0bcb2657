//! Merging two schemas (or fields, or metadata) into one that describes both.
//!
//! The rules, applied recursively:
//! - fields are matched by name; fields only in the second schema are appended in order;
//! - a merged field is nullable if either side is; `Null` merges with any type, giving the
//!   other type (nullable);
//! - structs merge their fields by the same rules, at any depth; the items of lists of the
//!   same kind, the values of dictionaries with the same key, and the entries of maps
//!   merge likewise; any other pair of types must be equal (ignoring nothing);
//! - metadata merge key by key; a key with two different values is a conflict.
//!
//! A conflict names where it is: `field "a" > field "b"`.

use std::sync::Arc;

use crate::{DataType, Field, FieldRef, Fields, MapType, Metadata, Schema, SchemaError};

impl Schema {
    /// A schema that describes data of both schemas (see the [module docs](crate::merge)
    /// for the rules).
    ///
    /// # Errors
    /// [`SchemaError::MergeConflict`] naming the path of the first conflict.
    ///
    /// # Examples
    /// ```
    /// use alkaid_schema::{DataType, Field, Schema};
    /// let a = Schema::new(vec![Field::new("id", DataType::Int64, false)]);
    /// let b = Schema::new(vec![
    ///     Field::new("id", DataType::Int64, true),
    ///     Field::new("tag", DataType::Utf8, true),
    /// ]);
    /// let merged = a.merge(&b).unwrap();
    /// assert_eq!(merged.to_string(), "id: Int64, tag: Utf8");
    ///
    /// let c = Schema::new(vec![Field::new("id", DataType::Utf8, true)]);
    /// assert_eq!(a.merge(&c).unwrap_err().to_string(),
    ///            "cannot merge field \"id\": expected Int64, found Utf8");
    /// ```
    pub fn merge(&self, other: &Schema) -> Result<Schema, SchemaError> {
        let fields = merge_fields(self.fields(), other.fields(), "")?;
        let metadata = merge_metadata(self.metadata(), other.metadata(), "schema metadata")?;
        Ok(Schema::new(fields).with_metadata(metadata))
    }
}

impl Field {
    /// A field that describes data of both fields; the names must be equal.
    ///
    /// # Errors
    /// [`SchemaError::MergeConflict`] naming the path of the first conflict.
    pub fn merge(&self, other: &Field) -> Result<Field, SchemaError> {
        merge_field(self, other, "")
    }
}

fn path_of(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        format!("field {name:?}")
    } else {
        format!("{parent} > field {name:?}")
    }
}

fn conflict(path: String, reason: String) -> SchemaError {
    SchemaError::MergeConflict { path, reason }
}

fn merge_fields(left: &Fields, right: &Fields, parent: &str) -> Result<Fields, SchemaError> {
    let mut merged: Vec<FieldRef> = Vec::with_capacity(left.len());
    for field in left.iter() {
        merged.push(match right.indices_of(field.name()).next() {
            Some(i) => Arc::new(merge_field(field, &right[i], parent)?),
            None => Arc::clone(field),
        });
    }
    for field in right.iter() {
        if left.indices_of(field.name()).next().is_none() {
            merged.push(Arc::clone(field));
        }
    }
    Ok(merged.into())
}

fn merge_field(left: &Field, right: &Field, parent: &str) -> Result<Field, SchemaError> {
    let path = path_of(parent, left.name());
    if left.name() != right.name() {
        return Err(conflict(
            path,
            format!(
                "expected the name {:?}, found {:?}",
                left.name(),
                right.name()
            ),
        ));
    }
    let data_type = merge_types(left.data_type(), right.data_type(), &path)?;
    // A Null column merged with a column of another type becomes that type, and nullable:
    // every row that came from the Null side is null.
    let null_widened = left.data_type() != right.data_type()
        && (matches!(left.data_type(), DataType::Null)
            || matches!(right.data_type(), DataType::Null));
    let nullable = left.is_nullable() || right.is_nullable() || null_widened;
    let metadata = merge_metadata(
        left.metadata(),
        right.metadata(),
        &format!("{path} metadata"),
    )?;
    Ok(Field::new(left.name(), data_type, nullable).with_metadata(metadata))
}

fn merge_types(left: &DataType, right: &DataType, path: &str) -> Result<DataType, SchemaError> {
    let merged = match (left, right) {
        _ if left == right => left.clone(),
        (DataType::Null, other) | (other, DataType::Null) => other.clone(),
        (DataType::Struct(a), DataType::Struct(b)) => DataType::Struct(merge_fields(a, b, path)?),
        (DataType::List(a), DataType::List(b)) => DataType::List(merge_child(a, b, path)?),
        (DataType::LargeList(a), DataType::LargeList(b)) => {
            DataType::LargeList(merge_child(a, b, path)?)
        }
        (DataType::ListView(a), DataType::ListView(b)) => {
            DataType::ListView(merge_child(a, b, path)?)
        }
        (DataType::LargeListView(a), DataType::LargeListView(b)) => {
            DataType::LargeListView(merge_child(a, b, path)?)
        }
        (DataType::FixedSizeList(a, n), DataType::FixedSizeList(b, m)) if n == m => {
            DataType::FixedSizeList(merge_child(a, b, path)?, *n)
        }
        (DataType::Map(a), DataType::Map(b)) if a.keys_sorted() == b.keys_sorted() => {
            let entries = merge_child(a.entries(), b.entries(), path)?;
            DataType::Map(
                MapType::try_new(entries, a.keys_sorted())
                    .map_err(|e| conflict(path.to_string(), e.to_string()))?,
            )
        }
        (
            DataType::Dictionary {
                key,
                value,
                ordered,
            },
            DataType::Dictionary {
                key: other_key,
                value: other_value,
                ordered: other_ordered,
            },
        ) if key == other_key && ordered == other_ordered => DataType::Dictionary {
            key: *key,
            value: Box::new(merge_types(value, other_value, path)?),
            ordered: *ordered,
        },
        _ => {
            return Err(conflict(
                path.to_string(),
                format!("expected {left}, found {right}"),
            ));
        }
    };
    Ok(merged)
}

fn merge_child(left: &FieldRef, right: &FieldRef, parent: &str) -> Result<FieldRef, SchemaError> {
    Ok(Arc::new(merge_field(left, right, parent)?))
}

fn merge_metadata(left: &Metadata, right: &Metadata, path: &str) -> Result<Metadata, SchemaError> {
    let mut merged = left.clone();
    for (key, value) in right.iter() {
        match left.get(key) {
            Some(existing) if existing != value => {
                return Err(conflict(
                    format!("{path} {key:?}"),
                    format!("expected {existing:?}, found {value:?}"),
                ));
            }
            Some(_) => {}
            None => {
                merged.insert(key, value);
            }
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(text: &str) -> Field {
        text.parse().unwrap()
    }

    #[test]
    fn nested_structs_merge_field_by_field() {
        let a = Schema::new(vec![field(
            "s: Struct(x: Int32 not null, y: List(item: Utf8))",
        )]);
        let b = Schema::new(vec![field("s: Struct(z: Boolean, x: Int32)")]);
        let merged = a.merge(&b).unwrap();
        assert_eq!(
            merged.to_string(),
            "s: Struct(x: Int32, y: List(item: Utf8), z: Boolean)"
        );
    }

    #[test]
    fn null_type_merges_with_anything() {
        let merged = field("a: Null").merge(&field("a: Utf8 not null")).unwrap();
        assert_eq!(merged, field("a: Utf8"));
        let merged = field("a: Null not null")
            .merge(&field("a: Utf8 not null"))
            .unwrap();
        assert_eq!(merged, field("a: Utf8"));
        let same = field("a: Null not null");
        assert_eq!(
            same.merge(&same).unwrap(),
            same,
            "merging a field with itself changes nothing"
        );
        let merged = field("a: List(item: Null)")
            .merge(&field("a: List(item: Int8 not null)"))
            .unwrap();
        assert_eq!(merged, field("a: List(item: Int8)"));
    }

    #[test]
    fn conflicts_name_their_path() {
        let a = Schema::new(vec![field("s: Struct(t: Struct(u: Int8))")]);
        let b = Schema::new(vec![field("s: Struct(t: Struct(u: Int16))")]);
        assert_eq!(
            a.merge(&b).unwrap_err().to_string(),
            "cannot merge field \"s\" > field \"t\" > field \"u\": expected Int8, found Int16"
        );
        let err = field("a: FixedSizeList(2, item: Int8)")
            .merge(&field("a: FixedSizeList(3, item: Int8)"));
        assert!(err.is_err());
        assert!(field("a: Int8").merge(&field("b: Int8")).is_err());
    }

    #[test]
    fn metadata_merges_key_by_key() {
        let a = Schema::new(vec![field(r#"a: Int8 {"unit": "m"}"#)])
            .with_metadata(Metadata::from_iter([("owner", "x")]));
        let b = Schema::new(vec![field(r#"a: Int8 {"scale": "2"}"#)])
            .with_metadata(Metadata::from_iter([("source", "y")]));
        let merged = a.merge(&b).unwrap();
        assert_eq!(merged.metadata().len(), 2);
        assert_eq!(merged.fields()[0].metadata().len(), 2);
        let c = Schema::new(vec![field(r#"a: Int8 {"unit": "ft"}"#)]);
        assert_eq!(
            a.merge(&c).unwrap_err().to_string(),
            "cannot merge field \"a\" metadata \"unit\": expected \"m\", found \"ft\""
        );
    }

    #[test]
    fn dictionaries_and_maps_merge_their_values() {
        let merged = field("d: Dictionary(Int32, Null)")
            .merge(&field("d: Dictionary(Int32, Utf8)"))
            .unwrap();
        assert_eq!(merged, field("d: Dictionary(Int32, Utf8)"));
        assert!(
            field("d: Dictionary(Int8, Utf8)")
                .merge(&field("d: Dictionary(Int32, Utf8)"))
                .is_err()
        );
        let a = field("m: Map(entries: Struct(key: Utf8 not null, value: Null) not null)");
        let b = field("m: Map(entries: Struct(key: Utf8 not null, value: Int64) not null)");
        assert_eq!(
            a.merge(&b).unwrap(),
            field("m: Map(entries: Struct(key: Utf8 not null, value: Int64) not null)")
        );
    }
}

//! Dictionary ids: which dictionary each dictionary-encoded field uses.
//!
//! Ids are listed in the order of a depth-first walk of the schema in which a dictionary
//! field counts before the fields inside its value type. Every walk in this crate (schema,
//! record batch, dictionary batch; reading and writing) visits dictionaries in that order,
//! so a position in the walk is all it needs to find an id.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use alkaid_schema::{DataType, Schema};

use crate::error::{IpcError, Result};

/// The dictionary id of every dictionary-encoded field of a schema, in walk order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DictionaryIds {
    ids: Vec<i64>,
    /// For each distinct id: the walk position of its first field (the schema says its
    /// value type).
    by_id: BTreeMap<i64, usize>,
}

/// Calls `visit` with the value type of each dictionary position in `data_type` (itself
/// included), in walk order, until it returns `false`; returns whether it never did. The
/// one place that says the walk order.
///
/// Generic rather than `dyn`: counting runs for every dictionary column of every batch,
/// and compiled for its closure the walk is the plain recursion it replaces.
fn walk_dictionaries<'a, F: FnMut(&'a DataType) -> bool>(
    data_type: &'a DataType,
    visit: &mut F,
) -> bool {
    match data_type {
        DataType::Dictionary { value, .. } => visit(value) && walk_dictionaries(value, visit),
        other => other
            .children()
            .iter()
            .all(|field| walk_dictionaries(field.data_type(), visit)),
    }
}

/// Number of dictionary-encoded positions in `data_type`, itself included.
pub(crate) fn count_dictionaries(data_type: &DataType) -> usize {
    let mut count = 0;
    walk_dictionaries(data_type, &mut |_| {
        count += 1;
        true
    });
    count
}

/// Number of dictionary-encoded positions in `schema`.
fn dictionary_count(schema: &Schema) -> usize {
    schema
        .fields()
        .iter()
        .map(|field| count_dictionaries(field.data_type()))
        .sum()
}

/// Calls `visit` with the value type of each dictionary position of `schema`, in walk
/// order, until it returns `false`.
fn walk_value_types<'a>(schema: &'a Schema, mut visit: impl FnMut(&'a DataType) -> bool) {
    schema
        .fields()
        .iter()
        .all(|field| walk_dictionaries(field.data_type(), &mut visit));
}

/// The value type of every dictionary position of `schema`, in walk order.
pub(crate) fn value_types(schema: &Schema) -> Vec<&DataType> {
    let mut out = Vec::new();
    walk_value_types(schema, |value| {
        out.push(value);
        true
    });
    out
}

/// The value type of dictionary position `position` of `schema`, found without walking
/// past it.
pub(crate) fn value_type_at(schema: &Schema, position: usize) -> Option<&DataType> {
    let mut seen = 0;
    let mut found = None;
    walk_value_types(schema, |value| {
        if seen == position {
            found = Some(value);
        }
        seen += 1;
        found.is_none()
    });
    found
}

impl DictionaryIds {
    /// Ids 0, 1, 2, ... for the dictionary fields of `schema`, one dictionary per field:
    /// what writers use unless told otherwise.
    pub fn sequential(schema: &Schema) -> Self {
        let ids = (0..dictionary_count(schema) as i64).collect();
        Self::new(ids, schema).expect("distinct ids never conflict")
    }

    /// Chosen ids, one per dictionary field of `schema` in walk order (a depth-first walk in
    /// field order, a dictionary before the fields inside its values). Fields given the same
    /// id share one dictionary: their value types must agree, and a batch must give them the
    /// same dictionary.
    ///
    /// # Errors
    /// If the number of ids is not the number of dictionary fields, or fields sharing an id
    /// have different value types.
    pub fn try_new(schema: &Schema, ids: Vec<i64>) -> Result<Self> {
        Self::from_schema_order(schema, ids)
            .map_err(|e| IpcError::invalid_argument(e.message().to_string()))
    }

    /// Ids collected by the walk that decoded `schema`, so one per dictionary position by
    /// construction; a shared id must still mean one value type.
    pub(crate) fn from_decoded_walk(schema: &Schema, ids: Vec<i64>) -> Result<Self> {
        debug_assert_eq!(dictionary_count(schema), ids.len());
        Self::new(ids, schema)
    }

    /// Ids given for `schema`, checked: one per dictionary position, and a shared id must
    /// mean one value type.
    pub(crate) fn from_schema_order(schema: &Schema, ids: Vec<i64>) -> Result<Self> {
        let count = dictionary_count(schema);
        if count != ids.len() {
            return Err(IpcError::malformed(format!(
                "the schema has {count} dictionary fields but {} dictionary encodings",
                ids.len()
            )));
        }
        Self::new(ids, schema)
    }

    /// `ids`, one per dictionary position of `schema`; value types are compared only for
    /// an id that repeats (most schemas have none, and then the walk is never made).
    fn new(ids: Vec<i64>, schema: &Schema) -> Result<Self> {
        let mut by_id = BTreeMap::new();
        let mut values = None;
        for (position, &id) in ids.iter().enumerate() {
            match by_id.entry(id) {
                Entry::Vacant(entry) => {
                    entry.insert(position);
                }
                Entry::Occupied(entry) => {
                    let values = values.get_or_insert_with(|| value_types(schema));
                    let (first, value) = (values[*entry.get()], values[position]);
                    if !first.eq_ignoring_metadata(value) {
                        return Err(IpcError::malformed(format!(
                            "dictionary id {id} is used for values of type {first} and of type {value}"
                        )));
                    }
                }
            }
        }
        Ok(Self { ids, by_id })
    }

    /// The id at walk position `position`.
    pub(crate) fn id_at(&self, position: usize) -> i64 {
        self.ids[position]
    }

    /// The ids in walk order (an id appears once per field that uses it).
    pub fn ids(&self) -> &[i64] {
        &self.ids
    }

    /// Where the first field with dictionary `id` is in the walk.
    pub(crate) fn lookup(&self, id: i64) -> Option<usize> {
        self.by_id.get(&id).copied()
    }
}

#[cfg(test)]
mod tests {
    use alkaid_schema::{Field, IntegerType};

    use super::*;

    fn dictionary(value: DataType) -> DataType {
        DataType::Dictionary {
            key: IntegerType::Int32,
            value: Box::new(value),
            ordered: false,
        }
    }

    #[test]
    fn ids_follow_the_walk_and_shared_ids_must_agree() {
        // Walk order: `a`, then `b` before the dictionary inside its values, then `c`.
        let schema = Schema::new(vec![
            Field::new("a", dictionary(DataType::Utf8), true),
            Field::new(
                "b",
                dictionary(DataType::list(dictionary(DataType::Utf8))),
                true,
            ),
            Field::new("c", dictionary(DataType::Int64), true),
        ]);
        assert_eq!(dictionary_count(&schema), 4);
        let values = value_types(&schema);
        assert_eq!(values[1], &DataType::list(dictionary(DataType::Utf8)));
        assert_eq!(values[2], &DataType::Utf8);
        for (position, value) in values.iter().enumerate() {
            assert_eq!(value_type_at(&schema, position), Some(*value));
        }
        assert_eq!(value_type_at(&schema, 4), None);

        let ids = DictionaryIds::from_schema_order(&schema, vec![5, 6, 5, 7]).unwrap();
        assert_eq!(
            ids.lookup(5),
            Some(0),
            "a shared id is found at its first field"
        );
        assert_eq!(ids.lookup(7), Some(3));
        assert_eq!(ids.lookup(8), None);
        assert_eq!(ids.ids(), [5, 6, 5, 7]);

        let err = DictionaryIds::from_schema_order(&schema, vec![5, 6, 7, 5]).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("dictionary id 5") && message.contains("Int64"),
            "{message}"
        );
        let err = DictionaryIds::from_schema_order(&schema, vec![1, 2, 3]).unwrap_err();
        assert!(
            err.to_string().contains("4 dictionary fields but 3"),
            "{err}"
        );
        assert_eq!(DictionaryIds::sequential(&schema).ids(), [0, 1, 2, 3]);
    }
}

//! Dictionary ids: which dictionary each dictionary-encoded field uses.
//!
//! Ids are listed in the order of a depth-first walk of the schema in which a dictionary
//! field counts before the fields inside its value type. Every walk in this crate (schema,
//! record batch, dictionary batch; reading and writing) visits dictionaries in that order,
//! so a position in the walk is all it needs to find an id.

use std::collections::BTreeMap;

use alkaid_schema::{DataType, Schema};

use crate::error::{IpcError, Result};

/// The dictionary id of every dictionary-encoded field of a schema, in walk order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DictionaryIds {
    ids: Vec<i64>,
    /// For each distinct id: the walk position of its first field and its value type.
    by_id: BTreeMap<i64, (usize, DataType)>,
}

/// Number of dictionary-encoded positions in `data_type`, itself included.
pub(crate) fn count_dictionaries(data_type: &DataType) -> usize {
    match data_type {
        DataType::Dictionary { value, .. } => 1 + count_dictionaries(value),
        other => other
            .children()
            .iter()
            .map(|field| count_dictionaries(field.data_type()))
            .sum(),
    }
}

fn value_types(schema: &Schema) -> Vec<DataType> {
    fn walk(data_type: &DataType, out: &mut Vec<DataType>) {
        if let DataType::Dictionary { value, .. } = data_type {
            out.push(value.as_ref().clone());
            walk(value, out);
        } else {
            for field in data_type.children() {
                walk(field.data_type(), out);
            }
        }
    }
    let mut out = Vec::new();
    for field in schema.fields().iter() {
        walk(field.data_type(), &mut out);
    }
    out
}

impl DictionaryIds {
    /// Ids 0, 1, 2, ... for the dictionary fields of `schema`, one dictionary per field:
    /// what writers use unless told otherwise.
    pub fn sequential(schema: &Schema) -> Self {
        let values = value_types(schema);
        let ids = (0..values.len() as i64).collect();
        Self::new(ids, values).expect("distinct ids never conflict")
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

    /// Ids as read from a schema, checked: a shared id must mean one value type.
    pub(crate) fn from_schema_order(schema: &Schema, ids: Vec<i64>) -> Result<Self> {
        let values = value_types(schema);
        if values.len() != ids.len() {
            return Err(IpcError::malformed(format!(
                "the schema has {} dictionary fields but {} dictionary encodings",
                values.len(),
                ids.len()
            )));
        }
        Self::new(ids, values)
    }

    fn new(ids: Vec<i64>, values: Vec<DataType>) -> Result<Self> {
        let mut by_id: BTreeMap<i64, (usize, DataType)> = BTreeMap::new();
        for (position, (&id, value)) in ids.iter().zip(values).enumerate() {
            match by_id.get(&id) {
                Some((_, first)) if !first.eq_ignoring_metadata(&value) => {
                    return Err(IpcError::malformed(format!(
                        "dictionary id {id} is used for values of type {first} and of type {value}"
                    )));
                }
                Some(_) => {}
                None => {
                    by_id.insert(id, (position, value));
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

    /// Where the first field with dictionary `id` is in the walk, and its value type.
    pub(crate) fn lookup(&self, id: i64) -> Option<(usize, &DataType)> {
        self.by_id
            .get(&id)
            .map(|(position, value)| (*position, value))
    }
}

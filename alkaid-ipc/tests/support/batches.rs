//! Random batches of the property tests' random types (the file that includes this one
//! declares `mod common`, alkaid-data's generators).

use std::sync::Arc;

use alkaid_array::{ArrayRef, RecordBatch, make_array};
use alkaid_schema::{DataType, Field, Schema, SchemaRef};

use crate::common::encode::encode;
use crate::common::{Rng, value};

/// Nullable fields `c0, c1, ...` of `types`, and for each of `lens` a batch of that many
/// rows of random values (a third of them null).
pub fn random_batches(
    types: &[DataType],
    lens: &[usize],
    rng: &mut Rng,
) -> (SchemaRef, Vec<RecordBatch>) {
    let fields: Vec<Field> = types
        .iter()
        .enumerate()
        .map(|(i, t)| Field::new(format!("c{i}"), t.clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batches = lens
        .iter()
        .map(|&len| {
            let columns: Vec<ArrayRef> = types
                .iter()
                .map(|t| {
                    let values: Vec<_> = (0..len).map(|_| value(t, rng, 0.3)).collect();
                    make_array(encode(t, &values, rng))
                })
                .collect();
            RecordBatch::try_new(schema.clone(), columns).unwrap()
        })
        .collect();
    (schema, batches)
}

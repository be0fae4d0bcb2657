//! Random batches of every data type, nested up to three deep and sliced, written as JSON
//! and read back, and carried JSON -> IPC file -> batches: what comes back must equal what
//! went in, value for value.

use crate::common;

use std::sync::Arc;

use alkaid_array::{ArrayRef, RecordBatch, make_array};
use alkaid_buffer::Buffer;
use alkaid_integration::{compare, read_json, write_json};
use alkaid_ipc::{FileReader, FileWriter, Magic, WriteOptions};
use alkaid_schema::{DataType, Field, Schema, arbitrary};
use common::encode::encode;
use common::{Rng, Value, dictionary_of_dictionary, generatable, value};
use proptest::prelude::*;

/// `value` with every NaN made 0: JSON numbers have no NaN, and the format writes floats
/// as numbers (a NaN's payload could not survive it).
fn without_nan(data_type: &DataType, value: Value) -> Value {
    let child = |i: usize| data_type.children()[i].data_type().clone();
    match (data_type, value) {
        (DataType::Float16 | DataType::Float32 | DataType::Float64, Value::Bytes(bytes)) => {
            let nan = match bytes.len() {
                2 => half::f16::from_le_bytes([bytes[0], bytes[1]]).is_nan(),
                4 => f32::from_le_bytes(bytes[..].try_into().unwrap()).is_nan(),
                _ => f64::from_le_bytes(bytes[..].try_into().unwrap()).is_nan(),
            };
            Value::Bytes(if nan { vec![0; bytes.len()] } else { bytes })
        }
        (DataType::Dictionary { value: inner, .. }, v) => without_nan(inner, v),
        (DataType::RunEndEncoded(ree), v) => without_nan(ree.values().data_type(), v),
        (DataType::Union(union), Value::Union(id, v)) => {
            let field = union.field_for_type_id(id).expect("a declared id");
            Value::Union(id, Box::new(without_nan(field.data_type(), *v)))
        }
        (DataType::Struct(_), Value::Struct(values)) => Value::Struct(
            values
                .into_iter()
                .enumerate()
                .map(|(i, v)| without_nan(&child(i), v))
                .collect(),
        ),
        (_, Value::List(items)) => Value::List(
            items
                .into_iter()
                .map(|v| without_nan(&child(0), v))
                .collect(),
        ),
        (_, other) => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn batches_survive_json_and_json_to_ipc(
        types in prop::collection::vec(arbitrary::data_type_with_depth(3), 1..4),
        seed in any::<u64>(),
        len in 0usize..12,
    ) {
        prop_assume!(types.iter().all(|t| generatable(t) && !dictionary_of_dictionary(t)));
        let mut rng = Rng::new(seed);
        let fields: Vec<Field> = types
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("c{i}"), t.clone(), rng.chance(0.8)))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let columns: Vec<ArrayRef> = types
            .iter()
            .map(|t| {
                let v: Vec<Value> = (0..len).map(|_| without_nan(t, value(t, &mut rng, 0.3))).collect();
                make_array(encode(t, &v, &mut rng))
            })
            .collect();
        // Unchecked: a column may hold nulls in a non-nullable field, which readers accept.
        // SAFETY: one column per field, each of the field's type and of `len` rows.
        let batch = unsafe { RecordBatch::new_unchecked(schema.clone(), columns, len) };
        let cut = rng.below(len + 1);
        let batches = vec![batch.clone(), batch.slice(cut, len - cut)];

        let text = write_json(&schema, &batches).unwrap();
        let json = read_json(&text).unwrap();
        prop_assert!(compare(&json, &schema, &batches).is_ok(), "{:?}", compare(&json, &schema, &batches));
        prop_assert_eq!(write_json(&json.schema, &json.batches).unwrap(), text);

        let options = WriteOptions::default().with_magic(Magic::Arrow);
        let mut writer = FileWriter::try_new_with_dictionary_ids(Vec::new(), json.schema.clone(), json.dictionary_ids.clone(), options).unwrap();
        for batch in &json.batches {
            writer.write(batch).unwrap();
        }
        let mut reader = FileReader::from_buffer(Buffer::from(writer.into_inner().unwrap())).unwrap();
        let read: Vec<RecordBatch> = (&mut reader).collect::<Result<_, _>>().unwrap();
        prop_assert!(compare(&json, &reader.schema(), &read).is_ok());
    }
}

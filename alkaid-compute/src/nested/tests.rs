use std::sync::Arc;

use alkaid_array::types::{Int32Type, Int64Type};
use alkaid_array::{
    Array, ArrayRef, AsArray, Float64Array, Int32Array, ListArray, MapBuilder, Scalar, StringArray,
    StructArray,
};
use alkaid_buffer::{NullBuffer, OffsetBuffer};
use alkaid_schema::{DataType, Field};

use super::*;
use crate::Aggregate;

fn maps() -> alkaid_array::MapArray {
    let mut maps = MapBuilder::new(StringArray::builder(0, 0), Int32Array::builder(0));
    for (entries, valid) in [
        (vec![("a", 1), ("b", 2), ("a", 9)], true),
        (vec![], false),
        (vec![("b", 3)], true),
    ] {
        for (key, value) in entries {
            maps.keys().append_value(key);
            maps.values().append_value(value);
        }
        maps.append(valid).unwrap();
    }
    maps.finish().unwrap()
}

#[test]
fn struct_fields_take_their_parents_nulls_and_slices() {
    let ids: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3), Some(4)]));
    let names: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c", "d"]));
    let fields = vec![
        Field::new("id", DataType::Int32, true),
        Field::new("name", DataType::Utf8, false),
    ];
    let rows = StructArray::try_new(
        fields.into(),
        vec![ids, names],
        Some(NullBuffer::from(vec![true, true, false, true])),
    )
    .unwrap();
    let id = struct_field(rows.slice(1, 3).as_ref(), "id").unwrap();
    assert_eq!(
        id.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(),
        [None, None, Some(4)]
    );
    let error = struct_field(&rows, "age").unwrap_err().to_string();
    assert!(
        error.contains(r#"no field "age" in a struct of ["id", "name"]"#),
        "{error}"
    );
    assert!(struct_field(&Int32Array::from(vec![1]), "id").is_err());
}

#[test]
fn map_keys_and_values_share_the_maps_buffers() {
    let maps = maps();
    let keys = map_keys(maps.slice(1, 2).as_ref()).unwrap();
    let keys = keys.as_any().downcast_ref::<ListArray>().unwrap();
    assert!(keys.is_null(0));
    assert_eq!(keys.value(1).as_string::<i32>().value(0), "b");
    let values = map_values(&maps).unwrap();
    let values = values.as_any().downcast_ref::<ListArray>().unwrap();
    assert_eq!(
        values.value(0).as_primitive::<Int32Type>().values()[..],
        [1, 2, 9]
    );
    let (ours, theirs) = (values.to_data(), maps.to_data());
    assert_eq!(
        ours.buffers()[0].as_ptr(),
        theirs.buffers()[0].as_ptr(),
        "the map's offsets"
    );
    assert!(map_keys(&Int32Array::from(vec![1])).is_err());
}

#[test]
fn map_lookup_finds_the_first_entry() {
    let maps = maps();
    let found = map_lookup(&maps, &Scalar::from("a")).unwrap();
    assert_eq!(
        found.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(),
        [Some(1), None, None]
    );
    let null_key = Scalar::new_null(&DataType::Utf8).unwrap();
    assert_eq!(map_lookup(&maps, &null_key).unwrap().null_count(), 3);
    let error = map_lookup(&maps, &Scalar::from(1i32))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("cannot look for a Int32 key among Utf8 keys"),
        "{error}"
    );
}

#[test]
fn lists_of_lists_and_their_aggregates() {
    // [[1, 2], [3]], null, [[]], three deep through list_element and list_flatten.
    let int_field = Arc::new(Field::new("item", DataType::Int64, true));
    let values: ArrayRef = Arc::new(alkaid_array::Int64Array::from(vec![1, 2, 3]));
    let inner = ListArray::try_new(
        int_field,
        OffsetBuffer::from_lengths([2, 1, 0]),
        values,
        None,
    )
    .unwrap();
    let outer = ListArray::try_new(
        Arc::new(Field::new("item", inner.data_type().clone(), true)),
        OffsetBuffer::from_lengths([2, 0, 1]),
        Arc::new(inner),
        Some(NullBuffer::from(vec![true, false, true])),
    )
    .unwrap();
    let first = list_element(&outer, 0).unwrap();
    assert_eq!(list_length(first.as_ref()).unwrap().null_count(), 1);
    let flat = list_flatten(list_flatten(&outer).unwrap().as_ref()).unwrap();
    assert_eq!(flat.as_primitive::<Int64Type>().values()[..], [1, 2, 3]);
    let means = list_aggregate(first.as_ref(), Aggregate::Mean).unwrap();
    let means: Vec<Option<f64>> = means
        .as_primitive::<alkaid_array::types::Float64Type>()
        .iter()
        .collect();
    assert_eq!(means, [Some(1.5), None, None]);
    let found = list_contains(
        &outer,
        &Scalar::try_new(list_element(&outer, -1).unwrap().slice(0, 1)).unwrap(),
    )
    .unwrap();
    assert_eq!(
        found.iter().collect::<Vec<_>>(),
        [Some(true), None, Some(false)]
    );
    assert!(list_slice(&outer, 2, Some(1)).is_err());
    assert!(list_length(&Float64Array::from(vec![1.0])).is_err());
}

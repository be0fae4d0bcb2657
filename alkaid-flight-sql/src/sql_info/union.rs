//! The answer's shape: `info_name uint32 not null, value dense_union<…> not null`, each
//! value in the union member Flight SQL defines for its id.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Int32Array, Int32Builder, Int64Array, ListArray, ListBuilder,
    MapBuilder, MapFieldNames, RecordBatch, StringArray, UInt32Array, UnionArray,
};
use datafusion::arrow::buffer::{OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{
    DataType, Field, Fields, Schema, SchemaRef, UnionFields, UnionMode,
};
use datafusion::arrow::error::ArrowError;

/// One fact's value, by the union member it travels in.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `string_value` (type id 0).
    String(String),
    /// `string_value`, null: what the specification asks for where a version does not
    /// apply (Substrait's, when plans are not taken).
    NullString,
    /// `bool_value` (1).
    Bool(bool),
    /// `bigint_value` (2).
    Int64(i64),
    /// `int32_bitmask` (3): also the member for a single enum value.
    Int32(i32),
    /// `string_list` (4).
    StringList(Vec<String>),
    /// `int32_to_int32_list_map` (5).
    Int32ToInt32List(Vec<(i32, Vec<i32>)>),
}

/// The `int32_to_int32_list_map` member's type.
fn int32_to_int32_list_map() -> DataType {
    let list = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
    let entries = Fields::from(vec![
        Field::new("key", DataType::Int32, false),
        Field::new("value", list, true),
    ]);
    DataType::Map(
        Arc::new(Field::new("entries", DataType::Struct(entries), false)),
        false,
    )
}

/// The union's members, in type-id order.
fn members() -> UnionFields {
    let strings = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    let fields = [
        Field::new("string_value", DataType::Utf8, true),
        Field::new("bool_value", DataType::Boolean, true),
        Field::new("bigint_value", DataType::Int64, true),
        Field::new("int32_bitmask", DataType::Int32, true),
        Field::new("string_list", strings, true),
        Field::new("int32_to_int32_list_map", int32_to_int32_list_map(), true),
    ];
    UnionFields::try_new(0..6, fields).expect("six distinct type ids")
}

/// The result's schema.
pub fn schema() -> SchemaRef {
    let value = DataType::Union(members(), UnionMode::Dense);
    Arc::new(Schema::new(vec![
        Field::new("info_name", DataType::UInt32, false),
        Field::new("value", value, false),
    ]))
}

/// The union member (type id) a value is in.
pub fn member(value: &Value) -> i8 {
    match value {
        Value::String(_) | Value::NullString => 0,
        Value::Bool(_) => 1,
        Value::Int64(_) => 2,
        Value::Int32(_) => 3,
        Value::StringList(_) => 4,
        Value::Int32ToInt32List(_) => 5,
    }
}

/// The rows of `facts`, in their order.
pub fn batch(facts: &[&(u32, Value)]) -> Result<RecordBatch, ArrowError> {
    let mut strings: Vec<Option<&str>> = Vec::new();
    let mut bools = Vec::new();
    let mut bigints = Vec::new();
    let mut ints = Vec::new();
    let mut lists: Vec<&[String]> = Vec::new();
    let names = MapFieldNames {
        entry: "entries".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut maps = MapBuilder::new(
        Some(names),
        Int32Builder::new(),
        ListBuilder::new(Int32Builder::new()),
    );
    let mut map_count = 0;
    let (mut type_ids, mut offsets) = (Vec::new(), Vec::new());
    for (_, value) in facts {
        let offset = match value {
            Value::String(s) => push(&mut strings, Some(s.as_str())),
            Value::NullString => push(&mut strings, None),
            Value::Bool(b) => push(&mut bools, *b),
            Value::Int64(n) => push(&mut bigints, *n),
            Value::Int32(n) => push(&mut ints, *n),
            Value::StringList(l) => push(&mut lists, l.as_slice()),
            Value::Int32ToInt32List(map) => {
                for (key, values) in map {
                    maps.keys().append_value(*key);
                    maps.values().values().append_slice(values);
                    maps.values().append(true);
                }
                maps.append(true)?;
                map_count += 1;
                map_count - 1
            }
        };
        type_ids.push(member(value));
        offsets.push(offset);
    }
    let children: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(strings)),
        Arc::new(BooleanArray::from(bools)),
        Arc::new(Int64Array::from(bigints)),
        Arc::new(Int32Array::from(ints)),
        Arc::new(string_lists(&lists)),
        Arc::new(maps.finish()),
    ];
    let union = UnionArray::try_new(
        members(),
        ScalarBuffer::from(type_ids),
        Some(ScalarBuffer::from(offsets)),
        children,
    )?;
    let ids = UInt32Array::from_iter_values(facts.iter().map(|(id, _)| *id));
    RecordBatch::try_new(schema(), vec![Arc::new(ids), Arc::new(union)])
}

/// Pushes `value` and returns its index, as a union offset.
fn push<T>(values: &mut Vec<T>, value: T) -> i32 {
    values.push(value);
    (values.len() - 1) as i32
}

/// A list array of `lists` of strings.
fn string_lists(lists: &[&[String]]) -> ListArray {
    let offsets = OffsetBuffer::from_lengths(lists.iter().map(|l| l.len()));
    let values: StringArray = lists.iter().flat_map(|l| l.iter()).map(Some).collect();
    let field = Arc::new(Field::new("item", DataType::Utf8, true));
    ListArray::new(field, offsets, Arc::new(values), None)
}

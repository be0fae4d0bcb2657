//! Logical values to `ArrayData`, with random physical choices: padding sliced off at every
//! level, garbage under nulls, optional all-valid bitmaps, views spread over data buffers,
//! shuffled list views, split runs, dictionaries with unused and null entries, junk in the
//! unselected slots of sparse unions. Every array made here goes through full validation.

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, IntegerType, PhysicalType, RunEndType, UnionMode};

use super::{Rng, Value, value};

/// `values` as an array of `data_type`, sliced out of a slightly longer one.
pub fn encode(data_type: &DataType, values: &[Value], rng: &mut Rng) -> ArrayData {
    let before = rng.below(3);
    let after = rng.below(3);
    let mut all: Vec<Value> = (0..before).map(|_| value(data_type, rng, 0.3)).collect();
    all.extend_from_slice(values);
    all.extend((0..after).map(|_| value(data_type, rng, 0.3)));
    encode_exact(data_type, &all, rng).slice(before, values.len())
}

fn validity(values: &[Value], rng: &mut Rng) -> Option<NullBuffer> {
    let any_null = values.contains(&Value::Null);
    (any_null || rng.chance(0.3))
        .then(|| NullBuffer::from(values.iter().map(|v| *v != Value::Null).collect::<Vec<_>>()))
}

fn ints(values: impl IntoIterator<Item = i64>, width: usize) -> Buffer {
    let mut bytes = Vec::new();
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    Buffer::from_slice_ref(&bytes)
}

/// Bytes for a slot: its value's, or junk for a null (ASCII, so text stays UTF-8).
fn bytes_or_junk(value: &Value, rng: &mut Rng, width: Option<usize>) -> Vec<u8> {
    match value {
        Value::Bytes(bytes) => bytes.clone(),
        _ => {
            let len = width.unwrap_or_else(|| {
                if rng.chance(0.7) {
                    rng.below(4)
                } else {
                    13 + rng.below(8)
                }
            });
            (0..len).map(|_| b'a' + rng.below(26) as u8).collect()
        }
    }
}

/// The items of a list-like value, or junk items (taken from a random valid value) for a null.
fn items_or_junk(data_type: &DataType, value: &Value, rng: &mut Rng) -> Vec<Value> {
    match value {
        Value::List(items) => items.clone(),
        _ => match super::value(data_type, rng, 0.0) {
            Value::List(items) if rng.chance(0.5) => items,
            _ => Vec::new(),
        },
    }
}

fn encode_exact(data_type: &DataType, values: &[Value], rng: &mut Rng) -> ArrayData {
    let len = values.len();
    let builder = ArrayData::builder(data_type.clone()).len(len);
    let child_type = |i: usize| data_type.children()[i].data_type().clone();
    let builder = match data_type.to_physical() {
        PhysicalType::Null => builder,
        PhysicalType::Boolean => {
            let bits: BooleanBuffer = values
                .iter()
                .map(|v| {
                    if let Value::Bool(b) = v {
                        *b
                    } else {
                        rng.chance(0.5)
                    }
                })
                .collect();
            builder
                .nulls(validity(values, rng))
                .buffers(vec![bits.into_parts().0])
        }
        PhysicalType::Primitive(_) | PhysicalType::FixedSizeBinary(_) => {
            let width = match data_type.to_physical() {
                PhysicalType::Primitive(p) => p.byte_width(),
                _ => match data_type {
                    DataType::FixedSizeBinary(w) => *w as usize,
                    _ => 0,
                },
            };
            let bytes: Vec<u8> = values
                .iter()
                .flat_map(|v| bytes_or_junk(v, rng, Some(width)))
                .collect();
            builder
                .nulls(validity(values, rng))
                .buffers(vec![Buffer::from_slice_ref(&bytes)])
        }
        PhysicalType::Binary | PhysicalType::LargeBinary => {
            let width = if data_type.to_physical() == PhysicalType::Binary {
                4
            } else {
                8
            };
            let mut data = Vec::new();
            let mut offsets = vec![0i64];
            for v in values {
                data.extend(bytes_or_junk(v, rng, None));
                offsets.push(data.len() as i64);
            }
            builder
                .nulls(validity(values, rng))
                .buffers(vec![ints(offsets, width), Buffer::from(data)])
        }
        PhysicalType::BinaryView => {
            let mut data: Vec<Vec<u8>> = vec![Vec::new(); 1 + rng.below(3)];
            let views: Vec<ByteView> = values
                .iter()
                .map(|v| {
                    let bytes = bytes_or_junk(v, rng, None);
                    if bytes.len() <= ByteView::MAX_INLINE {
                        return ByteView::new_inline(&bytes);
                    }
                    let index = rng.below(data.len());
                    let gap = rng.below(3);
                    data[index].extend((0..gap).map(|_| b'-'));
                    let offset = data[index].len() as i32;
                    data[index].extend_from_slice(&bytes);
                    ByteView::new_reference(&bytes, index as i32, offset)
                })
                .collect();
            let mut buffers = vec![Buffer::from_slice_ref(&views)];
            buffers.extend(data.into_iter().map(Buffer::from));
            builder.nulls(validity(values, rng)).buffers(buffers)
        }
        PhysicalType::List | PhysicalType::LargeList => {
            let width = if data_type.to_physical() == PhysicalType::List {
                4
            } else {
                8
            };
            let mut child_values = Vec::new();
            let mut offsets = vec![0i64];
            for v in values {
                child_values.extend(items_or_junk(data_type, v, rng));
                offsets.push(child_values.len() as i64);
            }
            let child = encode(&child_type(0), &child_values, rng);
            builder
                .nulls(validity(values, rng))
                .buffers(vec![ints(offsets, width)])
                .children(vec![child])
        }
        PhysicalType::ListView | PhysicalType::LargeListView => {
            let width = if data_type.to_physical() == PhysicalType::ListView {
                4
            } else {
                8
            };
            let mut order: Vec<usize> = (0..len).collect();
            for i in (1..len).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let (mut offsets, mut sizes) = (vec![0i64; len], vec![0i64; len]);
            let mut child_values = Vec::new();
            for slot in order {
                let items = items_or_junk(data_type, &values[slot], rng);
                offsets[slot] = child_values.len() as i64;
                sizes[slot] = items.len() as i64;
                child_values.extend(items);
            }
            let child = encode(&child_type(0), &child_values, rng);
            builder
                .nulls(validity(values, rng))
                .buffers(vec![ints(offsets, width), ints(sizes, width)])
                .children(vec![child])
        }
        PhysicalType::FixedSizeList(size) => {
            let item = child_type(0);
            let child_values: Vec<Value> = values
                .iter()
                .flat_map(|v| match v {
                    Value::List(items) => items.clone(),
                    _ => (0..size).map(|_| value(&item, rng, 0.3)).collect(),
                })
                .collect();
            let child = encode(&item, &child_values, rng);
            builder.nulls(validity(values, rng)).children(vec![child])
        }
        PhysicalType::Struct => {
            let children = (0..data_type.children().len())
                .map(|k| {
                    let field_type = child_type(k);
                    let child_values: Vec<Value> = values
                        .iter()
                        .map(|v| match v {
                            Value::Struct(fields) => fields[k].clone(),
                            _ => value(&field_type, rng, 0.3),
                        })
                        .collect();
                    encode(&field_type, &child_values, rng)
                })
                .collect();
            builder.nulls(validity(values, rng)).children(children)
        }
        PhysicalType::SparseUnion | PhysicalType::DenseUnion => {
            let DataType::Union(union) = data_type else {
                unreachable!()
            };
            let chosen: Vec<(usize, &Value)> = values
                .iter()
                .map(|v| match v {
                    Value::Union(id, inner) => (
                        union.child_index(*id).expect("a declared id"),
                        inner.as_ref(),
                    ),
                    other => panic!("expected a union value, found {other:?}"),
                })
                .collect();
            let type_ids: Vec<i8> = chosen.iter().map(|&(c, _)| union.type_ids()[c]).collect();
            let types: Vec<DataType> = (0..union.fields().len()).map(child_type).collect();
            match union.mode() {
                UnionMode::Sparse => {
                    let children = types
                        .iter()
                        .enumerate()
                        .map(|(c, t)| {
                            let child_values: Vec<Value> = chosen
                                .iter()
                                .map(|&(chosen, v)| {
                                    if chosen == c {
                                        v.clone()
                                    } else {
                                        value(t, rng, 0.3)
                                    }
                                })
                                .collect();
                            encode(t, &child_values, rng)
                        })
                        .collect();
                    builder
                        .buffers(vec![Buffer::from_slice_ref(&type_ids)])
                        .children(children)
                }
                UnionMode::Dense => {
                    let mut child_values: Vec<Vec<Value>> = vec![Vec::new(); types.len()];
                    let offsets: Vec<i32> = chosen
                        .iter()
                        .map(|&(c, v)| {
                            if rng.chance(0.2) {
                                child_values[c].push(value(&types[c], rng, 0.3));
                            }
                            child_values[c].push(v.clone());
                            (child_values[c].len() - 1) as i32
                        })
                        .collect();
                    let children = types
                        .iter()
                        .zip(&child_values)
                        .map(|(t, vs)| encode(t, vs, rng))
                        .collect();
                    builder
                        .buffers(vec![
                            Buffer::from_slice_ref(&type_ids),
                            Buffer::from_slice_ref(&offsets),
                        ])
                        .children(children)
                }
            }
        }
        PhysicalType::Dictionary(key) => {
            let DataType::Dictionary {
                value: value_type, ..
            } = data_type
            else {
                unreachable!()
            };
            let mut entries: Vec<Value> = Vec::new();
            for v in values {
                if *v != Value::Null && !entries.contains(v) {
                    entries.push(v.clone());
                }
            }
            // Only types that can be null on their own (unions cannot) get a null entry.
            let can_be_null =
                alkaid_data::layout(value_type).has_validity || **value_type == DataType::Null;
            let null_entry = can_be_null && rng.chance(0.5);
            if null_entry {
                entries.push(Value::Null);
            }
            for _ in 0..rng.below(3) {
                entries.push(value(value_type, rng, 0.3));
            }
            for i in (1..entries.len()).rev() {
                entries.swap(i, rng.below(i + 1));
            }
            let max_key = if key == IntegerType::Int8 { 127 } else { 255 };
            assert!(
                entries.len() <= max_key,
                "dictionary too large for the test's keys"
            );
            let mut valid = Vec::with_capacity(len);
            let keys: Vec<i64> = values
                .iter()
                .map(|v| {
                    // A null is a null key, or a valid key pointing at a null entry.
                    let target = if *v == Value::Null && !(null_entry && rng.chance(0.5)) {
                        valid.push(false);
                        return rng.below(200) as i64 % (max_key as i64 + 1);
                    } else {
                        valid.push(true);
                        v
                    };
                    entries
                        .iter()
                        .position(|e| e == target)
                        .expect("every value has an entry") as i64
                })
                .collect();
            let nulls =
                (valid.contains(&false) || rng.chance(0.3)).then(|| NullBuffer::from(valid));
            let dictionary = encode(value_type, &entries, rng);
            builder
                .nulls(nulls)
                .buffers(vec![ints(keys, key.byte_width())])
                .dictionary(dictionary)
        }
        PhysicalType::RunEndEncoded(run_end_type) => {
            let values_type = child_type(1);
            let mut run_values: Vec<Value> = Vec::new();
            let mut run_ends: Vec<i64> = Vec::new();
            for (i, v) in values.iter().enumerate() {
                if run_values.last() == Some(v) && !rng.chance(0.2) {
                    *run_ends.last_mut().expect("a run exists") += 1;
                } else {
                    run_values.push(v.clone());
                    run_ends.push(i as i64 + 1);
                }
            }
            let (ends_type, width) = match run_end_type {
                RunEndType::Int16 => (DataType::Int16, 2),
                RunEndType::Int32 => (DataType::Int32, 4),
                RunEndType::Int64 => (DataType::Int64, 8),
            };
            let ends = ArrayData::builder(ends_type)
                .len(run_ends.len())
                .buffers(vec![ints(run_ends, width)])
                .build()
                .expect("valid run ends");
            let values = encode(&values_type, &run_values, rng);
            builder.children(vec![ends, values])
        }
    };
    builder
        .build()
        .unwrap_or_else(|e| panic!("the generator made an invalid {data_type}: {e}"))
}

//! `ArrayData` back to logical values: a plain, materialising reference decoder.

use alkaid_buffer::Buffer;
use alkaid_buffer::bitmap::get_bit;
use alkaid_buffer::native::ByteView;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType, UnionMode};

use super::Value;

/// Every slot's value.
pub fn decode(data: &ArrayData) -> Vec<Value> {
    (0..data.len()).map(|i| slot(data, i)).collect()
}

fn int(buffer: &Buffer, width: usize, index: usize) -> i64 {
    let mut raw = [0u8; 8];
    raw[..width].copy_from_slice(&buffer[index * width..(index + 1) * width]);
    let shift = 64 - 8 * width as u32;
    (i64::from_le_bytes(raw) << shift) >> shift // sign-extend
}

fn slot(data: &ArrayData, i: usize) -> Value {
    let position = data.offset() + i;
    let data_type = data.data_type();
    match data_type.to_physical() {
        PhysicalType::Null => return Value::Null,
        PhysicalType::SparseUnion | PhysicalType::DenseUnion => {
            let DataType::Union(union) = data_type else {
                unreachable!()
            };
            let id = data.buffers()[0][position] as i8;
            let child = union.child_index(id).expect("a declared id");
            let child_slot = match union.mode() {
                UnionMode::Sparse => position,
                UnionMode::Dense => int(&data.buffers()[1], 4, position) as usize,
            };
            return Value::Union(id, Box::new(slot(&data.children()[child], child_slot)));
        }
        PhysicalType::RunEndEncoded(_) => {
            let ends = &data.children()[0];
            let width = ends.data_type().primitive_byte_width().unwrap();
            let run = (0..ends.len())
                .find(|&k| int(&ends.buffers()[0], width, ends.offset() + k) as usize > position)
                .expect("run ends cover the array");
            return slot(&data.children()[1], run);
        }
        _ => {}
    }
    if data.is_null(i) {
        return Value::Null;
    }
    match data_type.to_physical() {
        PhysicalType::Dictionary(key) => {
            // Keys of valid slots are in range, so reading them unsigned is right for both.
            let width = key.byte_width();
            let mut raw = [0u8; 8];
            raw[..width]
                .copy_from_slice(&data.buffers()[0][position * width..(position + 1) * width]);
            slot(data.dictionary().unwrap(), u64::from_le_bytes(raw) as usize)
        }
        PhysicalType::Boolean => Value::Bool(get_bit(&data.buffers()[0], position)),
        PhysicalType::Primitive(p) => {
            let w = p.byte_width();
            Value::Bytes(data.buffers()[0][position * w..(position + 1) * w].to_vec())
        }
        PhysicalType::FixedSizeBinary(w) => {
            let w = w as usize;
            Value::Bytes(data.buffers()[0][position * w..(position + 1) * w].to_vec())
        }
        PhysicalType::Binary | PhysicalType::LargeBinary => {
            let w = if data_type.to_physical() == PhysicalType::Binary {
                4
            } else {
                8
            };
            let (s, e) = (
                int(&data.buffers()[0], w, position),
                int(&data.buffers()[0], w, position + 1),
            );
            Value::Bytes(data.buffers()[1][s as usize..e as usize].to_vec())
        }
        PhysicalType::BinaryView => {
            let view = data.buffers()[0].typed::<ByteView>().unwrap()[position];
            Value::Bytes(match view.inline_bytes() {
                Some(bytes) => bytes.to_vec(),
                None => {
                    let buffer = &data.buffers()[1 + view.buffer_index() as usize];
                    buffer[view.offset() as usize..view.offset() as usize + view.len()].to_vec()
                }
            })
        }
        PhysicalType::List | PhysicalType::LargeList => {
            let w = if data_type.to_physical() == PhysicalType::List {
                4
            } else {
                8
            };
            let (s, e) = (
                int(&data.buffers()[0], w, position),
                int(&data.buffers()[0], w, position + 1),
            );
            Value::List(
                (s as usize..e as usize)
                    .map(|k| slot(&data.children()[0], k))
                    .collect(),
            )
        }
        PhysicalType::ListView | PhysicalType::LargeListView => {
            let w = if data_type.to_physical() == PhysicalType::ListView {
                4
            } else {
                8
            };
            let (o, n) = (
                int(&data.buffers()[0], w, position),
                int(&data.buffers()[1], w, position),
            );
            Value::List(
                (o as usize..(o + n) as usize)
                    .map(|k| slot(&data.children()[0], k))
                    .collect(),
            )
        }
        PhysicalType::FixedSizeList(size) => {
            let size = size as usize;
            Value::List(
                (position * size..(position + 1) * size)
                    .map(|k| slot(&data.children()[0], k))
                    .collect(),
            )
        }
        PhysicalType::Struct => {
            Value::Struct(data.children().iter().map(|c| slot(c, position)).collect())
        }
        PhysicalType::Null
        | PhysicalType::SparseUnion
        | PhysicalType::DenseUnion
        | PhysicalType::RunEndEncoded(_) => unreachable!("handled above"),
    }
}

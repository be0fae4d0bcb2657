//! Test support: random logical values for any data type, encoded into `ArrayData` with
//! random physical choices, and a plain decoder back to values (the reference that
//! equality and validation are checked against).

#![allow(dead_code)]

pub mod decode;
pub mod encode;

use alkaid_schema::{DataType, PhysicalType};

/// A seeded SplitMix64 generator: every failure replays from its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// A logical value, independent of any physical layout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    Null,
    Bool(bool),
    /// Fixed-width values (as their little-endian bytes), binary and text.
    Bytes(Vec<u8>),
    /// Lists of every kind, fixed-size lists, and maps (lists of entry structs).
    List(Vec<Value>),
    Struct(Vec<Value>),
    /// A union value: the type id and the child's value.
    Union(i8, Box<Value>),
}

const TEXT: [&str; 8] = [
    "",
    "a",
    "hé",
    "日本",
    "🦀",
    "xyzzy",
    "a longer piece of text",
    "ü",
];

/// A random value of `data_type`; null with probability `null_p` where nulls are possible.
pub fn value(data_type: &DataType, rng: &mut Rng, null_p: f64) -> Value {
    if matches!(data_type, DataType::Null) {
        return Value::Null;
    }
    if let DataType::Union(union) = data_type {
        let child = rng.below(union.fields().len());
        let field = &union.fields()[child];
        return Value::Union(
            union.type_ids()[child],
            Box::new(value(field.data_type(), rng, null_p)),
        );
    }
    if let DataType::Dictionary { value: values, .. } = data_type {
        return value(values, rng, null_p);
    }
    if let DataType::RunEndEncoded(ree) = data_type {
        return value(ree.values().data_type(), rng, null_p);
    }
    if rng.chance(null_p) {
        return Value::Null;
    }
    let count = |rng: &mut Rng| rng.below(4);
    match data_type.to_physical() {
        PhysicalType::Boolean => Value::Bool(rng.chance(0.5)),
        PhysicalType::Primitive(p) => Value::Bytes(rng.bytes(p.byte_width())),
        PhysicalType::FixedSizeBinary(width) => Value::Bytes(rng.bytes(width as usize)),
        PhysicalType::Binary | PhysicalType::LargeBinary | PhysicalType::BinaryView => {
            if data_type.is_string() {
                let words = rng.below(4);
                let text: String = (0..words).map(|_| TEXT[rng.below(TEXT.len())]).collect();
                Value::Bytes(text.into_bytes())
            } else {
                let len = if rng.chance(0.5) {
                    rng.below(12)
                } else {
                    13 + rng.below(20)
                };
                Value::Bytes(rng.bytes(len))
            }
        }
        PhysicalType::List
        | PhysicalType::LargeList
        | PhysicalType::ListView
        | PhysicalType::LargeListView => match data_type {
            DataType::Map(map) => {
                let (key, item) = (map.key().data_type(), map.value().data_type());
                let n = count(rng);
                Value::List(
                    (0..n)
                        .map(|_| {
                            Value::Struct(vec![value(key, rng, 0.0), value(item, rng, null_p)])
                        })
                        .collect(),
                )
            }
            _ => {
                let item = data_type.children()[0].data_type().clone();
                let n = count(rng);
                Value::List((0..n).map(|_| value(&item, rng, null_p)).collect())
            }
        },
        PhysicalType::FixedSizeList(size) => {
            let item = data_type.children()[0].data_type().clone();
            Value::List((0..size).map(|_| value(&item, rng, null_p)).collect())
        }
        PhysicalType::Struct => Value::Struct(
            data_type
                .children()
                .iter()
                .map(|f| value(f.data_type(), rng, null_p))
                .collect(),
        ),
        PhysicalType::Null
        | PhysicalType::SparseUnion
        | PhysicalType::DenseUnion
        | PhysicalType::Dictionary(_)
        | PhysicalType::RunEndEncoded(_) => unreachable!("handled above"),
    }
}

/// Whether `data_type` can hold a value that is not null.
fn can_be_non_null(data_type: &DataType) -> bool {
    match data_type {
        DataType::Null => false,
        DataType::Dictionary { value, .. } => can_be_non_null(value),
        DataType::RunEndEncoded(ree) => can_be_non_null(ree.values().data_type()),
        _ => true,
    }
}

/// Whether `data_type` can be generated: unions need at least one child, and map keys must
/// be able to hold something other than null.
pub fn generatable(data_type: &DataType) -> bool {
    let here = match data_type {
        DataType::Union(union) => !union.fields().is_empty(),
        DataType::Dictionary { value, .. } => generatable(value),
        DataType::Map(map) => can_be_non_null(map.key().data_type()),
        _ => true,
    };
    here && data_type
        .children()
        .iter()
        .all(|f| generatable(f.data_type()))
}

/// Whether a dictionary's values are directly a dictionary somewhere in `data_type`: no
/// field carries the inner encoding, so neither IPC nor the integration JSON can write it.
pub fn dictionary_of_dictionary(data_type: &DataType) -> bool {
    match data_type {
        DataType::Dictionary { value, .. } => {
            value.is_dictionary() || dictionary_of_dictionary(value)
        }
        other => other
            .children()
            .iter()
            .any(|f| dictionary_of_dictionary(f.data_type())),
    }
}

//! A plain reference: logical values (from alkaid-data's test generator) read as numbers,
//! floats, bytes or booleans, and the crate's order and arithmetic written out row by row.

#![allow(dead_code)]

use std::cmp::Ordering;

use alkaid_buffer::native::{f16, i256};
use alkaid_schema::{DataType, NativeKind, PhysicalType};

use super::common::{Rng, Value, value};

/// A value as the reference reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum R {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Wide(i256),
    Bytes(Vec<u8>),
    Fields(Vec<i64>),
}

fn le<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes[..N].try_into().unwrap()
}

/// `value`, of type `data_type` (or the values' type of an encoded type), as the reference
/// reads it.
pub fn read(data_type: &DataType, value: &Value) -> R {
    match (value, value_type(data_type).to_physical()) {
        (Value::Null, _) => R::Null,
        (Value::Bool(b), _) => R::Bool(*b),
        (Value::Bytes(b), PhysicalType::Primitive(p)) => match p {
            NativeKind::Int8 => R::Int(i128::from(b[0] as i8)),
            NativeKind::Int16 => R::Int(i128::from(i16::from_le_bytes(le(b)))),
            NativeKind::Int32 => R::Int(i128::from(i32::from_le_bytes(le(b)))),
            NativeKind::Int64 => R::Int(i128::from(i64::from_le_bytes(le(b)))),
            NativeKind::UInt8 => R::Int(i128::from(b[0])),
            NativeKind::UInt16 => R::Int(i128::from(u16::from_le_bytes(le(b)))),
            NativeKind::UInt32 => R::Int(i128::from(u32::from_le_bytes(le(b)))),
            NativeKind::UInt64 => R::Int(i128::from(u64::from_le_bytes(le(b)))),
            NativeKind::Int128 => R::Int(i128::from_le_bytes(le(b))),
            NativeKind::Float16 => R::Float(f64::from(f16::from_le_bytes(le(b)).to_f32())),
            NativeKind::Float32 => R::Float(f64::from(f32::from_le_bytes(le(b)))),
            NativeKind::Float64 => R::Float(f64::from_le_bytes(le(b))),
            NativeKind::Int256 => R::Wide(i256::from_le_bytes(le(b))),
            NativeKind::DayTime => R::Fields(vec![
                i64::from(i32::from_le_bytes(le(&b[..4]))),
                i64::from(i32::from_le_bytes(le(&b[4..]))),
            ]),
            NativeKind::MonthDayNano => R::Fields(vec![
                i64::from(i32::from_le_bytes(le(&b[..4]))),
                i64::from(i32::from_le_bytes(le(&b[4..8]))),
                i64::from_le_bytes(le(&b[8..])),
            ]),
        },
        (Value::Bytes(b), _) => R::Bytes(b.clone()),
        (other, _) => panic!("the reference reads no {other:?}"),
    }
}

/// The type of the values an encoded type stands for.
pub fn value_type(data_type: &DataType) -> &DataType {
    match data_type {
        DataType::Dictionary { value, .. } => value_type(value),
        DataType::RunEndEncoded(ree) => value_type(ree.values().data_type()),
        other => other,
    }
}

/// The crate's order for two non-null values: floats with `-0.0 = 0.0` and NaN last.
pub fn order(a: &R, b: &R) -> Ordering {
    match (a, b) {
        (R::Bool(a), R::Bool(b)) => a.cmp(b),
        (R::Int(a), R::Int(b)) => a.cmp(b),
        (R::Wide(a), R::Wide(b)) => a.cmp(b),
        (R::Bytes(a), R::Bytes(b)) => a.cmp(b),
        (R::Fields(a), R::Fields(b)) => a.cmp(b),
        (R::Float(a), R::Float(b)) => match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => a.partial_cmp(b).expect("neither is NaN"),
        },
        _ => panic!("the reference does not compare {a:?} with {b:?}"),
    }
}

/// Leaf types the reference reads, each with the types it compares with.
pub fn comparable_types() -> Vec<(DataType, Vec<DataType>)> {
    let same = |t: DataType| (t.clone(), vec![t]);
    let text = vec![DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View];
    let bytes = vec![
        DataType::Binary,
        DataType::LargeBinary,
        DataType::BinaryView,
    ];
    let mut types = vec![
        same(DataType::Boolean),
        same(DataType::Int8),
        same(DataType::Int16),
        same(DataType::Int32),
        same(DataType::Int64),
        same(DataType::UInt8),
        same(DataType::UInt16),
        same(DataType::UInt32),
        same(DataType::UInt64),
        same(DataType::Float16),
        same(DataType::Float32),
        same(DataType::Float64),
        same(DataType::Date32),
        same(DataType::Date64),
        same(DataType::Time(alkaid_schema::TimeUnit::Millisecond)),
        same(DataType::Duration(alkaid_schema::TimeUnit::Nanosecond)),
        same(DataType::Interval(alkaid_schema::IntervalUnit::YearMonth)),
        same(DataType::Interval(alkaid_schema::IntervalUnit::DayTime)),
        same(DataType::Interval(
            alkaid_schema::IntervalUnit::MonthDayNano,
        )),
        same(DataType::decimal(32, 9, 2).unwrap()),
        same(DataType::decimal(128, 38, 5).unwrap()),
        same(DataType::decimal(256, 76, 3).unwrap()),
        same(DataType::FixedSizeBinary(3)),
    ];
    types.extend(text.iter().map(|t| (t.clone(), text.clone())));
    types.extend(bytes.iter().map(|t| (t.clone(), bytes.clone())));
    types
}

/// `len` values of `data_type` drawn from a pool of a few, so that equal values and runs
/// are common; about a fifth null.
pub fn pooled(data_type: &DataType, len: usize, rng: &mut Rng) -> Vec<Value> {
    let pool: Vec<Value> = (0..1 + rng.below(5))
        .map(|_| value(data_type, rng, 0.0))
        .collect();
    (0..len)
        .map(|_| {
            if rng.chance(0.2) {
                Value::Null
            } else {
                pool[rng.below(pool.len())].clone()
            }
        })
        .collect()
}

/// `data_type` as it is, or wrapped in a dictionary or run-end encoding.
pub fn maybe_encoded(data_type: &DataType, rng: &mut Rng) -> DataType {
    use alkaid_schema::{Field, IntegerType, RunEndEncodedType, RunEndType};
    match rng.below(4) {
        0 => DataType::dictionary(
            [IntegerType::Int8, IntegerType::UInt16, IntegerType::Int32][rng.below(3)],
            data_type.clone(),
        ),
        1 => DataType::RunEndEncoded(RunEndEncodedType::new(
            [RunEndType::Int16, RunEndType::Int32, RunEndType::Int64][rng.below(3)],
            Field::new("values", data_type.clone(), true),
        )),
        _ => data_type.clone(),
    }
}

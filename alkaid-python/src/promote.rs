//! The implicit casts pyarrow's kernels make before two arguments meet, so that
//! `alkaid.compute` takes what pyarrow takes: numbers of different types meet in their
//! common type (the wider float when either is a float, else the wider integer, a signed
//! one wide enough for both when the signs differ, at most `Int64`), and nulls of no type
//! take the other argument's type.

use alkaid_schema::DataType;

/// The type two arguments of `left` and `right` meet in, when they differ and pyarrow
/// would cast them; `None` when they are of one type or are not cast (the kernel then
/// answers for them as they are).
pub(crate) fn common_type(left: &DataType, right: &DataType) -> Option<DataType> {
    if left == right {
        return None;
    }
    match (left, right) {
        (DataType::Null, other) | (other, DataType::Null) => Some(other.clone()),
        _ => common_numeric(left, right),
    }
}

/// The common type of two number types (`Float16` aside: pyarrow's kernels take none).
fn common_numeric(left: &DataType, right: &DataType) -> Option<DataType> {
    let (a, b) = (number(left)?, number(right)?);
    Some(match (a, b) {
        (Number::Float(x), Number::Float(y)) => float(x.max(y)),
        (Number::Float(x), _) | (_, Number::Float(x)) => float(x),
        (Number::Signed(x), Number::Signed(y)) => signed(x.max(y)),
        (Number::Unsigned(x), Number::Unsigned(y)) => unsigned(x.max(y)),
        (Number::Signed(s), Number::Unsigned(u)) | (Number::Unsigned(u), Number::Signed(s)) => {
            // A signed type holds the unsigned one's values from twice its width.
            signed(s.max((u * 2).min(64)))
        }
    })
}

/// A number type's kind and width in bits.
#[derive(Clone, Copy)]
enum Number {
    Signed(u32),
    Unsigned(u32),
    Float(u32),
}

fn number(data_type: &DataType) -> Option<Number> {
    Some(match data_type {
        DataType::Int8 => Number::Signed(8),
        DataType::Int16 => Number::Signed(16),
        DataType::Int32 => Number::Signed(32),
        DataType::Int64 => Number::Signed(64),
        DataType::UInt8 => Number::Unsigned(8),
        DataType::UInt16 => Number::Unsigned(16),
        DataType::UInt32 => Number::Unsigned(32),
        DataType::UInt64 => Number::Unsigned(64),
        DataType::Float32 => Number::Float(32),
        DataType::Float64 => Number::Float(64),
        _ => return None,
    })
}

fn signed(bits: u32) -> DataType {
    match bits {
        8 => DataType::Int8,
        16 => DataType::Int16,
        32 => DataType::Int32,
        _ => DataType::Int64,
    }
}

fn unsigned(bits: u32) -> DataType {
    match bits {
        8 => DataType::UInt8,
        16 => DataType::UInt16,
        32 => DataType::UInt32,
        _ => DataType::UInt64,
    }
}

fn float(bits: u32) -> DataType {
    match bits {
        32 => DataType::Float32,
        _ => DataType::Float64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_meet_as_pyarrows_kernels_make_them() {
        use DataType::*;
        let cases = [
            (Int8, UInt8, Some(Int16)),
            (Int8, UInt16, Some(Int32)),
            (Int32, UInt8, Some(Int32)),
            (UInt32, Int16, Some(Int64)),
            (UInt64, Int64, Some(Int64)),
            (UInt8, UInt32, Some(UInt32)),
            (Int64, Float32, Some(Float32)),
            (Float32, Float64, Some(Float64)),
            (Null, Utf8, Some(Utf8)),
            (Int8, Int8, None),
            (Float16, Float32, None),
            (Utf8, Int8, None),
        ];
        for (left, right, common) in cases {
            assert_eq!(common_type(&left, &right), common, "{left} and {right}");
            assert_eq!(common_type(&right, &left), common, "{right} and {left}");
        }
    }
}

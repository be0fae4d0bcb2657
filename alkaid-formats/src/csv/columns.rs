//! The columns of Alkaid's own CSV reader (`direct.rs`): each field's bytes parsed into
//! its column's buffers, numbers as arrow-cast parses them (the same `atoi` and
//! `lexical-core` on the same bytes, with its retry without surrounding whitespace),
//! booleans as arrow-csv does (`true` or `false` in any case), text checked for UTF-8 once
//! per batch.

use std::sync::Arc;

use alkaid_array::{ArrayRef, BooleanArray, LargeStringArray, PrimitiveArray, StringArray};
use alkaid_buffer::builder::{BooleanBufferBuilder, NullBufferBuilder};
use alkaid_buffer::{NullBuffer, OffsetBuffer, OffsetSize, ScalarBuffer};
use alkaid_schema::DataType;

/// Builds one column of a batch from its fields' bytes.
pub(super) trait ColumnBuilder: Send {
    /// Appends the value `field` spells; `Err` holds what is wrong with it.
    fn push(&mut self, field: &[u8]) -> Result<(), String>;
    fn push_null(&mut self);
    /// The column of the rows pushed since the last call.
    fn finish(&mut self) -> Result<ArrayRef, String>;
}

/// A column of numbers, parsed as arrow-cast's parser of its type parses them (the same
/// `atoi` and `lexical-core` on the same bytes, with its retry without surrounding
/// whitespace), without first checking each field for UTF-8.
struct Numbers<N> {
    values: Vec<N>,
    nulls: NullBufferBuilder,
    parse: fn(&[u8]) -> Option<N>,
    make: fn(Vec<N>, Option<NullBuffer>) -> ArrayRef,
    name: &'static str,
}

impl<N: Default + Send> ColumnBuilder for Numbers<N> {
    fn push(&mut self, field: &[u8]) -> Result<(), String> {
        let value = (self.parse)(field).ok_or_else(|| not_a(field, self.name))?;
        self.values.push(value);
        self.nulls.append_non_null();
        Ok(())
    }

    fn push_null(&mut self) {
        self.values.push(N::default());
        self.nulls.append_null();
    }

    fn finish(&mut self) -> Result<ArrayRef, String> {
        let values = std::mem::take(&mut self.values);
        Ok((self.make)(values, self.nulls.finish()))
    }
}

struct Booleans {
    values: BooleanBufferBuilder,
    nulls: NullBufferBuilder,
}

impl ColumnBuilder for Booleans {
    fn push(&mut self, field: &[u8]) -> Result<(), String> {
        let value = match field {
            f if f.eq_ignore_ascii_case(b"true") => true,
            f if f.eq_ignore_ascii_case(b"false") => false,
            _ => return Err(not_a(field, "Boolean")),
        };
        self.values.append(value);
        self.nulls.append_non_null();
        Ok(())
    }

    fn push_null(&mut self) {
        self.values.append(false);
        self.nulls.append_null();
    }

    fn finish(&mut self) -> Result<ArrayRef, String> {
        let array = BooleanArray::try_new(self.values.finish(), self.nulls.finish())
            .map_err(|e| e.to_string())?;
        Ok(Arc::new(array))
    }
}

/// The array of text of one offset width, from its parts.
type MakeText<O> = fn(OffsetBuffer<O>, Vec<u8>, Option<NullBuffer>) -> Result<ArrayRef, String>;

/// A column of text: the fields' bytes one after the other, and where each ends. UTF-8 is
/// checked once per batch, over all of them.
struct Text<O: OffsetSize> {
    offsets: Vec<O>,
    values: Vec<u8>,
    nulls: NullBufferBuilder,
    make: MakeText<O>,
}

impl<O: OffsetSize + TryFrom<usize> + Send> ColumnBuilder for Text<O> {
    fn push(&mut self, field: &[u8]) -> Result<(), String> {
        self.values.extend_from_slice(field);
        self.end_value()?;
        self.nulls.append_non_null();
        Ok(())
    }

    fn push_null(&mut self) {
        // An offset that fitted before fits again.
        let _ = self.end_value();
        self.nulls.append_null();
    }

    fn finish(&mut self) -> Result<ArrayRef, String> {
        let offsets = std::mem::replace(&mut self.offsets, vec![O::default()]);
        let offsets =
            OffsetBuffer::try_new(ScalarBuffer::from(offsets)).map_err(|e| e.to_string())?;
        (self.make)(
            offsets,
            std::mem::take(&mut self.values),
            self.nulls.finish(),
        )
    }
}

impl<O: OffsetSize + TryFrom<usize>> Text<O> {
    fn end_value(&mut self) -> Result<(), String> {
        let end = O::try_from(self.values.len())
            .map_err(|_| "more text in one batch than its offsets can count".to_string())?;
        self.offsets.push(end);
        Ok(())
    }
}

fn not_a(field: &[u8], type_name: &str) -> String {
    format!("'{}' is not a {type_name}", String::from_utf8_lossy(field))
}

/// An integer as arrow-cast parses one: digits with an optional sign, whitespace around
/// them allowed.
fn integer<N: atoi::FromRadix10SignedChecked>(field: &[u8]) -> Option<N> {
    let mut raw = field;
    if !raw.last().is_some_and(u8::is_ascii_digit) {
        raw = raw.trim_ascii_end();
        if !raw.last().is_some_and(u8::is_ascii_digit) {
            return None;
        }
    }
    let whole = |bytes: &[u8]| match N::from_radix_10_signed_checked(bytes) {
        (Some(n), used) if used == bytes.len() => Some(n),
        _ => None,
    };
    whole(raw).or_else(|| whole(raw.trim_ascii_start()))
}

/// A float as arrow-cast parses one: `lexical-core`'s syntax, then again without the
/// whitespace around it.
fn float<N: lexical_core::FromLexical>(field: &[u8]) -> Option<N> {
    lexical_core::parse(field).ok().or_else(|| {
        let starts = field.first().is_some_and(|b| !b.is_ascii_digit());
        let ends = field.last().is_some_and(|b| !b.is_ascii_digit());
        let trimmed = match (starts, ends) {
            (false, false) => return None,
            (true, false) => field.trim_ascii_start(),
            (false, true) => field.trim_ascii_end(),
            (true, true) => field.trim_ascii(),
        };
        lexical_core::parse(trimmed).ok()
    })
}

macro_rules! numbers {
    ($capacity:expr, $alkaid:ty, $parse:expr, $name:literal) => {
        Box::new(
            Numbers::<<$alkaid as alkaid_array::types::PrimitiveType>::Native> {
                values: Vec::with_capacity($capacity),
                nulls: NullBufferBuilder::new($capacity),
                parse: $parse,
                make: |values, nulls| {
                    Arc::new(PrimitiveArray::<$alkaid>::new(
                        ScalarBuffer::from(values),
                        nulls,
                    ))
                },
                name: $name,
            },
        ) as Box<dyn ColumnBuilder>
    };
}

/// The builder of a column of `data_type`, if this reader takes the type.
pub(super) fn column_for(data_type: &DataType, capacity: usize) -> Option<Box<dyn ColumnBuilder>> {
    use alkaid_array::types as ours;
    Some(match data_type {
        DataType::Int8 => numbers!(capacity, ours::Int8Type, integer, "Int8"),
        DataType::Int16 => numbers!(capacity, ours::Int16Type, integer, "Int16"),
        DataType::Int32 => numbers!(capacity, ours::Int32Type, integer, "Int32"),
        DataType::Int64 => numbers!(capacity, ours::Int64Type, integer, "Int64"),
        DataType::UInt8 => numbers!(capacity, ours::UInt8Type, integer, "UInt8"),
        DataType::UInt16 => numbers!(capacity, ours::UInt16Type, integer, "UInt16"),
        DataType::UInt32 => numbers!(capacity, ours::UInt32Type, integer, "UInt32"),
        DataType::UInt64 => numbers!(capacity, ours::UInt64Type, integer, "UInt64"),
        DataType::Float32 => numbers!(capacity, ours::Float32Type, float, "Float32"),
        DataType::Float64 => numbers!(capacity, ours::Float64Type, float, "Float64"),
        DataType::Boolean => Box::new(Booleans {
            values: BooleanBufferBuilder::new(capacity),
            nulls: NullBufferBuilder::new(capacity),
        }),
        DataType::Utf8 => Box::new(Text::<i32> {
            offsets: vec![0],
            values: Vec::new(),
            nulls: NullBufferBuilder::new(capacity),
            make: |offsets, values, nulls| {
                StringArray::try_new(offsets, values.into(), nulls)
                    .map(|a| Arc::new(a) as ArrayRef)
                    .map_err(|e| e.to_string())
            },
        }),
        DataType::LargeUtf8 => Box::new(Text::<i64> {
            offsets: vec![0],
            values: Vec::new(),
            nulls: NullBufferBuilder::new(capacity),
            make: |offsets, values, nulls| {
                LargeStringArray::try_new(offsets, values.into(), nulls)
                    .map(|a| Arc::new(a) as ArrayRef)
                    .map_err(|e| e.to_string())
            },
        }),
        _ => return None,
    })
}

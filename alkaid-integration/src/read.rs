//! JSON column data (`FieldData`) to arrays.
//!
//! Every buffer list is checked against the column's `count` before anything is allocated,
//! every value against its type's range, and every built array is fully validated, so a
//! JSON file that disagrees with itself is an error naming the column, never a panic.

use std::collections::BTreeMap;

use alkaid_buffer::native::{f16, i256};
use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer};
use alkaid_data::{ArrayData, layout};
use alkaid_schema::json::JsonValue;
use alkaid_schema::{DataType, DecimalWidth, Field, NativeKind, PhysicalType};

use crate::error::{IntegrationError, Result};
use crate::json::{Get, int, unhex, wide_int};

/// Builds the arrays of a file's batches, and each dictionary once, by id.
pub(crate) struct ColumnReader<'a> {
    /// The `data` batch of each dictionary, by id.
    pub dictionaries: BTreeMap<i64, &'a JsonValue>,
    built: BTreeMap<i64, ArrayData>,
}

/// `bytes` in an allocation aligned for any value type (a `Vec<u8>`'s is not, and an
/// empty one's address is 1).
fn aligned(bytes: Vec<u8>) -> Buffer {
    Buffer::from_slice_ref(&bytes)
}

/// The values of buffer `key` of a column: a list of exactly `count` entries.
fn buffer<'a>(column: &'a JsonValue, key: &str, count: usize) -> Result<&'a [JsonValue]> {
    let values = column.array_member(key)?;
    if values.len() != count {
        return Err(IntegrationError::new(format!(
            "{key} has {} entries, expected {count}",
            values.len()
        )));
    }
    Ok(values)
}

/// Little-endian integers of `width` bytes, each checked to fit.
fn integers(values: &[JsonValue], width: usize, signed: bool) -> Result<Buffer> {
    let bits = 8 * width as u32;
    let (min, max) = if bits >= 128 {
        (i128::MIN, i128::MAX)
    } else if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let mut out = Vec::with_capacity(values.len() * width);
    for (i, value) in values.iter().enumerate() {
        let v = wide_int(value).map_err(|e| e.context(format!("value {i}")))?;
        if !(min..=max).contains(&v) {
            return Err(IntegrationError::new(format!(
                "value {i} ({v}) does not fit {}{bits}",
                if signed { "i" } else { "u" }
            )));
        }
        out.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    Ok(aligned(out))
}

fn float(value: &JsonValue, i: usize) -> Result<f64> {
    match value {
        JsonValue::Number(_) => value.as_f64(),
        JsonValue::String(s) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| IntegrationError::new(format!("value {i} ({value}) is not a number")))
}

fn decimals(values: &[JsonValue], width: DecimalWidth) -> Result<Buffer> {
    if width != DecimalWidth::W256 {
        return integers(values, usize::from(width.bits() / 8), true);
    }
    let mut out = Vec::with_capacity(values.len() * 32);
    for (i, value) in values.iter().enumerate() {
        let text = match value {
            JsonValue::String(s) | JsonValue::Number(s) => s,
            _ => return Err(IntegrationError::new(format!("value {i} is not a decimal"))),
        };
        let v: i256 = text.parse().map_err(|_| {
            IntegrationError::new(format!("value {i} ({text:?}) is not a 256-bit integer"))
        })?;
        out.extend_from_slice(&v.to_le_bytes());
    }
    Ok(aligned(out))
}

/// Intervals written as objects: each member an integer of the given width.
fn interval_objects(values: &[JsonValue], members: &[(&str, usize)]) -> Result<Buffer> {
    let mut out = Vec::new();
    for (i, value) in values.iter().enumerate() {
        for &(key, width) in members {
            let v = wide_int(value.member(key)?).map_err(|e| e.context(format!("value {i}")))?;
            let fits = if width == 4 {
                i32::try_from(v).is_ok()
            } else {
                i64::try_from(v).is_ok()
            };
            if !fits {
                return Err(IntegrationError::new(format!(
                    "value {i}: {key} {v} does not fit"
                )));
            }
            out.extend_from_slice(&v.to_le_bytes()[..width]);
        }
    }
    Ok(aligned(out))
}

/// The `DATA` of a fixed-width type, by its physical type (decimals, strings in JSON, by
/// their width).
fn fixed_values(data_type: &DataType, values: &[JsonValue]) -> Result<Buffer> {
    use NativeKind as P;
    let primitive = match (data_type, data_type.to_physical()) {
        (DataType::Decimal(decimal), _) => return decimals(values, decimal.width()),
        (_, PhysicalType::Primitive(primitive)) => primitive,
        (_, PhysicalType::FixedSizeBinary(width)) => {
            let width = usize::try_from(width).unwrap_or(0);
            let mut out = Vec::with_capacity(values.len() * width);
            for (i, value) in values.iter().enumerate() {
                let bytes = unhex(value).map_err(|e| e.context(format!("value {i}")))?;
                if bytes.len() != width {
                    return Err(IntegrationError::new(format!(
                        "value {i} has {} bytes, expected {width}",
                        bytes.len()
                    )));
                }
                out.extend_from_slice(&bytes);
            }
            return Ok(aligned(out));
        }
        (other, _) => return Err(IntegrationError::new(format!("{other} is not fixed-width"))),
    };
    let floats = || values.iter().enumerate().map(|(i, v)| float(v, i));
    Ok(match primitive {
        P::Int8 | P::Int16 | P::Int32 | P::Int64 | P::Int128 | P::Int256 => {
            integers(values, primitive.byte_width(), true)?
        }
        P::UInt8 | P::UInt16 | P::UInt32 | P::UInt64 => {
            integers(values, primitive.byte_width(), false)?
        }
        P::Float16 => Buffer::from_vec(
            floats()
                .map(|f| f.map(f16::from_f64))
                .collect::<Result<Vec<_>>>()?,
        ),
        P::Float32 => Buffer::from_vec(
            floats()
                .map(|f| f.map(|f| f as f32))
                .collect::<Result<Vec<_>>>()?,
        ),
        P::Float64 => Buffer::from_vec(floats().collect::<Result<Vec<_>>>()?),
        P::DayTime => interval_objects(values, &[("days", 4), ("milliseconds", 4)])?,
        P::MonthDayNano => {
            interval_objects(values, &[("months", 4), ("days", 4), ("nanoseconds", 8)])?
        }
    })
}

/// The bytes of one binary or text value.
fn value_bytes(data_type: &DataType, value: &JsonValue) -> Result<Vec<u8>> {
    if data_type.is_string() {
        value
            .as_str()
            .map(|s| s.as_bytes().to_vec())
            .ok_or_else(|| IntegrationError::new(format!("{value} is not a string")))
    } else {
        unhex(value)
    }
}

/// Offsets (`OFFSET`) of `count` slots: 32-bit numbers or 64-bit strings.
fn offsets(column: &JsonValue, key: &str, entries: usize, large: bool) -> Result<Buffer> {
    let values = buffer(column, key, entries).map_err(|e| e.context(key))?;
    integers(values, if large { 8 } else { 4 }, true).map_err(|e| e.context(key))
}

impl<'a> ColumnReader<'a> {
    pub(crate) fn new(dictionaries: BTreeMap<i64, &'a JsonValue>) -> Self {
        Self {
            dictionaries,
            built: BTreeMap::new(),
        }
    }

    /// The array of `field` (whose JSON schema entry is `json_field`) from `column`.
    pub(crate) fn column(
        &mut self,
        field: &Field,
        json_field: &JsonValue,
        column: &JsonValue,
    ) -> Result<ArrayData> {
        let place = format!("{:?}", field.name());
        self.array(field.data_type(), json_field, column)
            .map_err(|e| e.context(place))
    }

    fn array(
        &mut self,
        data_type: &DataType,
        json_field: &JsonValue,
        column: &JsonValue,
    ) -> Result<ArrayData> {
        let count = usize::try_from(column.int_member("count")?)
            .map_err(|_| IntegrationError::new("a negative count"))?;
        let spec = layout(data_type);
        let nulls = match column.get("VALIDITY") {
            Some(_) if spec.has_validity => {
                let bits = buffer(column, "VALIDITY", count)?
                    .iter()
                    .map(|v| match v {
                        JsonValue::Bool(b) => Ok(*b),
                        other => int(other).map(|v| v != 0),
                    })
                    .collect::<Result<Vec<bool>>>()
                    .map_err(|e| e.context("VALIDITY"))?;
                Some(NullBuffer::from(bits)).filter(|n| n.null_count() > 0)
            }
            _ => None,
        };
        let mut builder = ArrayData::builder(data_type.clone())
            .len(count)
            .nulls(nulls);
        let large = matches!(
            data_type.to_physical(),
            PhysicalType::LargeBinary | PhysicalType::LargeList | PhysicalType::LargeListView
        );
        match data_type.to_physical() {
            PhysicalType::Null => {}
            PhysicalType::Boolean => {
                let bits = buffer(column, "DATA", count)?
                    .iter()
                    .map(|v| match v {
                        JsonValue::Bool(b) => Ok(*b),
                        other => int(other).map(|v| v != 0),
                    })
                    .collect::<Result<Vec<bool>>>()?;
                builder = builder.buffers(vec![BooleanBuffer::from(bits).inner().clone()]);
            }
            PhysicalType::Primitive(_) | PhysicalType::FixedSizeBinary(_) => {
                let values = buffer(column, "DATA", count)?;
                builder = builder.buffers(vec![
                    fixed_values(data_type, values).map_err(|e| e.context("DATA"))?,
                ]);
            }
            PhysicalType::Binary | PhysicalType::LargeBinary => {
                let values = buffer(column, "DATA", count)?;
                let declared = offsets(column, "OFFSET", count + 1, large)?;
                let mut data = Vec::new();
                let mut built = Vec::with_capacity(count + 1);
                built.push(0i64);
                for (i, value) in values.iter().enumerate() {
                    data.extend(
                        value_bytes(data_type, value)
                            .map_err(|e| e.context(format!("DATA > value {i}")))?,
                    );
                    built.push(data.len() as i64);
                }
                // The offsets must describe the values given, whatever they start at.
                let width = if large { 8 } else { 4 };
                // As i128: the difference of two hostile i64 offsets does not overflow it.
                let read = |i: usize| {
                    let bytes = &declared[i * width..(i + 1) * width];
                    i128::from(if large {
                        i64::from_le_bytes(bytes.try_into().expect("8 bytes"))
                    } else {
                        i64::from(i32::from_le_bytes(bytes.try_into().expect("4 bytes")))
                    })
                };
                let held = |i: usize| i128::from(built[i + 1] - built[i]);
                if let Some(i) = (0..count).find(|&i| read(i + 1) - read(i) != held(i)) {
                    return Err(IntegrationError::new(format!(
                        "OFFSET gives slot {i} {} bytes, but DATA holds {}",
                        read(i + 1) - read(i),
                        held(i)
                    )));
                }
                let rebased: Buffer = if large {
                    Buffer::from_vec(built)
                } else {
                    let narrow = built
                        .iter()
                        .map(|&o| i32::try_from(o))
                        .collect::<Result<Vec<_>, _>>();
                    Buffer::from_vec(
                        narrow.map_err(|_| IntegrationError::new("more than 2 GiB of DATA"))?,
                    )
                };
                builder = builder.buffers(vec![rebased, aligned(data)]);
            }
            PhysicalType::BinaryView => {
                let views = buffer(column, "VIEWS", count)?;
                let variadic = column
                    .array_member("VARIADIC_DATA_BUFFERS")?
                    .iter()
                    .map(|b| unhex(b).map(aligned))
                    .collect::<Result<Vec<_>>>()?;
                let mut bytes = Vec::with_capacity(count * 16);
                for (i, view) in views.iter().enumerate() {
                    bytes.extend(
                        self::view(data_type, view)
                            .map_err(|e| e.context(format!("VIEWS > view {i}")))?,
                    );
                }
                let mut buffers = vec![aligned(bytes)];
                buffers.extend(variadic);
                builder = builder.buffers(buffers);
            }
            PhysicalType::List | PhysicalType::LargeList => {
                builder = builder.buffers(vec![offsets(column, "OFFSET", count + 1, large)?]);
                builder = builder.children(self.children(data_type, json_field, column)?);
            }
            PhysicalType::ListView | PhysicalType::LargeListView => {
                builder = builder.buffers(vec![
                    offsets(column, "OFFSET", count, large)?,
                    offsets(column, "SIZE", count, large)?,
                ]);
                builder = builder.children(self.children(data_type, json_field, column)?);
            }
            PhysicalType::FixedSizeList(_)
            | PhysicalType::Struct
            | PhysicalType::RunEndEncoded(_) => {
                builder = builder.children(self.children(data_type, json_field, column)?);
            }
            PhysicalType::SparseUnion | PhysicalType::DenseUnion => {
                let ids = integers(buffer(column, "TYPE_ID", count)?, 1, true)
                    .map_err(|e| e.context("TYPE_ID"))?;
                let mut buffers = vec![ids];
                if data_type.to_physical() == PhysicalType::DenseUnion {
                    buffers.push(offsets(column, "OFFSET", count, false)?);
                }
                builder = builder
                    .buffers(buffers)
                    .children(self.children(data_type, json_field, column)?);
            }
            PhysicalType::Dictionary(key) => {
                let DataType::Dictionary { value, .. } = data_type else {
                    unreachable!("a dictionary physical type is a dictionary type")
                };
                let keys = integers(
                    buffer(column, "DATA", count)?,
                    key.byte_width(),
                    key.is_signed(),
                )
                .map_err(|e| e.context("DATA"))?;
                let id = json_field.member("dictionary")?.int_member("id")?;
                let dictionary = self.dictionary(id, value, json_field)?;
                builder = builder.buffers(vec![keys]).dictionary(dictionary);
            }
        }
        Ok(builder.build()?)
    }

    fn children(
        &mut self,
        data_type: &DataType,
        json_field: &JsonValue,
        column: &JsonValue,
    ) -> Result<Vec<ArrayData>> {
        let fields = data_type.children();
        let json_fields = json_field.array_member("children")?;
        let columns = column.array_member("children")?;
        if json_fields.len() != fields.len() || columns.len() != fields.len() {
            return Err(IntegrationError::new(format!(
                "{} child columns for {} child fields",
                columns.len(),
                fields.len()
            )));
        }
        fields
            .iter()
            .zip(json_fields)
            .zip(columns)
            .map(|((field, json_field), column)| self.column(field, json_field, column))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| e.context("children"))
    }

    /// The dictionary `id`, of `value` type, built from its batch on first use.
    fn dictionary(
        &mut self,
        id: i64,
        value: &DataType,
        json_field: &JsonValue,
    ) -> Result<ArrayData> {
        if let Some(built) = self.built.get(&id) {
            return Ok(built.clone());
        }
        let batch = *self
            .dictionaries
            .get(&id)
            .ok_or_else(|| IntegrationError::new(format!("no dictionary with id {id}")))?;
        let column = batch
            .array_member("columns")?
            .first()
            .ok_or_else(|| IntegrationError::new(format!("dictionary {id} has no column")))?;
        // Mark it as being built: a dictionary whose values use itself would loop.
        self.dictionaries.remove(&id);
        let values = self
            .array(value, json_field, column)
            .map_err(|e| e.context(format!("dictionary {id}")))?;
        self.built.insert(id, values.clone());
        Ok(values)
    }
}

/// One 16-byte view from its JSON object.
fn view(data_type: &DataType, view: &JsonValue) -> Result<[u8; 16]> {
    let size = i32::try_from(view.int_member("SIZE")?)
        .map_err(|_| IntegrationError::new("SIZE out of range"))?;
    let mut out = [0u8; 16];
    out[..4].copy_from_slice(&size.to_le_bytes());
    if size <= 12 {
        let string_type = if data_type == &DataType::Utf8View {
            DataType::Utf8
        } else {
            DataType::Binary
        };
        let inline = value_bytes(&string_type, view.member("INLINED")?)?;
        if inline.len() != size.max(0) as usize {
            return Err(IntegrationError::new(format!(
                "INLINED holds {} bytes, SIZE says {size}",
                inline.len()
            )));
        }
        out[4..4 + inline.len()].copy_from_slice(&inline);
    } else {
        let prefix = unhex(view.member("PREFIX_HEX")?)?;
        if prefix.len() != 4 {
            return Err(IntegrationError::new("PREFIX_HEX is not 4 bytes"));
        }
        out[4..8].copy_from_slice(&prefix);
        let index = i32::try_from(view.int_member("BUFFER_INDEX")?)
            .map_err(|_| IntegrationError::new("BUFFER_INDEX out of range"))?;
        let offset = i32::try_from(view.int_member("OFFSET")?)
            .map_err(|_| IntegrationError::new("OFFSET out of range"))?;
        out[8..12].copy_from_slice(&index.to_le_bytes());
        out[12..16].copy_from_slice(&offset.to_le_bytes());
    }
    Ok(out)
}

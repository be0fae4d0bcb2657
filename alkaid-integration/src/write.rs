//! Arrays to JSON column data (`FieldData`).
//!
//! Arrays may be slices: every buffer is read from the array's offset, offsets are written
//! from 0, and children are cut to the range the parent reaches, so the JSON holds exactly
//! the array's values whatever memory they came from.

use std::collections::BTreeMap;

use alkaid_buffer::native::{f16, i256};
use alkaid_data::{ArrayData, ChildSpec, layout, run_span};
use alkaid_ipc::DictionaryIds;
use alkaid_schema::json::JsonValue;
use alkaid_schema::{DataType, Field, NativeKind, PhysicalType};

use crate::error::{IntegrationError, Result};
use crate::json::{array, hex, object, string};

/// Writes columns, collecting the dictionaries they use by id.
pub(crate) struct ColumnWriter<'a> {
    pub ids: &'a DictionaryIds,
    /// The `data` batch of each dictionary written so far.
    pub dictionaries: BTreeMap<i64, JsonValue>,
}

fn number(n: impl ToString) -> JsonValue {
    JsonValue::Number(n.to_string())
}

/// `width` little-endian bytes at slot `i` of a fixed-width buffer, as an integer.
fn int_at(bytes: &[u8], width: usize, i: usize, signed: bool) -> i128 {
    let raw = &bytes[i * width..(i + 1) * width];
    let mut le = [0u8; 16];
    le[..width].copy_from_slice(raw);
    if signed && raw[width - 1] & 0x80 != 0 {
        le[width..].fill(0xFF);
    }
    i128::from_le_bytes(le)
}

/// Integers as the format writes them: numbers up to 32 bits, strings from 64.
fn integer_json(value: i128, width: usize) -> JsonValue {
    if width >= 8 {
        string(&value.to_string())
    } else {
        number(value)
    }
}

/// A float as a JSON number; non-finite values have no JSON number, so they are strings.
fn float_json(value: f64) -> JsonValue {
    if value.is_finite() {
        number(value)
    } else {
        string(&value.to_string())
    }
}

/// The `DATA` of slots `[from, to)` of a fixed-width buffer of `data_type`. Values are
/// read by their physical type; only decimals (strings in JSON) need the logical one.
fn fixed_json(data_type: &DataType, bytes: &[u8], from: usize, to: usize) -> Vec<JsonValue> {
    use NativeKind as P;
    let primitive = match data_type.to_physical() {
        PhysicalType::Primitive(primitive) => primitive,
        PhysicalType::FixedSizeBinary(width) => {
            let width = usize::try_from(width).unwrap_or(0);
            return (from..to)
                .map(|i| hex(&bytes[i * width..(i + 1) * width]))
                .collect();
        }
        _ => return Vec::new(),
    };
    let width = primitive.byte_width();
    let decimal = matches!(data_type, DataType::Decimal(_));
    (from..to)
        .map(|i| match primitive {
            P::Int256 => {
                let raw: [u8; 32] = bytes[32 * i..32 * i + 32].try_into().expect("32 bytes");
                string(&i256::from_le_bytes(raw).to_string())
            }
            _ if decimal => string(&int_at(bytes, width, i, true).to_string()),
            P::Int8 | P::Int16 | P::Int32 | P::Int64 | P::Int128 => {
                integer_json(int_at(bytes, width, i, true), width)
            }
            P::UInt8 | P::UInt16 | P::UInt32 | P::UInt64 => {
                integer_json(int_at(bytes, width, i, false), width)
            }
            P::Float16 => {
                let bits = u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]);
                float_json(f16::from_bits(bits).to_f64())
            }
            P::Float32 => {
                let raw = bytes[4 * i..4 * i + 4].try_into().expect("4 bytes");
                float_json(f64::from(f32::from_le_bytes(raw)))
            }
            P::Float64 => float_json(f64::from_le_bytes(
                bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"),
            )),
            P::DayTime => object([
                ("days", number(int_at(bytes, 4, 2 * i, true))),
                ("milliseconds", number(int_at(bytes, 4, 2 * i + 1, true))),
            ]),
            P::MonthDayNano => {
                let cell = &bytes[16 * i..16 * i + 16];
                object([
                    ("months", number(int_at(cell, 4, 0, true))),
                    ("days", number(int_at(cell, 4, 1, true))),
                    ("nanoseconds", string(&int_at(cell, 8, 1, true).to_string())),
                ])
            }
        })
        .collect()
}

/// A binary or text value as JSON.
fn value_json(data_type: &DataType, bytes: &[u8]) -> JsonValue {
    match std::str::from_utf8(bytes) {
        Ok(text) if data_type.is_string() => string(text),
        _ => hex(bytes),
    }
}

/// The `count + 1` offsets from slot `offset` of a buffer, each as an `i64`.
fn read_offsets(data: &ArrayData, large: bool) -> Vec<i64> {
    let bytes = &data.buffers()[0];
    let (width, from) = (if large { 8 } else { 4 }, data.offset());
    if bytes.is_empty() {
        return vec![0; data.len() + 1];
    }
    (from..=from + data.len())
        .map(|i| int_at(bytes, width, i, true) as i64)
        .collect()
}

fn offsets_json(offsets: &[i64], large: bool) -> JsonValue {
    let first = offsets.first().copied().unwrap_or(0);
    array(
        offsets
            .iter()
            .map(|&o| integer_json(i128::from(o - first), if large { 8 } else { 4 })),
    )
}

impl ColumnWriter<'_> {
    /// The JSON of `data`, the values of `field`; `cursor` is `field`'s position in the
    /// walk of dictionary ids.
    pub(crate) fn column(
        &mut self,
        field: &Field,
        data: &ArrayData,
        cursor: &mut usize,
    ) -> Result<JsonValue> {
        self.array(field.name(), data, cursor)
            .map_err(|e| e.context(format!("{:?}", field.name())))
    }

    fn array(&mut self, name: &str, data: &ArrayData, cursor: &mut usize) -> Result<JsonValue> {
        let data_type = data.data_type();
        let (offset, len) = (data.offset(), data.len());
        let mut members = vec![("name", string(name)), ("count", number(len))];
        if layout(data_type).has_validity {
            let bits = (0..len).map(|i| number(u8::from(data.is_valid(i))));
            members.push(("VALIDITY", array(bits)));
        }
        let large = matches!(
            data_type.to_physical(),
            PhysicalType::LargeBinary | PhysicalType::LargeList | PhysicalType::LargeListView
        );
        let fields = data_type.children();
        let mut children = Vec::new();
        match data_type.to_physical() {
            PhysicalType::Null => {}
            PhysicalType::Boolean => {
                let bits = &data.buffers()[0];
                let value = |i: usize| bits[(offset + i) / 8] >> ((offset + i) % 8) & 1;
                members.push(("DATA", array((0..len).map(|i| number(value(i))))));
            }
            PhysicalType::Primitive(_) | PhysicalType::FixedSizeBinary(_) => {
                let values = fixed_json(data_type, &data.buffers()[0], offset, offset + len);
                members.push(("DATA", JsonValue::Array(values)));
            }
            PhysicalType::Binary | PhysicalType::LargeBinary => {
                let offsets = read_offsets(data, large);
                let bytes = &data.buffers()[1];
                let values = offsets
                    .windows(2)
                    .map(|w| value_json(data_type, &bytes[w[0] as usize..w[1] as usize]));
                members.push(("OFFSET", offsets_json(&offsets, large)));
                members.push(("DATA", array(values)));
            }
            PhysicalType::BinaryView => {
                let views = &data.buffers()[0];
                let string_type = if data_type == &DataType::Utf8View {
                    DataType::Utf8
                } else {
                    DataType::Binary
                };
                let list = (offset..offset + len).map(|i| {
                    let view = &views[16 * i..16 * i + 16];
                    let size = i32::from_le_bytes(view[..4].try_into().expect("4 bytes"));
                    if size <= 12 {
                        object([
                            ("SIZE", number(size)),
                            (
                                "INLINED",
                                value_json(&string_type, &view[4..4 + size as usize]),
                            ),
                        ])
                    } else {
                        object([
                            ("SIZE", number(size)),
                            ("PREFIX_HEX", hex(&view[4..8])),
                            (
                                "BUFFER_INDEX",
                                number(i32::from_le_bytes(view[8..12].try_into().expect("4"))),
                            ),
                            (
                                "OFFSET",
                                number(i32::from_le_bytes(view[12..16].try_into().expect("4"))),
                            ),
                        ])
                    }
                });
                members.push(("VIEWS", array(list)));
                members.push((
                    "VARIADIC_DATA_BUFFERS",
                    array(data.buffers()[1..].iter().map(|b| hex(b))),
                ));
            }
            PhysicalType::List | PhysicalType::LargeList => {
                let offsets = read_offsets(data, large);
                let (first, last) = (offsets[0] as usize, offsets[len] as usize);
                members.push(("OFFSET", offsets_json(&offsets, large)));
                let child = data.children()[0].slice(first, last - first);
                children.push(self.array(fields[0].name(), &child, cursor)?);
            }
            PhysicalType::ListView | PhysicalType::LargeListView => {
                let width = if large { 8 } else { 4 };
                for (key, buffer) in [("OFFSET", 0), ("SIZE", 1)] {
                    let bytes = &data.buffers()[buffer];
                    let values = (offset..offset + len)
                        .map(|i| integer_json(int_at(bytes, width, i, true), width));
                    members.push((key, array(values)));
                }
                children.push(self.array(fields[0].name(), &data.children()[0], cursor)?);
            }
            PhysicalType::FixedSizeList(size) => {
                let size = size as usize;
                let child = data.children()[0].slice(offset * size, len * size);
                children.push(self.array(fields[0].name(), &child, cursor)?);
            }
            PhysicalType::Struct | PhysicalType::SparseUnion => {
                if data_type.to_physical() == PhysicalType::SparseUnion {
                    let ids = &data.buffers()[0];
                    members.push((
                        "TYPE_ID",
                        array((offset..offset + len).map(|i| number(ids[i] as i8))),
                    ));
                }
                for (child, field) in data.children().iter().zip(fields) {
                    children.push(self.array(field.name(), &child.slice(offset, len), cursor)?);
                }
            }
            PhysicalType::DenseUnion => {
                let (ids, offsets) = (&data.buffers()[0], &data.buffers()[1]);
                members.push((
                    "TYPE_ID",
                    array((offset..offset + len).map(|i| number(ids[i] as i8))),
                ));
                members.push((
                    "OFFSET",
                    array((offset..offset + len).map(|i| number(int_at(offsets, 4, i, true)))),
                ));
                for (child, field) in data.children().iter().zip(fields) {
                    children.push(self.array(field.name(), child, cursor)?);
                }
            }
            PhysicalType::RunEndEncoded(_) => {
                let (run_ends, values) = run_end_window(data)?;
                children.push(self.array(fields[0].name(), &run_ends, cursor)?);
                children.push(self.array(fields[1].name(), &values, cursor)?);
            }
            PhysicalType::Dictionary(key) => {
                let keys = (offset..offset + len).map(|i| {
                    integer_json(
                        int_at(&data.buffers()[0], key.byte_width(), i, key.is_signed()),
                        key.byte_width(),
                    )
                });
                members.push(("DATA", array(keys)));
                let id = self.ids.ids()[*cursor];
                *cursor += 1;
                let dictionary = data
                    .dictionary()
                    .expect("a valid dictionary array has a dictionary");
                let values = self.array(&format!("DICT{id}"), dictionary, cursor)?;
                let batch = object([
                    ("count", number(dictionary.len())),
                    ("columns", array([values])),
                ]);
                match self.dictionaries.get(&id) {
                    None => {
                        self.dictionaries.insert(id, batch);
                    }
                    Some(existing) if *existing == batch => {}
                    Some(_) => {
                        return Err(IntegrationError::new(format!(
                            "dictionary {id} changes between batches; the JSON format holds one \
                             dictionary per id"
                        )));
                    }
                }
            }
        }
        if layout(data_type).children != ChildSpec::None {
            members.push(("children", JsonValue::Array(children)));
        }
        Ok(object(members))
    }
}

/// The run ends and values of a run-end encoded array's own slots: a slice keeps its
/// parent's runs, so they are cut to the window and counted from 0.
fn run_end_window(data: &ArrayData) -> Result<(ArrayData, ArrayData)> {
    let [run_ends, values] = data.children() else {
        return Err(IntegrationError::new(
            "a run-end encoded array without two children",
        ));
    };
    let (start, len) = (data.offset(), data.len());
    let span = run_span(run_ends, start, len)?;
    let width = run_ends.data_type().primitive_byte_width().unwrap_or(4);
    let cut: Vec<i64> = span
        .clone()
        .map(|k| {
            let end = int_at(&run_ends.buffers()[0], width, run_ends.offset() + k, true) as i64;
            end.min((start + len) as i64) - start as i64
        })
        .collect();
    let buffer = match width {
        2 => alkaid_buffer::Buffer::from_vec(cut.iter().map(|&e| e as i16).collect::<Vec<_>>()),
        4 => alkaid_buffer::Buffer::from_vec(cut.iter().map(|&e| e as i32).collect::<Vec<_>>()),
        _ => alkaid_buffer::Buffer::from_vec(cut.clone()),
    };
    let run_ends = ArrayData::builder(run_ends.data_type().clone())
        .len(cut.len())
        .buffers(vec![buffer])
        .build()?;
    Ok((run_ends, values.slice(span.start, span.len())))
}

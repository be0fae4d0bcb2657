//! Schemas, fields and types in the integration JSON format, both ways.
//!
//! A dictionary field is written as its value type plus a `dictionary` member (id, index
//! type, ordering); ids are collected in the depth-first order [`DictionaryIds`] uses, so a
//! file written from the JSON keeps them.

use std::sync::Arc;

use alkaid_ipc::DictionaryIds;
use alkaid_schema::json::JsonValue;
use alkaid_schema::{
    DataType, DecimalType, DecimalWidth, Field, FieldRef, Fields, IntegerType, IntervalUnit,
    MapType, Metadata, RunEndEncodedType, Schema, TimeUnit, UnionMode, UnionType,
};

use crate::error::{IntegrationError, Result};
use crate::json::{Get, array, int, object, string};

/// Deepest nesting of fields read; deeper is an error rather than a stack overflow.
const MAX_DEPTH: usize = 64;

// ----- reading

/// The schema of a JSON file, and its dictionary ids in walk order.
pub(crate) fn schema_from_json(value: &JsonValue) -> Result<(Schema, Vec<i64>)> {
    let mut ids = Vec::new();
    let fields = value
        .array_member("fields")?
        .iter()
        .enumerate()
        .map(|(i, f)| field_from_json(f, &mut ids, 0).map_err(|e| e.context(format!("field {i}"))))
        .collect::<Result<Vec<_>>>()?;
    let schema = Schema::new(fields).with_metadata(metadata_from_json(value)?);
    Ok((schema, ids))
}

fn metadata_from_json(value: &JsonValue) -> Result<Metadata> {
    let mut metadata = Metadata::new();
    match value.get("metadata") {
        None | Some(JsonValue::Null) => {}
        Some(JsonValue::Array(pairs)) => {
            for pair in pairs {
                metadata.insert(pair.str_member("key")?, pair.str_member("value")?);
            }
        }
        Some(other) => {
            return Err(IntegrationError::new(format!(
                "metadata is {other}, not a list"
            )));
        }
    }
    Ok(metadata)
}

fn field_from_json(value: &JsonValue, ids: &mut Vec<i64>, depth: usize) -> Result<FieldRef> {
    if depth >= MAX_DEPTH {
        return Err(IntegrationError::new(format!(
            "fields nested deeper than {MAX_DEPTH}"
        )));
    }
    let name = value.str_member("name")?;
    let place = |e: IntegrationError| e.context(format!("field {name:?}"));
    let dictionary = value.get("dictionary").filter(|d| !d.is_null());
    if let Some(dictionary) = dictionary {
        ids.push(dictionary.int_member("id").map_err(place)?);
    }
    let children = match value.get("children") {
        None | Some(JsonValue::Null) => Vec::new(),
        Some(children) => children
            .as_array()
            .ok_or_else(|| place(IntegrationError::new("children is not a list")))?
            .iter()
            .map(|c| field_from_json(c, ids, depth + 1))
            .collect::<Result<Vec<_>>>()
            .map_err(place)?,
    };
    let value_type =
        type_from_json(value.member("type").map_err(place)?, children).map_err(place)?;
    let data_type = match dictionary {
        None => value_type,
        Some(dictionary) => {
            let index = dictionary.member("indexType").map_err(place)?;
            let index_type = type_from_json(index, Vec::new()).map_err(place)?;
            let key = IntegerType::from_data_type(&index_type).ok_or_else(|| {
                place(IntegrationError::new(format!(
                    "dictionary index type {index_type} is not an integer type"
                )))
            })?;
            let ordered = matches!(dictionary.get("isOrdered"), Some(JsonValue::Bool(true)));
            DataType::Dictionary {
                key,
                value: Box::new(value_type),
                ordered,
            }
        }
    };
    let nullable = !matches!(value.get("nullable"), Some(JsonValue::Bool(false)));
    let field = Field::new(name, data_type, nullable).with_metadata(metadata_from_json(value)?);
    Ok(Arc::new(field))
}

fn time_unit(value: &JsonValue) -> Result<TimeUnit> {
    Ok(match value.str_member("unit")? {
        "SECOND" => TimeUnit::Second,
        "MILLISECOND" => TimeUnit::Millisecond,
        "MICROSECOND" => TimeUnit::Microsecond,
        "NANOSECOND" => TimeUnit::Nanosecond,
        other => return Err(IntegrationError::new(format!("time unit {other:?}"))),
    })
}

fn type_from_json(value: &JsonValue, children: Vec<FieldRef>) -> Result<DataType> {
    use DataType as D;
    let name = value.str_member("name")?;
    let expect_children = |n: usize| {
        if children.len() == n {
            Ok(())
        } else {
            Err(IntegrationError::new(format!(
                "a {name} type has {} children, expected {n}",
                children.len()
            )))
        }
    };
    let leaf = |data_type: DataType| expect_children(0).map(|()| data_type);
    match name {
        "null" => leaf(D::Null),
        "bool" => leaf(D::Boolean),
        "int" => {
            let signed = matches!(value.get("isSigned"), Some(JsonValue::Bool(true)));
            let bits = value.int_member("bitWidth")?;
            let integer = IntegerType::from_bit_width(bits, signed)
                .ok_or_else(|| IntegrationError::new(format!("{bits}-bit integers")))?;
            leaf(integer.to_data_type())
        }
        "floatingpoint" => leaf(match value.str_member("precision")? {
            "HALF" => D::Float16,
            "SINGLE" => D::Float32,
            "DOUBLE" => D::Float64,
            other => return Err(IntegrationError::new(format!("precision {other:?}"))),
        }),
        "decimal" => {
            let bits = match value.get("bitWidth") {
                None => 128,
                Some(_) => value.int_member("bitWidth")?,
            };
            let width = u16::try_from(bits)
                .ok()
                .and_then(DecimalWidth::from_bits)
                .ok_or_else(|| IntegrationError::new(format!("{bits}-bit decimals")))?;
            let precision = u8::try_from(value.int_member("precision")?)
                .map_err(|_| IntegrationError::new("decimal precision out of range"))?;
            let scale = i8::try_from(value.int_member("scale")?)
                .map_err(|_| IntegrationError::new("decimal scale out of range"))?;
            leaf(D::Decimal(DecimalType::try_new(width, precision, scale)?))
        }
        "date" => leaf(match value.str_member("unit")? {
            "DAY" => D::Date32,
            "MILLISECOND" => D::Date64,
            other => return Err(IntegrationError::new(format!("date unit {other:?}"))),
        }),
        "time" => {
            let unit = time_unit(value)?;
            let bits = value.int_member("bitWidth")?;
            if bits != i64::from(D::time_bit_width(unit)) {
                return Err(IntegrationError::new(format!(
                    "{bits}-bit times of {unit:?}"
                )));
            }
            leaf(D::Time(unit))
        }
        "timestamp" => {
            let timezone = value
                .get("timezone")
                .and_then(JsonValue::as_str)
                .map(Arc::from);
            leaf(D::Timestamp(time_unit(value)?, timezone))
        }
        "duration" => leaf(D::Duration(time_unit(value)?)),
        "interval" => leaf(D::Interval(match value.str_member("unit")? {
            "YEAR_MONTH" => IntervalUnit::YearMonth,
            "DAY_TIME" => IntervalUnit::DayTime,
            "MONTH_DAY_NANO" => IntervalUnit::MonthDayNano,
            other => return Err(IntegrationError::new(format!("interval unit {other:?}"))),
        })),
        "fixedsizebinary" => {
            let width = i32::try_from(value.int_member("byteWidth")?)
                .map_err(|_| IntegrationError::new("byte width out of range"))?;
            leaf(D::FixedSizeBinary(width))
        }
        "binary" => leaf(D::Binary),
        "utf8" => leaf(D::Utf8),
        "largebinary" => leaf(D::LargeBinary),
        "largeutf8" => leaf(D::LargeUtf8),
        "binaryview" => leaf(D::BinaryView),
        "utf8view" => leaf(D::Utf8View),
        "list" | "largelist" | "listview" | "largelistview" | "fixedsizelist" | "map" => {
            expect_children(1)?;
            let item = children.into_iter().next().expect("one child");
            Ok(match name {
                "list" => D::List(item),
                "largelist" => D::LargeList(item),
                "listview" => D::ListView(item),
                "largelistview" => D::LargeListView(item),
                "fixedsizelist" => {
                    let size = i32::try_from(value.int_member("listSize")?)
                        .map_err(|_| IntegrationError::new("list size out of range"))?;
                    D::FixedSizeList(item, size)
                }
                _ => {
                    let sorted = matches!(value.get("keysSorted"), Some(JsonValue::Bool(true)));
                    D::Map(MapType::try_new(item, sorted)?)
                }
            })
        }
        "struct" => Ok(D::Struct(Fields::from(children))),
        "union" => {
            let mode = match value.str_member("mode")? {
                "SPARSE" => UnionMode::Sparse,
                "DENSE" => UnionMode::Dense,
                other => return Err(IntegrationError::new(format!("union mode {other:?}"))),
            };
            let ids = value
                .array_member("typeIds")?
                .iter()
                .map(|id| {
                    int(id).and_then(|i| {
                        i32::try_from(i).map_err(|_| IntegrationError::new("type id out of range"))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(D::Union(UnionType::try_new(children, ids, mode)?))
        }
        "runendencoded" => {
            expect_children(2)?;
            let mut children = children.into_iter();
            let (run_ends, values) = (children.next().expect("two"), children.next().expect("two"));
            Ok(D::RunEndEncoded(RunEndEncodedType::try_new(
                run_ends, values,
            )?))
        }
        other => Err(IntegrationError::new(format!("unknown type {other:?}"))),
    }
}

// ----- writing

/// `schema` as JSON, numbering its dictionaries with `ids`.
pub(crate) fn schema_to_json(schema: &Schema, ids: &DictionaryIds) -> Result<JsonValue> {
    let mut cursor = 0;
    let fields = schema
        .fields()
        .iter()
        .map(|f| field_to_json(f, ids, &mut cursor))
        .collect::<Result<Vec<_>>>()?;
    let mut members = vec![("fields".to_string(), JsonValue::Array(fields))];
    if !schema.metadata().is_empty() {
        members.push(("metadata".to_string(), metadata_to_json(schema.metadata())));
    }
    Ok(JsonValue::Object(members))
}

fn metadata_to_json(metadata: &Metadata) -> JsonValue {
    array(
        metadata
            .iter()
            .map(|(key, value)| object([("key", string(key)), ("value", string(value))])),
    )
}

fn field_to_json(field: &Field, ids: &DictionaryIds, cursor: &mut usize) -> Result<JsonValue> {
    let (value_type, dictionary) = match field.data_type() {
        DataType::Dictionary {
            key,
            value,
            ordered,
        } => {
            let id = ids.ids()[*cursor];
            *cursor += 1;
            let dictionary = object([
                ("id", JsonValue::Number(id.to_string())),
                ("indexType", type_to_json(&key.to_data_type())?),
                ("isOrdered", JsonValue::Bool(*ordered)),
            ]);
            (value.as_ref(), Some(dictionary))
        }
        other => (other, None),
    };
    if value_type.is_dictionary() {
        return Err(IntegrationError::new(format!(
            "field {:?}: a dictionary of dictionaries has no JSON form",
            field.name()
        )));
    }
    let children = value_type
        .children()
        .iter()
        .map(|child| field_to_json(child, ids, cursor))
        .collect::<Result<Vec<_>>>()?;
    let mut members = vec![
        ("name".to_string(), string(field.name())),
        ("nullable".to_string(), JsonValue::Bool(field.is_nullable())),
        ("type".to_string(), type_to_json(value_type)?),
        ("children".to_string(), JsonValue::Array(children)),
    ];
    if let Some(dictionary) = dictionary {
        members.push(("dictionary".to_string(), dictionary));
    }
    if !field.metadata().is_empty() {
        members.push(("metadata".to_string(), metadata_to_json(field.metadata())));
    }
    Ok(JsonValue::Object(members))
}

fn unit_name(unit: TimeUnit) -> JsonValue {
    string(match unit {
        TimeUnit::Second => "SECOND",
        TimeUnit::Millisecond => "MILLISECOND",
        TimeUnit::Microsecond => "MICROSECOND",
        TimeUnit::Nanosecond => "NANOSECOND",
    })
}

fn number(n: impl ToString) -> JsonValue {
    JsonValue::Number(n.to_string())
}

fn type_to_json(data_type: &DataType) -> Result<JsonValue> {
    use DataType as D;
    let named = |name: &str| object([("name", string(name))]);
    let int = |bits: u32, signed: bool| {
        object([
            ("name", string("int")),
            ("bitWidth", number(bits)),
            ("isSigned", JsonValue::Bool(signed)),
        ])
    };
    let float = |precision: &str| {
        object([
            ("name", string("floatingpoint")),
            ("precision", string(precision)),
        ])
    };
    Ok(match data_type {
        D::Null => named("null"),
        D::Boolean => named("bool"),
        D::Int8 => int(8, true),
        D::Int16 => int(16, true),
        D::Int32 => int(32, true),
        D::Int64 => int(64, true),
        D::UInt8 => int(8, false),
        D::UInt16 => int(16, false),
        D::UInt32 => int(32, false),
        D::UInt64 => int(64, false),
        D::Float16 => float("HALF"),
        D::Float32 => float("SINGLE"),
        D::Float64 => float("DOUBLE"),
        D::Decimal(decimal) => object([
            ("name", string("decimal")),
            ("precision", number(decimal.precision())),
            ("scale", number(decimal.scale())),
            ("bitWidth", number(decimal.width().bits())),
        ]),
        D::Date32 => object([("name", string("date")), ("unit", string("DAY"))]),
        D::Date64 => object([("name", string("date")), ("unit", string("MILLISECOND"))]),
        D::Time(unit) => object([
            ("name", string("time")),
            ("unit", unit_name(*unit)),
            ("bitWidth", number(D::time_bit_width(*unit))),
        ]),
        D::Timestamp(unit, timezone) => {
            let mut members = vec![("name", string("timestamp")), ("unit", unit_name(*unit))];
            if let Some(timezone) = timezone {
                members.push(("timezone", string(timezone)));
            }
            object(members)
        }
        D::Duration(unit) => object([("name", string("duration")), ("unit", unit_name(*unit))]),
        D::Interval(unit) => object([
            ("name", string("interval")),
            (
                "unit",
                string(match unit {
                    IntervalUnit::YearMonth => "YEAR_MONTH",
                    IntervalUnit::DayTime => "DAY_TIME",
                    IntervalUnit::MonthDayNano => "MONTH_DAY_NANO",
                }),
            ),
        ]),
        D::FixedSizeBinary(width) => object([
            ("name", string("fixedsizebinary")),
            ("byteWidth", number(width)),
        ]),
        D::Binary => named("binary"),
        D::Utf8 => named("utf8"),
        D::LargeBinary => named("largebinary"),
        D::LargeUtf8 => named("largeutf8"),
        D::BinaryView => named("binaryview"),
        D::Utf8View => named("utf8view"),
        D::List(_) => named("list"),
        D::LargeList(_) => named("largelist"),
        D::ListView(_) => named("listview"),
        D::LargeListView(_) => named("largelistview"),
        D::FixedSizeList(_, size) => object([
            ("name", string("fixedsizelist")),
            ("listSize", number(size)),
        ]),
        D::Struct(_) => named("struct"),
        D::Map(map) => object([
            ("name", string("map")),
            ("keysSorted", JsonValue::Bool(map.keys_sorted())),
        ]),
        D::Union(union) => object([
            ("name", string("union")),
            (
                "mode",
                string(match union.mode() {
                    UnionMode::Sparse => "SPARSE",
                    UnionMode::Dense => "DENSE",
                }),
            ),
            ("typeIds", array(union.type_ids().iter().map(number))),
        ]),
        D::RunEndEncoded(_) => named("runendencoded"),
        D::Dictionary { .. } => {
            return Err(IntegrationError::new(
                "a dictionary type inside a dictionary has no JSON form",
            ));
        }
    })
}

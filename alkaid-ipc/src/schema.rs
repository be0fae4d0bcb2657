//! Schemas to flatbuffers and back.
//!
//! A dictionary-encoded field is written as its value type plus a `DictionaryEncoding` (id,
//! key type, ordered flag). Ids come from a [`DictionaryIds`] plan, which numbers the
//! dictionary fields in the order of a depth-first walk of the schema (a dictionary's own
//! value type is walked right after it). Reading gives the schema and the plan back.

use std::sync::Arc;

use alkaid_schema::extension::Namespace;
use alkaid_schema::{
    DataType, DecimalType, DecimalWidth, Field, FieldRef, Fields, IntegerType, IntervalUnit,
    MapType, Metadata, RunEndEncodedType, Schema, TimeUnit, UnionMode, UnionType,
};
use flatbuffers::{FlatBufferBuilder, ForwardsUOffset, UnionWIPOffset, Vector, WIPOffset};

use crate::dictionary::DictionaryIds;
use crate::error::{IpcError, Result};
use crate::fb;
use crate::path::Path;

/// Deepest nesting of fields the reader accepts; deeper schemas are an error, so hostile
/// input cannot exhaust the stack. The flatbuffer verifier's depth limit is set above it.
pub const MAX_FIELD_DEPTH: usize = 64;

/// The byte order of this machine, as the format names it.
pub(crate) const HOST_ENDIANNESS: fb::Endianness = if cfg!(target_endian = "big") {
    fb::Endianness::Big
} else {
    fb::Endianness::Little
};

/// Whether values written in `declared` order must be byte-swapped on a `host` machine.
/// Writers declare their host's order, so this is the one decision both sides share.
pub(crate) fn needs_swap(declared: fb::Endianness, host: fb::Endianness) -> bool {
    declared != host
}

// ----- writing

/// How a schema is written: the features its stream uses, and the namespace of reserved
/// metadata keys.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SchemaEncoding {
    pub namespace: Namespace,
    pub compressed_body: bool,
    pub dictionary_replacement: bool,
}

/// Writes `schema` into `fbb`, numbering dictionaries with `ids`, declaring this machine's
/// byte order.
pub(crate) fn encode_schema<'b>(
    fbb: &mut FlatBufferBuilder<'b>,
    schema: &Schema,
    ids: &DictionaryIds,
    encoding: SchemaEncoding,
) -> WIPOffset<fb::Schema<'b>> {
    encode_schema_as(fbb, schema, ids, encoding, HOST_ENDIANNESS)
}

/// [`encode_schema`] declaring `endianness` (tests make big-endian input with it).
pub(crate) fn encode_schema_as<'b>(
    fbb: &mut FlatBufferBuilder<'b>,
    schema: &Schema,
    ids: &DictionaryIds,
    encoding: SchemaEncoding,
    endianness: fb::Endianness,
) -> WIPOffset<fb::Schema<'b>> {
    let mut cursor = 0;
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .map(|field| encode_field(fbb, field, ids, encoding.namespace, &mut cursor))
        .collect();
    let fields = fbb.create_vector(&fields);
    let custom_metadata = encode_metadata(fbb, schema.metadata(), encoding.namespace);
    let mut features = Vec::new();
    if encoding.dictionary_replacement {
        features.push(fb::Feature::DICTIONARY_REPLACEMENT);
    }
    if encoding.compressed_body {
        features.push(fb::Feature::COMPRESSED_BODY);
    }
    let features = (!features.is_empty()).then(|| fbb.create_vector(&features));
    fb::Schema::create(
        fbb,
        &fb::SchemaArgs {
            endianness,
            fields: Some(fields),
            custom_metadata,
            features,
        },
    )
}

/// `key` as written under `namespace`: reserved `ALKAID:` keys become `ARROW:` keys for
/// Arrow readers; every other key is kept.
fn key_in(namespace: Namespace, key: &str) -> std::borrow::Cow<'_, str> {
    match (namespace, key.strip_prefix("ALKAID:")) {
        (Namespace::Arrow, Some(rest)) => format!("ARROW:{rest}").into(),
        _ => key.into(),
    }
}

/// Key-value pairs, or `None` when there are none (an absent vector, as other writers do).
/// Under [`Namespace::Arrow`], reserved `ALKAID:` keys are written as `ARROW:` keys; where a
/// field has both spellings of one key, the `ALKAID:` value wins, as it does on read.
pub(crate) fn encode_metadata<'b>(
    fbb: &mut FlatBufferBuilder<'b>,
    metadata: &Metadata,
    namespace: Namespace,
) -> Option<WIPOffset<Vector<'b, ForwardsUOffset<fb::KeyValue<'b>>>>> {
    if metadata.is_empty() {
        return None;
    }
    let shadowed = |key: &str| {
        namespace == Namespace::Arrow
            && key
                .strip_prefix("ARROW:")
                .is_some_and(|rest| metadata.contains_key(&format!("ALKAID:{rest}")))
    };
    let pairs: Vec<_> = metadata
        .iter()
        .filter(|(key, _)| !shadowed(key))
        .map(|(key, value)| {
            let key = fbb.create_string(&key_in(namespace, key));
            let value = fbb.create_string(value);
            fb::KeyValue::create(
                fbb,
                &fb::KeyValueArgs {
                    key: Some(key),
                    value: Some(value),
                },
            )
        })
        .collect();
    Some(fbb.create_vector(&pairs))
}

fn encode_field<'b>(
    fbb: &mut FlatBufferBuilder<'b>,
    field: &Field,
    ids: &DictionaryIds,
    namespace: Namespace,
    cursor: &mut usize,
) -> WIPOffset<fb::Field<'b>> {
    let (value_type, dictionary) = match field.data_type() {
        DataType::Dictionary {
            key,
            value,
            ordered,
        } => {
            let id = ids.id_at(*cursor);
            *cursor += 1;
            let (bit_width, is_signed) = integer_params(*key);
            let index_type = fb::Int::create(
                fbb,
                &fb::IntArgs {
                    bitWidth: bit_width,
                    is_signed,
                },
            );
            let encoding = fb::DictionaryEncoding::create(
                fbb,
                &fb::DictionaryEncodingArgs {
                    id,
                    indexType: Some(index_type),
                    isOrdered: *ordered,
                    dictionaryKind: fb::DictionaryKind::DenseArray,
                },
            );
            (value.as_ref(), Some(encoding))
        }
        other => (other, None),
    };
    let children: Vec<_> = value_type
        .children()
        .iter()
        .map(|child| encode_field(fbb, child, ids, namespace, cursor))
        .collect();
    let children = fbb.create_vector(&children);
    let (type_type, type_) = encode_type(fbb, value_type);
    let name = fbb.create_string(field.name());
    let custom_metadata = encode_metadata(fbb, field.metadata(), namespace);
    fb::Field::create(
        fbb,
        &fb::FieldArgs {
            name: Some(name),
            nullable: field.is_nullable(),
            type_type,
            type_: Some(type_),
            dictionary,
            children: Some(children),
            custom_metadata,
        },
    )
}

pub(crate) fn integer_params(key: IntegerType) -> (i32, bool) {
    ((key.byte_width() * 8) as i32, key.is_signed())
}

fn fb_time_unit(unit: TimeUnit) -> fb::TimeUnit {
    match unit {
        TimeUnit::Second => fb::TimeUnit::SECOND,
        TimeUnit::Millisecond => fb::TimeUnit::MILLISECOND,
        TimeUnit::Microsecond => fb::TimeUnit::MICROSECOND,
        TimeUnit::Nanosecond => fb::TimeUnit::NANOSECOND,
    }
}

pub(crate) fn encode_type<'b>(
    fbb: &mut FlatBufferBuilder<'b>,
    data_type: &DataType,
) -> (fb::Type, WIPOffset<UnionWIPOffset>) {
    use DataType as D;
    let int = |fbb: &mut FlatBufferBuilder<'b>, bit_width: i32, is_signed: bool| {
        let args = fb::IntArgs {
            bitWidth: bit_width,
            is_signed,
        };
        (fb::Type::Int, fb::Int::create(fbb, &args).as_union_value())
    };
    let float = |fbb: &mut FlatBufferBuilder<'b>, precision| {
        let args = fb::FloatingPointArgs { precision };
        let table = fb::FloatingPoint::create(fbb, &args).as_union_value();
        (fb::Type::FloatingPoint, table)
    };
    match data_type {
        D::Null => (fb::Type::Null, empty_table(fbb)),
        D::Boolean => (fb::Type::Bool, empty_table(fbb)),
        D::Int8 => int(fbb, 8, true),
        D::Int16 => int(fbb, 16, true),
        D::Int32 => int(fbb, 32, true),
        D::Int64 => int(fbb, 64, true),
        D::UInt8 => int(fbb, 8, false),
        D::UInt16 => int(fbb, 16, false),
        D::UInt32 => int(fbb, 32, false),
        D::UInt64 => int(fbb, 64, false),
        D::Float16 => float(fbb, fb::Precision::HALF),
        D::Float32 => float(fbb, fb::Precision::SINGLE),
        D::Float64 => float(fbb, fb::Precision::DOUBLE),
        D::Decimal(decimal) => {
            let args = fb::DecimalArgs {
                precision: i32::from(decimal.precision()),
                scale: i32::from(decimal.scale()),
                bitWidth: i32::from(decimal.width().bits()),
            };
            let table = fb::Decimal::create(fbb, &args).as_union_value();
            (fb::Type::Decimal, table)
        }
        D::Date32 | D::Date64 => {
            let unit = if matches!(data_type, D::Date32) {
                fb::DateUnit::DAY
            } else {
                fb::DateUnit::MILLISECOND
            };
            let table = fb::Date::create(fbb, &fb::DateArgs { unit }).as_union_value();
            (fb::Type::Date, table)
        }
        D::Time(unit) => {
            let args = fb::TimeArgs {
                unit: fb_time_unit(*unit),
                bitWidth: i32::from(DataType::time_bit_width(*unit)),
            };
            (
                fb::Type::Time,
                fb::Time::create(fbb, &args).as_union_value(),
            )
        }
        D::Timestamp(unit, timezone) => {
            let timezone = timezone.as_deref().map(|tz| fbb.create_string(tz));
            let args = fb::TimestampArgs {
                unit: fb_time_unit(*unit),
                timezone,
            };
            let table = fb::Timestamp::create(fbb, &args).as_union_value();
            (fb::Type::Timestamp, table)
        }
        D::Duration(unit) => {
            let args = fb::DurationArgs {
                unit: fb_time_unit(*unit),
            };
            let table = fb::Duration::create(fbb, &args).as_union_value();
            (fb::Type::Duration, table)
        }
        D::Interval(unit) => {
            let unit = match unit {
                IntervalUnit::YearMonth => fb::IntervalUnit::YEAR_MONTH,
                IntervalUnit::DayTime => fb::IntervalUnit::DAY_TIME,
                IntervalUnit::MonthDayNano => fb::IntervalUnit::MONTH_DAY_NANO,
            };
            let table = fb::Interval::create(fbb, &fb::IntervalArgs { unit }).as_union_value();
            (fb::Type::Interval, table)
        }
        D::FixedSizeBinary(width) => {
            let args = fb::FixedSizeBinaryArgs { byteWidth: *width };
            let table = fb::FixedSizeBinary::create(fbb, &args).as_union_value();
            (fb::Type::FixedSizeBinary, table)
        }
        D::Binary => (fb::Type::Binary, empty_table(fbb)),
        D::Utf8 => (fb::Type::Utf8, empty_table(fbb)),
        D::LargeBinary => (fb::Type::LargeBinary, empty_table(fbb)),
        D::LargeUtf8 => (fb::Type::LargeUtf8, empty_table(fbb)),
        D::BinaryView => (fb::Type::BinaryView, empty_table(fbb)),
        D::Utf8View => (fb::Type::Utf8View, empty_table(fbb)),
        D::List(_) => (fb::Type::List, empty_table(fbb)),
        D::LargeList(_) => (fb::Type::LargeList, empty_table(fbb)),
        D::ListView(_) => (fb::Type::ListView, empty_table(fbb)),
        D::LargeListView(_) => (fb::Type::LargeListView, empty_table(fbb)),
        D::FixedSizeList(_, size) => {
            let args = fb::FixedSizeListArgs { listSize: *size };
            let table = fb::FixedSizeList::create(fbb, &args).as_union_value();
            (fb::Type::FixedSizeList, table)
        }
        D::Struct(_) => (fb::Type::Struct_, empty_table(fbb)),
        D::Map(map) => {
            let args = fb::MapArgs {
                keysSorted: map.keys_sorted(),
            };
            (fb::Type::Map, fb::Map::create(fbb, &args).as_union_value())
        }
        D::Union(union) => {
            let ids: Vec<i32> = union.type_ids().iter().map(|&id| i32::from(id)).collect();
            let type_ids = fbb.create_vector(&ids);
            let mode = match union.mode() {
                UnionMode::Sparse => fb::UnionMode::Sparse,
                UnionMode::Dense => fb::UnionMode::Dense,
            };
            let args = fb::UnionArgs {
                mode,
                typeIds: Some(type_ids),
            };
            (
                fb::Type::Union,
                fb::Union::create(fbb, &args).as_union_value(),
            )
        }
        D::RunEndEncoded(_) => (fb::Type::RunEndEncoded, empty_table(fbb)),
        // A dictionary's field carries its value type; `encode_field` unwraps it first. A
        // dictionary nested directly in a dictionary has no field of its own to do that.
        D::Dictionary { value, .. } => encode_type(fbb, value),
    }
}

/// Every type table without fields has the same bytes: an empty table.
fn empty_table(fbb: &mut FlatBufferBuilder<'_>) -> WIPOffset<UnionWIPOffset> {
    let start = fbb.start_table();
    fbb.end_table(start).as_union_value()
}

// ----- reading

/// Reads a schema, and the dictionary ids of its dictionary fields.
///
/// # Errors
/// Besides what is malformed: a feature the schema says its stream uses that this reader
/// does not know (the spec's way of saying "do not read this if you cannot").
pub(crate) fn decode_schema(schema: fb::Schema<'_>) -> Result<(Schema, DictionaryIds)> {
    for feature in schema.features().iter().flatten() {
        match feature {
            fb::Feature::UNUSED
            | fb::Feature::DICTIONARY_REPLACEMENT
            | fb::Feature::COMPRESSED_BODY => {}
            unknown => {
                return Err(IpcError::unsupported(format!(
                    "the schema declares feature {}, which this reader does not know",
                    unknown.0
                )));
            }
        }
    }
    let mut ids = Vec::new();
    let fields = match schema.fields() {
        Some(fields) => Fields::from(decode_fields(fields, &mut ids, 0, None)?),
        None => Fields::empty(),
    };
    let metadata = decode_metadata(schema.custom_metadata())?;
    let schema = Schema::new(fields).with_metadata(metadata);
    let ids = DictionaryIds::from_decoded_walk(&schema, ids)?;
    Ok((schema, ids))
}

pub(crate) fn decode_metadata(
    pairs: Option<Vector<'_, ForwardsUOffset<fb::KeyValue<'_>>>>,
) -> Result<Metadata> {
    let mut metadata = Metadata::new();
    for pair in pairs.iter().flatten() {
        // Some writers leave out the value of an empty entry; treat it as empty, as others do.
        let key = pair
            .key()
            .ok_or_else(|| IpcError::malformed("a custom metadata entry has no key"))?;
        metadata.insert(key, pair.value().unwrap_or(""));
    }
    Ok(metadata)
}

fn decode_fields(
    fields: Vector<'_, ForwardsUOffset<fb::Field<'_>>>,
    ids: &mut Vec<i64>,
    depth: usize,
    parent: Option<Path<'_>>,
) -> Result<Vec<FieldRef>> {
    // Sized up front (a collect into a `Result` cannot know the count, and grew twice
    // for seven fields); the count is bounded by the verified message's length.
    let mut decoded = Vec::with_capacity(fields.len());
    for (i, field) in fields.iter().enumerate() {
        decoded.push(Arc::new(decode_field(field, ids, depth, parent, i)?));
    }
    Ok(decoded)
}

fn decode_field(
    field: fb::Field<'_>,
    ids: &mut Vec<i64>,
    depth: usize,
    parent: Option<Path<'_>>,
    index: usize,
) -> Result<Field> {
    let name = field.name().unwrap_or("");
    let unnamed;
    let shown = if name.is_empty() {
        unnamed = format!("#{index}");
        unnamed.as_str()
    } else {
        name
    };
    let path = match &parent {
        None => Path::Root(shown),
        Some(parent) => Path::Child(parent, shown),
    };
    if depth >= MAX_FIELD_DEPTH {
        return Err(IpcError::limit(format!(
            "field {path}: nested deeper than {MAX_FIELD_DEPTH} levels"
        )));
    }
    let dictionary = field.dictionary();
    if let Some(encoding) = dictionary {
        ids.push(encoding.id());
    }
    // A plain vector until the type is known: an empty one costs nothing, where an empty
    // `Fields` would be a shared static slice whose count every leaf field updated.
    let children = match field.children() {
        Some(children) => decode_fields(children, ids, depth + 1, Some(path))?,
        None => Vec::new(),
    };
    let value_type =
        decode_type(&field, children).map_err(|e| e.context(format!("field {path}")))?;
    let data_type = match dictionary {
        None => value_type,
        Some(encoding) => {
            let key = match encoding.indexType() {
                None => IntegerType::Int32,
                Some(int) => integer_type(int.bitWidth(), int.is_signed()).ok_or_else(|| {
                    IpcError::malformed(format!(
                        "field {path}: dictionary keys of {} bits are not an integer type",
                        int.bitWidth()
                    ))
                })?,
            };
            DataType::Dictionary {
                key,
                value: Box::new(value_type),
                ordered: encoding.isOrdered(),
            }
        }
    };
    let metadata = decode_metadata(field.custom_metadata())?;
    Ok(Field::new(name, data_type, field.nullable()).with_metadata(metadata))
}

pub(crate) fn integer_type(bit_width: i32, signed: bool) -> Option<IntegerType> {
    IntegerType::from_bit_width(i64::from(bit_width), signed)
}

fn time_unit(unit: fb::TimeUnit) -> Result<TimeUnit> {
    Ok(match unit {
        fb::TimeUnit::SECOND => TimeUnit::Second,
        fb::TimeUnit::MILLISECOND => TimeUnit::Millisecond,
        fb::TimeUnit::MICROSECOND => TimeUnit::Microsecond,
        fb::TimeUnit::NANOSECOND => TimeUnit::Nanosecond,
        other => {
            return Err(IpcError::malformed(format!(
                "unknown time unit {}",
                other.0
            )));
        }
    })
}

/// The one child of a list-like type, or an error naming the type.
fn only_child(mut children: Vec<FieldRef>, type_name: &str) -> Result<FieldRef> {
    match children.pop() {
        Some(child) if children.is_empty() => Ok(child),
        _ => Err(IpcError::malformed(format!(
            "a {type_name} needs exactly one child field, found {}",
            children.len() + 1
        ))),
    }
}

fn missing(type_name: &str) -> IpcError {
    IpcError::malformed(format!("the {type_name} type table is missing"))
}

fn decode_type(field: &fb::Field<'_>, children: Vec<FieldRef>) -> Result<DataType> {
    use DataType as D;
    let leaf = |data_type: DataType| {
        if children.is_empty() {
            Ok(data_type)
        } else {
            Err(IpcError::malformed(format!(
                "a {data_type} field has {} child fields, expected none",
                children.len()
            )))
        }
    };
    let data_type = match field.type_type() {
        fb::Type::Null => leaf(D::Null)?,
        fb::Type::Bool => leaf(D::Boolean)?,
        fb::Type::Int => {
            let int = field.type__as_int().ok_or_else(|| missing("Int"))?;
            leaf(match integer_type(int.bitWidth(), int.is_signed()) {
                Some(integer) => integer.to_data_type(),
                None => {
                    return Err(IpcError::malformed(format!(
                        "integers of {} bits are not supported",
                        int.bitWidth()
                    )));
                }
            })?
        }
        fb::Type::FloatingPoint => {
            let float = field
                .type__as_floating_point()
                .ok_or_else(|| missing("FloatingPoint"))?;
            leaf(match float.precision() {
                fb::Precision::HALF => D::Float16,
                fb::Precision::SINGLE => D::Float32,
                fb::Precision::DOUBLE => D::Float64,
                other => {
                    return Err(IpcError::malformed(format!(
                        "unknown floating-point precision {}",
                        other.0
                    )));
                }
            })?
        }
        fb::Type::Decimal => {
            let decimal = field.type__as_decimal().ok_or_else(|| missing("Decimal"))?;
            let width = u16::try_from(decimal.bitWidth())
                .ok()
                .and_then(DecimalWidth::from_bits)
                .ok_or_else(|| {
                    IpcError::malformed(format!(
                        "decimals of {} bits are not supported",
                        decimal.bitWidth()
                    ))
                })?;
            let precision = u8::try_from(decimal.precision()).map_err(|_| {
                IpcError::malformed(format!("decimal precision {}", decimal.precision()))
            })?;
            let scale = i8::try_from(decimal.scale())
                .map_err(|_| IpcError::malformed(format!("decimal scale {}", decimal.scale())))?;
            leaf(D::Decimal(DecimalType::try_new(width, precision, scale)?))?
        }
        fb::Type::Date => {
            let date = field.type__as_date().ok_or_else(|| missing("Date"))?;
            leaf(match date.unit() {
                fb::DateUnit::DAY => D::Date32,
                fb::DateUnit::MILLISECOND => D::Date64,
                other => {
                    return Err(IpcError::malformed(format!(
                        "unknown date unit {}",
                        other.0
                    )));
                }
            })?
        }
        fb::Type::Time => {
            let time = field.type__as_time().ok_or_else(|| missing("Time"))?;
            let unit = time_unit(time.unit())?;
            if time.bitWidth() != i32::from(DataType::time_bit_width(unit)) {
                return Err(IpcError::malformed(format!(
                    "a time in {} needs {} bits, found {}",
                    unit.abbreviation(),
                    DataType::time_bit_width(unit),
                    time.bitWidth()
                )));
            }
            leaf(D::Time(unit))?
        }
        fb::Type::Timestamp => {
            let timestamp = field
                .type__as_timestamp()
                .ok_or_else(|| missing("Timestamp"))?;
            // An empty string and no string both mean "no time zone"; keep whichever the
            // writer chose, so that schemas round-trip exactly.
            let timezone = timestamp.timezone().map(Arc::from);
            leaf(D::Timestamp(time_unit(timestamp.unit())?, timezone))?
        }
        fb::Type::Duration => {
            let duration = field
                .type__as_duration()
                .ok_or_else(|| missing("Duration"))?;
            leaf(D::Duration(time_unit(duration.unit())?))?
        }
        fb::Type::Interval => {
            let interval = field
                .type__as_interval()
                .ok_or_else(|| missing("Interval"))?;
            leaf(D::Interval(match interval.unit() {
                fb::IntervalUnit::YEAR_MONTH => IntervalUnit::YearMonth,
                fb::IntervalUnit::DAY_TIME => IntervalUnit::DayTime,
                fb::IntervalUnit::MONTH_DAY_NANO => IntervalUnit::MonthDayNano,
                other => {
                    return Err(IpcError::malformed(format!(
                        "unknown interval unit {}",
                        other.0
                    )));
                }
            }))?
        }
        fb::Type::FixedSizeBinary => {
            let binary = field
                .type__as_fixed_size_binary()
                .ok_or_else(|| missing("FixedSizeBinary"))?;
            leaf(D::FixedSizeBinary(binary.byteWidth()))?
        }
        fb::Type::Binary => leaf(D::Binary)?,
        fb::Type::Utf8 => leaf(D::Utf8)?,
        fb::Type::LargeBinary => leaf(D::LargeBinary)?,
        fb::Type::LargeUtf8 => leaf(D::LargeUtf8)?,
        fb::Type::BinaryView => leaf(D::BinaryView)?,
        fb::Type::Utf8View => leaf(D::Utf8View)?,
        fb::Type::List => D::List(only_child(children, "List")?),
        fb::Type::LargeList => D::LargeList(only_child(children, "LargeList")?),
        fb::Type::ListView => D::ListView(only_child(children, "ListView")?),
        fb::Type::LargeListView => D::LargeListView(only_child(children, "LargeListView")?),
        fb::Type::FixedSizeList => {
            let list = field
                .type__as_fixed_size_list()
                .ok_or_else(|| missing("FixedSizeList"))?;
            D::FixedSizeList(only_child(children, "FixedSizeList")?, list.listSize())
        }
        fb::Type::Struct_ => D::Struct(Fields::from(children)),
        fb::Type::Map => {
            let map = field.type__as_map().ok_or_else(|| missing("Map"))?;
            D::Map(MapType::try_new(
                only_child(children, "Map")?,
                map.keysSorted(),
            )?)
        }
        fb::Type::Union => {
            let union = field.type__as_union().ok_or_else(|| missing("Union"))?;
            let mode = match union.mode() {
                fb::UnionMode::Sparse => UnionMode::Sparse,
                fb::UnionMode::Dense => UnionMode::Dense,
                other => {
                    return Err(IpcError::malformed(format!(
                        "unknown union mode {}",
                        other.0
                    )));
                }
            };
            D::Union(match union.typeIds() {
                Some(ids) => UnionType::try_new(children, ids.iter(), mode)?,
                None => UnionType::with_default_ids(children, mode)?,
            })
        }
        fb::Type::RunEndEncoded => match &children[..] {
            [run_ends, values] => D::RunEndEncoded(RunEndEncodedType::try_new(
                run_ends.clone(),
                values.clone(),
            )?),
            other => {
                return Err(IpcError::malformed(format!(
                    "a RunEndEncoded field needs two child fields, found {}",
                    other.len()
                )));
            }
        },
        fb::Type::NONE => return Err(IpcError::malformed("a field has no type")),
        other => {
            return Err(IpcError::unsupported(format!(
                "unknown type tag {} (written by a newer format version?)",
                other.0
            )));
        }
    };
    // The children were checked when they were decoded.
    data_type.validate_shallow()?;
    Ok(data_type)
}

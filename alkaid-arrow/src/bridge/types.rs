//! Data types, fields and schemas, both ways.
//!
//! The two type systems describe the same format, so most types map one to one. The
//! differences: arrow-rs keeps a dictionary's `ordered` flag on the field rather than in
//! the type, and splits times into `Time32`/`Time64` by unit, where Alkaid derives the
//! width from the unit. Metadata keys pass through unchanged, extension annotations
//! included.

use std::sync::Arc;

use alkaid_schema::{
    DataType, DecimalType, DecimalWidth, Field, IntegerType, IntervalUnit, MapType, Metadata,
    RunEndEncodedType, Schema, SchemaError, TimeUnit, UnionMode, UnionType,
};

use super::arrow_schema as rs;
use crate::BridgeError;

/// The arrow-rs type of `data_type`. A dictionary's `ordered` flag is not part of an
/// arrow-rs type: [`field_to_arrow`] carries it on the field.
pub fn data_type_to_arrow(data_type: &DataType) -> rs::DataType {
    use rs::DataType as A;
    match data_type {
        DataType::Null => A::Null,
        DataType::Boolean => A::Boolean,
        DataType::Int8 => A::Int8,
        DataType::Int16 => A::Int16,
        DataType::Int32 => A::Int32,
        DataType::Int64 => A::Int64,
        DataType::UInt8 => A::UInt8,
        DataType::UInt16 => A::UInt16,
        DataType::UInt32 => A::UInt32,
        DataType::UInt64 => A::UInt64,
        DataType::Float16 => A::Float16,
        DataType::Float32 => A::Float32,
        DataType::Float64 => A::Float64,
        DataType::Decimal(d) => {
            let (p, s) = (d.precision(), d.scale());
            match d.width() {
                DecimalWidth::W32 => A::Decimal32(p, s),
                DecimalWidth::W64 => A::Decimal64(p, s),
                DecimalWidth::W128 => A::Decimal128(p, s),
                DecimalWidth::W256 => A::Decimal256(p, s),
            }
        }
        DataType::Date32 => A::Date32,
        DataType::Date64 => A::Date64,
        DataType::Time(unit @ (TimeUnit::Second | TimeUnit::Millisecond)) => {
            A::Time32(unit_to_arrow(*unit))
        }
        DataType::Time(unit) => A::Time64(unit_to_arrow(*unit)),
        DataType::Timestamp(unit, zone) => A::Timestamp(unit_to_arrow(*unit), zone.clone()),
        DataType::Duration(unit) => A::Duration(unit_to_arrow(*unit)),
        DataType::Interval(unit) => A::Interval(match unit {
            IntervalUnit::YearMonth => rs::IntervalUnit::YearMonth,
            IntervalUnit::DayTime => rs::IntervalUnit::DayTime,
            IntervalUnit::MonthDayNano => rs::IntervalUnit::MonthDayNano,
        }),
        DataType::FixedSizeBinary(size) => A::FixedSizeBinary(*size),
        DataType::Binary => A::Binary,
        DataType::Utf8 => A::Utf8,
        DataType::LargeBinary => A::LargeBinary,
        DataType::LargeUtf8 => A::LargeUtf8,
        DataType::BinaryView => A::BinaryView,
        DataType::Utf8View => A::Utf8View,
        DataType::List(item) => A::List(field_ref_to_arrow(item)),
        DataType::LargeList(item) => A::LargeList(field_ref_to_arrow(item)),
        DataType::ListView(item) => A::ListView(field_ref_to_arrow(item)),
        DataType::LargeListView(item) => A::LargeListView(field_ref_to_arrow(item)),
        DataType::FixedSizeList(item, size) => A::FixedSizeList(field_ref_to_arrow(item), *size),
        DataType::Struct(fields) => {
            A::Struct(fields.iter().map(|f| field_ref_to_arrow(f)).collect())
        }
        DataType::Map(map) => A::Map(field_ref_to_arrow(map.entries()), map.keys_sorted()),
        DataType::Union(union) => {
            let fields = union.fields().iter().map(|f| field_ref_to_arrow(f));
            // Alkaid's union type has unique ids in 0..=127, one per field: what arrow-rs
            // checks here, so the error branch cannot be taken.
            let fields = rs::UnionFields::try_new(union.type_ids().iter().copied(), fields)
                .unwrap_or_else(|e| unreachable!("an Alkaid union's ids are valid: {e}"));
            let mode = match union.mode() {
                UnionMode::Sparse => rs::UnionMode::Sparse,
                UnionMode::Dense => rs::UnionMode::Dense,
            };
            A::Union(fields, mode)
        }
        DataType::Dictionary { key, value, .. } => A::Dictionary(
            Box::new(data_type_to_arrow(&key.to_data_type())),
            Box::new(data_type_to_arrow(value)),
        ),
        DataType::RunEndEncoded(ree) => A::RunEndEncoded(
            field_ref_to_arrow(ree.run_ends()),
            field_ref_to_arrow(ree.values()),
        ),
    }
}

/// The Alkaid type of an arrow-rs type; dictionaries come out unordered (see
/// [`field_from_arrow`] for the flag).
///
/// # Errors
/// [`BridgeError::Type`] for what the format forbids and arrow-rs lets through: a
/// `Time32` in micro- or nanoseconds, a `Time64` in seconds or milliseconds, a decimal
/// whose precision does not fit its width, a dictionary key that is not an integer, a
/// union, map or run-end encoded type with invalid children.
pub fn data_type_from_arrow(data_type: &rs::DataType) -> Result<DataType, BridgeError> {
    use rs::DataType as A;
    let decimal = |width, p, s| Ok(DataType::Decimal(DecimalType::try_new(width, p, s)?));
    Ok(match data_type {
        A::Null => DataType::Null,
        A::Boolean => DataType::Boolean,
        A::Int8 => DataType::Int8,
        A::Int16 => DataType::Int16,
        A::Int32 => DataType::Int32,
        A::Int64 => DataType::Int64,
        A::UInt8 => DataType::UInt8,
        A::UInt16 => DataType::UInt16,
        A::UInt32 => DataType::UInt32,
        A::UInt64 => DataType::UInt64,
        A::Float16 => DataType::Float16,
        A::Float32 => DataType::Float32,
        A::Float64 => DataType::Float64,
        A::Decimal32(p, s) => return decimal(DecimalWidth::W32, *p, *s),
        A::Decimal64(p, s) => return decimal(DecimalWidth::W64, *p, *s),
        A::Decimal128(p, s) => return decimal(DecimalWidth::W128, *p, *s),
        A::Decimal256(p, s) => return decimal(DecimalWidth::W256, *p, *s),
        A::Date32 => DataType::Date32,
        A::Date64 => DataType::Date64,
        A::Time32(unit @ (rs::TimeUnit::Second | rs::TimeUnit::Millisecond))
        | A::Time64(unit @ (rs::TimeUnit::Microsecond | rs::TimeUnit::Nanosecond)) => {
            DataType::Time(unit_from_arrow(*unit))
        }
        A::Time32(unit) | A::Time64(unit) => {
            return Err(invalid(
                "Time",
                format!("{data_type} ({unit:?}) has the wrong width for its unit"),
            ));
        }
        A::Timestamp(unit, zone) => DataType::Timestamp(unit_from_arrow(*unit), zone.clone()),
        A::Duration(unit) => DataType::Duration(unit_from_arrow(*unit)),
        A::Interval(unit) => DataType::Interval(match unit {
            rs::IntervalUnit::YearMonth => IntervalUnit::YearMonth,
            rs::IntervalUnit::DayTime => IntervalUnit::DayTime,
            rs::IntervalUnit::MonthDayNano => IntervalUnit::MonthDayNano,
        }),
        A::FixedSizeBinary(size) => DataType::FixedSizeBinary(*size),
        A::Binary => DataType::Binary,
        A::Utf8 => DataType::Utf8,
        A::LargeBinary => DataType::LargeBinary,
        A::LargeUtf8 => DataType::LargeUtf8,
        A::BinaryView => DataType::BinaryView,
        A::Utf8View => DataType::Utf8View,
        A::List(item) => DataType::List(field_ref_from_arrow(item)?),
        A::LargeList(item) => DataType::LargeList(field_ref_from_arrow(item)?),
        A::ListView(item) => DataType::ListView(field_ref_from_arrow(item)?),
        A::LargeListView(item) => DataType::LargeListView(field_ref_from_arrow(item)?),
        A::FixedSizeList(item, size) => DataType::FixedSizeList(field_ref_from_arrow(item)?, *size),
        A::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| field_ref_from_arrow(f))
                .collect::<Result<Vec<_>, _>>()?
                .into(),
        ),
        A::Map(entries, sorted) => {
            DataType::Map(MapType::try_new(field_ref_from_arrow(entries)?, *sorted)?)
        }
        A::Union(fields, mode) => {
            let ids = fields.iter().map(|(id, _)| i32::from(id));
            let children = fields
                .iter()
                .map(|(_, f)| field_ref_from_arrow(f))
                .collect::<Result<Vec<_>, _>>()?;
            let mode = match mode {
                rs::UnionMode::Sparse => UnionMode::Sparse,
                rs::UnionMode::Dense => UnionMode::Dense,
            };
            DataType::Union(UnionType::try_new(children, ids, mode)?)
        }
        A::Dictionary(key, value) => {
            let key_type = data_type_from_arrow(key)?;
            let Some(key) = IntegerType::from_data_type(&key_type) else {
                return Err(invalid(
                    "Dictionary",
                    format!("expected an integer key, found {key}"),
                ));
            };
            DataType::Dictionary {
                key,
                value: Box::new(data_type_from_arrow(value)?),
                ordered: false,
            }
        }
        A::RunEndEncoded(run_ends, values) => DataType::RunEndEncoded(RunEndEncodedType::try_new(
            field_ref_from_arrow(run_ends)?,
            field_ref_from_arrow(values)?,
        )?),
    })
}

fn invalid(type_name: &'static str, reason: String) -> BridgeError {
    BridgeError::Type(SchemaError::InvalidType { type_name, reason })
}

fn unit_to_arrow(unit: TimeUnit) -> rs::TimeUnit {
    match unit {
        TimeUnit::Second => rs::TimeUnit::Second,
        TimeUnit::Millisecond => rs::TimeUnit::Millisecond,
        TimeUnit::Microsecond => rs::TimeUnit::Microsecond,
        TimeUnit::Nanosecond => rs::TimeUnit::Nanosecond,
    }
}

fn unit_from_arrow(unit: rs::TimeUnit) -> TimeUnit {
    match unit {
        rs::TimeUnit::Second => TimeUnit::Second,
        rs::TimeUnit::Millisecond => TimeUnit::Millisecond,
        rs::TimeUnit::Microsecond => TimeUnit::Microsecond,
        rs::TimeUnit::Nanosecond => TimeUnit::Nanosecond,
    }
}

/// The arrow-rs field of `field`: name, type, nullability, metadata, and a dictionary's
/// `ordered` flag.
pub fn field_to_arrow(field: &Field) -> rs::Field {
    let ordered = matches!(
        field.data_type(),
        DataType::Dictionary { ordered: true, .. }
    );
    rs::Field::new(
        field.name(),
        data_type_to_arrow(field.data_type()),
        field.is_nullable(),
    )
    .with_dict_is_ordered(ordered)
    .with_metadata(metadata_to_arrow(field.metadata()))
}

fn field_ref_to_arrow(field: &Field) -> rs::FieldRef {
    Arc::new(field_to_arrow(field))
}

/// The Alkaid field of an arrow-rs field, the `ordered` flag of its dictionary included.
///
/// # Errors
/// As [`data_type_from_arrow`].
pub fn field_from_arrow(field: &rs::Field) -> Result<Field, BridgeError> {
    let mut data_type = data_type_from_arrow(field.data_type())?;
    if let DataType::Dictionary { ordered, .. } = &mut data_type {
        *ordered = field.dict_is_ordered().unwrap_or(false);
    }
    Ok(
        Field::new(field.name().as_str(), data_type, field.is_nullable())
            .with_metadata(metadata_from_arrow(field.metadata().iter())),
    )
}

fn field_ref_from_arrow(field: &rs::Field) -> Result<Arc<Field>, BridgeError> {
    field_from_arrow(field).map(Arc::new)
}

/// The arrow-rs schema of `schema`, metadata included.
pub fn schema_to_arrow(schema: &Schema) -> rs::Schema {
    let fields: Vec<rs::FieldRef> = schema
        .fields()
        .iter()
        .map(|f| field_ref_to_arrow(f))
        .collect();
    rs::Schema::new_with_metadata(fields, metadata_to_arrow(schema.metadata()))
}

/// The Alkaid schema of an arrow-rs schema.
///
/// # Errors
/// As [`data_type_from_arrow`], for the first field that fails.
pub fn schema_from_arrow(schema: &rs::Schema) -> Result<Schema, BridgeError> {
    let fields = schema
        .fields()
        .iter()
        .map(|f| field_ref_from_arrow(f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Schema::new(fields).with_metadata(metadata_from_arrow(schema.metadata().iter())))
}

fn metadata_to_arrow(metadata: &Metadata) -> std::collections::HashMap<String, String> {
    metadata
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// arrow-rs keeps metadata in a map (a hash map up to release 59, a sorted one from 60), so
/// the order is lost on the way through; the keys are sorted here so that the same map
/// always gives the same Alkaid metadata.
fn metadata_from_arrow<'a>(pairs: impl Iterator<Item = (&'a String, &'a String)>) -> Metadata {
    let mut pairs: Vec<(&String, &String)> = pairs.collect();
    pairs.sort_unstable();
    pairs
        .into_iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

//! `arrow.parquet.variant`: Parquet's Variant, a self-describing binary value that may be
//! shredded into typed columns.

use std::any::Any;
use std::sync::Arc;

use super::{ExtensionFactory, ExtensionType};
use crate::{DataType, Field, Fields, SchemaError, TimeUnit};

const NAME: &str = "arrow.parquet.variant";

/// `arrow.parquet.variant`: each value a Parquet Variant, stored as a struct of
///
/// - `metadata`: the field-name dictionary (`Binary`, `LargeBinary` or `BinaryView`,
///   possibly dictionary- or run-end encoded), never null in a valid slot;
/// - `value`: the value's bytes (`Binary`, `LargeBinary` or `BinaryView`), needed unless
///   `typed_value` is there;
/// - `typed_value` (optional): the value's shredded parts, typed: a primitive of a type
///   the Variant has (booleans, `Int8` to `Int64`, floats, decimals up to 38 digits,
///   `Date32`, `Time64(µs)`, timestamps in µs or ns, binary, text, `FixedSizeBinary(16)`
///   for UUIDs); a list whose elements are structs of `value` and/or `typed_value`; or a
///   struct (an object's shredded fields) whose every field is such a struct.
///
/// The children are found by name, in any order. The extension's description is empty.
///
/// ```
/// use alkaid_schema::extension::{ExtensionType, ParquetVariant};
/// use alkaid_schema::{DataType, Field};
///
/// let unshredded = ParquetVariant::storage_type();
/// ParquetVariant.check_storage(&unshredded)?;
///
/// let typed = DataType::Struct(vec![
///     Field::new("metadata", DataType::Binary, false),
///     Field::new("typed_value", DataType::UInt32, true),
/// ].into());
/// let error = ParquetVariant.check_storage(&typed).unwrap_err().to_string();
/// assert!(error.contains("typed_value: UInt32 is not a shredded Variant type"), "{error}");
/// # Ok::<(), alkaid_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParquetVariant;

impl ParquetVariant {
    /// The storage of unshredded Variants: `Struct(metadata: Binary not null, value: Binary)`.
    pub fn storage_type() -> DataType {
        DataType::Struct(Self::storage_fields())
    }

    /// The fields of [`storage_type`](Self::storage_type).
    pub fn storage_fields() -> Fields {
        vec![
            Field::new("metadata", DataType::Binary, false),
            Field::new("value", DataType::Binary, true),
        ]
        .into()
    }
}

impl ParquetVariant {
    /// The Variant type (the spec's name, as `int64`, `decimal4`, `timestamp_ntz`) that a
    /// shredded `typed_value` of `data_type` holds, `None` for a type that holds none.
    /// Objects (structs) and arrays (lists) are shapes, not types, and give `None`.
    ///
    /// ```
    /// use alkaid_schema::extension::ParquetVariant;
    /// use alkaid_schema::{DataType, TimeUnit};
    ///
    /// assert_eq!(ParquetVariant::shredded_type_name(&DataType::Utf8View), Some("string"));
    /// let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    /// assert_eq!(ParquetVariant::shredded_type_name(&utc), Some("timestamp"));
    /// assert_eq!(ParquetVariant::shredded_type_name(&DataType::UInt32), None);
    /// ```
    pub fn shredded_type_name(data_type: &DataType) -> Option<&'static str> {
        const PLAIN: [(DataType, &str); 9] = [
            (DataType::Boolean, "boolean"),
            (DataType::Int8, "int8"),
            (DataType::Int16, "int16"),
            (DataType::Int32, "int32"),
            (DataType::Int64, "int64"),
            (DataType::Float32, "float"),
            (DataType::Float64, "double"),
            (DataType::Date32, "date"),
            (DataType::Time(TimeUnit::Microsecond), "time"),
        ];
        Some(match data_type {
            DataType::Decimal(d) if d.scale() >= 0 => match d.precision() {
                0..=9 => "decimal4",
                10..=18 => "decimal8",
                19..=38 => "decimal16",
                _ => return None,
            },
            DataType::Timestamp(unit, zone) => match (unit, zone.is_some()) {
                (TimeUnit::Microsecond, true) => "timestamp",
                (TimeUnit::Microsecond, false) => "timestamp_ntz",
                (TimeUnit::Nanosecond, true) => "timestamp_nanos",
                (TimeUnit::Nanosecond, false) => "timestamp_ntz_nanos",
                _ => return None,
            },
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "binary",
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "string",
            DataType::FixedSizeBinary(16) => "uuid",
            other => {
                return PLAIN
                    .iter()
                    .find(|(t, _)| t == other)
                    .map(|(_, name)| *name);
            }
        })
    }
}

canonical_with_storage_rule!(
    ParquetVariant,
    NAME,
    Some(String::new()),
    |storage: &DataType| {
        check_group(storage, "", true).map_err(|reason| SchemaError::Extension {
            name: NAME.to_string(),
            reason,
        })
    }
);

fn is_binary(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

/// Checks a struct of `value` and/or `typed_value` (and `metadata` at the top), at
/// `path`: the whole storage, an object's field, or an array's element.
fn check_group(data_type: &DataType, path: &str, top: bool) -> Result<(), String> {
    let DataType::Struct(fields) = data_type else {
        return Err(format!(
            "{}expected a struct of value and typed_value, found {data_type}",
            place(path)
        ));
    };
    let child = |name: &str| fields.iter().find(|f| f.name() == name);
    let below = |name: &str| {
        if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        }
    };
    if top {
        let metadata = child("metadata").ok_or("expected a metadata field")?;
        let binary = match metadata.data_type() {
            DataType::Dictionary { value, .. } => is_binary(value),
            DataType::RunEndEncoded(ree) => is_binary(ree.values().data_type()),
            other => is_binary(other),
        };
        if !binary {
            return Err(format!(
                "metadata: expected Binary, LargeBinary or BinaryView, found {}",
                metadata.data_type()
            ));
        }
    }
    let value = child("value");
    let typed = child("typed_value");
    if let Some(value) = value
        && !is_binary(value.data_type())
    {
        return Err(format!(
            "{}: expected Binary, LargeBinary or BinaryView, found {}",
            below("value"),
            value.data_type()
        ));
    }
    if let Some(extra) = fields
        .iter()
        .find(|f| !(matches!(f.name(), "value" | "typed_value") || top && f.name() == "metadata"))
    {
        return Err(format!(
            "{}unexpected field {:?}",
            place(path),
            extra.name()
        ));
    }
    match typed {
        Some(typed) => check_typed(typed.data_type(), &below("typed_value")),
        None if value.is_some() => Ok(()),
        None => Err(format!(
            "{}expected a value or a typed_value field",
            place(path)
        )),
    }
}

fn place(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

/// Checks a `typed_value` at `path`.
fn check_typed(data_type: &DataType, path: &str) -> Result<(), String> {
    if ParquetVariant::shredded_type_name(data_type).is_some() {
        return Ok(());
    }
    match data_type {
        DataType::List(element)
        | DataType::LargeList(element)
        | DataType::ListView(element)
        | DataType::LargeListView(element) => check_group(
            element.data_type(),
            &format!("{path}.{}", element.name()),
            false,
        ),
        DataType::Struct(fields) => fields.iter().try_for_each(|field| {
            check_group(
                field.data_type(),
                &format!("{path}.{}", field.name()),
                false,
            )
        }),
        other => Err(format!("{path}: {other} is not a shredded Variant type")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(fields: Vec<Field>) -> DataType {
        DataType::Struct(fields.into())
    }

    fn shredded(typed: DataType) -> DataType {
        group(vec![
            Field::new("metadata", DataType::Binary, false),
            Field::new("value", DataType::Binary, true),
            Field::new("typed_value", typed, true),
        ])
    }

    #[test]
    fn shredded_objects_and_arrays_nested_three_deep_are_accepted() {
        let leaf = group(vec![
            Field::new("value", DataType::Binary, true),
            Field::new("typed_value", DataType::Utf8, true),
        ]);
        let list = group(vec![Field::new(
            "typed_value",
            DataType::list(leaf.clone()),
            true,
        )]);
        let object = group(vec![
            Field::new("value", DataType::BinaryView, true),
            Field::new(
                "typed_value",
                group(vec![
                    Field::new("tags", list, false),
                    Field::new("name", leaf, false),
                ]),
                true,
            ),
        ]);
        let storage = shredded(group(vec![Field::new("inner", object, false)]));
        ParquetVariant.check_storage(&storage).unwrap();
    }

    #[test]
    fn wrong_shapes_are_refused_with_their_path() {
        for (storage, expected) in [
            (
                DataType::Binary,
                "expected a struct of value and typed_value, found Binary",
            ),
            (
                group(vec![Field::new("value", DataType::Binary, true)]),
                "expected a metadata field",
            ),
            (
                group(vec![Field::new("metadata", DataType::Utf8, false)]),
                "metadata: expected Binary, LargeBinary or BinaryView, found Utf8",
            ),
            (
                group(vec![Field::new("metadata", DataType::Binary, false)]),
                "expected a value or a typed_value field",
            ),
            (
                shredded(DataType::FixedSizeBinary(4)),
                "typed_value: FixedSizeBinary(4) is not a shredded Variant type",
            ),
            (
                shredded(group(vec![Field::new("a", DataType::Int32, false)])),
                "typed_value.a: expected a struct of value and typed_value, found Int32",
            ),
            (
                shredded(DataType::list(group(vec![Field::new(
                    "typed_value",
                    DataType::UInt8,
                    true,
                )]))),
                "typed_value.item.typed_value: UInt8 is not a shredded Variant type",
            ),
            (
                group(vec![
                    Field::new("metadata", DataType::Binary, false),
                    Field::new("value", DataType::Binary, true),
                    Field::new("other", DataType::Binary, true),
                ]),
                "unexpected field \"other\"",
            ),
        ] {
            let error = ParquetVariant
                .check_storage(&storage)
                .unwrap_err()
                .to_string();
            assert!(error.contains(expected), "{storage}: {error}");
        }
    }
}

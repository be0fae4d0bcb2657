//! Checks that need a field, not only a type: nullability, and the values of canonical
//! extension types.
//!
//! The data layer validates an [`ArrayData`] against its type. A field says two more
//! things the type does not: whether it may hold nulls, and (in its metadata) which
//! extension type its values are. The format calls nullability metadata, and Arrow C++
//! reads data that breaks it, so readers accept such data by default; these checks are
//! what [`ValidationLevel::Strict`] adds, and what the IPC reader's nullability option runs.

use std::ops::Range;

use alkaid_data::{ArrayData, ValidationLevel};
use alkaid_schema::extension::MAX_OFFSET_MINUTES;
use alkaid_schema::json::parse_json;
use alkaid_schema::{DataType, Field, PhysicalType};

use crate::types::Int16Type;
use crate::variant::{VariantArray, VariantPath};
use crate::{Array, ArrayError, AsArray, StringViewArray, StructArray, make_array};

/// Validates `data` as the values of `field` at `level`: the data layer's checks, and at
/// [`ValidationLevel::Strict`] also [`check_nullability`] and the values of canonical
/// extension types (`arrow.json` holds JSON text).
///
/// # Errors
/// The first problem found, naming the field's path.
///
/// ```
/// use alkaid_array::{Array, StringArray, validate_field};
/// use alkaid_data::ValidationLevel;
/// use alkaid_schema::{DataType, Field};
///
/// let field = Field::new("doc", DataType::Utf8, true)
///     .with_metadata_entry("ARROW:extension:name", "arrow.json");
/// let values = StringArray::from(vec![r#"{"a": 1}"#, "{oops"]).to_data();
/// validate_field(&field, &values, ValidationLevel::Full)?; // the layout is fine
/// let error = validate_field(&field, &values, ValidationLevel::Strict).unwrap_err();
/// assert!(error.to_string().contains("slot 1 of arrow.json field \"doc\" is not JSON"));
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub fn validate_field(
    field: &Field,
    data: &ArrayData,
    level: ValidationLevel,
) -> Result<(), ArrayError> {
    data.validate(level)
        .map_err(|e| ArrayError::ColumnMismatch {
            column: format!("field {:?}", field.name()),
            reason: e.to_string(),
        })?;
    if level >= ValidationLevel::Strict {
        check_nullability(field, data)?;
        check_extension_values(field, data, field.name())?;
    }
    Ok(())
}

/// Refuses nulls in `field` or any field below it that is not nullable (but for fields of
/// the Null type, which hold nothing else). A null inside a
/// struct slot that is itself null does not count (the struct's validity masks it); below
/// lists, maps and unions, the child's slots that the parent's valid slots reach count.
///
/// # Errors
/// [`ArrayError::ColumnMismatch`] naming the path of the field and how many nulls it holds.
pub fn check_nullability(field: &Field, data: &ArrayData) -> Result<(), ArrayError> {
    walk(field, data, 0..data.len(), None, field.name())
}

/// `slots` are the slots of `data` that count; `mask`, when given, is validity (of `data`'s
/// slot positions) that must also hold for a slot to count.
fn walk(
    field: &Field,
    data: &ArrayData,
    slots: Range<usize>,
    mask: Option<&dyn Fn(usize) -> bool>,
    path: &str,
) -> Result<(), ArrayError> {
    let counted = |i: usize| mask.is_none_or(|valid| valid(i));
    // A Null column is nulls by its type, whatever its field says (apache-arrow JS marks
    // them not nullable): only the other types are checked.
    let null_type = data.data_type().to_physical() == PhysicalType::Null;
    if !field.is_nullable() && !null_type && data.null_count() > 0 {
        let nulls = slots
            .clone()
            .filter(|&i| data.is_null(i) && counted(i))
            .count();
        if nulls > 0 {
            return Err(ArrayError::ColumnMismatch {
                column: format!("field {path:?}"),
                reason: format!("not nullable, found {nulls} nulls"),
            });
        }
    }
    let fields = data.data_type().children();
    let child_path = |name: &str| format!("{path}.{name}");
    match data.data_type().to_physical() {
        PhysicalType::Struct => {
            // Child slot `offset + i` belongs to struct slot `i`.
            let valid = |i: usize| counted(i) && data.is_valid(i);
            let offset = data.offset();
            for (child, field) in data.children().iter().zip(fields) {
                let in_parent = |j: usize| valid(j - offset);
                let range = offset + slots.start..offset + slots.end;
                walk(
                    field,
                    child,
                    range,
                    Some(&in_parent),
                    &child_path(field.name()),
                )?;
            }
        }
        PhysicalType::List | PhysicalType::LargeList | PhysicalType::FixedSizeList(_) => {
            let child = &data.children()[0];
            let range = child_range(data, &slots).unwrap_or(0..child.len());
            walk(
                &fields[0],
                child,
                range,
                None,
                &child_path(fields[0].name()),
            )?;
        }
        PhysicalType::Dictionary(_) => {}
        _ => {
            for (child, field) in data.children().iter().zip(fields) {
                walk(
                    field,
                    child,
                    0..child.len(),
                    None,
                    &child_path(field.name()),
                )?;
            }
        }
    }
    Ok(())
}

/// The child slots that `slots` of a list or fixed-size list reach (validated data).
fn child_range(data: &ArrayData, slots: &Range<usize>) -> Option<Range<usize>> {
    let (start, end) = (data.offset() + slots.start, data.offset() + slots.end);
    match data.data_type() {
        DataType::FixedSizeList(_, size) => {
            let size = usize::try_from(*size).ok()?;
            Some(start * size..end * size)
        }
        DataType::List(_) | DataType::Map(_) => {
            let offsets = data.buffers()[0].typed::<i32>().ok()?;
            let at = |i: usize| usize::try_from(*offsets.get(i)?).ok();
            Some(at(start)?..at(end)?)
        }
        DataType::LargeList(_) => {
            let offsets = data.buffers()[0].typed::<i64>().ok()?;
            let at = |i: usize| usize::try_from(*offsets.get(i)?).ok();
            Some(at(start)?..at(end)?)
        }
        _ => None,
    }
}

/// `arrow.json` values must be JSON text, in this field and every field below it.
fn check_extension_values(field: &Field, data: &ArrayData, path: &str) -> Result<(), ArrayError> {
    let is_json = field
        .extension_name()
        .is_some_and(|name| matches!(name, "arrow.json" | "ipc.json"));
    if is_json {
        let array = make_array(data.clone());
        let texts: Box<dyn Iterator<Item = Option<&str>>> = match data.data_type() {
            DataType::Utf8 => Box::new(array.as_string::<i32>().iter()),
            DataType::LargeUtf8 => Box::new(array.as_string::<i64>().iter()),
            DataType::Utf8View => Box::new(
                array
                    .as_typed::<StringViewArray>()
                    .expect("a Utf8View array")
                    .iter(),
            ),
            // The extension's factory refuses other storage when the schema is resolved.
            _ => Box::new(std::iter::empty()),
        };
        for (slot, text) in texts.enumerate() {
            if let Some(Err(e)) = text.map(parse_json) {
                return Err(ArrayError::ColumnMismatch {
                    column: format!("field {path:?}"),
                    reason: format!("slot {slot} of arrow.json field {path:?} is not JSON: {e}"),
                });
            }
        }
    }
    if is_variant(field) {
        return check_variant_values(data, path);
    }
    if is_timestamp_with_offset(field) {
        return check_offsets(data, path);
    }
    let fields = match data.data_type() {
        DataType::Dictionary { .. } => return Ok(()),
        other => other.children(),
    };
    for (child, field) in data.children().iter().zip(fields) {
        check_extension_values(field, child, &format!("{path}.{}", field.name()))?;
    }
    Ok(())
}

fn is_timestamp_with_offset(field: &Field) -> bool {
    field.extension_name().is_some_and(|name| {
        matches!(
            name,
            "arrow.timestamp_with_offset" | "ipc.timestamp_with_offset"
        )
    })
}

/// Every offset of an `arrow.timestamp_with_offset` column within a day either way: the
/// plain offsets of its valid slots, or every value a dictionary or run holds.
fn check_offsets(data: &ArrayData, path: &str) -> Result<(), ArrayError> {
    let Some(offsets) = data.children().get(1) else {
        return Ok(()); // the extension's factory refuses other storage
    };
    let (values, slots): (ArrayData, Vec<usize>) = match offsets.data_type() {
        DataType::Dictionary { .. } => match offsets.dictionary() {
            Some(values) => (values.clone(), (0..values.len()).collect()),
            None => return Ok(()),
        },
        DataType::RunEndEncoded(_) => {
            let values = offsets.children()[1].clone();
            let slots = (0..values.len()).collect();
            (values, slots)
        }
        // Child slot `offset + i` is struct slot `i`'s.
        _ => (
            offsets.clone(),
            (0..data.len())
                .filter(|&i| data.is_valid(i))
                .map(|i| data.offset() + i)
                .collect(),
        ),
    };
    let values = make_array(values);
    let Some(minutes) = values.as_primitive_opt::<Int16Type>() else {
        return Ok(());
    };
    for slot in slots {
        if minutes.is_valid(slot) && minutes.value(slot).unsigned_abs() > MAX_OFFSET_MINUTES as u16
        {
            return Err(ArrayError::ColumnMismatch {
                column: format!("field {path:?}"),
                reason: format!(
                    "an offset of {} minutes in arrow.timestamp_with_offset field {path:?} (at most {MAX_OFFSET_MINUTES} either way)",
                    minutes.value(slot)
                ),
            });
        }
    }
    Ok(())
}

fn is_variant(field: &Field) -> bool {
    field
        .extension_name()
        .is_some_and(|name| matches!(name, "arrow.parquet.variant" | "ipc.parquet.variant"))
}

/// Every valid row of a Variant column read whole: its metadata and value (shredded
/// parts put back together) checked to the last byte.
fn check_variant_values(data: &ArrayData, path: &str) -> Result<(), ArrayError> {
    let wrong = |reason: String| ArrayError::ColumnMismatch {
        column: format!("field {path:?}"),
        reason,
    };
    let array = make_array(data.clone());
    let storage = array.as_typed::<StructArray>().ok_or_else(|| {
        wrong(format!(
            "a Variant column is a struct, found {}",
            data.data_type()
        ))
    })?;
    let variants = VariantArray::try_new(storage)?;
    variants
        .for_each_at(&VariantPath::default(), |slot, row| {
            if let Some((metadata, value)) = row {
                crate::variant::Variant::try_new(metadata, &value).map_err(|e| {
                    wrong(format!(
                        "slot {slot} of arrow.parquet.variant field {path:?}: {e}"
                    ))
                })?;
            }
            Ok(())
        })
        .map_err(|e: ArrayError| match e {
            ArrayError::Variant(e) => wrong(e.to_string()),
            other => other,
        })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Array, ArrayRef, Int32Array, ListArray, StringArray, StructArray};
    use alkaid_buffer::{NullBuffer, OffsetBuffer};
    use alkaid_schema::Fields;

    fn strict(field: &Field, array: &dyn Array) -> Result<(), String> {
        validate_field(field, &array.to_data(), ValidationLevel::Strict).map_err(|e| e.to_string())
    }

    #[test]
    fn nulls_in_a_nested_non_nullable_field_are_found_with_their_path() {
        let inner = Field::new("x", DataType::Int32, false);
        let child: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
        // Slot 1 of the struct is null: the null below it does not count.
        let masked = StructArray::try_new(
            Fields::from(vec![inner.clone()]),
            vec![child.clone()],
            Some(NullBuffer::from(vec![true, false, true])),
        )
        .unwrap();
        let field = Field::new("s", masked.data_type().clone(), true);
        assert_eq!(strict(&field, &masked), Ok(()));
        let exposed = StructArray::try_new(Fields::from(vec![inner]), vec![child], None).unwrap();
        let error = strict(&field, &exposed).unwrap_err();
        assert!(
            error.contains("field \"s.x\"") && error.contains("found 1 nulls"),
            "{error}"
        );
        // Sliced past the null: nothing to report.
        assert_eq!(strict(&field, exposed.slice(2, 1).as_ref()), Ok(()));
        // Full validation does not look at nullability.
        validate_field(&field, &exposed.to_data(), ValidationLevel::Full).unwrap();
    }

    #[test]
    fn list_children_count_only_the_slots_their_lists_reach() {
        let item = Arc::new(Field::new("item", DataType::Int32, false));
        let values: ArrayRef = Arc::new(Int32Array::from(vec![None, Some(1), Some(2)]));
        let list = ListArray::try_new(
            item.clone(),
            OffsetBuffer::try_new(vec![0i32, 1, 3].into()).unwrap(),
            values,
            None,
        )
        .unwrap();
        let field = Field::new("l", list.data_type().clone(), false);
        let error = strict(&field, &list).unwrap_err();
        assert!(error.contains("field \"l.item\""), "{error}");
        assert_eq!(strict(&field, list.slice(1, 1).as_ref()), Ok(()));
        let top = Field::new("n", DataType::Int32, false);
        let error = strict(&top, &Int32Array::from(vec![None, None])).unwrap_err();
        assert!(error.contains("found 2 nulls"), "{error}");
    }

    #[test]
    fn json_values_are_checked_below_the_top_too() {
        let json = Field::new("j", DataType::Utf8, true)
            .with_metadata_entry("ARROW:extension:name", "arrow.json");
        let good: ArrayRef = Arc::new(StringArray::from(vec![Some("[1]"), None, Some("null")]));
        let bad: ArrayRef = Arc::new(StringArray::from(vec![Some("[1]"), Some("nope")]));
        let wrap = |child: ArrayRef| {
            StructArray::try_new(Fields::from(vec![json.clone()]), vec![child], None).unwrap()
        };
        let outer = Field::new("s", wrap(good.clone()).data_type().clone(), true);
        assert_eq!(strict(&outer, &wrap(good)), Ok(()));
        let error = strict(&outer, &wrap(bad.clone())).unwrap_err();
        assert!(
            error.contains("slot 1 of arrow.json field \"s.j\" is not JSON"),
            "{error}"
        );
        let view = StringViewArray::from_iter_values(["{}", "{"]);
        let json_view = Field::new("v", DataType::Utf8View, true)
            .with_metadata_entry("ALKAID:extension:name", "arrow.json");
        assert!(strict(&json_view, &view).unwrap_err().contains("slot 1"));
    }

    #[test]
    fn variant_values_are_checked_whole_at_strict() {
        use crate::BinaryArray;
        use alkaid_schema::extension::{Namespace, ParquetVariant};

        // Row 1's value claims an int32 but holds two bytes.
        let storage = StructArray::try_new(
            ParquetVariant::storage_fields(),
            vec![
                Arc::new(BinaryArray::from(vec![Some(&[1u8, 0, 0][..]); 2])) as ArrayRef,
                Arc::new(BinaryArray::from(vec![
                    Some(&[0x0cu8, 7][..]),
                    Some(&[0x14, 1, 2][..]),
                ])),
            ],
            None,
        )
        .unwrap();
        let field = Field::new("v", storage.data_type().clone(), true)
            .with_extension_type(&ParquetVariant, Namespace::Arrow)
            .unwrap();
        validate_field(&field, &storage.to_data(), ValidationLevel::Full).unwrap();
        let error = strict(&field, &storage).unwrap_err();
        assert!(
            error.contains("slot 1 of arrow.parquet.variant field \"v\"")
                && error.contains("int32 runs past"),
            "{error}"
        );
        // Only valid rows count.
        let masked = StructArray::try_new(
            storage.fields().clone(),
            storage.columns().to_vec(),
            Some(NullBuffer::from(vec![true, false])),
        )
        .unwrap();
        strict(&field, &masked).unwrap();
    }

    #[test]
    fn offsets_past_a_day_are_refused_at_strict() {
        use crate::types::TimestampSecondType;
        use crate::{Int16Array, PrimitiveArray};
        use alkaid_schema::TimeUnit;
        use alkaid_schema::extension::{Namespace, TimestampWithOffset};

        let column = |offsets: Vec<i16>, nulls: Option<NullBuffer>| {
            let n = offsets.len();
            let instants = PrimitiveArray::<TimestampSecondType>::from(vec![0i64; n])
                .with_data_type(DataType::Timestamp(TimeUnit::Second, Some("UTC".into())))
                .unwrap();
            StructArray::try_new(
                TimestampWithOffset::storage_fields(TimeUnit::Second),
                vec![
                    Arc::new(instants) as ArrayRef,
                    Arc::new(Int16Array::from(offsets)),
                ],
                nulls,
            )
            .unwrap()
        };
        let good = column(vec![-779, 0, 780], None);
        let field = Field::new("t", good.data_type().clone(), true)
            .with_extension_type(&TimestampWithOffset, Namespace::Arrow)
            .unwrap();
        strict(&field, &good).unwrap();
        let error = strict(&field, &column(vec![0, 1440], None)).unwrap_err();
        assert!(error.contains("an offset of 1440 minutes"), "{error}");
        // Behind a null row, any value.
        strict(
            &field,
            &column(vec![0, 1440], Some(NullBuffer::from(vec![true, false]))),
        )
        .unwrap();
    }
}

//! Structural validation: counts, lengths, alignment and types, without reading values.

use alkaid_buffer::Buffer;
use alkaid_schema::{DataType, PhysicalType};

use crate::layout::{BufferSpec, ChildSpec, layout};
use crate::{ArrayData, DataError, DataErrorKind};

pub(super) fn check(data: &ArrayData) -> Result<(), DataError> {
    // Only this node's own parameters: each child's type is compared with its field's below
    // and the dictionary's with the value type, and every child and dictionary is checked in
    // turn (by the recursive walk, or by the caller of the shallow check).
    data.data_type.validate_shallow()?;
    let data_type = &data.data_type;
    let Some(end) = data.offset.checked_add(data.len) else {
        return Err(DataError::new(
            DataErrorKind::OutOfBounds,
            format!(
                "offset {} + length {} overflows for {data_type}",
                data.offset, data.len
            ),
        ));
    };
    let layout = layout(data_type);

    match &data.nulls {
        Some(_) if !layout.has_validity => {
            return Err(DataError::new(
                DataErrorKind::Validity,
                format!("expected no validity bitmap for {data_type}, found one"),
            ));
        }
        Some(nulls) if nulls.len() != data.len => {
            return Err(DataError::new(
                DataErrorKind::Validity,
                format!(
                    "expected a validity bitmap of {} bits for {data_type}, found {}",
                    data.len,
                    nulls.len()
                ),
            ));
        }
        _ => {}
    }

    let expected = layout.buffers.len();
    let count_ok = if layout.variadic {
        data.buffers.len() >= expected
    } else {
        data.buffers.len() == expected
    };
    if !count_ok {
        let at_least = if layout.variadic { "at least " } else { "" };
        return Err(DataError::new(
            DataErrorKind::BufferCount,
            format!(
                "expected {at_least}{expected} buffers for {data_type}, found {}",
                data.buffers.len()
            ),
        ));
    }
    for (index, (spec, buffer)) in layout.buffers.iter().zip(&data.buffers).enumerate() {
        check_buffer(index, *spec, buffer, end, data_type)?;
    }

    check_children(data, layout.children, end)?;

    match (&data.dictionary, data_type) {
        (None, DataType::Dictionary { .. }) => {
            return Err(DataError::new(
                DataErrorKind::Dictionary,
                format!("expected a dictionary for {data_type}, found none"),
            ));
        }
        (Some(dictionary), DataType::Dictionary { value, .. })
            if dictionary.data_type() != value.as_ref() =>
        {
            return Err(DataError::new(
                DataErrorKind::Dictionary,
                format!(
                    "expected a dictionary of {value}, found one of {}",
                    dictionary.data_type()
                ),
            ));
        }
        (Some(_), other) if !other.is_dictionary() => {
            return Err(DataError::new(
                DataErrorKind::Dictionary,
                format!("expected no dictionary for {other}, found one"),
            ));
        }
        _ => {}
    }
    Ok(())
}

/// Checks that buffer `index` is long enough and aligned for `end` slots.
fn check_buffer(
    index: usize,
    spec: BufferSpec,
    buffer: &Buffer,
    end: usize,
    data_type: &DataType,
) -> Result<(), DataError> {
    let (needed, align) = match spec {
        BufferSpec::Bitmap => (Some(end.div_ceil(8)), 1),
        BufferSpec::Fixed { width, align } => (end.checked_mul(width), align),
        // An empty array may come with an empty offsets buffer (several writers do this).
        BufferSpec::Offsets { .. } if end == 0 && buffer.is_empty() => (Some(0), 1),
        BufferSpec::Offsets { width } => {
            (end.checked_add(1).and_then(|n| n.checked_mul(width)), width)
        }
        BufferSpec::ViewOffsets { width } | BufferSpec::Sizes { width } => {
            (end.checked_mul(width), width)
        }
        BufferSpec::Data => (Some(0), 1),
        BufferSpec::Views => (end.checked_mul(16), 4),
        BufferSpec::TypeIds => (Some(end), 1),
        BufferSpec::UnionOffsets => (end.checked_mul(4), 4),
    };
    let Some(needed) = needed else {
        return Err(DataError::new(
            DataErrorKind::BufferTooShort,
            format!(
                "buffer {index} of {data_type} would need more than usize::MAX bytes for {end} slots"
            ),
        ));
    };
    if buffer.len() < needed {
        return Err(DataError::new(
            DataErrorKind::BufferTooShort,
            format!(
                "expected buffer {index} of {data_type} to hold at least {needed} bytes for {end} slots, found {}",
                buffer.len()
            ),
        ));
    }
    if needed > 0 && !buffer.is_aligned_to(align) {
        return Err(DataError::new(
            DataErrorKind::Misaligned,
            format!(
                "expected buffer {index} of {data_type} aligned to {align} bytes, found address {:#x}",
                buffer.as_ptr() as usize
            ),
        ));
    }
    Ok(())
}

fn check_children(data: &ArrayData, spec: ChildSpec, end: usize) -> Result<(), DataError> {
    let data_type = &data.data_type;
    let fields = data_type.children();
    let expected = match spec {
        ChildSpec::None => 0,
        ChildSpec::One => 1,
        ChildSpec::PerField | ChildSpec::RunEndsAndValues => fields.len(),
    };
    if data.children.len() != expected {
        return Err(DataError::new(
            DataErrorKind::Children,
            format!(
                "expected {expected} children for {data_type}, found {}",
                data.children.len()
            ),
        ));
    }
    for (child, field) in data.children.iter().zip(fields) {
        if child.data_type() != field.data_type() {
            return Err(DataError::new(
                DataErrorKind::Children,
                format!(
                    "expected child {:?} of type {}, found {}",
                    field.name(),
                    field.data_type(),
                    child.data_type()
                ),
            )
            .in_child(field.name()));
        }
    }
    // Children indexed by slot position must reach the last slot.
    let needed = match data_type.to_physical() {
        PhysicalType::Struct | PhysicalType::SparseUnion => Some(end),
        PhysicalType::FixedSizeList(size) => {
            let needed = end.checked_mul(usize::try_from(size).unwrap_or(0));
            Some(needed.ok_or_else(|| {
                DataError::new(
                    DataErrorKind::ChildTooShort,
                    format!(
                        "{end} slots of {data_type} would need more than usize::MAX child slots"
                    ),
                )
            })?)
        }
        _ => None,
    };
    if let Some(needed) = needed {
        for (child, field) in data.children.iter().zip(fields) {
            if child.len() < needed {
                return Err(DataError::new(
                    DataErrorKind::ChildTooShort,
                    format!(
                        "expected child {:?} of {data_type} to have at least {needed} slots, found {}",
                        field.name(),
                        child.len()
                    ),
                ));
            }
        }
    }
    if let [run_ends, values] = data.children.as_slice()
        && matches!(data_type, DataType::RunEndEncoded(_))
        && run_ends.len() != values.len()
    {
        return Err(DataError::new(
            DataErrorKind::RunEnds,
            format!(
                "expected as many values as run ends ({}) in {data_type}, found {}",
                run_ends.len(),
                values.len()
            ),
        ));
    }
    Ok(())
}

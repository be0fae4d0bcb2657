//! Shredding a Variant column into typed columns, and putting it back together.

use std::sync::Arc;

use alkaid_array::variant::{FieldNames, ValueEncoder, Variant, VariantMetadata, VariantPath};
use alkaid_array::{
    Array, ArrayRef, GenericBinaryType, GenericByteBuilder, GenericListArray, StructArray,
};
use alkaid_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use alkaid_schema::extension::ParquetVariant;
use alkaid_schema::{DataType, Field, Fields};

use super::convert::Column;
use super::variants;
use crate::{CastOptions, ComputeError};

/// The Variant column `array` without shredding: `metadata` and `value` only, each row's
/// value put back together from its typed columns.
///
/// # Errors
/// When `array` is not a Variant column or its shredded parts conflict.
pub fn unshred(array: &dyn Array) -> Result<StructArray, ComputeError> {
    Ok(variants(array)?.unshred()?)
}

/// The Variant column `array` shredded into typed columns of the shape `typed`: a struct
/// stands for an object's fields (each shredded by its own type), a list for an array's
/// elements, any other type for a value of the Variant type it holds (Int64 for int64,
/// Utf8 for strings, `Decimal(9, 2)` for decimal4 of scale 2, `Timestamp(µs, UTC)` for
/// timestamps, …). A value of the shape goes to the typed columns; anything else stays
/// encoded in `value` (for an object, the fields the shape does not name), so
/// [`unshred`] gives back the same bytes, as the spec asks of writers.
///
/// # Errors
/// When `array` is not a Variant column, `typed` is not a shape the Variant has, or a
/// row does not read.
pub fn shred(array: &dyn Array, typed: &DataType) -> Result<StructArray, ComputeError> {
    let variants = variants(array)?;
    let unshredded = variants.unshred()?;
    let len = unshredded.len();
    let mut group = Group::new(typed, len)?;
    let mut metadata = GenericByteBuilder::<GenericBinaryType<i32>>::with_capacity(len, 0);
    variants.for_each_at(&VariantPath::default(), |i, row| match row {
        None => {
            metadata.append_value(alkaid_array::variant::EMPTY_METADATA);
            group.push(
                VariantMetadata::try_new(&alkaid_array::variant::EMPTY_METADATA)?,
                None,
            )
        }
        Some((m, v)) => {
            metadata.append_value(m.as_bytes());
            group.push(m, Some(&v)).map_err(|e| located_compute(i, e))
        }
    })?;
    let (fields, mut columns) = group.finish()?;
    let mut all = vec![Field::new("metadata", DataType::Binary, false)];
    all.extend(fields.iter().map(|f| f.as_ref().clone()));
    columns.insert(0, Arc::new(metadata.finish()) as ArrayRef);
    Ok(StructArray::try_new(
        Fields::from(all),
        columns,
        unshredded.nulls().cloned(),
    )?)
}

fn located_compute(i: usize, error: ComputeError) -> ComputeError {
    match error {
        ComputeError::InvalidArgument(message) => {
            ComputeError::InvalidArgument(format!("row {i}: {message}"))
        }
        other => other,
    }
}

/// The columns of one `value`/`typed_value` group being built.
struct Group {
    value: GenericByteBuilder<GenericBinaryType<i32>>,
    typed: Typed,
}

enum Typed {
    /// A primitive: the gathered values and the type asked.
    Leaf(Column, DataType),
    /// An object's fields, and whether each row was an object.
    Object(Vec<(String, Group)>, Vec<bool>),
    /// An array's elements, their offsets, and whether each row was an array.
    List(Box<Group>, Vec<i32>, Vec<bool>, Arc<Field>),
}

impl Group {
    fn new(typed: &DataType, capacity: usize) -> Result<Self, ComputeError> {
        let shape = match typed {
            DataType::Struct(fields) => Typed::Object(
                fields
                    .iter()
                    .map(|f| Ok((f.name().to_string(), Group::new(f.data_type(), capacity)?)))
                    .collect::<Result<_, ComputeError>>()?,
                Vec::with_capacity(capacity),
            ),
            DataType::List(element) => Typed::List(
                Box::new(Group::new(element.data_type(), capacity)?),
                vec![0],
                Vec::with_capacity(capacity),
                element.clone(),
            ),
            leaf if ParquetVariant::shredded_type_name(leaf).is_some() => {
                Typed::Leaf(Column::for_type(leaf, CastOptions::STRICT)?, leaf.clone())
            }
            other => {
                return Err(ComputeError::InvalidArgument(format!(
                    "{other} is not a shredded Variant type"
                )));
            }
        };
        Ok(Self {
            value: GenericByteBuilder::with_capacity(capacity, 0),
            typed: shape,
        })
    }

    /// Appends one row: `bytes` is the value, `None` when missing.
    fn push(
        &mut self,
        metadata: VariantMetadata<'_>,
        bytes: Option<&[u8]>,
    ) -> Result<(), ComputeError> {
        let variant = bytes.map(|b| Variant::parse(metadata, b)).transpose()?;
        let mut residual = bytes.map(<[u8]>::to_vec);
        match (&mut self.typed, variant) {
            (Typed::Leaf(column, target), Some(v)) if shreds_exactly(&v, target) => {
                column.push(&v)?;
                residual = None;
            }
            (Typed::Leaf(column, _), _) => column.push_null(),
            (Typed::Object(fields, valid), Some(Variant::Object(object))) => {
                valid.push(true);
                for (name, group) in fields.iter_mut() {
                    let field = match object.position(name)? {
                        Some(k) => Some(object.field_bytes(k)?),
                        None => None,
                    };
                    group.push(metadata, field)?;
                }
                // The fields the shape does not name stay in `value`, as an object.
                let rest: Vec<usize> = (0..object.len())
                    .filter(|&k| {
                        let name = object.field_name(k).unwrap_or_default();
                        !fields.iter().any(|(n, _)| n == name)
                    })
                    .collect();
                residual = if rest.is_empty() {
                    None
                } else {
                    let mut out = Vec::new();
                    let mut names = metadata;
                    let mut encoder =
                        ValueEncoder::new(&mut names as &mut dyn FieldNames, &mut out).object();
                    for k in rest {
                        encoder
                            .field(object.field_name(k)?)?
                            .raw(object.field_bytes(k)?);
                    }
                    encoder.finish()?;
                    Some(out)
                };
            }
            (Typed::Object(fields, valid), _) => {
                valid.push(false);
                for (_, group) in fields.iter_mut() {
                    group.push(metadata, None)?;
                }
            }
            (Typed::List(element, offsets, valid, _), Some(Variant::List(list))) => {
                valid.push(true);
                for k in 0..list.len() {
                    element.push(metadata, Some(list.element_bytes(k)?))?;
                }
                let end = offsets.last().copied().unwrap_or(0) as usize + list.len();
                offsets.push(i32::try_from(end).map_err(|_| ComputeError::Overflow {
                    row: None,
                    message: "more than 2^31 shredded array elements".into(),
                })?);
                residual = None;
            }
            (Typed::List(_, offsets, valid, _), _) => {
                valid.push(false);
                offsets.push(offsets.last().copied().unwrap_or(0));
            }
        }
        match residual {
            Some(bytes) => self.value.append_value(&bytes),
            None => self.value.append_null(),
        }
        Ok(())
    }

    /// The group's fields (`value`, `typed_value`) and columns.
    fn finish(self) -> Result<(Vec<Arc<Field>>, Vec<ArrayRef>), ComputeError> {
        let mut value = self.value;
        let (typed_type, typed): (DataType, ArrayRef) = match self.typed {
            Typed::Leaf(column, target) => (target.clone(), column.finish()?),
            Typed::Object(fields, valid) => {
                let mut children = Vec::with_capacity(fields.len());
                let mut columns = Vec::with_capacity(fields.len());
                for (name, group) in fields {
                    let (group_fields, group_columns) = group.finish()?;
                    let group_type = DataType::Struct(Fields::from(
                        group_fields
                            .iter()
                            .map(|f| f.as_ref().clone())
                            .collect::<Vec<_>>(),
                    ));
                    let group_array = StructArray::try_new(
                        Fields::from(
                            group_fields
                                .iter()
                                .map(|f| f.as_ref().clone())
                                .collect::<Vec<_>>(),
                        ),
                        group_columns,
                        None,
                    )?;
                    children.push(Field::new(name, group_type, false));
                    columns.push(Arc::new(group_array) as ArrayRef);
                }
                let fields = Fields::from(children);
                let array = StructArray::try_new_with_len(
                    fields.clone(),
                    columns,
                    nulls(valid.clone()),
                    valid.len(),
                )?;
                (DataType::Struct(fields), Arc::new(array))
            }
            Typed::List(element, offsets, valid, field) => {
                let (element_fields, element_columns) = element.finish()?;
                let element_fields = Fields::from(
                    element_fields
                        .iter()
                        .map(|f| f.as_ref().clone())
                        .collect::<Vec<_>>(),
                );
                let element_array =
                    StructArray::try_new(element_fields.clone(), element_columns, None)?;
                let element_field = Arc::new(Field::new(
                    field.name(),
                    DataType::Struct(element_fields),
                    false,
                ));
                let list = GenericListArray::<i32>::try_new(
                    element_field.clone(),
                    OffsetBuffer::try_new(ScalarBuffer::from(offsets))
                        .map_err(|e| ComputeError::InvalidArgument(e.to_string()))?,
                    Arc::new(element_array),
                    nulls(valid),
                )?;
                (DataType::List(element_field), Arc::new(list))
            }
        };
        Ok((
            vec![
                Arc::new(Field::new("value", DataType::Binary, true)),
                Arc::new(Field::new("typed_value", typed_type, true)),
            ],
            vec![Arc::new(value.finish()), typed],
        ))
    }
}

fn nulls(valid: Vec<bool>) -> Option<NullBuffer> {
    let nulls = NullBuffer::from(valid);
    (nulls.null_count() > 0).then_some(nulls)
}

/// Whether `value` goes to a typed column of `target` unchanged: the Variant type the
/// column holds, and for decimals the same scale.
fn shreds_exactly(value: &Variant<'_, '_>, target: &DataType) -> bool {
    let scale = match (value, target) {
        (
            Variant::Decimal4(_, s) | Variant::Decimal8(_, s) | Variant::Decimal16(_, s),
            DataType::Decimal(d),
        ) => i16::from(*s) == i16::from(d.scale()),
        _ => true,
    };
    scale && ParquetVariant::shredded_type_name(target) == Some(value.type_name())
}

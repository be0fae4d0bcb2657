//! Arrays and record batches, both ways, sharing every buffer.
//!
//! The two libraries lay out an array's buffers and children in the same order (the
//! format's), so a conversion walks the tree once and rewraps each buffer: O(number of
//! buffers), whatever the length. Two differences are bridged: arrow-rs keeps a
//! dictionary's values as the array's only child, Alkaid as a separate shared dictionary;
//! and an empty array may come with an empty offsets buffer in Alkaid (the format allows
//! it), for which arrow-rs is given a single zero offset.

use std::borrow::Cow;
use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, RecordBatch, make_array};
use alkaid_data::{ArrayData, BufferSpec, ValidationLevel, layout};
use alkaid_schema::{DataType, SchemaRef, UnionMode};

use super::buffers::{buffer_from_arrow, buffer_to_arrow, nulls_from_arrow, nulls_to_arrow};
use super::types::{data_type_from_arrow, data_type_to_arrow, schema_from_arrow, schema_to_arrow};
use super::{arrow_array, arrow_buffer, arrow_data, arrow_schema};
use crate::BridgeError;

/// The arrow-rs `ArrayData` of `data`, sharing its buffers.
///
/// Never copies, except a buffer whose address does not suit arrow-rs's typed views:
/// arrow-rs wants binary views and 256-bit decimals aligned to 16 bytes where Alkaid
/// accepts 4 and 8, which only memory wrapped from outside (an IPC body) can miss.
pub fn data_to_arrow(data: &ArrayData) -> arrow_data::ArrayData {
    to_arrow_as(data, data.data_type())
}

/// `data` as an arrow-rs array of `data_type`, which differs from the data's own type in
/// child names at most: a batch's columns take their field's type.
fn to_arrow_as(data: &ArrayData, data_type: &DataType) -> arrow_data::ArrayData {
    let empty = data.is_empty();
    let (offset, own_children, mut buffers) = offset_pushed_down(data);
    let mut children: Vec<arrow_data::ArrayData> = own_children
        .iter()
        .zip(data_type.children())
        .map(|(child, field)| to_arrow_as(child, field.data_type()))
        .collect();
    if let (Some(values), Some(value_type)) = (data.dictionary(), data_type.dictionary_value_type())
    {
        children.push(to_arrow_as(values, value_type));
    }
    let specs = layout(data_type).buffers;
    for (i, buffer) in buffers.iter_mut().enumerate() {
        if let Some(BufferSpec::Offsets { width }) = specs.get(i)
            && empty
            && buffer.len() < *width
        {
            // One zero offset, as wide as an `i64` so that it suits both widths.
            *buffer = arrow_buffer::Buffer::from_vec(vec![0i64]);
        }
    }
    let builder = arrow_data::ArrayDataBuilder::new(data_type_to_arrow(data_type))
        .len(data.len())
        // An empty array's offset does not matter, and with offset 0 the single zero
        // offset above is enough.
        .offset(if empty { 0 } else { offset })
        .nulls(data.nulls().map(nulls_to_arrow))
        .buffers(buffers)
        .child_data(children)
        .align_buffers(true);
    // SAFETY: every `ArrayData` Alkaid hands out passed full validation against the
    // format (buffer sizes, offsets, UTF-8, views, keys, type ids, run ends), which is
    // what arrow-rs's validation checks too; the buffers are the same bytes, in the same
    // order, addressing the same slots; misaligned ones are copied by `align_buffers`.
    // `data_type` differs from the data's type in names at most.
    unsafe { builder.build_unchecked() }
}

/// The offset, children and buffers to hand arrow-rs for `data`. Structs, fixed-size lists
/// and sparse unions address their children by their own slot, so the format lets their
/// offset apply to the children; arrow-rs 59 slices such children twice when a parent
/// slices a struct (fixed in 60), and arrow-rs's own arrays always come with the offset
/// already applied to the children. So do these: offset 0, children (and a sparse union's
/// type ids) sliced. O(number of buffers) like the rest.
fn offset_pushed_down(
    data: &ArrayData,
) -> (usize, Cow<'_, [ArrayData]>, Vec<arrow_buffer::Buffer>) {
    let (offset, len) = (data.offset(), data.len());
    let slice_children = |start: usize, count: usize| -> Cow<'_, [ArrayData]> {
        data.children()
            .iter()
            .map(|c| c.slice(start, count))
            .collect()
    };
    let shared_buffers = || data.buffers().iter().map(buffer_to_arrow).collect();
    if offset == 0 {
        return (0, Cow::Borrowed(data.children()), shared_buffers());
    }
    match data.data_type() {
        DataType::Struct(_) => (0, slice_children(offset, len), Vec::new()),
        DataType::FixedSizeList(_, size) => {
            let size = usize::try_from(*size).unwrap_or(0);
            (0, slice_children(offset * size, len * size), Vec::new())
        }
        DataType::Union(union) if union.mode() == UnionMode::Sparse => {
            // One type id byte per slot.
            let ids = buffer_to_arrow(&data.buffers()[0].slice(offset, len));
            (0, slice_children(offset, len), vec![ids])
        }
        _ => (offset, Cow::Borrowed(data.children()), shared_buffers()),
    }
}

/// The Alkaid `ArrayData` of an arrow-rs array, sharing its buffers, checked structurally
/// (buffer counts, lengths and alignment, O(number of buffers)): arrow-rs's own
/// constructors guarantee its values.
///
/// # Errors
/// A type the format does not allow ([`data_type_from_arrow`]), or buffers that do not
/// fit the layout.
pub fn data_from_arrow(data: &arrow_data::ArrayData) -> Result<ArrayData, BridgeError> {
    data_from_arrow_with(data, ValidationLevel::Structural)
}

/// As [`data_from_arrow`], validated at `level`. Ask for [`ValidationLevel::Full`] for
/// arrays that arrow-rs built with its `unsafe` unchecked constructors from bytes of
/// unknown origin: then offsets, UTF-8, views, keys and type ids are checked too.
///
/// # Errors
/// As [`data_from_arrow`], and the first problem that `level` finds.
pub fn data_from_arrow_with(
    data: &arrow_data::ArrayData,
    level: ValidationLevel,
) -> Result<ArrayData, BridgeError> {
    let data_type = data_type_from_arrow(data.data_type())?;
    let ours = from_arrow_as(data, data_type)?;
    if level > ValidationLevel::Structural {
        ours.validate(level)?;
    }
    Ok(ours)
}

/// `data` as an Alkaid array of `data_type`, whose shape was derived from (or checked
/// against) the data's own arrow-rs type.
fn from_arrow_as(
    data: &arrow_data::ArrayData,
    data_type: DataType,
) -> Result<ArrayData, BridgeError> {
    let mut their_children = data.child_data().iter();
    let mut builder = ArrayData::builder(data_type.clone())
        .len(data.len())
        .offset(data.offset())
        .nulls(data.nulls().map(nulls_from_arrow).transpose()?)
        .buffers(data.buffers().iter().map(buffer_from_arrow).collect());
    if let Some(value_type) = data_type.dictionary_value_type() {
        let Some(values) = their_children.next() else {
            return Err(BridgeError::Mismatch {
                expected: format!("{data_type} with its dictionary as a child"),
                found: "no child".to_string(),
            });
        };
        builder = builder.dictionary(Arc::new(from_arrow_as(values, value_type.clone())?));
    }
    for (child, field) in their_children.zip(data_type.children()) {
        builder = builder.add_child(from_arrow_as(child, field.data_type().clone())?);
    }
    // SAFETY: the values are arrow-rs's, which its constructors validated against the
    // format, in the same buffers and order; the children and dictionary were checked by
    // this function when they were built. When the caller asks for more, the whole tree
    // is validated before it is handed out (`data_from_arrow_with`).
    Ok(unsafe { builder.build_structural_shallow() }?)
}

/// The arrow-rs array of an Alkaid array, sharing its buffers.
pub fn array_to_arrow(array: &dyn Array) -> arrow_array::ArrayRef {
    arrow_array::make_array(data_to_arrow(&array.to_data()))
}

/// The Alkaid array of an arrow-rs array, sharing its buffers.
///
/// # Errors
/// As [`data_from_arrow`].
pub fn array_from_arrow(array: &dyn arrow_array::Array) -> Result<ArrayRef, BridgeError> {
    Ok(make_array(data_from_arrow(&array.to_data())?))
}

/// The arrow-rs batch of an Alkaid batch: same schema (metadata included), same columns,
/// sharing their buffers. Each column takes its field's type exactly (child names
/// included), as arrow-rs requires.
pub fn batch_to_arrow(batch: &RecordBatch) -> arrow_array::RecordBatch {
    batch_to_arrow_in(batch, Arc::new(schema_to_arrow(batch.schema())))
}

/// `batch` as an arrow-rs batch of `schema`, which must be `schema_to_arrow` of a schema
/// whose fields equal the batch's (a reader converts its schema once, not per batch).
pub(super) fn batch_to_arrow_in(
    batch: &RecordBatch,
    schema: arrow_schema::SchemaRef,
) -> arrow_array::RecordBatch {
    let columns = batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(field, column)| {
            arrow_array::make_array(to_arrow_as(&column.to_data(), field.data_type()))
        })
        .collect();
    // SAFETY: one column per field, each converted with its field's own type, which
    // `schema_to_arrow` converted the same way (the caller's promise for `schema`), and
    // each of the batch's row count.
    unsafe { arrow_array::RecordBatch::new_unchecked(schema, columns, batch.num_rows()) }
}

/// The Alkaid batch of an arrow-rs batch, sharing its buffers.
///
/// # Errors
/// A type the format does not allow, or a column whose type is not its field's (arrow-rs
/// compares them ignoring child names; so does this).
pub fn batch_from_arrow(batch: &arrow_array::RecordBatch) -> Result<RecordBatch, BridgeError> {
    let schema: SchemaRef = Arc::new(schema_from_arrow(batch.schema_ref())?);
    let columns = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(field, column)| {
            let declared = data_type_to_arrow(field.data_type());
            if !declared.equals_datatype(column.data_type()) {
                return Err(BridgeError::Mismatch {
                    expected: format!("{} (field {:?})", field.data_type(), field.name()),
                    found: column.data_type().to_string(),
                });
            }
            Ok(make_array(from_arrow_as(
                &column.to_data(),
                field.data_type().clone(),
            )?))
        })
        .collect::<Result<Vec<ArrayRef>, BridgeError>>()?;
    // SAFETY: one column per field (arrow-rs's batch guarantees the counts match), each
    // built with its field's type, each of the batch's row count.
    Ok(unsafe { RecordBatch::new_unchecked(schema, columns, batch.num_rows()) })
}

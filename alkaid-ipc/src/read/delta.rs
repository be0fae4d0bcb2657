//! Appending a dictionary delta to the dictionary it extends.
//!
//! Dictionary values are almost always flat (strings, binaries, numbers), so this handles
//! every layout without children; a delta for a nested dictionary is reported as
//! unsupported rather than guessed at.

use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::native::ByteView;
use alkaid_buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};
use alkaid_schema::DataType;

use crate::error::{IpcError, Result};
use crate::write::Offset;

/// Whether deltas of dictionaries with `values` of this type can be read back (and so may
/// be written): layouts without children.
pub(crate) fn can_append(values: &DataType) -> bool {
    let spec = layout(values);
    spec.children == ChildSpec::None && !spec.dictionary
}

/// `existing` followed by `delta`, as one array. Both must be valid arrays of one type.
pub(crate) fn append_delta(existing: &ArrayData, delta: &ArrayData) -> Result<ArrayData> {
    let spec = layout(existing.data_type());
    if !can_append(existing.data_type()) {
        return Err(IpcError::unsupported(format!(
            "dictionary deltas for {} values",
            existing.data_type()
        )));
    }
    let parts = [existing, delta];
    let len = existing.len() + delta.len();
    let mut builder = ArrayData::builder(existing.data_type().clone()).len(len);
    if spec.has_validity && parts.iter().any(|p| p.null_count() > 0) {
        let mut bits = BooleanBufferBuilder::new(len);
        for part in parts {
            match part.nulls() {
                Some(nulls) => {
                    let v = nulls.validity();
                    bits.append_packed_range(v.inner(), v.offset(), v.len());
                }
                None => bits.append_n(part.len(), true),
            }
        }
        builder = builder.nulls(Some(NullBuffer::new(bits.finish())));
    }
    for (i, buffer_spec) in spec.buffers.iter().enumerate() {
        let buffer =
            match *buffer_spec {
                BufferSpec::Fixed { width, .. } => {
                    let mut out = MutableBuffer::with_capacity(len * width);
                    for part in parts {
                        out.extend_from_slice(
                            &part.buffers()[i][part.offset() * width..][..part.len() * width],
                        );
                    }
                    out.into_buffer()
                }
                BufferSpec::Bitmap => {
                    let mut bits = BooleanBufferBuilder::new(len);
                    for part in parts {
                        bits.append_packed_range(&part.buffers()[i], part.offset(), part.len());
                    }
                    let finished: BooleanBuffer = bits.finish();
                    finished.inner().clone()
                }
                BufferSpec::Offsets { width: 4 } => {
                    let (offsets, data) = concat_bytes::<i32>(parts)?;
                    builder = builder.add_buffer(offsets);
                    data
                }
                BufferSpec::Offsets { width: _ } => {
                    let (offsets, data) = concat_bytes::<i64>(parts)?;
                    builder = builder.add_buffer(offsets);
                    data
                }
                BufferSpec::Data => continue,
                BufferSpec::Views => {
                    let mut views = MutableBuffer::with_capacity(len * 16);
                    let mut data: Vec<Buffer> = Vec::new();
                    for part in parts {
                        let shift = data.len() as i32;
                        let all: &[ByteView] = part.buffers()[0]
                            .typed()
                            .map_err(|e| IpcError::malformed(e.to_string()))?;
                        views.extend(all[part.offset()..part.offset() + part.len()].iter().map(
                            |v| {
                                if v.is_inline() {
                                    *v
                                } else {
                                    v.with_location(v.buffer_index() + shift, v.offset())
                                }
                            },
                        ));
                        data.extend(part.buffers()[1..].iter().cloned());
                    }
                    builder = builder.add_buffer(views.into_buffer());
                    for buffer in data {
                        builder = builder.add_buffer(buffer);
                    }
                    continue;
                }
                other => {
                    return Err(IpcError::unsupported(format!(
                        "dictionary deltas with {other:?} buffers"
                    )));
                }
            };
        builder = builder.add_buffer(buffer);
    }
    Ok(builder.build()?)
}

/// Offsets and value bytes of two byte arrays, one after the other.
fn concat_bytes<O: Offset>(parts: [&ArrayData; 2]) -> Result<(Buffer, Buffer)> {
    let mut offsets =
        MutableBuffer::with_capacity((parts[0].len() + parts[1].len() + 1) * O::WIDTH);
    let mut data = MutableBuffer::new();
    offsets.push(O::from_usize(0));
    for part in parts {
        let all: &[O] = part.buffers()[0]
            .typed()
            .map_err(|e| IpcError::malformed(e.to_string()))?;
        let window = &all[part.offset()..=part.offset() + part.len()];
        let (start, end) = (window[0].to_usize(), window[part.len()].to_usize());
        let base = data.len();
        data.extend_from_slice(&part.buffers()[1][start..end]);
        offsets.extend(
            window[1..]
                .iter()
                .map(|o| O::from_usize(o.to_usize() - start + base)),
        );
    }
    Ok((offsets.into_buffer(), data.into_buffer()))
}

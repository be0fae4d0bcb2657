//! Arrays to the flat lists of a record batch message: nodes, buffers, variadic counts.
//!
//! The walk is depth first, in field order, as the format lays out a body. Sliced arrays
//! are written compactly: a bitmap is shifted to bit 0, offsets are rebased to start at 0,
//! and children, value bytes and view data are cut down to the part the slice references.
//! Nothing is copied where a slice of the input already has the right bytes.

use std::collections::HashMap;
use std::sync::Arc;

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{BooleanBuffer, Buffer, MutableBuffer, NativeType};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};
use alkaid_schema::{DataType, PhysicalType, UnionMode};

use crate::dictionary::{DictionaryIds, count_dictionaries};
use crate::error::{IpcError, Result};
use crate::fb;

/// A dictionary met during the walk: its id, its walk position, and its values.
pub(crate) struct FoundDictionary {
    pub id: i64,
    pub position: usize,
    /// Shared with the array, so that the writer can tell an unchanged dictionary by
    /// its pointer.
    pub values: Arc<ArrayData>,
}

/// What one walk produces.
#[derive(Default)]
pub(crate) struct Encoded {
    pub nodes: Vec<fb::FieldNode>,
    pub buffers: Vec<Buffer>,
    pub variadic_counts: Vec<i64>,
    pub dictionaries: Vec<FoundDictionary>,
}

pub(crate) struct Encoder<'a> {
    ids: &'a DictionaryIds,
    cursor: usize,
    /// Keys written in place of a dictionary array's own, by its walk position (a
    /// unifying file's, `unify.rs`).
    keys: Option<&'a HashMap<usize, Buffer>>,
    out: Encoded,
}

impl<'a> Encoder<'a> {
    /// A walk whose first dictionary is at position `cursor` of `ids`.
    pub fn new(ids: &'a DictionaryIds, cursor: usize) -> Self {
        Self {
            ids,
            cursor,
            keys: None,
            out: Encoded::default(),
        }
    }

    /// Writes `keys[p]` as the keys of the dictionary array at walk position `p`, in
    /// place of its own (a buffer of the same type, length and offset).
    pub fn with_keys(mut self, keys: &'a HashMap<usize, Buffer>) -> Self {
        self.keys = Some(keys);
        self
    }

    pub fn finish(self) -> Encoded {
        self.out
    }

    /// Adds `data` and everything below it.
    pub fn array(&mut self, data: &ArrayData) -> Result<()> {
        let (offset, len) = (data.offset(), data.len());
        let null_count = match data.data_type() {
            DataType::Null => len,
            _ => data.null_count(),
        };
        self.out
            .nodes
            .push(fb::FieldNode::new(len as i64, null_count as i64));
        // Which buffers and children to write comes from the layout table, as everywhere
        // else; what this walk adds is how each is cut down to the slice.
        let spec = layout(data.data_type());
        if spec.has_validity {
            let validity = match data.nulls() {
                Some(nulls) if nulls.null_count() > 0 => nulls.validity().bit_aligned(),
                _ => Buffer::empty(),
            };
            self.out.buffers.push(validity);
        }
        if spec.children == ChildSpec::RunEndsAndValues {
            return self.run_end_encoded(data);
        }
        if spec.buffers.contains(&BufferSpec::UnionOffsets) {
            return self.dense_union(data);
        }
        let moved_keys = match spec.dictionary {
            true => self.keys.and_then(|keys| keys.get(&self.cursor)),
            false => None,
        };
        let buffer = |i: usize| -> Result<&Buffer> {
            if let (0, Some(keys)) = (i, moved_keys) {
                return Ok(keys);
            }
            data.buffers().get(i).ok_or_else(|| {
                IpcError::invalid_argument(format!(
                    "a {} array has {} buffers",
                    data.data_type(),
                    data.buffers().len()
                ))
            })
        };
        // The child slots the written slots reference, where offsets or views say.
        let child_range = match spec.buffers[..] {
            [BufferSpec::Offsets { width }, BufferSpec::Data] => {
                match width {
                    4 => self.bytes::<i32>(buffer(0)?, buffer(1)?, offset, len)?,
                    _ => self.bytes::<i64>(buffer(0)?, buffer(1)?, offset, len)?,
                }
                None
            }
            [BufferSpec::Offsets { width }] => Some(match width {
                4 => self.offsets::<i32>(buffer(0)?, offset, len)?,
                _ => self.offsets::<i64>(buffer(0)?, offset, len)?,
            }),
            [BufferSpec::ViewOffsets { width }, BufferSpec::Sizes { .. }] => Some(match width {
                4 => self.list_views::<i32>(buffer(0)?, buffer(1)?, offset, len)?,
                _ => self.list_views::<i64>(buffer(0)?, buffer(1)?, offset, len)?,
            }),
            [BufferSpec::Views] => {
                self.views(data.buffers(), offset, len)?;
                None
            }
            _ => {
                for (i, buffer_spec) in spec.buffers.iter().enumerate() {
                    let written = match *buffer_spec {
                        BufferSpec::Bitmap => {
                            BooleanBuffer::try_new(buffer(i)?.clone(), offset, len)
                                .map_err(|e| IpcError::invalid_argument(e.to_string()))?
                                .bit_aligned()
                        }
                        BufferSpec::Fixed { width, .. } => fixed(buffer(i)?, offset, len, width)?,
                        BufferSpec::TypeIds => fixed(buffer(i)?, offset, len, 1)?,
                        other => {
                            return Err(IpcError::invalid_argument(format!(
                                "buffer {i} of a {} array is {other:?}, which needs a \
                                 partner buffer in the layout",
                                data.data_type()
                            )));
                        }
                    };
                    self.out.buffers.push(written);
                }
                None
            }
        };
        if spec.dictionary {
            self.dictionary(data)?;
        }
        match spec.children {
            ChildSpec::None | ChildSpec::RunEndsAndValues => {}
            ChildSpec::One => {
                let (start, end) = match (child_range, data.data_type().to_physical()) {
                    (Some(range), _) => range,
                    (None, PhysicalType::FixedSizeList(size)) => {
                        let size = usize::try_from(size).unwrap_or(0);
                        (offset * size, (offset + len) * size)
                    }
                    (None, _) => (0, 0),
                };
                let child = data.children().first().ok_or_else(|| {
                    IpcError::invalid_argument(format!("a {} array has no child", data.data_type()))
                })?;
                self.array(&child.try_slice(start, end - start)?)?;
            }
            ChildSpec::PerField => {
                for child in data.children() {
                    self.array(&child.try_slice(offset, len)?)?;
                }
            }
        }
        Ok(())
    }

    /// Notes the dictionary of a dictionary-encoded array, to be written before the batch.
    fn dictionary(&mut self, data: &ArrayData) -> Result<()> {
        let DataType::Dictionary { value, .. } = data.data_type() else {
            unreachable!("a dictionary layout comes from a dictionary type")
        };
        let values = data
            .shared_dictionary()
            .ok_or_else(|| IpcError::invalid_argument("a dictionary array has no dictionary"))?;
        let position = self.cursor;
        self.cursor += 1 + count_dictionaries(value);
        self.out.dictionaries.push(FoundDictionary {
            id: self.ids.id_at(position),
            position,
            values: values.clone(),
        });
        Ok(())
    }

    /// Offsets rebased to 0 and the value bytes they cover.
    fn bytes<O: Offset>(
        &mut self,
        offsets: &Buffer,
        values: &Buffer,
        offset: usize,
        len: usize,
    ) -> Result<()> {
        let (start, end) = self.offsets::<O>(offsets, offset, len)?;
        self.out
            .buffers
            .push(values.try_slice(start, end - start).map_err(bad)?);
        Ok(())
    }

    /// Pushes offsets `offset..=offset + len`, rebased to start at 0, and returns the range
    /// of child slots or bytes they cover.
    fn offsets<O: Offset>(
        &mut self,
        offsets: &Buffer,
        offset: usize,
        len: usize,
    ) -> Result<(usize, usize)> {
        let all: &[O] = offsets.typed().map_err(bad)?;
        let window = all.get(offset..=offset + len).ok_or_else(|| {
            IpcError::invalid_argument(format!(
                "{} offsets do not cover slots {offset}..{}",
                all.len(),
                offset + len
            ))
        })?;
        let (start, end) = (window[0].to_usize(), window[len].to_usize());
        if start > end {
            return Err(IpcError::invalid_argument("offsets decrease"));
        }
        let rebased = if start == 0 {
            offsets.slice(offset * O::WIDTH, (len + 1) * O::WIDTH)
        } else {
            let first = window[0];
            let mut out = MutableBuffer::with_capacity((len + 1) * O::WIDTH);
            out.extend(window.iter().map(|&o| o.minus(first)));
            out.into_buffer()
        };
        self.out.buffers.push(rebased);
        Ok((start, end))
    }

    /// List-view offsets and sizes; offsets are rebased to the smallest referenced child
    /// slot, and empty slots get offset 0. Returns the child range the views cover.
    fn list_views<O: Offset>(
        &mut self,
        offsets: &Buffer,
        sizes: &Buffer,
        offset: usize,
        len: usize,
    ) -> Result<(usize, usize)> {
        let starts: &[O] = offsets.typed().map_err(bad)?;
        let lengths: &[O] = sizes.typed().map_err(bad)?;
        let (Some(starts), Some(lengths)) = (
            starts.get(offset..offset + len),
            lengths.get(offset..offset + len),
        ) else {
            return Err(IpcError::invalid_argument(
                "list view buffers are too short",
            ));
        };
        let (mut low, mut high) = (usize::MAX, 0);
        for (&start, &size) in starts.iter().zip(lengths) {
            if size.to_usize() > 0 {
                low = low.min(start.to_usize());
                high = high.max(start.to_usize() + size.to_usize());
            }
        }
        if low == usize::MAX {
            low = 0;
        }
        let zero = O::from_usize(0);
        let base = O::from_usize(low);
        let mut rebased = MutableBuffer::with_capacity(len * O::WIDTH);
        rebased.extend(starts.iter().zip(lengths).map(|(&start, &size)| {
            if size == zero {
                zero
            } else {
                start.minus(base)
            }
        }));
        self.out.buffers.push(rebased.into_buffer());
        self.out
            .buffers
            .push(sizes.slice(offset * O::WIDTH, len * O::WIDTH));
        Ok((low, high))
    }

    /// Views and their data buffers. When the data buffers hold more bytes than the views
    /// reference (a slice of a large column, or data left over from edits), the referenced
    /// bytes are copied into new buffers and the views rewritten, so the body never carries
    /// unreferenced data.
    fn views(&mut self, buffers: &[Buffer], offset: usize, len: usize) -> Result<()> {
        let (views, data) = buffers
            .split_first()
            .ok_or_else(|| IpcError::invalid_argument("a view array has no views buffer"))?;
        let all: &[ByteView] = views.typed().map_err(bad)?;
        let window = all
            .get(offset..offset + len)
            .ok_or_else(|| IpcError::invalid_argument("the views buffer is too short"))?;
        let referenced = alkaid_data::referenced_view_bytes(window);
        let held: usize = data.iter().map(Buffer::len).sum();
        if referenced >= held {
            self.out.buffers.push(views.slice(offset * 16, len * 16));
            self.out.buffers.extend(data.iter().cloned());
            self.out.variadic_counts.push(data.len() as i64);
            return Ok(());
        }
        let (new_views, new_data) = alkaid_data::compact_views(window, data)?;
        self.out.buffers.push(new_views);
        self.out.variadic_counts.push(new_data.len() as i64);
        self.out.buffers.extend(new_data);
        Ok(())
    }

    /// Type ids as they are, offsets rebased per child, children cut to what is referenced.
    fn dense_union(&mut self, data: &ArrayData) -> Result<()> {
        let (offset, len) = (data.offset(), data.len());
        let DataType::Union(union) = data.data_type() else {
            unreachable!("a dense union layout comes from a union type")
        };
        debug_assert_eq!(union.mode(), UnionMode::Dense);
        let type_ids: &[i8] = data.buffers()[0].typed().map_err(bad)?;
        let offsets: &[i32] = data.buffers()[1].typed().map_err(bad)?;
        let (Some(type_ids), Some(offsets)) = (
            type_ids.get(offset..offset + len),
            offsets.get(offset..offset + len),
        ) else {
            return Err(IpcError::invalid_argument(
                "dense union buffers are too short",
            ));
        };
        let children = data.children().len();
        let mut low = vec![i32::MAX; children];
        let mut high = vec![0i32; children];
        let mut child_of = [usize::MAX; 128];
        for (child, &id) in union.type_ids().iter().enumerate() {
            child_of[id as usize] = child;
        }
        for (&id, &o) in type_ids.iter().zip(offsets) {
            let child = child_of
                .get(id as usize)
                .copied()
                .filter(|&c| c < children)
                .ok_or_else(|| IpcError::invalid_argument(format!("unknown union type id {id}")))?;
            low[child] = low[child].min(o);
            high[child] = high[child].max(o + 1);
        }
        let mut rebased = MutableBuffer::with_capacity(len * 4);
        rebased.extend(
            type_ids
                .iter()
                .zip(offsets)
                .map(|(&id, &o)| o - low[child_of[id as usize]]),
        );
        self.out.buffers.push(data.buffers()[0].slice(offset, len));
        self.out.buffers.push(rebased.into_buffer());
        for (i, child) in data.children().iter().enumerate() {
            let (start, end) = if low[i] == i32::MAX {
                (0, 0)
            } else {
                (low[i] as usize, high[i] as usize)
            };
            self.array(&child.try_slice(start, end - start)?)?;
        }
        Ok(())
    }

    /// The runs that cover the slice, with run ends made relative to it and the last one
    /// clamped to its length, and the values of those runs.
    fn run_end_encoded(&mut self, data: &ArrayData) -> Result<()> {
        let (offset, len) = (data.offset(), data.len());
        let [run_ends, values] = data.children() else {
            return Err(IpcError::invalid_argument(
                "a run-end encoded array needs two children",
            ));
        };
        let (ends, first, count) = match run_ends.data_type() {
            DataType::Int16 => runs::<i16>(run_ends, offset, len)?,
            DataType::Int32 => runs::<i32>(run_ends, offset, len)?,
            DataType::Int64 => runs::<i64>(run_ends, offset, len)?,
            other => {
                return Err(IpcError::invalid_argument(format!(
                    "run ends of type {other}"
                )));
            }
        };
        self.out.nodes.push(fb::FieldNode::new(count as i64, 0));
        self.out.buffers.push(Buffer::empty());
        self.out.buffers.push(ends);
        self.array(&values.try_slice(first, count)?)
    }
}

/// Run ends for slots `offset..offset + len`: the rebased run-ends buffer, the first
/// physical run and the number of runs.
fn runs<T: Offset>(
    run_ends: &ArrayData,
    offset: usize,
    len: usize,
) -> Result<(Buffer, usize, usize)> {
    let all: &[T] = run_ends.buffers()[0].typed().map_err(bad)?;
    let all = all
        .get(run_ends.offset()..run_ends.offset() + run_ends.len())
        .ok_or_else(|| IpcError::invalid_argument("the run ends buffer is too short"))?;
    let span = alkaid_data::run_span(run_ends, offset, len)?;
    if span.is_empty() {
        return Ok((Buffer::empty(), 0, 0));
    }
    let mut out = MutableBuffer::with_capacity(span.len() * T::WIDTH);
    out.extend(
        all[span.clone()]
            .iter()
            .map(|end| T::from_usize(end.to_usize().min(offset + len) - offset)),
    );
    Ok((out.into_buffer(), span.start, span.len()))
}

/// `len` values of `width` bytes from slot `offset`.
fn fixed(buffer: &Buffer, offset: usize, len: usize, width: usize) -> Result<Buffer> {
    buffer.try_slice(offset * width, len * width).map_err(bad)
}

fn bad(e: impl std::fmt::Display) -> IpcError {
    IpcError::invalid_argument(format!("an array's buffers do not match its type: {e}"))
}

/// The integer types used as offsets, sizes and run ends.
pub(crate) trait Offset: NativeType + Ord {
    const WIDTH: usize = size_of::<Self>();
    fn to_usize(self) -> usize;
    fn from_usize(value: usize) -> Self;
    fn minus(self, other: Self) -> Self;
}

macro_rules! offset {
    ($($t:ty),*) => {$(
        impl Offset for $t {
            fn to_usize(self) -> usize {
                usize::try_from(self).unwrap_or(0)
            }
            fn from_usize(value: usize) -> Self {
                <$t>::try_from(value).unwrap_or(<$t>::MAX)
            }
            fn minus(self, other: Self) -> Self {
                self - other
            }
        }
    )*};
}
offset!(i16, i32, i64);

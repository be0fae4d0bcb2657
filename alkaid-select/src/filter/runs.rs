//! Filtering by runs: the selected slots as half-open ranges, each copied a range at a time.
//!
//! Fixed-width values, booleans, dictionary keys and views are copied a run at a time,
//! each run found in the mask as the copy goes;
//! structs filter each child by the same runs; lists and maps copy each run's offsets
//! (rebased) and filter their child by the runs those offsets cover, so a list column of
//! short runs costs a copy per run at every level rather than a slice per run joined;
//! binary and text copy each run's offsets (rebased) and its values' bytes; list
//! views and dense unions (anywhere in the type) are gathered as `take` does; every other
//! layout is cut into the runs and joined with alkaid-data's `concat`.

use std::sync::OnceLock;

use alkaid_buffer::builder::BooleanBufferBuilder;
use alkaid_buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, OffsetSize, bitmap};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};
use alkaid_schema::{DataType, PhysicalType};

use crate::error::SelectError;
use crate::take::gather::{self, Present};
use crate::take::take_data;

/// Bitmaps are filtered a run at a time only when there is less than one run per this
/// many mask words; otherwise word by word with the mask (`bitmap::compress`), which costs
/// about a nanosecond per 64 slots whatever the runs, where each run costs a copy call of
/// its own (runs of 64 slots: 110 µs against arrow-select's 51 µs for 1 Mi booleans).
const WORDS_PER_BITMAP_RUN: usize = 32;

/// Selected slots as runs.
pub(super) struct Runs<'a> {
    /// Half-open ranges of selected slots, in order, not overlapping; listed from `mask`
    /// on first use when empty, since a boolean column of short runs never needs them.
    pub runs: &'a OnceLock<Vec<(usize, usize)>>,
    /// How many runs there are, or a bound on it that is close.
    pub run_count: usize,
    /// How many slots they hold.
    pub count: usize,
    /// The mask the runs come from, when there is one (a list's child runs have none),
    /// for bitmaps of short runs.
    pub mask: Option<&'a BooleanBuffer>,
}

impl<'a> Runs<'a> {
    /// The runs, listed from the mask the first time a column needs them as a list, into
    /// room for `run_count` of them: collected by growing, 8 Ki runs were reallocated a
    /// dozen times, the last steps through fresh mappings.
    fn ranges(&self) -> &'a [(usize, usize)] {
        self.runs.get_or_init(|| {
            let Some(mask) = self.mask else {
                return Vec::new();
            };
            let mut runs = Vec::with_capacity(self.run_count);
            runs.extend(mask.set_runs());
            runs
        })
    }

    /// Calls `visit` with each run in order: found afresh in the mask when there is one,
    /// else read from the list. For copies of whole values, finding the runs as the copies
    /// go costs no more than reading them back from a list, even once per column of a
    /// batch, and spares making the list: 1 Mi `i32` slots in runs of 64 filtered in
    /// 230 µs instead of 254. Rebasing offsets is another matter (see `rebased`).
    fn for_each_run(&self, visit: impl FnMut((usize, usize))) {
        match self.mask {
            Some(mask) => mask.set_runs().for_each(visit),
            None => self.ranges().iter().copied().for_each(visit),
        }
    }

    /// The selected slots of `data`, whose length the runs fit in.
    pub fn filter(&self, data: &ArrayData) -> Result<ArrayData, SelectError> {
        let spec = layout(data.data_type());
        let direct = spec.children == ChildSpec::None
            && spec.buffers.iter().all(|b| {
                matches!(
                    b,
                    BufferSpec::Fixed { .. } | BufferSpec::Bitmap | BufferSpec::Views
                )
            });
        if !direct {
            return match data.data_type().to_physical() {
                // Joining runs would repeat such a child once per run.
                _ if joins_whole_children(data.data_type()) => {
                    let indices: Vec<usize> =
                        self.ranges().iter().flat_map(|&(s, e)| s..e).collect();
                    take_data(data, &Present(&indices))
                }
                PhysicalType::Struct => self.structure(data),
                PhysicalType::List => self.list::<i32>(data),
                PhysicalType::LargeList => self.list::<i64>(data),
                PhysicalType::Binary => self.binary::<i32>(data),
                PhysicalType::LargeBinary => self.binary::<i64>(data),
                _ => self.joined(data),
            };
        }
        let mut builder = ArrayData::builder(data.data_type().clone()).len(self.count);
        if spec.has_validity {
            builder = builder.nulls(self.nulls(data));
        }
        let mut buffers = Vec::with_capacity(data.buffers().len());
        for (i, buffer_spec) in spec.buffers.iter().enumerate() {
            let buffer = &data.buffers()[i];
            buffers.push(match *buffer_spec {
                BufferSpec::Fixed { width, .. } => self.bytes(buffer, data.offset(), width),
                BufferSpec::Views => self.bytes(buffer, data.offset(), 16),
                _ => self.bits(buffer, data.offset()).inner().clone(),
            });
        }
        // SAFETY: `data` is fully valid (every `ArrayData` made without `unsafe` is), and the
        // selected runs copy whole fixed-width values, bits and views (views keep their data
        // buffers), so the result is too.
        unsafe { gather::finish_flat(builder, data, spec.variadic, buffers) }
    }

    /// `width`-byte values of the selected slots, slot `offset` first.
    fn bytes(&self, buffer: &Buffer, offset: usize, width: usize) -> Buffer {
        let mut out = MutableBuffer::with_capacity(self.count * width);
        self.for_each_run(|(start, end)| {
            out.extend_from_slice(&buffer[(offset + start) * width..(offset + end) * width]);
        });
        out.into_buffer()
    }

    /// Bits of the selected slots, bit `offset` first.
    fn bits(&self, bytes: &Buffer, offset: usize) -> BooleanBuffer {
        if let Some(mask) = self.mask
            && self.run_count * WORDS_PER_BITMAP_RUN > mask.len() / 64
        {
            let (packed, count) =
                bitmap::compress(bytes, offset, mask.inner(), mask.offset(), mask.len());
            return BooleanBuffer::new(packed, 0, count);
        }
        let mut out = BooleanBufferBuilder::new(self.count);
        self.for_each_run(|(start, end)| {
            out.append_packed_range(bytes, offset + start, end - start);
        });
        out.finish()
    }

    /// The validity of the selected slots of `data`; `None` when none is null.
    fn nulls(&self, data: &ArrayData) -> Option<NullBuffer> {
        let nulls = data.nulls().filter(|n| n.null_count() > 0)?;
        let validity = nulls.validity();
        Some(NullBuffer::new(
            self.bits(validity.inner(), validity.offset()),
        ))
    }

    /// Structs: every child filtered by the same runs, and the validity.
    fn structure(&self, data: &ArrayData) -> Result<ArrayData, SelectError> {
        let children = data
            .children()
            .iter()
            .map(|child| self.filter(&child.slice(data.offset(), data.len())))
            .collect::<Result<Vec<_>, _>>()?;
        let builder = ArrayData::builder(data.data_type().clone())
            .len(self.count)
            .nulls(self.nulls(data))
            .children(children);
        // SAFETY: every child was filtered (and checked) by the same runs, so each has one
        // slot per selected slot.
        Ok(unsafe { builder.build_structural_shallow() }?)
    }

    /// Each selected run's offsets (of a list or of binary values), rebased to where its
    /// values land.
    fn rebased<O: OffsetSize>(&self, data: &ArrayData) -> Result<Rebased, SelectError> {
        let all: &[O] = data.buffers()[0]
            .typed()
            .map_err(|e| SelectError::Data(e.into()))?;
        let offsets = &all[data.offset()..=data.offset() + data.len()];
        let mut new_offsets = MutableBuffer::with_capacity((self.count + 1) * size_of::<O>());
        new_offsets.push(O::ZERO);
        // From the list: finding each run in the mask here instead made strings and lists
        // in runs of 64 filter 5–10% slower.
        let runs = self.ranges();
        let mut value_runs = Vec::with_capacity(runs.len());
        let mut taken = 0usize;
        for &(start, end) in runs {
            let (first, last) = (offsets[start].as_usize(), offsets[end].as_usize());
            // Valid offsets never fall, so each rebased offset lies in
            // `taken..=taken + last - first` (the subtraction never wraps), and none
            // exceeds the final `taken`, checked below: a loop without branches.
            new_offsets.extend_counted(
                end - start,
                offsets[start + 1..=end]
                    .iter()
                    .map(|&o| O::usize_as(o.as_usize().wrapping_sub(first) + taken)),
            );
            if last > first {
                value_runs.push((first, last));
                taken += last - first;
            }
        }
        if O::from_usize(taken).is_none() {
            return Err(SelectError::Overflow(format!(
                "the filtered values of {} overflow its offsets",
                data.data_type()
            )));
        }
        Ok(Rebased {
            offsets: new_offsets.into_buffer(),
            value_runs,
            taken,
        })
    }

    /// Lists and maps: rebased offsets, and the child filtered by the runs of child slots
    /// the selected runs cover.
    fn list<O: OffsetSize>(&self, data: &ArrayData) -> Result<ArrayData, SelectError> {
        let Rebased {
            offsets,
            value_runs: child_runs,
            taken,
        } = self.rebased::<O>(data)?;
        let run_count = child_runs.len();
        let child = Runs {
            runs: &OnceLock::from(child_runs),
            run_count,
            count: taken,
            mask: None,
        }
        .filter(&data.children()[0])?;
        let builder = ArrayData::builder(data.data_type().clone())
            .len(self.count)
            .nulls(self.nulls(data))
            .buffers(vec![offsets])
            .children(vec![child]);
        // SAFETY: the offsets count the child slots of each selected list, from 0 up to the
        // filtered child's length (`taken`), never falling; the child was filtered (and
        // checked) by the runs those lists cover.
        Ok(unsafe { builder.build_structural_shallow() }?)
    }

    /// Binary and text: rebased offsets, and the bytes of each run's values in one copy
    /// (joining a slice per run cost 100 ns a run: runs of 64 strings filtered slower
    /// than scattered slots).
    fn binary<O: OffsetSize>(&self, data: &ArrayData) -> Result<ArrayData, SelectError> {
        let Rebased {
            offsets,
            value_runs,
            taken,
        } = self.rebased::<O>(data)?;
        let values = &data.buffers()[1];
        let mut out = MutableBuffer::with_capacity(taken);
        for &(first, last) in &value_runs {
            out.extend_from_slice(&values[first..last]);
        }
        let builder = ArrayData::builder(data.data_type().clone())
            .len(self.count)
            .nulls(self.nulls(data))
            .buffers(vec![offsets, out.into_buffer()]);
        // SAFETY: `data` is fully valid, so its offsets never fall and lie within its
        // values, and each slot's bytes (whole UTF-8 strings for text) are copied whole; the
        // rebased offsets point at those same bytes in the copy, from 0 up to its length.
        Ok(unsafe { builder.build_structural_shallow() }?)
    }

    /// Every other layout: the selected runs, joined.
    fn joined(&self, data: &ArrayData) -> Result<ArrayData, SelectError> {
        let parts: Vec<ArrayData> = self
            .ranges()
            .iter()
            .map(|&(s, e)| data.slice(s, e - s))
            .collect();
        Ok(alkaid_data::concat(&parts.iter().collect::<Vec<_>>())?)
    }
}

/// The selected runs' offsets of a list or of binary values, rebased to start at 0.
struct Rebased {
    offsets: Buffer,
    /// The ranges of values (child slots or bytes) the runs cover, empty ones left out.
    value_runs: Vec<(usize, usize)>,
    /// How many values those ranges hold.
    taken: usize,
}

/// Whether joining slices of `data_type` keeps whole children of each slice: list views
/// and dense unions (their offsets may point anywhere in their children), anywhere in the
/// type. Joining many slices of such arrays would repeat a child once per slice.
pub(crate) fn joins_whole_children(data_type: &DataType) -> bool {
    match data_type.to_physical() {
        PhysicalType::ListView | PhysicalType::LargeListView | PhysicalType::DenseUnion => true,
        _ => data_type
            .children()
            .iter()
            .any(|field| joins_whole_children(field.data_type())),
    }
}

//! Take for the layouts with children: lists and maps, list views, fixed-size lists,
//! structs, sparse and dense unions, and run-end encoded arrays.
//!
//! Each works out which child slots the taken slots cover and takes the children there,
//! recursively, so a result never holds more of a child than it uses (list views excepted:
//! they keep their child whole, as their offsets may point anywhere in it). A null index
//! gives a null slot: a null in the validity where the layout has one, a null child value
//! where it does not (unions: the first child's; run-end encoded: the values').

use alkaid_buffer::{Buffer, OffsetSize};
use alkaid_data::{ArrayData, ArrayDataBuilder, BufferSpec, ChildSpec, layout, run_span};
use alkaid_schema::DataType;

use super::gather::{self, Positions, Present};
use super::nulls::taken_nulls;
use super::ranges;
use crate::error::SelectError;

/// How these kernels take a child: the dispatcher (`take_data` in `take/mod.rs`) passes
/// itself as `C`, so the recursion into children goes through a type parameter instead of
/// an import back up the module tree.
pub(crate) trait TakeChild {
    /// The slots of `data` at `indices`.
    fn take<P: Positions + ?Sized>(data: &ArrayData, indices: &P)
    -> Result<ArrayData, SelectError>;
}

/// Builds a result whose children were built by these kernels.
///
/// # Safety
/// The buffers must be valid for the children given, as each caller argues.
unsafe fn assemble(builder: ArrayDataBuilder) -> Result<ArrayData, SelectError> {
    // SAFETY: the caller vouches for this level; every child was built by `C::take` (`take_data`),
    // which checked it at least structurally.
    Ok(unsafe { builder.build_structural_shallow() }?)
}

/// Lists this long or shorter are copied as this many items, whatever their length (see
/// [`child_positions`] and [`flat_values`]).
const SHORT: usize = 4;

fn overflow(data: &ArrayData, what: &str) -> SelectError {
    SelectError::Overflow(format!(
        "the taken {what} of {} overflow its offsets",
        data.data_type()
    ))
}

/// Lists (and maps): offsets from the taken lengths, and the child taken at every position
/// the taken lists cover.
pub(crate) fn list<O: OffsetSize, P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let all: &[O] = data.buffers()[0]
        .typed()
        .map_err(|e| SelectError::Data(e.into()))?;
    let offsets = &all[data.offset()..];
    let child = &data.children()[0];
    let (new_offsets, child) = match flat_width(child) {
        Some(1) => flat_values::<O, P, 1>(data, offsets, indices)?,
        Some(2) => flat_values::<O, P, 2>(data, offsets, indices)?,
        Some(4) => flat_values::<O, P, 4>(data, offsets, indices)?,
        Some(8) => flat_values::<O, P, 8>(data, offsets, indices)?,
        _ => child_positions::<O, P, C>(data, offsets, indices)?,
    };
    let builder = ArrayData::builder(data.data_type().clone())
        .len(indices.len())
        .nulls(taken_nulls(data, indices))
        .buffers(vec![Buffer::from_vec(new_offsets)])
        .children(vec![child]);
    // SAFETY: the offsets count the child slots taken for each list, from 0 up to the
    // child's length, never falling.
    unsafe { assemble(builder) }
}

/// The new offsets of the taken lists, and their child taken at every position they cover.
fn child_positions<O: OffsetSize, P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    offsets: &[O],
    indices: &P,
) -> Result<(Vec<O>, ArrayData), SelectError> {
    let mut new_offsets: Vec<O> = Vec::with_capacity(indices.len() + 1);
    // Short lists (most) write four positions whatever their length, with no branch on
    // it (a loop of 0 to 3 steps mispredicted its exit at every list); the next list
    // overwrites the excess. So the vector is kept zero-filled ahead of `written`.
    // Room guessed from the average length, but never more than the child holds: this
    // vector grows as it must, and a guess (many takes of an empty list beside a huge
    // one) could ask for far more than the result needs.
    let ours = &offsets[..=data.len()];
    let room = ranges::guess(ours, indices.len(), SHORT).min(ranges::span(ours) + SHORT);
    let mut child_positions: Vec<usize> = vec![0; room];
    let mut written = 0;
    new_offsets.push(O::ZERO);
    gather::extend_in_place(&mut new_offsets, indices, |position| {
        if let Some(i) = position {
            let (start, end) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
            let len = end.saturating_sub(start);
            make_room(&mut child_positions, written + len.max(SHORT), 0);
            if len <= SHORT {
                child_positions[written..written + SHORT].copy_from_slice(&[
                    start,
                    start + 1,
                    start + 2,
                    start + 3,
                ]);
            } else {
                for (slot, p) in child_positions[written..written + len]
                    .iter_mut()
                    .zip(start..end)
                {
                    *slot = p;
                }
            }
            written += len;
        }
        // Checked once below: the count only grows.
        O::usize_as(written)
    });
    child_positions.truncate(written);
    if O::from_usize(child_positions.len()).is_none() {
        return Err(overflow(data, "lists"));
    }
    let child = C::take(&data.children()[0], &Present(&child_positions))?;
    Ok((new_offsets, child))
}

/// Grows `out` (doubling, filled with `zero`) until it holds at least `needed` items: the
/// short-list copies above write a fixed number of items whatever a list's length, so
/// they need initialised room past what they keep.
fn make_room<T: Copy>(out: &mut Vec<T>, needed: usize, zero: T) {
    if needed > out.len() {
        out.resize((out.len() * 2).max(needed), zero);
    }
}

/// The width of a list's child when its values can be copied as whole chunks: a flat
/// fixed-width layout without nulls (and not a dictionary, whose keys index another array).
fn flat_width(child: &ArrayData) -> Option<usize> {
    let spec = layout(child.data_type());
    match spec.buffers[..] {
        [BufferSpec::Fixed { width, .. }]
            if spec.children == ChildSpec::None
                && child.null_count() == 0
                && !child.data_type().is_dictionary() =>
        {
            Some(width)
        }
        _ => None,
    }
}

/// [`child_positions`] for a child [`flat_width`] accepts: its values copied straight,
/// list by list ([`ranges::copy`]), with no list of positions in between.
fn flat_values<O: OffsetSize, P: Positions + ?Sized, const W: usize>(
    data: &ArrayData,
    offsets: &[O],
    indices: &P,
) -> Result<(Vec<O>, ArrayData), SelectError> {
    let child = &data.children()[0];
    let (all, _) = child.buffers()[0][child.offset() * W..].as_chunks::<W>();
    let values = &all[..child.len()];
    let copied =
        ranges::copy::<O, [u8; W], P, SHORT>(&offsets[..=data.len()], values, indices, [0; W])
            .ok_or_else(|| overflow(data, "lists"))?;
    let builder = ArrayData::builder(child.data_type().clone())
        .len(copied.items.len())
        .buffers(vec![
            Buffer::from(copied.items.into_flattened()).realigned(16),
        ]);
    // SAFETY: every slot is a whole value copied from the valid child, which has no nulls.
    let child = unsafe { assemble(builder) }?;
    Ok((copied.offsets, child))
}

/// List views: each taken slot's offset and size, with the child kept whole.
pub(crate) fn list_view<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
    width: usize,
) -> Result<ArrayData, SelectError> {
    let buffers = (0..2)
        .map(|b| gather::fixed(&data.buffers()[b], data.offset(), width, indices))
        .collect();
    let builder = ArrayData::builder(data.data_type().clone())
        .len(indices.len())
        .nulls(taken_nulls(data, indices))
        .buffers(buffers)
        .children(vec![data.children()[0].clone()]);
    // SAFETY: each offset and size pair is copied whole from a valid slot of a list view
    // over the same child; null slots get (0, 0), an empty list.
    unsafe { assemble(builder) }
}

/// Fixed-size lists: the child's `size` slots under each taken slot (nulls under a null
/// index).
pub(crate) fn fixed_size_list<P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    indices: &P,
    size: i32,
) -> Result<ArrayData, SelectError> {
    let size = usize::try_from(size).unwrap_or(0);
    let base = data.offset();
    let mut child_positions: Vec<Option<usize>> = Vec::with_capacity(indices.len() * size);
    indices.for_each(|position| match position {
        Some(i) => child_positions.extend(((base + i) * size..(base + i + 1) * size).map(Some)),
        None => child_positions.extend(std::iter::repeat_n(None, size)),
    });
    let child = C::take(&data.children()[0], child_positions.as_slice())?;
    let builder = ArrayData::builder(data.data_type().clone())
        .len(indices.len())
        .nulls(taken_nulls(data, indices))
        .children(vec![child]);
    // SAFETY: the child holds exactly `size` slots per taken slot.
    unsafe { assemble(builder) }
}

/// The children of a layout whose child slots line up with its own (structs, sparse
/// unions), each taken at the same positions.
fn aligned_children<P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    indices: &P,
) -> Result<Vec<ArrayData>, SelectError> {
    data.children()
        .iter()
        .map(|child| C::take(&child.slice(data.offset(), data.len()), indices))
        .collect()
}

/// Structs: every child taken at the same positions.
pub(crate) fn structure<P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let children = aligned_children::<P, C>(data, indices)?;
    let builder = ArrayData::builder(data.data_type().clone())
        .len(indices.len())
        .nulls(taken_nulls(data, indices))
        .children(children);
    // SAFETY: every child has one slot per taken slot.
    unsafe { assemble(builder) }
}

/// The union type of `data`, and the type id a null slot gets: the first child's.
fn union_of(data: &ArrayData) -> Result<(&alkaid_schema::UnionType, i8), SelectError> {
    match data.data_type() {
        DataType::Union(union) => match union.type_ids().first() {
            Some(&id) => Ok((union, id)),
            None => Err(SelectError::Mismatch(
                "a union without children has no null slot to take".into(),
            )),
        },
        other => Err(SelectError::Mismatch(format!(
            "expected a union, found {other}"
        ))),
    }
}

/// Type ids at `indices`; a null index gets `null_id`.
fn taken_type_ids<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
    null_id: i8,
) -> Result<Vec<i8>, SelectError> {
    let ids: &[i8] = data.buffers()[0]
        .typed()
        .map_err(|e| SelectError::Data(e.into()))?;
    let ids = &ids[data.offset()..];
    let mut taken = Vec::with_capacity(indices.len());
    indices.for_each(|position| taken.push(position.map_or(null_id, |i| ids[i])));
    Ok(taken)
}

/// Sparse unions: type ids, and every child taken at the same positions (a null index is
/// a null in the first child, which its type id selects).
pub(crate) fn sparse_union<P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let (_, null_id) = union_of(data)?;
    let type_ids = taken_type_ids(data, indices, null_id)?;
    let children = aligned_children::<P, C>(data, indices)?;
    let builder = ArrayData::builder(data.data_type().clone())
        .len(indices.len())
        .buffers(vec![Buffer::from_vec(type_ids)])
        .children(children);
    // SAFETY: type ids are copied from valid slots or are the first child's, and every
    // child has one slot per taken slot.
    unsafe { assemble(builder) }
}

/// Dense unions: type ids, and each child taken at the positions its taken slots point
/// to, in order, so the new offsets count up per child (a null index points to a null
/// appended to the first child).
pub(crate) fn dense_union<P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let (union, null_id) = union_of(data)?;
    if i32::try_from(indices.len()).is_err() {
        return Err(overflow(data, "union slots"));
    }
    let type_ids = taken_type_ids(data, indices, null_id)?;
    let offsets: &[i32] = data.buffers()[1]
        .typed()
        .map_err(|e| SelectError::Data(e.into()))?;
    let offsets = &offsets[data.offset()..];
    let mut child_positions: Vec<Vec<Option<usize>>> = vec![Vec::new(); data.children().len()];
    let mut new_offsets = Vec::with_capacity(indices.len());
    let mut k = 0;
    indices.for_each(|position| {
        // A valid union's type ids all name a child.
        let child = union.child_index(type_ids[k]).unwrap_or(0);
        let positions = &mut child_positions[child];
        new_offsets.push(positions.len() as i32); // below `indices.len()`, checked above
        positions.push(position.map(|i| offsets[i] as usize));
        k += 1;
    });
    let children = data
        .children()
        .iter()
        .zip(&child_positions)
        .map(|(child, positions)| C::take(child, positions.as_slice()))
        .collect::<Result<Vec<_>, _>>()?;
    let builder = ArrayData::builder(data.data_type().clone())
        .len(indices.len())
        .buffers(vec![
            Buffer::from_vec(type_ids),
            Buffer::from_vec(new_offsets),
        ])
        .children(children);
    // SAFETY: each slot's offset is its position among the slots of its child, and that
    // child was taken at exactly those slots.
    unsafe { assemble(builder) }
}

/// Run-end encoded: the run under each taken slot, consecutive equal runs joined, and the
/// values taken at those runs (a null index is a run of a null value).
pub(crate) fn run_end_encoded<P: Positions + ?Sized, C: TakeChild>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let [run_ends, values] = data.children() else {
        return Err(SelectError::Mismatch(format!(
            "expected run ends and values under {}",
            data.data_type()
        )));
    };
    let mut runs: Vec<Option<usize>> = Vec::new();
    let mut ends: Vec<i64> = Vec::new();
    let mut failure = None;
    let mut k = 0i64;
    indices.for_each(|position| {
        let run = match position.map(|i| run_span(run_ends, data.offset() + i, 1)) {
            None => None,
            Some(Ok(span)) => Some(span.start),
            Some(Err(e)) => {
                failure.get_or_insert(e);
                None
            }
        };
        k += 1;
        match (runs.last(), ends.last_mut()) {
            (Some(last), Some(end)) if *last == run => *end = k,
            _ => {
                runs.push(run);
                ends.push(k);
            }
        }
    });
    if let Some(e) = failure {
        return Err(SelectError::Data(e));
    }
    let run_ends_type = run_ends.data_type().clone();
    let ends = match run_ends_type {
        DataType::Int16 => narrow::<i16>(&ends),
        DataType::Int32 => narrow::<i32>(&ends),
        _ => Some(Buffer::from_vec(ends)),
    }
    .ok_or_else(|| overflow(data, "run ends"))?;
    let run_ends = ArrayData::builder(run_ends_type)
        .len(runs.len())
        .buffers(vec![ends])
        .build()?;
    let values = C::take(values, runs.as_slice())?;
    Ok(ArrayData::builder(data.data_type().clone())
        .len(indices.len())
        .children(vec![run_ends, values])
        .build()?)
}

/// Run ends in a narrower type, or `None` if the last (largest) does not fit.
fn narrow<T: TryFrom<i64> + alkaid_buffer::NativeType>(ends: &[i64]) -> Option<Buffer> {
    ends.iter()
        .map(|&end| T::try_from(end).ok())
        .collect::<Option<Vec<T>>>()
        .map(Buffer::from_vec)
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Array, BooleanArray, Int32Array, make_array};
    use alkaid_buffer::NullBuffer;
    use alkaid_data::equal;

    use super::*;
    use crate::{filter, take};

    fn ints(values: &[Option<i32>]) -> ArrayData {
        Int32Array::from(values.to_vec()).to_data()
    }

    fn take_data_of(data: &ArrayData, indices: &[Option<i32>]) -> ArrayData {
        take(
            make_array(data.clone()).as_ref(),
            &Int32Array::from(indices.to_vec()),
        )
        .unwrap()
        .to_data()
    }

    #[test]
    fn run_end_encoded_takes_join_equal_runs() {
        // 10, 10, 20, 20, 20, 30
        let data = ArrayData::builder(
            "RunEndEncoded(r: Int32 not null, v: Int32)"
                .parse()
                .unwrap(),
        )
        .len(6)
        .children(vec![
            ints(&[Some(2), Some(5), Some(6)]),
            ints(&[Some(10), Some(20), Some(30)]),
        ])
        .build()
        .unwrap();
        let taken = take_data_of(&data, &[Some(0), Some(1), Some(3), Some(4), None, Some(5)]);
        assert_eq!(taken.data_type(), data.data_type());
        assert!(equal(
            &taken.children()[0],
            &ints(&[Some(2), Some(4), Some(5), Some(6)])
        ));
        assert!(equal(
            &taken.children()[1],
            &ints(&[Some(10), Some(20), None, Some(30)])
        ));
    }

    #[test]
    fn dense_unions_take_each_child_at_its_slots() {
        let union_type: DataType = "Union(Dense, 0 => a: Int32, 1 => b: Int32)"
            .parse()
            .unwrap();
        let data = ArrayData::builder(union_type)
            .len(3)
            .buffers(vec![
                Buffer::from_vec(vec![0i8, 1, 0]),
                Buffer::from_vec(vec![0i32, 0, 1]),
            ])
            .children(vec![ints(&[Some(1), Some(2)]), ints(&[Some(7)])])
            .build()
            .unwrap();
        let taken = take_data_of(&data, &[Some(2), None, Some(1), Some(2)]);
        assert_eq!(taken.buffers()[0].typed::<i8>().unwrap(), &[0, 0, 1, 0]);
        assert_eq!(taken.buffers()[1].typed::<i32>().unwrap(), &[0, 1, 0, 2]);
        // Only the taken values: 2, a null for the null index, 2 again; and 7.
        assert!(equal(
            &taken.children()[0],
            &ints(&[Some(2), None, Some(2)])
        ));
        assert!(equal(&taken.children()[1], &ints(&[Some(7)])));
    }

    #[test]
    fn list_views_keep_their_child_and_filters_never_repeat_it() {
        let child = ints(&[Some(1), Some(2), Some(3), Some(4)]);
        let data = ArrayData::builder("ListView(item: Int32)".parse().unwrap())
            .len(4)
            .buffers(vec![
                Buffer::from_vec(vec![2i32, 0, 1, 3]),
                Buffer::from_vec(vec![2i32, 1, 0, 1]),
            ])
            .children(vec![child.clone()])
            .nulls(Some(NullBuffer::from(vec![true, true, false, true])))
            .build()
            .unwrap();
        let taken = take_data_of(&data, &[Some(3), None, Some(0)]);
        assert!(taken.children()[0].buffers()[0].shares_allocation_with(&child.buffers()[0]));
        assert_eq!(taken.buffers()[0].typed::<i32>().unwrap(), &[3, 0, 2]);
        assert_eq!(taken.buffers()[1].typed::<i32>().unwrap(), &[1, 0, 2]);
        assert!(taken.is_null(1) && taken.is_valid(2));
        // Two long runs of a mask: one child, not one per run.
        let mask: Vec<bool> = (0..4).map(|i| i != 1).collect();
        let repeated = ArrayData::builder(data.data_type().clone())
            .len(64)
            .buffers(vec![
                Buffer::from_vec(vec![0i32; 64]),
                Buffer::from_vec(vec![4i32; 64]),
            ])
            .children(vec![child.clone()])
            .build()
            .unwrap();
        let runs: Vec<bool> = (0..64).map(|i| !(20..40).contains(&i)).collect();
        let filtered = filter(make_array(repeated).as_ref(), &BooleanArray::from(runs)).unwrap();
        assert_eq!(
            (filtered.len(), filtered.to_data().children()[0].len()),
            (44, 4)
        );
        assert_eq!(
            filter(make_array(data).as_ref(), &BooleanArray::from(mask))
                .unwrap()
                .len(),
            3
        );
    }

    /// Lists of `i32` with these lengths, values counting up from 0, sliced from slot 1.
    fn counted_lists(lengths: &[usize]) -> ArrayData {
        let mut offsets = vec![0i32];
        for &len in lengths {
            offsets.push(offsets.last().unwrap() + len as i32);
        }
        let items = *offsets.last().unwrap();
        ArrayData::builder("List(item: Int32)".parse().unwrap())
            .len(lengths.len())
            .buffers(vec![Buffer::from_vec(offsets)])
            .children(vec![ints(&(0..items).map(Some).collect::<Vec<_>>())])
            .build()
            .unwrap()
            .slice(1, lengths.len() - 1)
    }

    #[test]
    fn list_takes_copy_every_list_whether_or_not_the_room_guessed_holds_them() {
        // Average length 45 / 7 (after the slice): repeating the 40-item list overflows
        // the guess, so the values are copied in a second pass; taking short lists fits it.
        let data = counted_lists(&[3, 1, 0, 2, 40, 0, 1, 1]);
        for indices in [
            vec![Some(3), Some(3), None, Some(3), Some(0), Some(3)],
            vec![Some(0), Some(6), None, Some(1), Some(2), Some(5)],
        ] {
            let taken = take_data_of(&data, &indices);
            let mut offsets = vec![0i32];
            let mut values = Vec::new();
            for index in &indices {
                if let Some(i) = *index {
                    let list = data.slice(i as usize, 1);
                    let (from, to) = {
                        let o = &list.buffers()[0].typed::<i32>().unwrap()[list.offset()..];
                        (o[0], o[1])
                    };
                    values.extend((from..to).map(Some));
                }
                offsets.push(values.len() as i32);
            }
            assert_eq!(taken.buffers()[0].typed::<i32>().unwrap(), &offsets[..]);
            assert!(equal(&taken.children()[0], &ints(&values)), "{indices:?}");
            assert!(taken.is_null(2) && taken.is_valid(1));
        }
    }

    #[test]
    fn fixed_size_lists_take_whole_lists_and_null_ones() {
        let data = ArrayData::builder("FixedSizeList(2, item: Int32)".parse().unwrap())
            .len(3)
            .children(vec![ints(&[
                Some(1),
                Some(2),
                Some(3),
                Some(4),
                Some(5),
                Some(6),
            ])])
            .build()
            .unwrap()
            .slice(1, 2); // [3, 4], [5, 6]
        let taken = take_data_of(&data, &[Some(1), None, Some(0)]);
        assert!(taken.is_null(1));
        let child = taken.children()[0].slice(0, 6);
        assert!(equal(
            &child,
            &ints(&[Some(5), Some(6), None, None, Some(3), Some(4)])
        ));
    }
}

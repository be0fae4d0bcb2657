//! Take: the slots at given indices, in their order, repeats allowed.
//!
//! Indices are any integer array; a null index gives a null slot, and an index outside the
//! array is an error naming it. The check costs nothing measurable: it rides along with the
//! gathers, which wait on cache misses anyway (see `gather::Typed`), so there is no unchecked
//! variant to trade safety for speed.
//!
//! Fixed-width values, booleans, dictionary keys, binary and string values and views are
//! gathered directly (views keep sharing their data buffers); lists take their children at
//! the positions they cover and structs take each child; every other layout joins one-slot
//! slices with alkaid-data's `concat`, correct for every type and slower.

use alkaid_array::{Array, ArrayRef, RecordBatch, make_array, make_builder};
use alkaid_buffer::{Buffer, OffsetSize};
use alkaid_data::{ArrayData, BufferSpec, ChildSpec, layout};
use alkaid_schema::{DataType, PhysicalType};

pub(crate) mod gather;
mod nested;
mod nulls;
mod ranges;

use crate::batch::each_column;
use crate::error::SelectError;
use gather::Positions;
use nested::TakeChild;
use nulls::taken_nulls;

/// The dispatcher as the nested kernels see it: they take their children through it.
struct Dispatch;

impl TakeChild for Dispatch {
    fn take<P: Positions + ?Sized>(
        data: &ArrayData,
        indices: &P,
    ) -> Result<ArrayData, SelectError> {
        take_data(data, indices)
    }
}

/// The slots of `array` at `indices` (any integer type; a null index gives a null slot).
///
/// # Errors
/// If `indices` is not an integer array, or an index is negative or not below the length.
///
/// ```
/// use alkaid_array::{Array, AsArray, Int64Array, StringArray};
/// use alkaid_select::take;
/// let words = StringArray::from(vec!["a", "b", "c"]);
/// let picked = take(&words, &Int64Array::from(vec![Some(2), None, Some(0), Some(2)]))?;
/// let picked = picked.as_string::<i32>();
/// assert_eq!((picked.value(0), picked.is_null(1), picked.value(3)), ("c", true, "c"));
/// assert!(take(&words, &Int64Array::from(vec![3])).is_err());
/// # Ok::<(), alkaid_select::SelectError>(())
/// ```
pub fn take(array: &dyn Array, indices: &dyn Array) -> Result<ArrayRef, SelectError> {
    let data = array.to_data();
    let indices = indices.to_data();
    let taken = match indices.data_type() {
        DataType::Int8 => take_typed::<i8>(&data, &indices)?,
        DataType::Int16 => take_typed::<i16>(&data, &indices)?,
        DataType::Int32 => take_typed::<i32>(&data, &indices)?,
        DataType::Int64 => take_typed::<i64>(&data, &indices)?,
        DataType::UInt8 => take_typed::<u8>(&data, &indices)?,
        DataType::UInt16 => take_typed::<u16>(&data, &indices)?,
        DataType::UInt32 => take_typed::<u32>(&data, &indices)?,
        DataType::UInt64 => take_typed::<u64>(&data, &indices)?,
        other => {
            return Err(SelectError::Mismatch(format!(
                "expected integer indices, found {other}"
            )));
        }
    };
    Ok(make_array(taken))
}

/// The rows of `batch` at `indices`, every column taken with the same indices.
///
/// # Errors
/// As [`take`], for any column.
///
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray, UInt8Array};
/// use alkaid_schema::{DataType, Field, Schema};
/// use alkaid_select::take_record_batch;
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("n", DataType::Int32, false),
///     Field::new("s", DataType::Utf8, false),
/// ]));
/// let columns: Vec<ArrayRef> = vec![
///     Arc::new(Int32Array::from(vec![1, 2, 3])),
///     Arc::new(StringArray::from(vec!["a", "b", "c"])),
/// ];
/// let batch = RecordBatch::try_new(schema, columns)?;
/// let picked = take_record_batch(&batch, &UInt8Array::from(vec![2, 0]))?;
/// assert_eq!(picked.num_rows(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn take_record_batch(
    batch: &RecordBatch,
    indices: &dyn Array,
) -> Result<RecordBatch, SelectError> {
    each_column(batch, indices.len(), |column| take(column, indices))
}

/// Takes with indices read in place from their buffer, after checking every valid one.
fn take_typed<T>(data: &ArrayData, indices: &ArrayData) -> Result<ArrayData, SelectError>
where
    T: gather::Index + alkaid_buffer::NativeType + std::fmt::Display,
{
    let all: &[T] = indices.buffers()[0]
        .typed()
        .map_err(|e| SelectError::Data(e.into()))?;
    let values = &all[indices.offset()..indices.offset() + indices.len()];
    let valid = |k: usize| indices.nulls().is_none_or(|n| n.is_valid(k));
    let largest_valid = || {
        (0..values.len())
            .filter(|&k| valid(k))
            .map(|k| values[k].as_u64())
            .max()
    };
    let len = data.len() as u64;
    let out_of_range_error = || -> SelectError {
        let k = (0..values.len())
            .find(|&k| valid(k) && values[k].as_u64() >= len)
            .unwrap_or(0);
        SelectError::Mismatch(format!(
            "index {} at position {k} is out of range for an array of length {len}",
            values[k]
        ))
    };
    if data.is_empty() {
        // Nothing to clamp to: any valid index is out of range, and null ones give nulls.
        return match largest_valid() {
            Some(_) => Err(out_of_range_error()),
            None => take_data(data, vec![None; values.len()].as_slice()),
        };
    }
    let positions = gather::Typed::new(values, indices.nulls(), data.len());
    let taken = take_data(data, &positions);
    // Layouts with nothing to gather never walk the indices: check them on their own.
    let out_of_range = match positions.out_of_range() {
        Some(out_of_range) => out_of_range,
        None => largest_valid().is_some_and(|largest| largest >= len),
    };
    if out_of_range {
        return Err(out_of_range_error());
    }
    taken
}

/// The slots of `data` at `indices`.
///
/// Every position must be below `data.len()`: the callers check that once, where it is
/// cheapest (typed indices before anything is gathered; mask bits by the mask's length;
/// child positions by the offsets of a valid parent).
///
/// # Errors
/// If the taken byte values or list children overflow their offsets, or a null index meets
/// a layout whose nulls live elsewhere (unions, run-end encoded) and no null slot can be
/// built for it.
pub(crate) fn take_data<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    let spec = layout(data.data_type());
    let byte_array = matches!(
        spec.buffers[..],
        [BufferSpec::Offsets { .. }, BufferSpec::Data]
    );
    let direct = spec.children == ChildSpec::None
        && (byte_array
            || spec.buffers.iter().all(|b| {
                matches!(
                    b,
                    BufferSpec::Fixed { .. } | BufferSpec::Bitmap | BufferSpec::Views
                )
            }));
    if !direct {
        return match data.data_type().to_physical() {
            PhysicalType::List => nested::list::<i32, P, Dispatch>(data, indices),
            PhysicalType::LargeList => nested::list::<i64, P, Dispatch>(data, indices),
            PhysicalType::ListView => nested::list_view(data, indices, 4),
            PhysicalType::LargeListView => nested::list_view(data, indices, 8),
            PhysicalType::FixedSizeList(size) => {
                nested::fixed_size_list::<P, Dispatch>(data, indices, size)
            }
            PhysicalType::Struct => nested::structure::<P, Dispatch>(data, indices),
            PhysicalType::SparseUnion => nested::sparse_union::<P, Dispatch>(data, indices),
            PhysicalType::DenseUnion => nested::dense_union::<P, Dispatch>(data, indices),
            PhysicalType::RunEndEncoded(_) => nested::run_end_encoded::<P, Dispatch>(data, indices),
            _ => by_slices(data, indices),
        };
    }
    let len = indices.len();
    let mut builder = ArrayData::builder(data.data_type().clone()).len(len);
    if spec.has_validity {
        builder = builder.nulls(taken_nulls(data, indices));
    }
    let mut buffers = Vec::with_capacity(data.buffers().len());
    if byte_array {
        let gathered = match spec.buffers[0] {
            BufferSpec::Offsets { width: 4 } => byte_values::<i32, P>(data, indices),
            _ => byte_values::<i64, P>(data, indices),
        };
        let (offsets, values) = gathered.ok_or_else(|| {
            SelectError::Overflow(format!(
                "the taken values of {} overflow its offsets",
                data.data_type()
            ))
        })?;
        buffers.extend([offsets, values]);
    } else {
        for (b, buffer_spec) in spec.buffers.iter().enumerate() {
            let buffer = &data.buffers()[b];
            buffers.push(match *buffer_spec {
                BufferSpec::Fixed { width, .. } => {
                    gather::fixed(buffer, data.offset(), width, indices)
                }
                BufferSpec::Views => gather::fixed(buffer, data.offset(), 16, indices),
                _ => indices.gather_bits(buffer, data.offset()),
            });
        }
    }
    // SAFETY: `data` is fully valid (every `ArrayData` made without `unsafe` is), and so is
    // this: fixed-width values, bits and views are copied whole from valid slots (views keep
    // the data buffers they point into), byte values are copied whole with offsets counted
    // from 0 as they are copied (so UTF-8 stays UTF-8, on character boundaries), dictionary
    // keys are keys of the same dictionary, and null slots hold zeros, which every layout
    // here accepts under a null. Full checks would re-read every byte (a 1 Mi-row `Utf8`
    // take spent 1.7 ms of 20 re-checking UTF-8).
    unsafe { gather::finish_flat(builder, data, spec.variadic, buffers) }
}

/// Every other layout: one-slot slices (and one-slot null arrays for null indices), joined.
fn by_slices<P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Result<ArrayData, SelectError> {
    if indices.len() == 0 {
        return Ok(data.slice(0, 0));
    }
    // Built on the first null index only: some layouts have no null slot to build.
    let mut null: Option<Result<ArrayData, SelectError>> = None;
    let mut parts = Vec::with_capacity(indices.len());
    indices.for_each(|position| match position {
        Some(i) => parts.push(data.slice(i, 1)),
        None => {
            if let Ok(null) = null.get_or_insert_with(|| null_slot(data.data_type())) {
                parts.push(null.clone());
            }
        }
    });
    if let Some(Err(e)) = null {
        return Err(e);
    }
    Ok(alkaid_data::concat(&parts.iter().collect::<Vec<_>>())?)
}

/// One null slot of `data_type`.
fn null_slot(data_type: &DataType) -> Result<ArrayData, SelectError> {
    let mut builder = make_builder(data_type, 1)?;
    builder.append_null();
    Ok(builder.try_finish()?.to_data())
}

/// Offsets and bytes of the strings or binaries at `indices`; `None` when the result's bytes
/// overflow `O`. A filter's ascending positions copy in one pass ([`ranges::copy`]: 1 Mi
/// short strings at 0.5, 2.47 to 1.45 ms); random ones in three, each prefetching
/// ([`gather::bytes`]).
fn byte_values<O: OffsetSize, P: Positions + ?Sized>(
    data: &ArrayData,
    indices: &P,
) -> Option<(Buffer, Buffer)> {
    let (offsets, values) = (&data.buffers()[0], &data.buffers()[1]);
    if !P::ASCENDING {
        return gather::bytes::<O, P>(offsets, values, data.offset(), indices);
    }
    let all: &[O] = offsets.typed().ok()?;
    let ours = all.get(data.offset()..=data.offset() + data.len())?;
    let copied = ranges::copy::<O, u8, P, 16>(ours, values, indices, 0)?;
    Some((Buffer::from_vec(copied.offsets), Buffer::from(copied.items)))
}

#[cfg(test)]
mod tests {
    use alkaid_array::{BooleanArray, Int32Array, NullArray, StringArray, UInt32Array};
    use alkaid_buffer::Buffer;
    use alkaid_schema::Fields;

    use alkaid_buffer::NullBuffer;

    use super::*;

    /// Int32 indices whose null slots hold values far out of range.
    fn garbage_under_nulls() -> ArrayRef {
        let data = ArrayData::builder(DataType::Int32)
            .len(4)
            .buffers(vec![Buffer::from_vec(vec![1i32, i32::MAX, -5, 0])])
            .nulls(Some(NullBuffer::from(vec![true, false, false, true])))
            .build()
            .unwrap();
        make_array(data)
    }

    #[test]
    fn values_under_null_indices_are_ignored() {
        let words = StringArray::from(vec!["a", "b"]);
        let taken = take(&words, garbage_under_nulls().as_ref()).unwrap();
        assert_eq!(taken.len(), 4);
        assert_eq!(taken.null_count(), 2);
        let taken = taken.to_data();
        assert!(taken.is_valid(0) && taken.is_null(1) && taken.is_null(2));
    }

    #[test]
    fn booleans_are_read_up_to_the_last_bit_of_their_bitmap() {
        // 16 bits in 2 bytes, sliced to bits 3..16: the array ends where its bitmap does,
        // the edge the unchecked bit reads rely on. More than 64 indices, so that whole
        // eights and a remainder are both gathered.
        let bits: Vec<bool> = (0..16).map(|i| i % 3 == 0 || i == 15).collect();
        let array = BooleanArray::from(bits.clone()).slice(3, 13);
        let indices: Vec<u32> = (0..13u32).rev().chain([12; 70]).collect();
        let taken = take(array.as_ref(), &UInt32Array::from(indices.clone())).unwrap();
        let taken = taken.as_any().downcast_ref::<BooleanArray>().unwrap();
        for (k, &i) in indices.iter().enumerate() {
            assert_eq!(taken.value(k), bits[3 + i as usize], "slot {k}");
        }
        let err = take(array.as_ref(), &UInt32Array::from(vec![0, 13])).unwrap_err();
        assert!(err.to_string().contains("index 13 at position 1"), "{err}");
    }

    #[test]
    fn strings_are_copied_whole_at_every_length_and_place() {
        // Values of 0 to 40 bytes, the last ones ending where the value buffer does (the
        // 16-byte short copy must not read past it), sliced, with null indices and more
        // slots than the prefetch distance, taken at random and at the end.
        let words: Vec<String> = (0..41).map(|n| "x".repeat(n) + &n.to_string()).collect();
        let array = StringArray::from(words.iter().map(String::as_str).collect::<Vec<_>>());
        let array = array.slice(1, 40);
        let picks: Vec<Option<u32>> = (0..200u32)
            .map(|k| (k % 7 != 3).then_some((k * 17 + 39) % 40))
            .chain([Some(39), Some(38), Some(0)])
            .collect();
        let taken = take(array.as_ref(), &UInt32Array::from(picks.clone())).unwrap();
        let taken = taken.as_any().downcast_ref::<StringArray>().unwrap();
        for (k, pick) in picks.iter().enumerate() {
            match pick {
                Some(i) => assert_eq!(taken.value(k), words[*i as usize + 1], "slot {k}"),
                None => assert!(taken.is_null(k), "slot {k}"),
            }
        }
    }

    #[test]
    fn filters_copy_strings_whole_whether_or_not_the_room_guessed_holds_them() {
        // Filters (ascending positions) copy in one pass into room guessed from the
        // average length. Selecting the long strings of a sliced array overflows the guess
        // (a second pass copies them); selecting the short ones, up to the last value of
        // the buffer, fits it.
        let words: Vec<String> = (0..130)
            .map(|n| {
                if n % 2 == 0 {
                    "y".repeat(90) + &n.to_string()
                } else {
                    n.to_string()
                }
            })
            .collect();
        let array = StringArray::from(words.iter().map(String::as_str).collect::<Vec<_>>());
        let array = array.slice(1, 129);
        for long in [true, false] {
            // Slot k of the slice is word k + 1, long when k is odd.
            let mask: Vec<bool> = (0..129).map(|k| (k % 2 == 1) == long).collect();
            let filtered = crate::filter(array.as_ref(), &BooleanArray::from(mask)).unwrap();
            let filtered = filtered.as_any().downcast_ref::<StringArray>().unwrap();
            let expected: Vec<&str> = (0..129)
                .filter(|k| (k % 2 == 1) == long)
                .map(|k| words[k + 1].as_str())
                .collect();
            assert_eq!(filtered.len(), expected.len());
            for (k, word) in expected.iter().enumerate() {
                assert_eq!(filtered.value(k), *word, "slot {k}, long {long}");
            }
        }
    }

    #[test]
    fn empty_arrays_take_only_nulls() {
        let empty = Int32Array::from(Vec::<i32>::new());
        let nulls = Int32Array::from(vec![None, None]);
        let taken = take(&empty, &nulls).unwrap();
        assert_eq!((taken.len(), taken.null_count()), (2, 2));
        let err = take(&empty, &Int32Array::from(vec![None, Some(0)])).unwrap_err();
        assert!(err.to_string().contains("index 0 at position 1"), "{err}");
    }

    #[test]
    fn small_selections_of_views_copy_what_they_reference() {
        let long: Vec<String> = (0..10_000)
            .map(|i| format!("a value long enough, {i:08}"))
            .collect();
        let views =
            alkaid_array::StringViewArray::from_iter_values(long.iter().map(String::as_str));
        let original = views.to_data();
        let held = |data: &ArrayData| data.buffers()[1..].iter().map(Buffer::len).sum::<usize>();
        assert!(held(&original) >= 64 * 1024);
        // A few values: compacted to their bytes, values unchanged.
        let few = take(&views, &Int32Array::from(vec![7, 9_999, 7])).unwrap();
        let few_data = few.to_data();
        assert_eq!(held(&few_data), 3 * long[7].len());
        let few = few
            .as_any()
            .downcast_ref::<alkaid_array::StringViewArray>()
            .unwrap();
        assert_eq!(
            (few.value(0), few.value(1)),
            (long[7].as_str(), long[9_999].as_str())
        );
        // Most values: the data buffers are shared, not copied.
        let most: Vec<i32> = (0..9_000).collect();
        let shared = take(&views, &Int32Array::from(most)).unwrap().to_data();
        assert!(shared.buffers()[1].shares_allocation_with(&original.buffers()[1]));
    }

    #[test]
    fn layouts_without_buffers_still_check_indices() {
        // Neither walks the indices to gather anything.
        let nulls = NullArray::new(3);
        assert_eq!(
            take(&nulls, &Int32Array::from(vec![2, 0])).unwrap().len(),
            2
        );
        let err = take(&nulls, &Int32Array::from(vec![0, 3])).unwrap_err();
        assert!(err.to_string().contains("index 3 at position 1"), "{err}");
        let empty_struct =
            alkaid_array::StructArray::try_new_with_len(Fields::empty(), vec![], None, 2).unwrap();
        assert!(take(&empty_struct, &Int32Array::from(vec![1])).is_ok());
        assert!(take(&empty_struct, &Int32Array::from(vec![2])).is_err());
    }
}

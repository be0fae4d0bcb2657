//! Row equality for any type: a comparator of row `i` of one array with row `j` of another,
//! nested types included. What nested comparisons, `unique` and `count_distinct` stand on.
//!
//! Two rows are equal when both are null, or both are valid and their values are equal:
//! fixed-width values in the crate's [total order](crate#floats) (so `NaN` equals `NaN` and
//! `-0.0` equals `0.0`), bytes byte for byte (text of any flavour with text, bytes with
//! bytes), lists item by item, structs field by field, unions by type id and value. Nulls
//! inside nested values are values like any other: `[1, null]` equals `[1, null]`.
//! Dictionary and run-end encoded arrays, at any depth, are compared by the values they
//! stand for.

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType, UnionMode};

use crate::access::native_values;
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::order::TotalOrder;
use crate::validity::logical_nulls;
use alkaid_array::with_native;

/// Whether row `i` of the left array equals row `j` of the right one.
pub(crate) type RowEq = Box<dyn Fn(usize, usize) -> bool + Send + Sync>;

/// A comparator of the rows of `left` with the rows of `right` (the same type, field names
/// aside, or text with text and bytes with bytes).
///
/// # Errors
/// If the types do not compare.
pub(crate) fn row_eq(left: &ArrayData, right: &ArrayData) -> Result<RowEq, ComputeError> {
    let (left, right) = (decoded(left)?, decoded(right)?);
    let values = values_eq(&left, &right)?;
    let (ln, rn) = (logical_nulls(&left)?, logical_nulls(&right)?);
    Ok(match (ln, rn) {
        (None, None) => values,
        (ln, rn) => {
            let valid =
                |nulls: &Option<NullBuffer>, i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
            Box::new(move |i, j| match (valid(&ln, i), valid(&rn, j)) {
                (true, true) => values(i, j),
                (false, false) => true,
                _ => false,
            })
        }
    })
}

fn mismatch(left: &ArrayData, right: &ArrayData) -> ComputeError {
    ComputeError::unsupported(
        "row equality",
        format!(
            "cannot compare {} with {}",
            left.data_type(),
            right.data_type()
        ),
    )
}

/// Equality of the values of two valid rows (validity is the caller's).
fn values_eq(left: &ArrayData, right: &ArrayData) -> Result<RowEq, ComputeError> {
    let (lt, rt) = (left.data_type(), right.data_type());
    let (lp, rp) = (lt.to_physical(), rt.to_physical());
    let same_type = lt.eq_ignoring_names(rt);
    Ok(match (lp, rp) {
        (PhysicalType::Null, _) | (_, PhysicalType::Null) => Box::new(|_, _| true),
        (PhysicalType::Boolean, PhysicalType::Boolean) => {
            let bits =
                |d: &ArrayData| BooleanBuffer::new(d.buffers()[0].clone(), d.offset(), d.len());
            let (l, r) = (bits(left), bits(right));
            Box::new(move |i, j| l.value(i) == r.value(j))
        }
        (PhysicalType::Primitive(p), PhysicalType::Primitive(q)) if p == q && same_type => {
            with_native!(p, |T| natives_eq::<T>(left, right)?)
        }
        _ if OwnedBytes::of(left).is_some() && lt.is_string() == rt.is_string() => {
            let (l, r) = (OwnedBytes::of(left), OwnedBytes::of(right));
            match (l, r) {
                (Some(l), Some(r)) => Box::new(move |i, j| l.value(i) == r.value(j)),
                _ => return Err(mismatch(left, right)),
            }
        }
        _ if !same_type => return Err(mismatch(left, right)),
        (PhysicalType::Struct, _) => {
            let children = children_eq(left, right)?;
            let (lo, ro) = (left.offset(), right.offset());
            Box::new(move |i, j| children.iter().all(|eq| eq(lo + i, ro + j)))
        }
        (PhysicalType::FixedSizeList(size), _) => {
            let size = usize::try_from(size).unwrap_or(0);
            let items = row_eq(&left.children()[0], &right.children()[0])?;
            let (lo, ro) = (left.offset(), right.offset());
            Box::new(move |i, j| {
                let (a, b) = ((lo + i) * size, (ro + j) * size);
                (0..size).all(|k| items(a + k, b + k))
            })
        }
        (
            PhysicalType::List
            | PhysicalType::LargeList
            | PhysicalType::ListView
            | PhysicalType::LargeListView,
            _,
        ) => {
            let (l, r) = (ListRanges::of(left)?, ListRanges::of(right)?);
            let items = row_eq(&left.children()[0], &right.children()[0])?;
            Box::new(move |i, j| {
                let (a, b) = (l.range(i), r.range(j));
                a.len() == b.len() && a.zip(b).all(|(x, y)| items(x, y))
            })
        }
        (PhysicalType::SparseUnion | PhysicalType::DenseUnion, _) => union_eq(left, right)?,
        _ => return Err(mismatch(left, right)),
    })
}

/// A comparator for each pair of children, in order.
fn children_eq(left: &ArrayData, right: &ArrayData) -> Result<Vec<RowEq>, ComputeError> {
    left.children()
        .iter()
        .zip(right.children())
        .map(|(l, r)| row_eq(l, r))
        .collect()
}

fn natives_eq<T: TotalOrder>(left: &ArrayData, right: &ArrayData) -> Result<RowEq, ComputeError> {
    let (l, r) = (native_values::<T>(left)?, native_values::<T>(right)?);
    Ok(Box::new(move |i, j| T::is_eq(l[i], r[j])))
}

/// The byte values of a binary-like array, owned (the comparator outlives the borrow).
enum OwnedBytes {
    Offsets32(ScalarBuffer<i32>, Buffer),
    Offsets64(ScalarBuffer<i64>, Buffer),
    Views(ScalarBuffer<ByteView>, Vec<Buffer>),
    Fixed(Buffer, usize),
}

impl OwnedBytes {
    fn of(data: &ArrayData) -> Option<Self> {
        let (buffers, offset, len) = (data.buffers(), data.offset(), data.len());
        // An empty array may have no offsets at all: it has no value to read.
        if len == 0 && crate::access::is_binary_like(data.data_type().to_physical()) {
            return Some(Self::Fixed(Buffer::empty(), 0));
        }
        Some(match data.data_type().to_physical() {
            PhysicalType::Binary => Self::Offsets32(
                ScalarBuffer::new_realigned(buffers[0].clone(), offset, len + 1).ok()?,
                buffers[1].clone(),
            ),
            PhysicalType::LargeBinary => Self::Offsets64(
                ScalarBuffer::new_realigned(buffers[0].clone(), offset, len + 1).ok()?,
                buffers[1].clone(),
            ),
            PhysicalType::BinaryView => Self::Views(
                ScalarBuffer::new_realigned(buffers[0].clone(), offset, len).ok()?,
                buffers[1..].to_vec(),
            ),
            PhysicalType::FixedSizeBinary(width) => {
                let width = usize::try_from(width).ok()?;
                Self::Fixed(buffers[0].slice(offset * width, len * width), width)
            }
            _ => return None,
        })
    }

    fn value(&self, i: usize) -> &[u8] {
        match self {
            Self::Offsets32(offsets, data) => &data[offsets[i] as usize..offsets[i + 1] as usize],
            Self::Offsets64(offsets, data) => &data[offsets[i] as usize..offsets[i + 1] as usize],
            Self::Views(views, buffers) => {
                let view = &views[i];
                match view.inline_bytes() {
                    Some(bytes) => bytes,
                    None => {
                        let start = view.offset() as usize;
                        &buffers[view.buffer_index() as usize][start..start + view.len()]
                    }
                }
            }
            Self::Fixed(data, width) => &data[i * width..(i + 1) * width],
        }
    }
}

/// Where each row's items lie in a list-like array's child.
enum ListRanges {
    Offsets(Vec<i64>),
    Views(Vec<i64>, Vec<i64>),
}

impl ListRanges {
    fn of(data: &ArrayData) -> Result<Self, ComputeError> {
        let (offset, len) = (data.offset(), data.len());
        if len == 0 {
            // Possibly no offsets at all; no row to find a range for.
            return Ok(Self::Offsets(vec![0]));
        }
        let read = |index: usize, wide: bool, count: usize| -> Result<Vec<i64>, ComputeError> {
            let buffer = data.buffers()[index].clone();
            Ok(if wide {
                ScalarBuffer::<i64>::new_realigned(buffer, offset, count)
                    .map_err(|e| ComputeError::Data(e.into()))?
                    .to_vec()
            } else {
                ScalarBuffer::<i32>::new_realigned(buffer, offset, count)
                    .map_err(|e| ComputeError::Data(e.into()))?
                    .iter()
                    .map(|&v| i64::from(v))
                    .collect()
            })
        };
        Ok(match data.data_type().to_physical() {
            PhysicalType::List => Self::Offsets(read(0, false, len + 1)?),
            PhysicalType::LargeList => Self::Offsets(read(0, true, len + 1)?),
            PhysicalType::ListView => Self::Views(read(0, false, len)?, read(1, false, len)?),
            _ => Self::Views(read(0, true, len)?, read(1, true, len)?),
        })
    }

    fn range(&self, i: usize) -> std::ops::Range<usize> {
        match self {
            Self::Offsets(offsets) => offsets[i] as usize..offsets[i + 1] as usize,
            Self::Views(offsets, sizes) => {
                let start = offsets[i] as usize;
                start..start + sizes[i] as usize
            }
        }
    }
}

/// Unions: the same type id, and equal values in that child.
fn union_eq(left: &ArrayData, right: &ArrayData) -> Result<RowEq, ComputeError> {
    let DataType::Union(union) = left.data_type() else {
        return Err(mismatch(left, right));
    };
    let children = children_eq(left, right)?;
    let ids = |d: &ArrayData| -> Vec<i8> {
        d.buffers()[0][d.offset()..d.offset() + d.len()]
            .iter()
            .map(|&b| b as i8)
            .collect()
    };
    let dense = union.mode() == UnionMode::Dense;
    let slots = |d: &ArrayData| -> Result<Vec<usize>, ComputeError> {
        Ok(if dense {
            ScalarBuffer::<i32>::new_realigned(d.buffers()[1].clone(), d.offset(), d.len())
                .map_err(|e| ComputeError::Data(e.into()))?
                .iter()
                .map(|&v| v as usize)
                .collect()
        } else {
            (d.offset()..d.offset() + d.len()).collect()
        })
    };
    let (l_ids, r_ids, l_slots, r_slots) = (ids(left), ids(right), slots(left)?, slots(right)?);
    let positions: Vec<Option<usize>> = (0..=255u8).map(|id| union.child_index(id as i8)).collect();
    Ok(Box::new(move |i, j| {
        let id = l_ids[i];
        id == r_ids[j]
            && positions[id as u8 as usize]
                .is_some_and(|child| children[child](l_slots[i], r_slots[j]))
    }))
}

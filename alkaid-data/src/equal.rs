//! Logical equality of two arrays.
//!
//! Two arrays are equal when they have the same type and length and, slot by slot, are both
//! null or both valid with equal values. Physical differences do not matter: offsets and
//! slicing, a missing bitmap versus an all-valid one, the bytes under null slots, views
//! pointing into different buffers, different dictionaries holding the same values, runs
//! split differently. Floats compare by bits (NaN equals the same NaN; 0.0 and -0.0 differ),
//! as everywhere bytes are compared.
//!
//! Each slot is first resolved to where its value lives — through dictionary keys and run
//! ends — and then compared by layout. A union value is its type id together with the
//! child's value, so equal bytes in differently tagged children are different values.

use alkaid_buffer::Buffer;
use alkaid_buffer::bitmap::get_bit;
use alkaid_buffer::native::ByteView;
use alkaid_schema::{DataType, PhysicalType, UnionMode};

use crate::ArrayData;

/// Whether `left` and `right` hold the same logical values.
///
/// # Examples
/// ```
/// use alkaid_buffer::{Buffer, NullBuffer};
/// use alkaid_data::{equal, ArrayData};
/// use alkaid_schema::DataType;
///
/// // [1, null, 3] with garbage under the null, and the same values sliced from a longer array.
/// let a = ArrayData::builder(DataType::Int32).len(3)
///     .nulls(Some(NullBuffer::from(vec![true, false, true])))
///     .buffers(vec![Buffer::from_slice_ref(&[1i32, 99, 3])]).build()?;
/// let b = ArrayData::builder(DataType::Int32).len(4)
///     .nulls(Some(NullBuffer::from(vec![true, true, false, true])))
///     .buffers(vec![Buffer::from_slice_ref(&[0i32, 1, 0, 3])]).build()?;
/// assert!(equal(&a, &b.slice(1, 3)));
/// assert!(!equal(&a, &b));
/// # Ok::<(), alkaid_data::DataError>(())
/// ```
pub fn equal(left: &ArrayData, right: &ArrayData) -> bool {
    left.data_type() == right.data_type()
        && left.len() == right.len()
        && (same_memory(left, right) || (0..left.len()).all(|i| slot_equal(left, i, right, i)))
}

/// Whether both arrays are the same view of the same memory (clones of one array, say):
/// then they are equal without a look at a value. Several arrays sharing one dictionary
/// are compared this way whenever they are joined.
fn same_memory(left: &ArrayData, right: &ArrayData) -> bool {
    let same = |a: &Buffer, b: &Buffer| a.as_ptr() == b.as_ptr() && a.len() == b.len();
    let same_nulls = match (left.nulls(), right.nulls()) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            let (a, b) = (a.validity(), b.validity());
            same(a.inner(), b.inner()) && a.offset() == b.offset() && a.len() == b.len()
        }
        _ => false,
    };
    let same_dictionary = match (left.dictionary(), right.dictionary()) {
        (None, None) => true,
        (Some(a), Some(b)) => a.len() == b.len() && same_memory(a, b),
        _ => false,
    };
    left.offset() == right.offset()
        && left.len() == right.len()
        && same_nulls
        && left.buffers().len() == right.buffers().len()
        && left
            .buffers()
            .iter()
            .zip(right.buffers())
            .all(|(a, b)| same(a, b))
        && left.children().len() == right.children().len()
        && left
            .children()
            .iter()
            .zip(right.children())
            .all(|(a, b)| same_memory(a, b))
        && same_dictionary
}

/// Where the value of a slot lives: nowhere (null), or slot `index` of `array`, whose type
/// is neither a dictionary nor run-end encoded.
enum Resolved<'a> {
    Null,
    Value(&'a ArrayData, usize),
}

fn resolve(data: &ArrayData, slot: usize) -> Resolved<'_> {
    let position = data.offset() + slot;
    match data.data_type().to_physical() {
        PhysicalType::Null => Resolved::Null,
        _ if data.is_null(slot) => Resolved::Null,
        PhysicalType::Dictionary(key) => {
            let key = read_int(
                &data.buffers()[0],
                key.byte_width(),
                key.is_signed(),
                position,
            );
            let dictionary = data
                .dictionary()
                .expect("a valid dictionary array has a dictionary");
            resolve(dictionary, key as usize)
        }
        PhysicalType::RunEndEncoded(_) => {
            let values = &data.children()[1];
            resolve(values, run_index(&data.children()[0], position))
        }
        _ => Resolved::Value(data, slot),
    }
}

/// The type id of a union slot, and the child and child slot holding its value.
fn union_slot(data: &ArrayData, slot: usize) -> (i8, &ArrayData, usize) {
    let DataType::Union(union) = data.data_type() else {
        unreachable!("called on unions only")
    };
    let position = data.offset() + slot;
    let type_id = data.buffers()[0][position] as i8;
    let child = union
        .child_index(type_id)
        .expect("validated type ids are declared");
    let child_slot = match union.mode() {
        UnionMode::Sparse => position,
        UnionMode::Dense => read_int(&data.buffers()[1], 4, true, position) as usize,
    };
    (type_id, &data.children()[child], child_slot)
}

/// The run whose end is the first one past `position` (binary search over the run ends).
fn run_index(run_ends: &ArrayData, position: usize) -> usize {
    let width = run_ends
        .data_type()
        .primitive_byte_width()
        .expect("integer run ends");
    let end_of =
        |run: usize| read_int(&run_ends.buffers()[0], width, true, run_ends.offset() + run);
    let (mut low, mut high) = (0, run_ends.len());
    while low < high {
        let mid = low + (high - low) / 2;
        if end_of(mid) as usize <= position {
            low = mid + 1
        } else {
            high = mid
        }
    }
    low
}

fn slot_equal(left: &ArrayData, i: usize, right: &ArrayData, j: usize) -> bool {
    match (resolve(left, i), resolve(right, j)) {
        (Resolved::Null, Resolved::Null) => true,
        (Resolved::Value(a, i), Resolved::Value(b, j)) => value_equal(a, i, b, j),
        _ => false,
    }
}

/// Compares two valid slots of arrays of the same plain (resolved) type.
fn value_equal(a: &ArrayData, i: usize, b: &ArrayData, j: usize) -> bool {
    let (pa, pb) = (a.offset() + i, b.offset() + j);
    match a.data_type().to_physical() {
        PhysicalType::Boolean => get_bit(&a.buffers()[0], pa) == get_bit(&b.buffers()[0], pb),
        PhysicalType::Primitive(primitive) => {
            let width = primitive.byte_width();
            fixed_bytes(&a.buffers()[0], width, pa) == fixed_bytes(&b.buffers()[0], width, pb)
        }
        PhysicalType::FixedSizeBinary(width) => {
            let width = width as usize;
            fixed_bytes(&a.buffers()[0], width, pa) == fixed_bytes(&b.buffers()[0], width, pb)
        }
        PhysicalType::Binary => variable_bytes(a, 4, pa) == variable_bytes(b, 4, pb),
        PhysicalType::LargeBinary => variable_bytes(a, 8, pa) == variable_bytes(b, 8, pb),
        PhysicalType::BinaryView => view_bytes(a, pa) == view_bytes(b, pb),
        PhysicalType::List => child_range_equal(a, b, list_range(a, 4, pa), list_range(b, 4, pb)),
        PhysicalType::LargeList => {
            child_range_equal(a, b, list_range(a, 8, pa), list_range(b, 8, pb))
        }
        PhysicalType::ListView => {
            child_range_equal(a, b, view_range(a, 4, pa), view_range(b, 4, pb))
        }
        PhysicalType::LargeListView => {
            child_range_equal(a, b, view_range(a, 8, pa), view_range(b, 8, pb))
        }
        PhysicalType::FixedSizeList(size) => {
            let size = size as usize;
            child_range_equal(
                a,
                b,
                (pa * size, pa * size + size),
                (pb * size, pb * size + size),
            )
        }
        PhysicalType::Struct => a
            .children()
            .iter()
            .zip(b.children())
            .all(|(ca, cb)| slot_equal(ca, pa, cb, pb)),
        // A union value is its type id and the child's value (which may be null).
        PhysicalType::SparseUnion | PhysicalType::DenseUnion => {
            let ((ta, ca, sa), (tb, cb, sb)) = (union_slot(a, i), union_slot(b, j));
            ta == tb && slot_equal(ca, sa, cb, sb)
        }
        PhysicalType::Null | PhysicalType::Dictionary(_) | PhysicalType::RunEndEncoded(_) => {
            unreachable!("resolve() never yields these layouts")
        }
    }
}

fn child_range_equal(
    a: &ArrayData,
    b: &ArrayData,
    (sa, ea): (usize, usize),
    (sb, eb): (usize, usize),
) -> bool {
    let (child_a, child_b) = (&a.children()[0], &b.children()[0]);
    ea - sa == eb - sb && (0..ea - sa).all(|k| slot_equal(child_a, sa + k, child_b, sb + k))
}

/// Reads a little-endian integer of `width` bytes at element `index`.
fn read_int(buffer: &Buffer, width: usize, signed: bool, index: usize) -> i128 {
    let bytes = &buffer[index * width..(index + 1) * width];
    let mut raw = [0u8; 16];
    raw[..width].copy_from_slice(bytes);
    let negative = signed && bytes[width - 1] & 0x80 != 0;
    if negative {
        raw[width..].fill(0xff);
    }
    i128::from_le_bytes(raw)
}

fn fixed_bytes(buffer: &Buffer, width: usize, position: usize) -> &[u8] {
    &buffer[position * width..(position + 1) * width]
}

fn list_range(data: &ArrayData, width: usize, position: usize) -> (usize, usize) {
    let offsets = &data.buffers()[0];
    (
        read_int(offsets, width, true, position) as usize,
        read_int(offsets, width, true, position + 1) as usize,
    )
}

fn view_range(data: &ArrayData, width: usize, position: usize) -> (usize, usize) {
    let offset = read_int(&data.buffers()[0], width, true, position) as usize;
    let size = read_int(&data.buffers()[1], width, true, position) as usize;
    (offset, offset + size)
}

fn variable_bytes(data: &ArrayData, width: usize, position: usize) -> &[u8] {
    let (start, end) = list_range(data, width, position);
    &data.buffers()[1][start..end]
}

fn view_bytes(data: &ArrayData, position: usize) -> &[u8] {
    let views = data.buffers()[0]
        .typed::<ByteView>()
        .expect("validated views are aligned");
    let view = &views[position];
    match view.inline_bytes() {
        Some(inline) => inline,
        None => {
            let buffer = &data.buffers()[1 + view.buffer_index() as usize];
            let start = view.offset() as usize;
            &buffer[start..start + view.len()]
        }
    }
}

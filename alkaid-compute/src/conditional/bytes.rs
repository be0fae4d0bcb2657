//! The conditionals' fast path for text and bytes: `if_else` of branches with offsets
//! copies each row's chosen value once into the result, and of view branches picks each
//! row's 16-byte view (the result shares both branches' data buffers, nothing is copied),
//! instead of handing (argument, row) pairs to `interleave`.

use alkaid_buffer::native::ByteView;
use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetSize};
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;

use super::Branches;
use super::fixed::{if_else_validity, select};
use crate::access::{ByteAccess, offset_bytes, views_of};
use crate::error::ComputeError;
use crate::operand::Operand;

/// Whether the branches hold bytes with offsets or views (text, binary, their large and
/// view forms).
pub(super) fn is_bytes(branches: &Branches) -> bool {
    matches!(
        branches.data_type.to_physical(),
        PhysicalType::Binary | PhysicalType::LargeBinary | PhysicalType::BinaryView
    )
}

/// `if_else` over an array condition (`condition`'s values, `condition_valid` its
/// validity) and two branches for which [`is_bytes`] holds.
pub(super) fn if_else(
    condition: &BooleanBuffer,
    condition_valid: Option<&NullBuffer>,
    branches: &Branches,
) -> Result<ArrayData, ComputeError> {
    let len = branches.len;
    let (truthy, falsy) = (&branches.operands[0], &branches.operands[1]);
    let valid = if_else_validity(condition, condition_valid, truthy, falsy, len)?;
    let buffers = match branches.data_type.to_physical() {
        PhysicalType::Binary => copy_chosen::<i32>(condition, valid.as_ref(), truthy, falsy)?,
        PhysicalType::LargeBinary => copy_chosen::<i64>(condition, valid.as_ref(), truthy, falsy)?,
        _ => pick_views(condition, truthy, falsy)?,
    };
    let nulls = valid.map(NullBuffer::new).filter(|n| n.null_count() > 0);
    let builder = ArrayData::builder(branches.data_type.clone())
        .len(len)
        .nulls(nulls)
        .buffers(buffers);
    // SAFETY: every value is a whole value of a fully valid branch of this type (UTF-8
    // for text), copied with offsets counted from the copies, or a branch's view with its
    // buffer index moved to where that branch's data buffers now are; full validation of
    // the result would re-read every byte (for views, it was most of the kernel's time).
    // The property tests validate every result fully.
    Ok(unsafe { builder.build_structural() }?)
}

/// The offsets and data of the chosen values, row by row (a null row left empty).
fn copy_chosen<O: OffsetSize>(
    chosen: &BooleanBuffer,
    valid: Option<&BooleanBuffer>,
    truthy: &Operand,
    falsy: &Operand,
) -> Result<Vec<Buffer>, ComputeError> {
    let (t, f) = (
        offset_bytes::<O>(&truthy.data)?,
        offset_bytes::<O>(&falsy.data)?,
    );
    let bytes_of = |operand: &Operand, all: Option<&[u8]>| match operand.scalar {
        true => 0,
        false => all.map_or(0, <[u8]>::len),
    };
    // The larger branch's bytes: exact when one side is chosen throughout, and the vector
    // grows past it otherwise.
    let capacity = bytes_of(truthy, t.all_values()).max(bytes_of(falsy, f.all_values()));
    let copy = |one_t: Option<&[u8]>, one_f: Option<&[u8]>| {
        copy_rows::<O>(
            chosen,
            valid,
            capacity,
            |row| one_t.unwrap_or_else(|| t.value(row)),
            |row| one_f.unwrap_or_else(|| f.value(row)),
        )
    };
    match (truthy.scalar, falsy.scalar) {
        (false, false) => copy(None, None),
        (false, true) => copy(None, Some(f.value(0))),
        (true, false) => copy(Some(t.value(0)), None),
        (true, true) => copy(Some(t.value(0)), Some(f.value(0))),
    }
}

#[inline(always)]
fn copy_rows<'a, O: OffsetSize>(
    chosen: &BooleanBuffer,
    valid: Option<&BooleanBuffer>,
    capacity: usize,
    truthy: impl Fn(usize) -> &'a [u8],
    falsy: impl Fn(usize) -> &'a [u8],
) -> Result<Vec<Buffer>, ComputeError> {
    let len = chosen.len();
    let mut offsets: Vec<O> = Vec::with_capacity(len + 1);
    offsets.push(O::ZERO);
    let mut bytes: Vec<u8> = Vec::with_capacity(capacity);
    for row in 0..len {
        if valid.is_none_or(|valid| valid.value(row)) {
            let value = if chosen.value(row) {
                truthy(row)
            } else {
                falsy(row)
            };
            bytes.extend_from_slice(value);
            if !O::IS_LARGE && bytes.len() > i32::MAX as usize {
                return Err(ComputeError::offsets_overflow(row));
            }
        }
        // In range: checked above for 32-bit offsets, and a vector's length fits i64.
        offsets.push(O::usize_as(bytes.len()));
    }
    Ok(vec![Buffer::from_vec(offsets), Buffer::from_vec(bytes)])
}

/// The chosen views, the false branch's renumbered to follow the true branch's data
/// buffers, and both branches' data buffers. A null row keeps the view it picked, which
/// points into those buffers like any other.
fn pick_views(
    chosen: &BooleanBuffer,
    truthy: &Operand,
    falsy: &Operand,
) -> Result<Vec<Buffer>, ComputeError> {
    let (t, f) = (views_of(&truthy.data)?, views_of(&falsy.data)?);
    let t_buffers = &truthy.data.buffers()[1..];
    let f_buffers = &falsy.data.buffers()[1..];
    let shift = i32::try_from(t_buffers.len()).map_err(|_| {
        ComputeError::InvalidArgument("if_else: more than 2^31 data buffers".into())
    })?;
    let moved = |view: ByteView| match view.is_inline() {
        true => view,
        false => view.with_location(view.buffer_index() + shift, view.offset()),
    };
    let views = match (truthy.scalar, falsy.scalar) {
        (false, false) => select(chosen, |i| t[i], |i| moved(f[i])),
        (false, true) => select(chosen, |i| t[i], |_| moved(f[0])),
        (true, false) => select(chosen, |_| t[0], |i| moved(f[i])),
        (true, true) => select(chosen, |_| t[0], |_| moved(f[0])),
    };
    let mut buffers = Vec::with_capacity(1 + t_buffers.len() + f_buffers.len());
    buffers.push(views);
    buffers.extend_from_slice(t_buffers);
    buffers.extend_from_slice(f_buffers);
    Ok(buffers)
}

//! The conditionals' fast path for flat fixed-width values (integers, floats, decimals,
//! dates, times, timestamps, durations, intervals): each row's value chosen a word of bits
//! at a time, and the result's validity computed with bitmap operations, instead of a list
//! of (argument, row) pairs handed to `interleave`.

use alkaid_buffer::{BooleanBuffer, Buffer, NativeType, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{NativeKind, PhysicalType};

use super::Branches;
use crate::access::native_values;
use crate::error::ComputeError;
use crate::operand::Operand;
use crate::validity::logical_nulls;

/// The native kind of the arguments, if every one is a plain fixed-width array or scalar.
pub(super) fn kind(branches: &Branches) -> Option<NativeKind> {
    match branches.data_type.to_physical() {
        PhysicalType::Primitive(kind) => Some(kind),
        _ => None,
    }
}

/// One argument's values: a value per row, or one for every row.
enum Values<T: NativeType> {
    Rows(ScalarBuffer<T>),
    One(T),
}

impl<T: NativeType> Values<T> {
    fn of(operand: &Operand) -> Result<Self, ComputeError> {
        let values = native_values::<T>(&operand.data)?;
        Ok(match operand.scalar {
            true => Self::One(values[0]),
            false => Self::Rows(values),
        })
    }
}

/// One argument's validity over the result's rows: `None` if every row is valid.
fn validity(operand: &Operand, len: usize) -> Result<Option<BooleanBuffer>, ComputeError> {
    let nulls = logical_nulls(&operand.data)?;
    Ok(match (operand.scalar, nulls) {
        (_, None) => None,
        (true, Some(_)) => Some(BooleanBuffer::new_unset(len)),
        (false, Some(nulls)) => Some(nulls.into_inner()),
    })
}

fn set(bits: Option<BooleanBuffer>, len: usize) -> BooleanBuffer {
    bits.unwrap_or_else(|| BooleanBuffer::new_set(len))
}

/// Each row's value from `truthy` where its bit of `chosen` is set, else from `falsy`.
fn choose<T: NativeType>(
    chosen: &BooleanBuffer,
    truthy: &Values<T>,
    falsy: &Values<T>,
) -> Result<Buffer, ComputeError> {
    let len = chosen.len();
    // Each side's rows cut to the result's length once, so that reading row `i < len`
    // needs no check of its own (a check per value kept the loop from vectorising).
    // `select` reads rows below `chosen.len()`, which is `len`, the length of the slices
    // cut above: each `get_unchecked` is in bounds.
    Ok(match (truthy, falsy) {
        (Values::Rows(t), Values::Rows(f)) => {
            let (t, f) = (rows_of(t, len)?, rows_of(f, len)?);
            select(
                chosen,
                // SAFETY: `i < len == t.len()` (above).
                |i| unsafe { *t.get_unchecked(i) },
                // SAFETY: `i < len == f.len()` (above).
                |i| unsafe { *f.get_unchecked(i) },
            )
        }
        (Values::Rows(t), Values::One(f)) => {
            let t = rows_of(t, len)?;
            // SAFETY: `i < len == t.len()` (above).
            select(chosen, |i| unsafe { *t.get_unchecked(i) }, |_| *f)
        }
        (Values::One(t), Values::Rows(f)) => {
            let f = rows_of(f, len)?;
            // SAFETY: `i < len == f.len()` (above).
            select(chosen, |_| *t, |i| unsafe { *f.get_unchecked(i) })
        }
        (Values::One(t), Values::One(f)) => select(chosen, |_| *t, |_| *f),
    })
}

/// The first `len` rows of `values`; an error if it has fewer.
fn rows_of<T: NativeType>(values: &ScalarBuffer<T>, len: usize) -> Result<&[T], ComputeError> {
    values.get(..len).ok_or_else(|| {
        ComputeError::InvalidArgument(format!(
            "a branch of {} rows for {len} conditions",
            values.len()
        ))
    })
}

/// Each row's value, `truthy(row)` where its bit of `chosen` is set, else `falsy(row)`;
/// `row` is always below `chosen.len()`.
#[inline(always)]
pub(super) fn select<T: NativeType>(
    chosen: &BooleanBuffer,
    truthy: impl Fn(usize) -> T,
    falsy: impl Fn(usize) -> T,
) -> Buffer {
    let len = chosen.len();
    let mut out: Vec<T> = Vec::with_capacity(len);
    // Both sides are read so that the choice compiles to a select, not a branch; whole
    // words in a loop of 64 (a constant count, so each bit's mask is a constant and the
    // loop vectorises), written with `extend` (no capacity check per value).
    let pick = |word: u64, base: usize, bit: usize| {
        let (t, f) = (truthy(base + bit), falsy(base + bit));
        if word >> bit & 1 == 1 { t } else { f }
    };
    for (w, word) in chosen.chunks().iter_padded().enumerate() {
        let base = w * 64;
        match len - base >= 64 {
            true => out.extend((0..64).map(|bit| pick(word, base, bit))),
            false => out.extend((0..len - base).map(|bit| pick(word, base, bit))),
        }
    }
    Buffer::from_vec(out)
}

pub(super) fn finish(
    branches: &Branches,
    values: Buffer,
    valid: Option<BooleanBuffer>,
) -> Result<ArrayData, ComputeError> {
    let nulls = valid.map(NullBuffer::new).filter(|n| n.null_count() > 0);
    Ok(ArrayData::builder(branches.data_type.clone())
        .len(branches.len)
        .nulls(nulls)
        .buffers(vec![values])
        .build()?)
}

/// `if_else` over an array condition (`condition`'s values, `condition_valid` its
/// validity) and two fixed-width branches of native kind `kind`.
pub(super) fn if_else(
    kind: NativeKind,
    condition: &BooleanBuffer,
    condition_valid: Option<&NullBuffer>,
    branches: &Branches,
) -> Result<ArrayData, ComputeError> {
    let len = branches.len;
    let (truthy, falsy) = (&branches.operands[0], &branches.operands[1]);
    let values = alkaid_array::with_native!(kind, |T| {
        choose::<T>(condition, &Values::of(truthy)?, &Values::of(falsy)?)?
    });
    let valid = if_else_validity(condition, condition_valid, truthy, falsy, len)?;
    finish(branches, values, valid)
}

/// The validity of `if_else`'s result over an array condition: the chosen branch's row is
/// valid and the condition is; `None` if every row is valid.
pub(super) fn if_else_validity(
    condition: &BooleanBuffer,
    condition_valid: Option<&NullBuffer>,
    truthy: &Operand,
    falsy: &Operand,
    len: usize,
) -> Result<Option<BooleanBuffer>, ComputeError> {
    let valid = match (validity(truthy, len)?, validity(falsy, len)?) {
        (None, None) => None,
        (t, f) => {
            let (t, f) = (set(t, len), set(f, len));
            Some(&(condition & &t) | &f.and_not(condition))
        }
    };
    Ok(match (valid, condition_valid) {
        (valid, None) => valid,
        (None, Some(c)) => Some(c.validity().clone()),
        (Some(valid), Some(c)) => Some(&valid & c.validity()),
    })
}

/// `coalesce` of fixed-width arguments of native kind `kind`: the last argument's values,
/// overwritten, argument by argument toward the first, where each is valid.
pub(super) fn coalesce(kind: NativeKind, branches: &Branches) -> Result<ArrayData, ComputeError> {
    let len = branches.len;
    let mut valid: Option<BooleanBuffer> = Some(BooleanBuffer::new_unset(len));
    let values = alkaid_array::with_native!(kind, |T| {
        let mut values: Values<T> = Values::One(T::default());
        for operand in branches.operands.iter().rev() {
            let here = validity(operand, len)?;
            let (chosen, all) = match here {
                None => (BooleanBuffer::new_set(len), true),
                Some(bits) => (bits, false),
            };
            valid = match (all, valid) {
                (true, _) | (_, None) => None,
                (false, Some(v)) => Some(&v | &chosen),
            };
            // An argument without nulls hides every later one: its values are taken as
            // they are, not copied.
            if all {
                values = Values::of(operand)?;
                continue;
            }
            let chosen_values = choose::<T>(&chosen, &Values::of(operand)?, &values)?;
            values = Values::Rows(
                ScalarBuffer::try_new(chosen_values, 0, len)
                    .map_err(|e| ComputeError::Data(e.into()))?,
            );
        }
        match values {
            Values::Rows(rows) => rows.into_inner(),
            // Every argument a scalar, the first without a null: its value for each row.
            Values::One(value) => Buffer::from_vec(vec![value; len]),
        }
    });
    finish(branches, values, valid)
}

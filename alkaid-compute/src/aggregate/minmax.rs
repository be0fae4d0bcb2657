//! `min` and `max`: of fixed-width values in eight lanes (the first value that counts
//! stands in for the rows that do not, so masked loops vectorise too), of booleans a word
//! at a time, of bytes and text by comparing slices.

use std::cmp::Ordering;

use alkaid_array::{Scalar, make_array};
use alkaid_buffer::{BooleanBuffer, Buffer, NativeType};
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;

use super::lanes::lanes;
use super::rows::{Rows, natives};
use crate::access::{ByteAccess, BytesVisitor, visit_bytes};
use crate::bits::vectorized;
use crate::error::ComputeError;
use crate::order::TotalOrder;
use alkaid_array::with_native;

/// The smallest (or, with `max`, largest) value that counts, or `None` if none does.
pub(crate) fn extreme(rows: &Rows, max: bool) -> Result<Option<Scalar>, ComputeError> {
    let data = &rows.data;
    let selection = rows.selection.as_ref();
    let name = if max { "max" } else { "min" };
    match data.data_type().to_physical() {
        PhysicalType::Null => Ok(None),
        PhysicalType::Boolean => {
            let values = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
            let (trues, counted) = match selection {
                Some(s) => ((&values & s).count_set_bits(), s.count_set_bits()),
                None => (values.count_set_bits(), values.len()),
            };
            if counted == 0 {
                return Ok(None);
            }
            let answer = if max { trues > 0 } else { trues == counted };
            Ok(Some(Scalar::from(answer)))
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let values = natives::<T>(rows)?;
            let best = match max {
                true => vectorized(|| best::<T, true>(&values, selection)),
                false => vectorized(|| best::<T, false>(&values, selection)),
            };
            Ok(best.map(|value| scalar_of(data, value)))
        }),
        physical if crate::access::is_binary_like(physical) => {
            let row = visit_bytes(
                data,
                BestBytes {
                    selection,
                    max,
                    len: data.len(),
                },
            )?
            .flatten();
            Ok(row.map(|row| Scalar::from_array(make_array(data.clone()).as_ref(), row)))
        }
        _ => Err(ComputeError::unsupported(
            name,
            format!("{} values have no order", data.data_type()),
        )),
    }
}

/// A one-value scalar of `data`'s type holding `value`.
fn scalar_of<T: NativeType>(data: &ArrayData, value: T) -> Scalar {
    let array = ArrayData::builder(data.data_type().clone())
        .len(1)
        .buffers(vec![Buffer::from_slice_ref(&[value])])
        .build()
        .expect("one value of the array's own fixed-width type");
    Scalar::try_new(make_array(array)).expect("one slot")
}

/// The best value (the largest if `MAX`, else the smallest) among those `selection` keeps.
#[inline(always)]
pub(crate) fn best<T: TotalOrder, const MAX: bool>(
    values: &[T],
    selection: Option<&BooleanBuffer>,
) -> Option<T> {
    let first = match selection {
        None => (!values.is_empty()).then_some(0),
        Some(s) => s.set_indices().next(),
    }?;
    // `candidate` beats `current`.
    let beats = |current: T, candidate: T| {
        if MAX {
            T::is_lt(current, candidate)
        } else {
            T::is_lt(candidate, current)
        }
    };
    let stand_in = values[first];
    let mut best = [stand_in; 8];
    lanes(values, selection, |lane, v: T, keep| {
        // A value the selection does not keep becomes the stand-in, which changes nothing.
        let v = if keep != 0 { v } else { stand_in };
        if beats(best[lane], v) {
            best[lane] = v;
        }
    });
    let mut result = best[0];
    for &lane in &best[1..] {
        if beats(result, lane) {
            result = lane;
        }
    }
    Some(result)
}

/// The row of the best byte value among those selected.
struct BestBytes<'s> {
    selection: Option<&'s BooleanBuffer>,
    max: bool,
    len: usize,
}

impl<'a> BytesVisitor<'a> for BestBytes<'_> {
    type Output = Option<usize>;

    fn visit<B: ByteAccess<'a>>(self, values: B) -> Option<usize> {
        let wanted = if self.max {
            Ordering::Greater
        } else {
            Ordering::Less
        };
        let mut best: Option<(usize, &[u8])> = None;
        let mut consider = |row: usize| {
            let value = values.value(row);
            if best.is_none_or(|(_, current)| value.cmp(current) == wanted) {
                best = Some((row, value));
            }
        };
        match self.selection {
            Some(s) => s.set_indices().for_each(&mut consider),
            None => (0..self.len).for_each(&mut consider),
        }
        best.map(|(row, _)| row)
    }
}

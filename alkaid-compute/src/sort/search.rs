//! Binary search in a sorted array: where a value would go.

use std::cmp::Ordering;

use alkaid_array::{Array, Scalar};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;
use alkaid_select::concat_data;

use super::key::SortKey;
use super::options::SortOptions;
use super::rows::Column;
use crate::access::{ByteAccess, BytesVisitor, native_values, visit_bytes};
use crate::error::ComputeError;
use crate::order::TotalOrder;
use crate::validity::logical_nulls;
use alkaid_array::with_native;

/// The first row of `sorted` that does not come before `value` in the order of `options`:
/// where `value` would be inserted before its equals. Like [`slice::partition_point`],
/// `sorted` must be sorted by `options` (the answer is some row otherwise, never a panic).
///
/// Fixed-width, boolean and binary-like arrays are searched in `O(log n)` comparisons;
/// other orderable types (dictionaries, runs, nested types) are ranked first, in `O(n)`.
///
/// # Errors
/// If `value`'s type differs from the array's, or the type has no order.
///
/// # Examples
/// ```
/// use alkaid_array::{Int64Array, Scalar};
/// use alkaid_compute::sort::{SortOptions, lower_bound, upper_bound};
///
/// let sorted = Int64Array::from(vec![Some(1), Some(3), Some(3), Some(8), None]);
/// let three = Scalar::from(3i64);
/// assert_eq!(lower_bound(&sorted, &three, SortOptions::ASCENDING)?, 1);
/// assert_eq!(upper_bound(&sorted, &three, SortOptions::ASCENDING)?, 3);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn lower_bound(
    sorted: &dyn Array,
    value: &Scalar,
    options: SortOptions,
) -> Result<usize, ComputeError> {
    search(sorted, value, options, |order| order == Ordering::Less)
}

/// The first row of `sorted` that comes after `value` in the order of `options`: where
/// `value` would be inserted after its equals. As [`lower_bound`] otherwise.
///
/// # Errors
/// As [`lower_bound`].
pub fn upper_bound(
    sorted: &dyn Array,
    value: &Scalar,
    options: SortOptions,
) -> Result<usize, ComputeError> {
    search(sorted, value, options, |order| order != Ordering::Greater)
}

/// The first row for which `before` (given how the row compares with the value) is false.
fn search(
    sorted: &dyn Array,
    value: &Scalar,
    options: SortOptions,
    before: impl Fn(Ordering) -> bool,
) -> Result<usize, ComputeError> {
    let data = sorted.to_data();
    let target = value.array().to_data();
    if !data.data_type().eq_ignoring_names(target.data_type()) {
        return Err(ComputeError::unsupported(
            "search",
            format!(
                "cannot search for a {} value in a {} array",
                target.data_type(),
                data.data_type()
            ),
        ));
    }
    let len = data.len();
    let Some(compare) = value_order(&data, &target)? else {
        // No direct comparison: rank the array and the value together.
        let joined = concat_data(&[&data, &target])?;
        let key = SortKey::of(&joined, options)?;
        return Ok(partition_point(len, |row| before(key.compare(row, len))));
    };
    let (row_nulls, value_null) = (logical_nulls(&data)?, value.is_null());
    let row_null = |row: usize| row_nulls.as_ref().is_some_and(|n| n.is_null(row));
    Ok(partition_point(len, |row| {
        let order = match (row_null(row), value_null) {
            (true, true) => Ordering::Equal,
            (true, false) if options.nulls_first => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if options.nulls_first => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) if options.descending => compare(row).reverse(),
            (false, false) => compare(row),
        };
        before(order)
    }))
}

/// The first of `0..len` for which `before` is false, by bisection.
fn partition_point(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// How each valid row of `data` compares (ascending) with the value in `target`'s slot 0,
/// for the types that compare directly; `None` for the others.
type ValueOrder<'a> = Box<dyn Fn(usize) -> Ordering + 'a>;

fn value_order<'a>(
    data: &'a ArrayData,
    target: &ArrayData,
) -> Result<Option<ValueOrder<'a>>, ComputeError> {
    if target.is_null(0) {
        return Ok(Some(Box::new(|_| Ordering::Equal)));
    }
    Ok(match data.data_type().to_physical() {
        PhysicalType::Boolean => {
            let bits = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
            let value =
                BooleanBuffer::new(target.buffers()[0].clone(), target.offset(), 1).value(0);
            Some(Box::new(move |row| bits.value(row).cmp(&value)))
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let values = native_values::<T>(data)?;
            let value = native_values::<T>(target)?[0];
            Some(Box::new(move |row| T::order(values[row], value)) as ValueOrder<'a>)
        }),
        physical if crate::access::is_binary_like(physical) => {
            let value = visit_bytes(target, FirstValue)?.unwrap_or_default();
            visit_bytes(data, BytesOrder { value })?
        }
        _ => None,
    })
}

/// The bytes of slot 0.
struct FirstValue;

impl<'a> BytesVisitor<'a> for FirstValue {
    type Output = Vec<u8>;
    fn visit<B: ByteAccess<'a>>(self, values: B) -> Vec<u8> {
        values.value(0).to_vec()
    }
}

/// Each slot's bytes compared with `value`.
struct BytesOrder {
    value: Vec<u8>,
}

impl<'a> BytesVisitor<'a> for BytesOrder {
    type Output = ValueOrder<'a>;
    fn visit<B: ByteAccess<'a>>(self, values: B) -> ValueOrder<'a> {
        Box::new(move |row| values.value(row).cmp(&self.value))
    }
}

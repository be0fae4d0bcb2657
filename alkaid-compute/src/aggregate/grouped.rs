//! Grouped aggregates: one result per group, for the group ids a hash aggregation assigns
//! to rows. Groups without a row that counts get a null (a zero for counts).

use std::sync::Arc;

use alkaid_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, UInt64Array, make_array,
};
use alkaid_buffer::native::i256;
use alkaid_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};
use alkaid_select::take;
use hashbrown::HashTable;

use super::groups::Grouped;
use super::kind::Aggregate;
use super::statistics::{self, Interpolation};
use super::sum::{SplitInt, SumFloat, SumKind, i256_to_f64};
use crate::access::{ByteAccess, BytesVisitor, native_values, visit_bytes};
use crate::decimal::{DecimalNative, max_of_precision, with_decimal};
use crate::error::ComputeError;
use crate::hash::{combine, value_hashes};
use crate::order::TotalOrder;
use crate::row_eq::row_eq;
use alkaid_array::with_native;

/// `aggregate` over the rows of `array` that `mask` keeps, per group.
pub(super) fn grouped(
    aggregate: Aggregate,
    array: &dyn Array,
    groups: &[u32],
    group_count: usize,
    mask: Option<&BooleanArray>,
) -> Result<ArrayRef, ComputeError> {
    let input = Grouped::of(array, groups, group_count, mask)?;
    dispatch(aggregate, &input)
}

/// `aggregate` of each group of `input`.
pub(super) fn dispatch(
    aggregate: Aggregate,
    input: &Grouped<'_>,
) -> Result<ArrayRef, ComputeError> {
    let group_count = input.count;
    aggregate.check_input(input.data.data_type())?;
    if matches!(input.data.data_type(), DataType::Null) && aggregate != Aggregate::Count {
        let output = aggregate.result_type(&DataType::Null)?;
        return Ok(match aggregate {
            Aggregate::CountDistinct | Aggregate::ApproxCountDistinct => {
                Arc::new(Int64Array::from(vec![0i64; group_count]))
            }
            _ => make_array(crate::arith::null_array(&output, group_count)?),
        });
    }
    match aggregate {
        Aggregate::Count => {
            let mut counts = vec![0i64; group_count];
            input.each(|_, g| counts[g] += 1);
            Ok(Arc::new(Int64Array::from(counts)))
        }
        Aggregate::CountDistinct => count_distinct(input),
        Aggregate::ApproxCountDistinct => statistics::approx_count_distinct(input),
        Aggregate::VarianceSample => statistics::spread(input, 1, false),
        Aggregate::VariancePopulation => statistics::spread(input, 0, false),
        Aggregate::StddevSample => statistics::spread(input, 1, true),
        Aggregate::StddevPopulation => statistics::spread(input, 0, true),
        Aggregate::Median => statistics::quantile(input, 0.5, Interpolation::Linear),
        Aggregate::First => statistics::first_or_last(input, false),
        Aggregate::Last => statistics::first_or_last(input, true),
        Aggregate::Sum | Aggregate::Mean => sums(input, aggregate == Aggregate::Mean),
        Aggregate::Min | Aggregate::Max => extremes(input, aggregate == Aggregate::Max),
        Aggregate::Any | Aggregate::All => {
            let values = BooleanBuffer::new(
                input.data.buffers()[0].clone(),
                input.data.offset(),
                input.data.len(),
            );
            let any = aggregate == Aggregate::Any;
            let mut results: Vec<Option<bool>> = vec![None; group_count];
            input.each(|row, g| {
                let v = values.value(row);
                let current = results[g].unwrap_or(!any);
                results[g] = Some(if any { current || v } else { current && v });
            });
            Ok(Arc::new(BooleanArray::from(results)))
        }
    }
}

/// Per group, the number of distinct values that count: one table of (group, first row)
/// pairs keyed by the group and the row's hash.
fn count_distinct(input: &Grouped<'_>) -> Result<ArrayRef, ComputeError> {
    let hashes = value_hashes(&input.data)?;
    let equal = row_eq(&input.data, &input.data)?;
    let mut table: HashTable<usize> = HashTable::new();
    let mut counts = vec![0i64; input.count];
    let key = |row: usize| combine(input.group(row) as u64, hashes[row]);
    input.each(|row, g| {
        let hash = key(row);
        let seen = table
            .find(hash, |&other| input.group(other) == g && equal(other, row))
            .is_some();
        if !seen {
            table.insert_unique(hash, row, |&other| key(other));
            counts[g] += 1;
        }
    });
    Ok(Arc::new(Int64Array::from(counts)))
}

/// Per group sums (or means) of numbers.
fn sums(input: &Grouped<'_>, mean: bool) -> Result<ArrayRef, ComputeError> {
    let data_type = input.data.data_type();
    let kind = SumKind::of(data_type).ok_or_else(|| {
        ComputeError::unsupported(
            if mean { "mean" } else { "sum" },
            format!("cannot add {data_type} values"),
        )
    })?;
    let mut counts = vec![0u64; input.count];
    input.each(|_, g| counts[g] += 1);
    let valid = NullBuffer::new(counts.iter().map(|&c| c > 0).collect());
    let valid = Some(valid).filter(|v| v.null_count() > 0);
    let overflow = |g: usize| ComputeError::Overflow {
        row: None,
        message: format!("the sum of group {g} does not fit {}", kind.output()),
    };
    match kind {
        SumKind::Float(p) => alkaid_array::with_float!(p, |T| {
            let values = native_values::<T>(&input.data)?;
            let mut totals = vec![0f64; input.count];
            input.each(|row, g| totals[g] += values[row].to_f64());
            finish_float(totals, &counts, mean, valid)
        }),
        SumKind::Signed(p) | SumKind::Unsigned(p) => alkaid_array::with_integer!(p, |T| {
            let values = native_values::<T>(&input.data)?;
            let mut totals = vec![0i128; input.count];
            input.each(|row, g| {
                let (h, l) = values[row].split();
                totals[g] += i128::from(h) * (1 << 32) + i128::from(l);
            });
            if mean {
                return finish_float(
                    totals.iter().map(|&t| t as f64).collect(),
                    &counts,
                    true,
                    valid,
                );
            }
            let array: ArrayRef = match kind {
                SumKind::Signed(_) => {
                    Arc::new(Int64Array::new(narrowed(&totals, &overflow)?, valid))
                }
                _ => Arc::new(UInt64Array::new(narrowed(&totals, &overflow)?, valid)),
            };
            Ok(array)
        }),
        SumKind::Duration(ref output) => {
            let values = native_values::<i64>(&input.data)?;
            let mut totals = vec![0i128; input.count];
            input.each(|row, g| totals[g] += i128::from(values[row]));
            if mean {
                return finish_float(
                    totals.iter().map(|&t| t as f64).collect(),
                    &counts,
                    true,
                    valid,
                );
            }
            let out: ScalarBuffer<i64> = narrowed(&totals, &overflow)?;
            build(output.clone(), out.into_inner(), valid)
        }
        SumKind::Decimal(d) => with_decimal!(d.width(), |T| {
            let values = native_values::<T>(&input.data)?;
            let mut totals = vec![i256::ZERO; input.count];
            let mut wrapped = false;
            input.each(|row, g| match totals[g].checked_add(values[row].widen()) {
                Some(t) => totals[g] = t,
                None => wrapped = true,
            });
            if wrapped {
                return Err(overflow(0));
            }
            if mean {
                let scale = 10f64.powi(i32::from(d.scale()));
                return finish_float(
                    totals.iter().map(|&t| i256_to_f64(t) / scale).collect(),
                    &counts,
                    true,
                    valid,
                );
            }
            let output = kind.output();
            let DataType::Decimal(out) = &output else {
                unreachable!("a decimal sum is a decimal")
            };
            let max = max_of_precision(out.precision());
            let mut narrowed: Vec<T> = Vec::with_capacity(input.count);
            for (g, &t) in totals.iter().enumerate() {
                let fits = t <= max && t >= max.wrapping_neg();
                narrowed.push(
                    T::try_narrow(t)
                        .filter(|_| fits)
                        .ok_or_else(|| overflow(g))?,
                );
            }
            build(output, Buffer::from_vec(narrowed), valid)
        }),
    }
}

/// Each group's total in `T`, or the overflow error of the first group whose does not fit.
fn narrowed<T: alkaid_buffer::NativeType + TryFrom<i128>>(
    totals: &[i128],
    overflow: &dyn Fn(usize) -> ComputeError,
) -> Result<ScalarBuffer<T>, ComputeError> {
    totals
        .iter()
        .enumerate()
        .map(|(g, &t)| T::try_from(t).map_err(|_| overflow(g)))
        .collect()
}

fn finish_float(
    totals: Vec<f64>,
    counts: &[u64],
    mean: bool,
    valid: Option<NullBuffer>,
) -> Result<ArrayRef, ComputeError> {
    let values: Vec<f64> = match mean {
        true => totals
            .iter()
            .zip(counts)
            .map(|(&t, &c)| if c > 0 { t / c as f64 } else { 0.0 })
            .collect(),
        false => totals,
    };
    Ok(Arc::new(Float64Array::new(
        ScalarBuffer::from(values),
        valid,
    )))
}

fn build(
    data_type: DataType,
    values: Buffer,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef, ComputeError> {
    let len = values.len() / data_type.primitive_byte_width().unwrap_or(1);
    Ok(make_array(
        ArrayData::builder(data_type)
            .len(len)
            .nulls(nulls)
            .buffers(vec![values])
            .build()?,
    ))
}

/// Per group, the row of the smallest (or largest) value, then those rows taken.
fn extremes(input: &Grouped<'_>, max: bool) -> Result<ArrayRef, ComputeError> {
    let data = &input.data;
    let mut best: Vec<Option<usize>> = vec![None; input.count];
    match data.data_type().to_physical() {
        PhysicalType::Null => {}
        PhysicalType::Boolean => {
            let values = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
            track(
                input,
                &mut best,
                |a, b| values.value(a).cmp(&values.value(b)),
                max,
            );
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let values = native_values::<T>(data)?;
            track(input, &mut best, |a, b| T::order(values[a], values[b]), max);
        }),
        physical if crate::access::is_binary_like(physical) => {
            visit_bytes(
                data,
                TrackBytes {
                    input,
                    best: &mut best,
                    max,
                },
            )?;
        }
        _ => {
            return Err(ComputeError::unsupported(
                if max { "max" } else { "min" },
                format!("{} values have no order", data.data_type()),
            ));
        }
    }
    let indices = UInt64Array::from(best.iter().map(|b| b.map(|r| r as u64)).collect::<Vec<_>>());
    Ok(take(make_array(data.clone()).as_ref(), &indices)?)
}

/// Keeps, per group, the row whose value `compare` ranks best.
fn track(
    input: &Grouped<'_>,
    best: &mut [Option<usize>],
    compare: impl Fn(usize, usize) -> std::cmp::Ordering,
    max: bool,
) {
    let wanted = if max {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Less
    };
    input.each(|row, g| {
        if best[g].is_none_or(|current| compare(row, current) == wanted) {
            best[g] = Some(row);
        }
    });
}

struct TrackBytes<'i, 'g, 'b> {
    input: &'i Grouped<'g>,
    best: &'b mut [Option<usize>],
    max: bool,
}

impl<'a> BytesVisitor<'a> for TrackBytes<'_, '_, '_> {
    type Output = ();

    fn visit<B: ByteAccess<'a>>(self, values: B) {
        track(
            self.input,
            self.best,
            |a, b| values.value(a).cmp(values.value(b)),
            self.max,
        );
    }
}

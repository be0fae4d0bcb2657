//! The statistical aggregates, per group (the whole-array forms run as one group):
//! variance and standard deviation (numerically stable: Welford's one-pass update per
//! group, and blocks' exact moments merged pairwise over a whole array), exact quantiles
//! (each group's values selected in linear time), the first and last value, and an
//! approximate distinct count (HyperLogLog).

use std::sync::Arc;

use alkaid_array::{ArrayRef, Float64Array, Int64Array, UInt64Array, make_array};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;
use alkaid_select::take;

use super::groups::Grouped;
use crate::access::native_values;
use crate::cast::{CastOptions, cast};
use crate::error::ComputeError;
use crate::hash::value_hashes;

/// Which value a quantile that falls between two values takes (pyarrow's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// The weighted mean of the two: `lower + (higher − lower) · fraction`.
    #[default]
    Linear,
    /// The lower of the two.
    Lower,
    /// The higher of the two.
    Higher,
    /// The nearer of the two; the one at the even position when both are as near.
    Nearest,
    /// The mean of the two.
    Midpoint,
}

/// The values as a `Float64` array (numbers of any type; decimals rounded to the nearest
/// `f64`; a `Float64` input shared, not copied), for [`native_values`] to index by row.
fn floats(input: &Grouped<'_>) -> Result<ArrayData, ComputeError> {
    let as_float = cast(
        make_array(input.data.clone()).as_ref(),
        &DataType::Float64,
        CastOptions::SAFE,
    )?;
    Ok(as_float.to_data())
}

/// Variance (`stddev`: its square root) per group, with `ddof` 1 (sample) or 0
/// (population); null for a group with no more than `ddof` values.
pub(super) fn spread(
    input: &Grouped<'_>,
    ddof: usize,
    root: bool,
) -> Result<ArrayRef, ComputeError> {
    let floats = floats(input)?;
    let values = native_values::<f64>(&floats)?;
    let mut count = vec![0usize; input.count];
    let mut mean = vec![0f64; input.count];
    let mut m2 = vec![0f64; input.count];
    if input.count == 1 {
        // One group (the whole array): exact two-pass moments of each block of values,
        // merged as Chan, Golub and LeVeque do; the blocks' loops have no division and
        // vectorise, where Welford's update divides once per value.
        // Where every row counts, the blocks are read in place.
        let mut total = Moments::default();
        if input.every_row() {
            for block in values.chunks(BLOCK) {
                total.merge(Moments::of(block));
            }
        } else {
            let mut block = Vec::with_capacity(BLOCK);
            input.each(|row, _| {
                block.push(values[row]);
                if block.len() == BLOCK {
                    total.merge(Moments::of(&block));
                    block.clear();
                }
            });
            total.merge(Moments::of(&block));
        }
        (count[0], mean[0], m2[0]) = (total.count, total.mean, total.m2);
    } else {
        input.each(|row, g| {
            count[g] += 1;
            let x = values[row];
            let delta = x - mean[g];
            mean[g] += delta / count[g] as f64;
            m2[g] += delta * (x - mean[g]);
        });
    }
    let results: Vec<Option<f64>> = (0..input.count)
        .map(|g| {
            (count[g] > ddof).then(|| {
                let variance = m2[g] / (count[g] - ddof) as f64;
                if root { variance.sqrt() } else { variance }
            })
        })
        .collect();
    Ok(Arc::new(Float64Array::from(results)))
}

/// The sum of `f(x)` over `values` in eight running sums (which the compiler keeps in
/// vector registers: one sum would wait on each addition before the next).
#[inline(always)]
fn lane_sum(values: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    let mut lanes = [0f64; 8];
    let mut chunks = values.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane += f(x);
        }
    }
    let rest: f64 = chunks.remainder().iter().map(|&x| f(x)).sum();
    lanes.iter().sum::<f64>() + rest
}

/// Values per block of the whole-array variance.
const BLOCK: usize = 1024;

/// The count, mean and sum of squared deviations from the mean of some values.
#[derive(Debug, Default, Clone, Copy)]
struct Moments {
    count: usize,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// Of `values`, in two passes (the mean, then the deviations from it).
    fn of(values: &[f64]) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        let mean = lane_sum(values, |x| x) / values.len() as f64;
        let m2 = lane_sum(values, |x| (x - mean) * (x - mean));
        Self {
            count: values.len(),
            mean,
            m2,
        }
    }

    /// Both sets of values together (Chan, Golub and LeVeque's pairwise update).
    fn merge(&mut self, other: Self) {
        if other.count == 0 {
            return;
        }
        let count = self.count + other.count;
        let delta = other.mean - self.mean;
        let weight = other.count as f64 / count as f64;
        self.mean += delta * weight;
        self.m2 += other.m2 + delta * delta * self.count as f64 * weight;
        self.count = count;
    }
}

/// The `q` quantile of each group's values (`0 <= q <= 1`), as `Float64`.
pub(super) fn quantile(
    input: &Grouped<'_>,
    q: f64,
    interpolation: Interpolation,
) -> Result<ArrayRef, ComputeError> {
    if !(0.0..=1.0).contains(&q) {
        return Err(ComputeError::InvalidArgument(format!(
            "quantile: {q} is not between 0 and 1"
        )));
    }
    let floats = floats(input)?;
    let values = native_values::<f64>(&floats)?;
    let mut groups: Vec<Vec<f64>> = vec![Vec::new(); input.count];
    // The crate's total order: every NaN one value, greatest; -0.0 equal to 0.0.
    let canonical = |x: f64| if x.is_nan() { f64::NAN } else { x + 0.0 };
    match (input.count, input.every_row()) {
        // The whole array, every row counting: collected at once, sized up front.
        (1, true) => groups[0] = values.iter().map(|&x| canonical(x)).collect(),
        _ => input.each(|row, g| groups[g].push(canonical(values[row]))),
    }
    let results: Vec<Option<f64>> = groups
        .iter_mut()
        .map(|group| {
            if group.is_empty() {
                return None;
            }
            let position = q * (group.len() - 1) as f64;
            let (lower, upper) = (position.floor() as usize, position.ceil() as usize);
            // The value at `lower` in sorted order, found in linear time; the next one up
            // is the least of those after it.
            let (_, &mut low, above) = group.select_nth_unstable_by(lower, f64::total_cmp);
            let high = match upper > lower {
                true => above.iter().copied().min_by(f64::total_cmp).unwrap_or(low),
                false => low,
            };
            let fraction = position - lower as f64;
            Some(match interpolation {
                _ if lower == upper => low,
                Interpolation::Linear => low + (high - low) * fraction,
                Interpolation::Lower => low,
                Interpolation::Higher => high,
                Interpolation::Midpoint => low + (high - low) / 2.0,
                Interpolation::Nearest if fraction < 0.5 => low,
                Interpolation::Nearest if fraction > 0.5 => high,
                Interpolation::Nearest if lower % 2 == 0 => low,
                Interpolation::Nearest => high,
            })
        })
        .collect();
    Ok(Arc::new(Float64Array::from(results)))
}

/// The first (or last) value of each group that counts, in row order; null for a group
/// without one.
pub(super) fn first_or_last(input: &Grouped<'_>, last: bool) -> Result<ArrayRef, ComputeError> {
    let mut chosen: Vec<Option<u64>> = vec![None; input.count];
    input.each(|row, g| {
        if last || chosen[g].is_none() {
            chosen[g] = Some(row as u64);
        }
    });
    let values = make_array(input.data.clone());
    Ok(take(values.as_ref(), &UInt64Array::from(chosen))?)
}

/// HyperLogLog's registers: 2^12, so a standard error of 1.04 / 64 ≈ 1.6%.
const PRECISION: u32 = 12;
const REGISTERS: usize = 1 << PRECISION;
/// Up to this many distinct hashes a group is counted exactly.
const EXACT: usize = 64;

/// One group's distinct-count state: the hashes seen while few, registers after.
enum Sketch {
    Exact(Vec<u64>),
    Registers(Box<[u8]>),
}

impl Sketch {
    fn add(&mut self, hash: u64) {
        match self {
            Self::Exact(seen) => {
                if seen.contains(&hash) {
                    return;
                }
                seen.push(hash);
                if seen.len() > EXACT {
                    let mut registers = vec![0u8; REGISTERS].into_boxed_slice();
                    for &h in seen.iter() {
                        update(&mut registers, h);
                    }
                    *self = Self::Registers(registers);
                }
            }
            Self::Registers(registers) => update(registers, hash),
        }
    }

    fn estimate(&self) -> i64 {
        match self {
            Self::Exact(seen) => seen.len() as i64,
            Self::Registers(registers) => {
                let m = REGISTERS as f64;
                let sum: f64 = registers.iter().map(|&r| (-f64::from(r)).exp2()).sum();
                let raw = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
                let zeros = registers.iter().filter(|&&r| r == 0).count();
                let estimate = if raw <= 2.5 * m && zeros > 0 {
                    m * (m / zeros as f64).ln()
                } else {
                    raw
                };
                estimate.round() as i64
            }
        }
    }
}

/// The row hash spread over all 64 bits (splitmix64's finaliser): HyperLogLog reads the
/// top bits as a register and the rest's leading zeros.
fn spread_bits(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn update(registers: &mut [u8], hash: u64) {
    let hash = spread_bits(hash);
    let index = (hash >> (64 - PRECISION)) as usize;
    let rank = ((hash << PRECISION) | (1 << (PRECISION - 1))).leading_zeros() as u8 + 1;
    registers[index] = registers[index].max(rank);
}

/// The approximate number of distinct values per group: exact up to 64, then
/// HyperLogLog with 4,096 registers (a standard error of about 1.6%).
pub(super) fn approx_count_distinct(input: &Grouped<'_>) -> Result<ArrayRef, ComputeError> {
    let hashes = value_hashes(&input.data)?;
    let mut sketches: Vec<Sketch> = (0..input.count)
        .map(|_| Sketch::Exact(Vec::new()))
        .collect();
    input.each(|row, g| sketches[g].add(hashes[row]));
    let counts: Vec<i64> = sketches.iter().map(Sketch::estimate).collect();
    Ok(Arc::new(Int64Array::from(counts)))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::ArrayRef;
    use alkaid_array::types::{Float64Type, Int8Type, Int64Type};
    use alkaid_array::{
        AsArray, BooleanArray, DictionaryArray, Float64Array, Int8Array, Int32Array, Int64Array,
        StringArray,
    };

    use super::*;
    use crate::aggregate::{Aggregate, quantile, quantile_grouped};

    fn float(scalar: alkaid_array::Scalar) -> Option<f64> {
        scalar.value::<Float64Type>()
    }

    #[test]
    fn variance_is_stable_far_from_zero() {
        // Catastrophic cancellation in the naive formula: 1e9 + small offsets.
        let values = Float64Array::from(vec![1e9 + 4.0, 1e9 + 7.0, 1e9 + 13.0, 1e9 + 16.0]);
        let sample = float(Aggregate::VarianceSample.evaluate(&values).unwrap()).unwrap();
        assert!((sample - 30.0).abs() < 1e-6, "{sample}");
        let population = float(Aggregate::VariancePopulation.evaluate(&values).unwrap()).unwrap();
        assert!((population - 22.5).abs() < 1e-6, "{population}");
        let stddev = float(Aggregate::StddevSample.evaluate(&values).unwrap()).unwrap();
        assert!((stddev - 30f64.sqrt()).abs() < 1e-9);
        let one = Int32Array::from(vec![Some(5), None]);
        assert_eq!(
            float(Aggregate::VarianceSample.evaluate(&one).unwrap()),
            None
        );
        assert_eq!(
            float(Aggregate::VariancePopulation.evaluate(&one).unwrap()),
            Some(0.0)
        );
        assert!(
            Aggregate::VarianceSample
                .evaluate(&StringArray::from(vec!["a"]))
                .is_err()
        );
    }

    #[test]
    fn quantiles_in_every_interpolation() {
        let values = Int64Array::from(vec![Some(10), Some(40), None, Some(20), Some(30)]);
        let at = |q, i| float(quantile(&values, q, i).unwrap());
        assert_eq!(at(0.5, Interpolation::Linear), Some(25.0));
        assert_eq!(at(0.4, Interpolation::Linear), Some(22.0));
        assert_eq!(at(0.4, Interpolation::Lower), Some(20.0));
        assert_eq!(at(0.4, Interpolation::Higher), Some(30.0));
        assert_eq!(at(0.4, Interpolation::Nearest), Some(20.0));
        assert_eq!(
            at(0.5, Interpolation::Nearest),
            Some(30.0),
            "a tie goes to the even position, 2 (pyarrow's rule)"
        );
        assert_eq!(at(0.5, Interpolation::Midpoint), Some(25.0));
        assert_eq!(at(1.0, Interpolation::Linear), Some(40.0));
        assert!(quantile(&values, 1.5, Interpolation::Linear).is_err());
        let median = Aggregate::Median
            .evaluate(&Float64Array::from(vec![f64::NAN, 1.0, 2.0]))
            .unwrap();
        assert_eq!(float(median), Some(2.0), "NaN sorts last");
        let empty = Float64Array::from(Vec::<f64>::new());
        assert_eq!(float(Aggregate::Median.evaluate(&empty).unwrap()), None);
        let grouped = quantile_grouped(
            &values,
            &[0, 1, 0, 1, 0],
            3,
            None,
            0.0,
            Interpolation::Linear,
        )
        .unwrap();
        let grouped: Vec<_> = grouped.as_primitive::<Float64Type>().iter().collect();
        assert_eq!(grouped, [Some(10.0), Some(20.0), None]);
    }

    #[test]
    fn first_and_last_skip_nulls_and_honour_masks() {
        let words = StringArray::from(vec![None, Some("a"), Some("b"), None, Some("c")]);
        assert_eq!(
            Aggregate::First.evaluate(&words).unwrap().as_str(),
            Some("a")
        );
        assert_eq!(
            Aggregate::Last.evaluate(&words).unwrap().as_str(),
            Some("c")
        );
        let mask = BooleanArray::from(vec![true, false, true, true, false]);
        assert_eq!(
            Aggregate::Last
                .evaluate_where(&words, &mask)
                .unwrap()
                .as_str(),
            Some("b")
        );
        let values = Arc::new(Int64Array::from(vec![7, 8])) as ArrayRef;
        let keys = Int8Array::from(vec![None, Some(1), Some(0)]);
        let dictionary = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
        let firsts = Aggregate::First
            .evaluate_grouped(&dictionary, &[0, 0, 1], 2, None)
            .unwrap();
        assert_eq!(
            firsts
                .as_primitive::<Int64Type>()
                .iter()
                .collect::<Vec<_>>(),
            [Some(8), Some(7)]
        );
    }

    #[test]
    fn approximate_distinct_counts_are_exact_when_small_and_close_when_large() {
        let small = Int64Array::from((0..60).map(|i| Some(i % 50)).collect::<Vec<_>>());
        assert_eq!(
            Aggregate::ApproxCountDistinct
                .evaluate(&small)
                .unwrap()
                .value::<Int64Type>(),
            Some(50)
        );
        let large = Int64Array::from((0..200_000i64).map(|i| i % 100_000).collect::<Vec<_>>());
        let estimate = Aggregate::ApproxCountDistinct
            .evaluate(&large)
            .unwrap()
            .value::<Int64Type>()
            .unwrap();
        // Five standard errors (1.6% each): a failure here is a broken sketch, not bad luck.
        assert!((estimate - 100_000).abs() < 8_000, "{estimate}");
        let none = Int64Array::from(vec![None::<i64>; 3]);
        assert_eq!(
            Aggregate::ApproxCountDistinct
                .evaluate(&none)
                .unwrap()
                .value::<Int64Type>(),
            Some(0)
        );
        assert_eq!(
            Aggregate::ApproxCountDistinct
                .result_type(&DataType::Utf8)
                .unwrap(),
            DataType::Int64
        );
    }
}

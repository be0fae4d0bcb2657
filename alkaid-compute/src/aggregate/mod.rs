//! Aggregates: `count`, `count_distinct`, `sum`, `min`, `max`, `mean`, `any`, `all`, over a
//! whole array, over the rows a boolean mask keeps, or per group.
//!
//! | aggregate | takes | gives | of no rows |
//! | --- | --- | --- | --- |
//! | `count` | any type | `Int64`: the rows that are not null | 0 |
//! | `count_distinct` | any type | `Int64`: the distinct values that are not null (exact; `NaN` is one value, `-0.0` and `0.0` are one) | 0 |
//! | `sum` | integers, floats, decimals, durations | `Int64` for signed integers, `UInt64` for unsigned ones, `Float64` for floats, the decimal's width and scale with 10 more digits of precision (up to the width's maximum), the duration's type | null |
//! | `mean` | integers, floats, decimals | `Float64` | null |
//! | `min`, `max` | every type with an order: numbers, temporal types, booleans, binary and text of every flavour, fixed-size binary | the input's type | null |
//! | `any`, `all` | booleans | `Boolean` | null |
//!
//! Nulls are skipped (SQL semantics). Integer and decimal sums are exact whatever the number
//! of rows; only the total is checked against the result type, and a total that does not
//! fit is an overflow error. Float sums add in eight lanes, so their last bits may differ
//! from a sum in row order. `min` and `max` of floats follow the crate's
//! [total order](crate#floats): a NaN is the maximum.
//!
//! Dictionary and run-end encoded inputs are aggregated over their values without
//! expanding them: each value counts as many times as rows use it (a run's value times
//! its length, for sums). Grouped aggregates expand them first.

mod grouped;
mod groups;
mod kind;
mod lanes;
mod minmax;
mod rows;
mod statistics;
mod sum;

use alkaid_array::{Array, ArrayRef, BooleanArray, Scalar};
use alkaid_buffer::bitmap::BitChunks;
use alkaid_buffer::{BooleanBuffer, Buffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::error::ComputeError;
use crate::hash::DistinctRows;
use groups::Grouped;
pub use kind::Aggregate;
use rows::Rows;
pub use statistics::Interpolation;
use sum::{SumKind, TotalValue, checked_total, total};

impl Aggregate {
    /// The aggregate over every row of `values`.
    ///
    /// # Errors
    /// If the aggregate does not take the type, or a sum does not fit its type.
    pub fn evaluate(self, values: &dyn Array) -> Result<Scalar, ComputeError> {
        if self.is_statistic() {
            return one_group(values, None, |input| self.grouped_over(input));
        }
        // `any` and `all` of a plain boolean array often stop at its first word: no setup
        // beyond reading it (an engine asks once per batch, however small the batch).
        if let (Self::Any | Self::All, Some(flags)) =
            (self, values.as_any().downcast_ref::<BooleanArray>())
        {
            let kept = flags.nulls().map(|n| n.validity());
            return match find_word(flags.values(), kept, self == Self::All) {
                Found::Witness => Ok(Scalar::from(self == Self::Any)),
                Found::Nothing => Ok(Scalar::from(self == Self::All)),
                Found::NoRows => Ok(Scalar::new_null(&DataType::Boolean)?),
            };
        }
        self.over(Rows::of(values, None)?)
    }

    /// The aggregate over the rows of `values` where `mask` is true (null mask rows count
    /// as false).
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate), and if the mask's length differs.
    pub fn evaluate_where(
        self,
        values: &dyn Array,
        mask: &BooleanArray,
    ) -> Result<Scalar, ComputeError> {
        if self.is_statistic() {
            return one_group(values, Some(mask), |input| self.grouped_over(input));
        }
        self.over(Rows::of(values, Some(mask))?)
    }

    /// The aggregate per group: row `i` belongs to group `groups[i]`, and the result has
    /// one row per group, `group_count` in all (null for a group without a row that counts,
    /// 0 for counts). With a mask, only the rows where it is true count.
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate), if `groups` or the mask is not as long as `values`,
    /// and if a group id is not below `group_count` (naming the row).
    pub fn evaluate_grouped(
        self,
        values: &dyn Array,
        groups: &[u32],
        group_count: usize,
        mask: Option<&BooleanArray>,
    ) -> Result<ArrayRef, ComputeError> {
        grouped::grouped(self, values, groups, group_count, mask)
    }

    fn grouped_over(self, input: &Grouped<'_>) -> Result<ArrayRef, ComputeError> {
        grouped::dispatch(self, input)
    }

    fn over(self, rows: Rows) -> Result<Scalar, ComputeError> {
        let data_type = rows.data.data_type().clone();
        self.check_input(&data_type)?;
        let output = self.result_type(&data_type)?;
        let null = || Scalar::new_null(&output).map_err(ComputeError::from);
        match self {
            Self::Count => Ok(Scalar::from(rows.count() as i64)),
            Self::CountDistinct => {
                let distinct = DistinctRows::of(&rows.data, rows.selection.as_ref())?;
                Ok(Scalar::from(distinct.count_non_null() as i64))
            }
            Self::Min | Self::Max => match minmax::extreme(&rows, self == Self::Max)? {
                Some(scalar) => Ok(scalar),
                None => null(),
            },
            Self::Any | Self::All => {
                let data = &rows.data;
                if matches!(data_type, DataType::Null) {
                    return null();
                }
                let values =
                    BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
                match find_word(&values, rows.selection.as_ref(), self == Self::All) {
                    Found::Witness => Ok(Scalar::from(self == Self::Any)),
                    Found::Nothing => Ok(Scalar::from(self == Self::All)),
                    Found::NoRows => null(),
                }
            }
            Self::Sum | Self::Mean => {
                let count = rows.count();
                let Some(kind) = SumKind::of(&data_type).filter(|_| count > 0) else {
                    return null();
                };
                let total = total(&rows, &kind)?;
                if self == Self::Mean {
                    let scale = match &data_type {
                        DataType::Decimal(d) => d.scale(),
                        _ => 0,
                    };
                    return Ok(Scalar::from(total.to_f64(scale) / count as f64));
                }
                sum_scalar(checked_total(total, &kind)?, &output)
            }
            // The statistics (`is_statistic`): `evaluate` and `evaluate_where` run them as
            // one group before reaching here.
            _ => unreachable!("{} runs as one group", self.name()),
        }
    }
}

/// The `q` quantile (`0 <= q <= 1`) of the numbers `values` (nulls skipped), exact: the
/// values sorted, and a quantile that falls between two of them taken as `interpolation`
/// says. A `Float64` scalar; null if every row is null. NaN sorts above every number.
///
/// # Errors
/// If `values` are not numbers or `q` is outside `0..=1`.
///
/// ```
/// use alkaid_array::{Int32Array, types::Float64Type};
/// use alkaid_compute::{Interpolation, quantile};
/// let values = Int32Array::from(vec![Some(4), None, Some(1), Some(3), Some(2)]);
/// assert_eq!(quantile(&values, 0.5, Interpolation::Linear)?.value::<Float64Type>(), Some(2.5));
/// assert_eq!(quantile(&values, 0.5, Interpolation::Lower)?.value::<Float64Type>(), Some(2.0));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn quantile(
    values: &dyn Array,
    q: f64,
    interpolation: Interpolation,
) -> Result<Scalar, ComputeError> {
    one_group(values, None, |input| {
        Aggregate::Median.check_input(input.data.data_type())?;
        statistics::quantile(input, q, interpolation)
    })
}

/// [`quantile`] per group, as [`Aggregate::evaluate_grouped`] takes groups and a mask.
///
/// # Errors
/// As [`quantile`] and [`Aggregate::evaluate_grouped`].
pub fn quantile_grouped(
    values: &dyn Array,
    groups: &[u32],
    group_count: usize,
    mask: Option<&BooleanArray>,
    q: f64,
    interpolation: Interpolation,
) -> Result<ArrayRef, ComputeError> {
    let input = Grouped::of(values, groups, group_count, mask)?;
    Aggregate::Median.check_input(input.data.data_type())?;
    statistics::quantile(&input, q, interpolation)
}

/// A grouped computation over every row of `values` (that `mask` keeps) as one group, its
/// one result as a scalar.
fn one_group(
    values: &dyn Array,
    mask: Option<&BooleanArray>,
    compute: impl FnOnce(&Grouped<'_>) -> Result<ArrayRef, ComputeError>,
) -> Result<Scalar, ComputeError> {
    let input = Grouped::whole(values, mask)?;
    let result = compute(&input)?;
    Ok(Scalar::try_new(result.slice(0, 1))?)
}

/// What [`find_word`] found.
enum Found {
    /// A counted row that decides the answer: a true one for `any`, a false one for `all`.
    Witness,
    /// Counted rows, none of which decides.
    Nothing,
    /// No counted row at all.
    NoRows,
}

/// Looks for a counted row that is true (or, with `negate`, false), a word at a time, and
/// stops at the first: `any` of a column that starts with a true value reads one word.
/// Byte-aligned bitmaps (the usual kind) are read in blocks of 64 words, each block one
/// vectorised OR.
fn find_word(values: &BooleanBuffer, selection: Option<&BooleanBuffer>, negate: bool) -> Found {
    let flip = if negate { u64::MAX } else { 0 };
    let aligned = |b: &BooleanBuffer| b.offset().is_multiple_of(8);
    let (mut seen, mut done) = (false, 0);
    if aligned(values) && selection.is_none_or(aligned) {
        let words = values.len() / 64;
        fn bytes(b: &BooleanBuffer, words: usize) -> &[u8] {
            &b.inner()[b.offset() / 8..b.offset() / 8 + words * 8]
        }
        let (v, s) = (bytes(values, words), selection.map(|s| bytes(s, words)));
        let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
        for start in (0..words * 8).step_by(64 * 8) {
            let end = (start + 64 * 8).min(words * 8);
            let block = v[start..end].chunks_exact(8);
            let (hit, counted) = match s {
                None => (block.fold(0, |hit, w| hit | (word(w) ^ flip)), u64::MAX),
                Some(s) => block.zip(s[start..end].chunks_exact(8)).fold(
                    (0, 0),
                    |(hit, counted), (w, k)| {
                        (hit | ((word(w) ^ flip) & word(k)), counted | word(k))
                    },
                ),
            };
            seen |= counted != 0;
            if hit != 0 {
                return Found::Witness;
            }
        }
        done = words * 64;
    }
    // The bits after the whole words, or an unaligned bitmap: word by word.
    let rest = values.len() - done;
    let (values, selection) = (
        values.slice(done, rest),
        selection.map(|s| s.slice(done, rest)),
    );
    let words = BitChunks::new(values.inner(), values.offset(), values.len());
    let kept = selection
        .as_ref()
        .map(|s| BitChunks::new(s.inner(), s.offset(), s.len()));
    for i in 0..words.padded_count() {
        let full = i < words.chunk_count();
        let (word, tail) = if full {
            (words.chunk(i), u64::MAX)
        } else {
            (words.remainder(), (1u64 << words.remainder_len()) - 1)
        };
        let counted = match &kept {
            Some(k) if full => k.chunk(i),
            Some(k) => k.remainder(),
            None => tail,
        };
        seen |= counted != 0;
        if (word ^ flip) & counted & tail != 0 {
            return Found::Witness;
        }
    }
    if seen { Found::Nothing } else { Found::NoRows }
}

/// A checked total as a scalar of the sum's type.
fn sum_scalar(value: TotalValue, output: &DataType) -> Result<Scalar, ComputeError> {
    let buffer = match value {
        TotalValue::Int(v) => Buffer::from_slice_ref(&[v]),
        TotalValue::UInt(v) => Buffer::from_slice_ref(&[v]),
        TotalValue::Float(v) => Buffer::from_slice_ref(&[v]),
        TotalValue::Decimal(v) => match output {
            DataType::Decimal(d) => crate::decimal::with_decimal!(d.width(), |T| {
                let narrow =
                    <T as crate::decimal::DecimalNative>::try_narrow(v).ok_or_else(|| {
                        ComputeError::Overflow {
                            row: None,
                            message: format!("the sum {v} does not fit {output}"),
                        }
                    })?;
                Buffer::from_slice_ref(&[narrow])
            }),
            _ => unreachable!("a decimal total belongs to a decimal sum"),
        },
    };
    let data = ArrayData::builder(output.clone())
        .len(1)
        .buffers(vec![buffer])
        .build()?;
    Ok(Scalar::try_new(alkaid_array::make_array(data))?)
}

macro_rules! shorthand {
    ($($(#[$doc:meta])* $name:ident => $aggregate:ident),* $(,)?) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        /// As [`Aggregate::evaluate`].
        pub fn $name(values: &dyn Array) -> Result<Scalar, ComputeError> {
            Aggregate::$aggregate.evaluate(values)
        }
    )*};
}

shorthand!(
    /// The number of rows of `values` that are not null, as an `Int64` scalar.
    count => Count,
    /// The number of distinct values of `values` that are not null, as an `Int64` scalar.
    count_distinct => CountDistinct,
    /// The sum of `values` (see the [module docs](self) for its type); null if every row is
    /// null.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::{Float64Array, Int64Array, types::Float64Type};
    /// use alkaid_compute::{sum, ComputeError};
    /// assert_eq!(sum(&Float64Array::from(vec![0.5, 0.25]))?.value::<Float64Type>(), Some(0.75));
    /// assert!(sum(&Int64Array::from(vec![None::<i64>]))?.is_null());
    /// let error = sum(&Int64Array::from(vec![i64::MAX, 1])).unwrap_err();
    /// assert!(matches!(error, ComputeError::Overflow { row: None, .. }));
    /// # Ok::<(), ComputeError>(())
    /// ```
    sum => Sum,
    /// The smallest value of `values`; null if every row is null.
    ///
    /// # Examples
    /// ```
    /// use alkaid_array::StringArray;
    /// use alkaid_compute::{max, min};
    /// let words = StringArray::from(vec![Some("pear"), None, Some("apple")]);
    /// assert_eq!(min(&words)?.as_str(), Some("apple"));
    /// assert_eq!(max(&words)?.as_str(), Some("pear"));
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    min => Min,
    /// The largest value of `values`; null if every row is null.
    max => Max,
    /// The mean of `values` as a `Float64` scalar; null if every row is null.
    mean => Mean,
    /// Whether some value of `values` (booleans) is true; null if every row is null.
    any => Any,
    /// Whether every value of `values` (booleans) is true; null if every row is null.
    all => All,
);

#[cfg(test)]
mod tests;

//! [`Aggregate`]: the aggregate functions, what each takes and what it gives.

use alkaid_schema::DataType;

use super::sum::SumKind;
use crate::error::ComputeError;

/// An aggregate function.
///
/// # Examples
/// ```
/// use alkaid_array::{AsArray, BooleanArray, Int32Array};
/// use alkaid_array::types::Int64Type;
/// use alkaid_compute::Aggregate;
/// let values = Int32Array::from(vec![Some(1), None, Some(3), Some(4)]);
/// assert_eq!(Aggregate::Sum.evaluate(&values)?.value::<Int64Type>(), Some(8));
/// let mask = BooleanArray::from(vec![true, true, false, true]);
/// assert_eq!(Aggregate::Sum.evaluate_where(&values, &mask)?.value::<Int64Type>(), Some(5));
/// let sums = Aggregate::Sum.evaluate_grouped(&values, &[0, 1, 1, 0], 2, None)?;
/// let sums = sums.as_primitive::<Int64Type>();
/// assert_eq!(sums.iter().collect::<Vec<_>>(), [Some(5), Some(3)]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aggregate {
    /// The number of rows that are not null.
    Count,
    /// The number of distinct values that are not null.
    CountDistinct,
    /// The sum.
    Sum,
    /// The smallest value.
    Min,
    /// The largest value.
    Max,
    /// The arithmetic mean, as a float.
    Mean,
    /// Whether some value is true (SQL's `bool_or`).
    #[doc(alias = "bool_or")]
    Any,
    /// Whether every value is true (SQL's `bool_and`).
    #[doc(alias = "bool_and")]
    All,
    /// The sample variance (divided by `n − 1`), as a float; null for fewer than two
    /// values.
    VarianceSample,
    /// The population variance (divided by `n`), as a float.
    VariancePopulation,
    /// The sample standard deviation, as a float; null for fewer than two values.
    StddevSample,
    /// The population standard deviation, as a float.
    StddevPopulation,
    /// The exact median (the 0.5 quantile, interpolated linearly), as a float.
    Median,
    /// The first value that is not null, in row order.
    First,
    /// The last value that is not null, in row order.
    Last,
    /// The number of distinct values that are not null, approximately: exact up to 64,
    /// then by HyperLogLog with a standard error of about 1.6%.
    ApproxCountDistinct,
}

impl Aggregate {
    /// The aggregate's name, as SQL spells it in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Self::Count => "count",
            Self::CountDistinct => "count_distinct",
            Self::Sum => "sum",
            Self::Min => "min",
            Self::Max => "max",
            Self::Mean => "mean",
            Self::Any => "any",
            Self::All => "all",
            Self::VarianceSample => "var_samp",
            Self::VariancePopulation => "var_pop",
            Self::StddevSample => "stddev_samp",
            Self::StddevPopulation => "stddev_pop",
            Self::Median => "median",
            Self::First => "first",
            Self::Last => "last",
            Self::ApproxCountDistinct => "approx_count_distinct",
        }
    }

    /// The type of the result for an input of `input` (the values' type, for dictionary
    /// and run-end encoded inputs).
    ///
    /// # Errors
    /// If the aggregate does not take that type.
    ///
    /// ```
    /// use alkaid_compute::Aggregate;
    /// use alkaid_schema::DataType;
    /// assert_eq!(Aggregate::Sum.result_type(&DataType::Int8)?, DataType::Int64);
    /// assert_eq!(Aggregate::Mean.result_type(&DataType::UInt16)?, DataType::Float64);
    /// assert!(Aggregate::Sum.result_type(&DataType::Utf8).is_err());
    /// # Ok::<(), alkaid_compute::ComputeError>(())
    /// ```
    pub fn result_type(self, input: &DataType) -> Result<DataType, ComputeError> {
        let input = value_type(input);
        self.check_input(input)?;
        Ok(match self {
            Self::Count | Self::CountDistinct | Self::ApproxCountDistinct => DataType::Int64,
            Self::Mean
            | Self::VarianceSample
            | Self::VariancePopulation
            | Self::StddevSample
            | Self::StddevPopulation
            | Self::Median => DataType::Float64,
            Self::First | Self::Last => input.clone(),
            Self::Any | Self::All => DataType::Boolean,
            Self::Min | Self::Max => input.clone(),
            Self::Sum => SumKind::of(input)
                .map(|k| k.output())
                .unwrap_or(DataType::Null),
        })
    }

    /// Whether the aggregate takes values of `data_type` (plain, not encoded).
    pub(super) fn check_input(self, data_type: &DataType) -> Result<(), ComputeError> {
        let refuse = |what: &str| {
            Err(ComputeError::unsupported(
                self.name(),
                format!("expected {what}, found {data_type}"),
            ))
        };
        match self {
            Self::Count | Self::CountDistinct | Self::ApproxCountDistinct => Ok(()),
            Self::First | Self::Last => Ok(()),
            _ if matches!(data_type, DataType::Null) => Ok(()),
            Self::Sum if SumKind::of(data_type).is_none() => refuse("numbers or durations"),
            Self::Mean
            | Self::VarianceSample
            | Self::VariancePopulation
            | Self::StddevSample
            | Self::StddevPopulation
            | Self::Median
                if SumKind::of(data_type).is_none()
                    || matches!(data_type, DataType::Duration(_)) =>
            {
                refuse("numbers")
            }
            Self::Any | Self::All if *data_type != DataType::Boolean => refuse("booleans"),
            Self::Min | Self::Max if !has_order(data_type) => refuse("values with an order"),
            _ => Ok(()),
        }
    }
}

/// The type of the values an input stands for (through dictionaries and runs).
fn value_type(data_type: &DataType) -> &DataType {
    match data_type {
        DataType::Dictionary { value, .. } => value_type(value),
        DataType::RunEndEncoded(ree) => value_type(ree.values().data_type()),
        other => other,
    }
}

fn has_order(data_type: &DataType) -> bool {
    use alkaid_schema::PhysicalType as P;
    matches!(
        data_type.to_physical(),
        P::Null
            | P::Boolean
            | P::Primitive(_)
            | P::Binary
            | P::LargeBinary
            | P::BinaryView
            | P::FixedSizeBinary(_)
    )
}

impl Aggregate {
    /// Whether the aggregate is computed by `statistics.rs`, through the grouped path.
    pub(super) fn is_statistic(self) -> bool {
        matches!(
            self,
            Self::VarianceSample
                | Self::VariancePopulation
                | Self::StddevSample
                | Self::StddevPopulation
                | Self::Median
                | Self::First
                | Self::Last
                | Self::ApproxCountDistinct
        )
    }
}

//! Casts: [`cast`] converts an array to another type, [`can_cast`] says whether it would.
//!
//! | from | to | how |
//! | --- | --- | --- |
//! | any integer or float | any integer or float | exact, or a failure out of range; floats truncate toward zero into integers and fail on NaN and infinities |
//! | boolean | number / number | boolean | `true` is 1 / zero is `false` |
//! | decimal, integer, float | decimal, integer, float | rescaled, rounding half away from zero, checked against the precision |
//! | text | number, boolean, decimal, date, time, timestamp | parsed (formats below) |
//! | any type with a text form | text (any layout) or binary | as `alkaid-array`'s display writes it |
//! | text or binary of any layout | text or binary of any layout | bytes copied; bytes to text must be UTF-8 |
//! | timestamp, date, time, duration | the same kinds | units and zones (below) |
//! | interval, duration | interval; interval to duration | exact only (below) |
//! | integer | temporal of the same width, and back | the stored value |
//! | dictionary, run-end encoded | anything their values cast to | values cast once, keys or runs kept |
//! | anything | dictionary, run-end encoded | cast to the value type, then encoded |
//! | `List`, `LargeList`, `ListView`, `LargeListView`, `FixedSizeList` | any of them | items cast; into a fixed-size list only rows of its size (others fail, or are null when safe) |
//! | struct | struct | field by field, matched by name |
//! | `Null` | anything | all null |
//!
//! # Text formats
//! Surrounding ASCII spaces are ignored. Integers are decimal digits with an optional
//! sign; floats anything Rust's float parser takes (`1e-3`, `inf`, `NaN`); decimals
//! `[+-]digits[.digits][e[+-]digits]`, rounded to the scale; booleans `true`/`false`,
//! `t`/`f`, `yes`/`no`, `y`/`n`, `on`/`off`, `1`/`0` in any case; dates `YYYY-MM-DD`;
//! times `HH:MM[:SS[.fraction]]`;
//! timestamps a date, optionally `T` or a space and a time, optionally `Z` or `±HH[:MM]`.
//! A timestamp without an offset is a wall-clock time in the target's zone (UTC if none).
//! A time or timestamp with a fraction its unit cannot hold does not convert (as pyarrow).
//!
//! # Temporal values
//! A timestamp keeps its instant when its unit or zone changes (the zone is how it is
//! shown); as a date it is the date in its zone; a date as a timestamp is midnight in the
//! target's zone. Finer to coarser units round toward negative infinity.
//!
//! A value that does not convert (text that is not a number, a number out of range) is
//! an error naming the row and the value in a strict cast (SQL's `CAST`, and
//! [`CastOptions::default`]), and a null in a safe one (SQL's `TRY_CAST`,
//! [`CastOptions::SAFE`]). arrow-rs's default is the safe one.
//!
//! # Intervals
//! Any interval or duration becomes any interval, and an interval a duration, when the
//! target holds the value exactly: months alone as `YearMonth`, days and whole
//! milliseconds as `DayTime`, neither months nor days as a duration (they have no fixed
//! length; nanoseconds round toward negative infinity to the duration's unit).
//!
//! Not yet: unions and maps (an `Unsupported` error, and `can_cast` says false).

mod decimal;
mod encode;
mod format;
mod interval;
mod nested;
mod numeric;
mod options;
mod parse;
mod temporal;
#[cfg(test)]
mod tests;
mod text;
mod values;

use alkaid_array::{Array, ArrayRef, make_array};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use crate::encoding::{Runs, decoded};
use crate::error::ComputeError;
use crate::lift::{Lift, lift_back};
pub use options::CastOptions;

/// How a cast from one type to another is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Same,
    FromNull,
    ToNull,
    FromDictionary,
    FromRuns,
    ToDictionary,
    ToRuns,
    Numbers,
    FromBooleans,
    ToBooleans,
    Decimals,
    NumbersToDecimals,
    DecimalsToNumbers,
    Parse,
    Format,
    Bytes,
    Temporal,
    Intervals,
    Lists,
    Structs,
}

fn is_bytes(data_type: &DataType) -> bool {
    matches!(
        data_type.to_physical(),
        PhysicalType::Binary | PhysicalType::LargeBinary | PhysicalType::BinaryView
    )
}

fn is_number(data_type: &DataType) -> bool {
    data_type.is_integer() || data_type.is_floating()
}

/// The plan for casting `from` to `to`, if there is one: through encodings first, then
/// between leaf values, then between nested types.
fn plan(from: &DataType, to: &DataType) -> Option<Plan> {
    if from == to {
        return Some(Plan::Same);
    }
    encoded_plan(from, to)
        .or_else(|| leaf_plan(from, to))
        .or_else(|| nested_plan(from, to))
}

/// Casts from or to `Null`, dictionaries and run-end encoding.
fn encoded_plan(from: &DataType, to: &DataType) -> Option<Plan> {
    use DataType as D;
    Some(match (from, to) {
        (D::Null, _) => Plan::FromNull,
        (_, D::Null) => Plan::ToNull,
        (D::Dictionary { value, .. }, _) => {
            let target = match to {
                D::Dictionary { value: target, .. } => target,
                _ => to,
            };
            plan(value, target)?;
            Plan::FromDictionary
        }
        (D::RunEndEncoded(ree), _) => {
            let target = match to {
                D::RunEndEncoded(target) => target.values().data_type(),
                _ => to,
            };
            plan(ree.values().data_type(), target)?;
            Plan::FromRuns
        }
        (_, D::Dictionary { value, .. }) => {
            plan(from, value)?;
            Plan::ToDictionary
        }
        (_, D::RunEndEncoded(ree)) => {
            plan(from, ree.values().data_type())?;
            Plan::ToRuns
        }
        _ => return None,
    })
}

/// Casts between numbers, booleans, decimals, temporal values, text and bytes.
fn leaf_plan(from: &DataType, to: &DataType) -> Option<Plan> {
    use DataType as D;
    let parsed = is_number(to)
        || matches!(
            to,
            D::Boolean | D::Decimal(_) | D::Date32 | D::Date64 | D::Time(_) | D::Timestamp(..)
        );
    Some(match (from, to) {
        _ if is_bytes(from) && is_bytes(to) => Plan::Bytes,
        (D::FixedSizeBinary(_), _) if is_bytes(to) => Plan::Bytes,
        _ if from.is_string() && parsed => Plan::Parse,
        _ if is_bytes(to) && format::has_text_form(from) => Plan::Format,
        (D::Boolean, _) if is_number(to) => Plan::FromBooleans,
        (_, D::Boolean) if is_number(from) => Plan::ToBooleans,
        (D::Decimal(_), D::Decimal(_)) => Plan::Decimals,
        (_, D::Decimal(_)) if is_number(from) => Plan::NumbersToDecimals,
        (D::Decimal(_), _) if is_number(to) => Plan::DecimalsToNumbers,
        _ if interval::converts(from, to) => Plan::Intervals,
        _ if temporal::converts(from, to) => Plan::Temporal,
        _ if numeric::numeric_physical(from).is_some()
            && numeric::numeric_physical(to).is_some()
            && (is_number(from) || is_number(to)) =>
        {
            Plan::Numbers
        }
        _ => return None,
    })
}

/// Casts between lists and between structs, if their children cast.
fn nested_plan(from: &DataType, to: &DataType) -> Option<Plan> {
    use DataType as D;
    Some(match (from, to) {
        (
            D::List(_)
            | D::LargeList(_)
            | D::ListView(_)
            | D::LargeListView(_)
            | D::FixedSizeList(..),
            D::List(item)
            | D::LargeList(item)
            | D::ListView(item)
            | D::LargeListView(item)
            | D::FixedSizeList(item, _),
        ) => {
            plan(from.children()[0].data_type(), item.data_type())?;
            Plan::Lists
        }
        (D::Struct(from_fields), D::Struct(to_fields)) => {
            for field in to_fields.iter() {
                let source = from_fields.iter().find(|f| f.name() == field.name())?;
                plan(source.data_type(), field.data_type())?;
            }
            Plan::Structs
        }
        _ => return None,
    })
}

/// Whether [`cast`] takes arrays of `from` to `to` (it may still fail on values a strict
/// cast cannot convert).
///
/// # Examples
/// ```
/// use alkaid_compute::cast::can_cast;
/// use alkaid_schema::DataType;
///
/// assert!(can_cast(&DataType::Utf8, &DataType::Int64));
/// assert!(!can_cast(&DataType::Boolean, &DataType::Date32));
/// ```
pub fn can_cast(from: &DataType, to: &DataType) -> bool {
    plan(from, to).is_some()
}

/// `array` as `to` (see the [module docs](self) for what converts and how).
///
/// # Errors
/// `Unsupported` if [`can_cast`] says no; in a strict cast, [`ComputeError::Cast`] naming
/// the first row that does not convert.
///
/// # Examples
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// use alkaid_array::types::Int32Type;
/// use alkaid_compute::ComputeError;
/// use alkaid_compute::cast::{CastOptions, cast};
/// use alkaid_schema::DataType;
///
/// let text = StringArray::from(vec![Some("12"), None, Some("x")]);
/// let numbers = cast(&text, &DataType::Int32, CastOptions::SAFE)?;
/// assert_eq!(numbers.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(), [Some(12), None, None]);
/// let strict = cast(&text, &DataType::Int32, CastOptions::STRICT);
/// assert!(matches!(strict, Err(ComputeError::Cast { row: 2, .. })));
/// # Ok::<(), ComputeError>(())
/// ```
pub fn cast(
    array: &dyn Array,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayRef, ComputeError> {
    Ok(make_array(cast_data(&array.to_data(), to, options)?))
}

/// [`cast`] on `ArrayData`.
fn cast_data(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    let from = data.data_type();
    let Some(plan) = plan(from, to) else {
        return Err(ComputeError::unsupported(
            "cast",
            format!("cannot cast {from} to {to}"),
        ));
    };
    match plan {
        Plan::Same => Ok(data.clone()),
        Plan::FromNull => encode::nulls_of(to, data.len()),
        Plan::ToNull => encode::to_null(data, options),
        Plan::FromDictionary => {
            let values = data.dictionary().ok_or_else(|| {
                ComputeError::InvalidArgument("a dictionary array without its dictionary".into())
            })?;
            match to {
                // Re-encoded from the rows: the new values may have fewer distinct entries.
                DataType::Dictionary { .. } => cast_data(&decoded(data)?, to, options),
                // To its own value type: the keys gather the values, nothing is converted.
                _ if values.data_type() == to => decoded(data),
                // The values are cast once. If one fails (strict), it may be an entry no
                // row uses, and the error should name a row: the rows are cast instead.
                _ => match cast_data(values, to, options) {
                    Ok(cast_values) => decoded(&lift_back(data, cast_values, Lift::Keep)?),
                    Err(ComputeError::Cast { .. }) => cast_data(&decoded(data)?, to, options),
                    Err(other) => Err(other),
                },
            }
        }
        Plan::FromRuns => {
            let runs = Runs::of(data)?;
            let value_type = match to {
                DataType::RunEndEncoded(ree) => ree.values().data_type(),
                _ => to,
            };
            // Each run's value is cast once; a failure is reported for the rows instead,
            // so that the error names a row.
            let cast_values = match cast_data(&runs.values, value_type, options) {
                Err(ComputeError::Cast { .. }) => return cast_data(&decoded(data)?, to, options),
                other => other?,
            };
            let encoded = runs.with_values(cast_values)?;
            match to {
                DataType::RunEndEncoded(_) => Ok(encoded),
                _ => decoded(&encoded),
            }
        }
        Plan::ToDictionary => {
            let DataType::Dictionary {
                key,
                value,
                ordered,
            } = to
            else {
                unreachable!("planned")
            };
            let values = cast_data(data, value, options)?;
            encode::dictionary_encode(&values, *key, *ordered)
        }
        Plan::ToRuns => {
            let DataType::RunEndEncoded(ree) = to else {
                unreachable!("planned")
            };
            let values = cast_data(data, ree.values().data_type(), options)?;
            encode::run_encode(&values, ree)
        }
        Plan::Numbers => numeric::numbers(data, to, options),
        Plan::FromBooleans => numeric::from_booleans(data, to),
        Plan::ToBooleans => numeric::to_booleans(data),
        Plan::Decimals => decimal::decimals(data, to, options),
        Plan::NumbersToDecimals => decimal::from_numbers(data, to, options),
        Plan::DecimalsToNumbers => decimal::to_numbers(data, to, options),
        Plan::Parse => parse::from_text(data, to, options),
        Plan::Format => format::to_text(data, to),
        Plan::Bytes => text::bytes(data, to, options),
        Plan::Temporal => temporal::temporal(data, to, options),
        Plan::Intervals => interval::intervals(data, to, options),
        Plan::Lists => nested::lists(data, to, options.safe, &|d, t| cast_data(d, t, options)),
        Plan::Structs => nested::structs(data, to, &|d, t| cast_data(d, t, options)),
    }
}

//! Compute kernels: comparison, boolean logic, arithmetic, aggregates, hashing, sorting,
//! string kernels and casts over Alkaid arrays, the kernels a query engine's expression
//! evaluator runs.
//!
//! | kernels | what they do |
//! | --- | --- |
//! | [`eq`], [`neq`], [`lt`], [`lt_eq`], [`gt`], [`gt_eq`], [`distinct`], [`not_distinct`] | compare two inputs row by row into a [`BooleanArray`](alkaid_array::BooleanArray) (rules below) |
//! | [`is_null`], [`is_not_null`], [`is_nan`] | test each row |
//! | [`and`], [`or`], [`xor`], [`and_not`], [`not`], [`and_kleene`], [`or_kleene`] | boolean logic a word at a time; the Kleene pair is SQL's three-valued `AND` and `OR` |
//! | [`add`], [`sub`], [`mul`], [`div`], [`rem`], [`neg`], [`abs`] and their `_wrapping` forms | arithmetic on integers (checked by default), floats, decimals and temporal values |
//! | [`Aggregate`]: [`count`], [`count_distinct`], [`sum`], [`min`], [`max`], [`mean`], [`any`], [`all`] | over an array, over the rows a mask keeps, or per group |
//! | [`if_else`], [`coalesce`], [`fill_null`], [`fill_null_forward`], [`fill_null_backward`], [`nullif`] | a branch per row by a condition, the first value that is not null, nulls filled, for every type |
//! | [`sqrt`], [`exp`], [`ln`], [`log10`], [`log2`], [`sin`], [`cos`], [`tan`], [`asin`], [`acos`], [`atan`], [`atan2`], [`power`], [`sign`], [`round`], [`ceil`], [`floor`], [`trunc`] | math on floats, integers and decimals; exact rounding of integers and decimals with a [`RoundMode`] |
//! | [`bit_and`], [`bit_or`], [`bit_xor`], [`bit_not`], [`shift_left`], [`shift_right`] | bitwise operations on integers, shifts checked |
//! | [`list_length`], [`list_element`], [`list_slice`], [`list_flatten`], [`list_contains`], [`list_aggregate`], [`struct_field`], [`map_keys`], [`map_values`], [`map_lookup`] | lists, structs and maps taken apart |
//! | [`extract`] (a [`DatePart`]), [`date_trunc`], [`date_bin`], [`strftime`], [`strptime`] | fields of dates, times and timestamps in their zone's local time, truncation, bins, text by a pattern |
//! | [`is_in`], [`index_in`] against a [`ValueSet`] | SQL's `x IN (…)` and the position found, the set hashed once |
//! | [`hash_rows`], [`unique`], [`value_counts`] | a stable, seeded hash of the rows of one or more columns, and distinct values |
//! | [`sort_to_indices`], [`sort`](sort::sort), [`lexsort_to_indices`], [`top_k`], [`rank`], [`lower_bound`], [`upper_bound`] | stable sorts of one or more columns, the first `k` rows, SQL's `RANK()`, and search in a sorted array |
//! | [`row::RowConverter`] | several columns as one byte string per row that compares as they sort, and back |
//! | [`cast`](cast()), [`can_cast`] | every number, decimal, temporal, text and encoded type to the others, strict or safe |
//! | [`length`], [`substring`], [`lower`], [`upper`], [`trim`], [`starts_with`], [`contains`], [`like`], [`ilike`], [`regexp_match`], [`concat_elements`], [`split`], … | text and bytes of every layout, counted in characters or bytes |
//!
//! Binary kernels take two [`Datum`](alkaid_array::Datum)s: arrays of one length, or an
//! array and a [`Scalar`](alkaid_array::Scalar) (a one-slot array of any type, standing for
//! every row). Every kernel honours offsets and nulls, and takes dictionary, run-end
//! encoded and view inputs as they are: beside a scalar, a dictionary's values are computed
//! once and its keys map the result back to the rows (an arithmetic result stays a
//! dictionary, or stays run-end encoded); aggregates count a dictionary's entries by their
//! keys and a run's value by its length. Errors are [`ComputeError`]s that name the row,
//! the operands and the types.
//!
//! # Comparison rules
//! The same type compares with itself (field names inside nested types aside);
//! timestamps of any units and zones compare as instants, decimals of any widths and scales
//! as numbers, text of any flavour with text and bytes of any flavour with bytes (in byte
//! order, which is code point order for UTF-8), `Null` with anything (every row null), and
//! nested types for equality only.
//!
//! # Floats
//! Floats compare, sort, group and hash in one **total order**, the one PostgreSQL uses:
//! `-0.0` equals `0.0`, every NaN equals every other NaN, and NaN is greater than every
//! other value, infinity included. So `NaN = NaN` is true, `max` of a column with a NaN is
//! NaN, and `count_distinct` counts NaN once. (arrow-rs follows IEEE 754's `totalOrder`,
//! which tells `-0.0` from `0.0`.)
//!
//! The modules hold each family's rules in full ([`cmp`], [`boolean`], [`arith`],
//! [`aggregate`], [`bitwise`], [`conditional`], [`membership`], [`math`], [`nested`], [`temporal`], [`hash`], [`sort`], [`row`], [`string`], [`cast`](mod@cast)); every kernel is also
//! at the crate root.
//!
//! Depends on alkaid-select (to gather dictionary values) and the layers below.
//!
//! # Example
//! A filter and an aggregate, as an engine evaluates `SELECT sum(price * 10) WHERE
//! region = 'north' AND qty > 0`, and a plain `sum(qty)`:
//! ```
//! use std::sync::Arc;
//! use alkaid_array::{ArrayRef, DictionaryArray, Float64Array, Int8Array, Int64Array, Scalar, StringArray};
//! use alkaid_array::types::{Float64Type, Int8Type, Int64Type};
//! use alkaid_compute::{Aggregate, and_kleene, eq, gt, mul};
//!
//! let regions: ArrayRef = Arc::new(StringArray::from(vec!["north", "south"]));
//! let region = DictionaryArray::<Int8Type>::try_new(Int8Array::from(vec![0, 1, 0, 0]), regions)?;
//! let price = Float64Array::from(vec![2.5, 9.0, 4.0, 1.0]);
//! let qty = Int64Array::from(vec![Some(2), Some(1), None, Some(3)]);
//!
//! // The dictionary's two values are compared once; its keys map the answer to the rows.
//! let north = eq(&region, &Scalar::from("north"))?;
//! // SQL's AND: the row whose qty is null is null, which the aggregate treats as false.
//! let keep = and_kleene(&north, &gt(&qty, &Scalar::from(0i64))?)?;
//! let scaled = mul(&price, &Scalar::from(10.0f64))?;
//! let total = Aggregate::Sum.evaluate_where(scaled.as_ref(), &keep)?;
//! assert_eq!(total.value::<Float64Type>(), Some(25.0 + 10.0));
//!
//! // Integer sums are exact, and checked against their Int64 result.
//! assert_eq!(alkaid_compute::sum(&qty)?.value::<Int64Type>(), Some(6));
//! # Ok::<(), alkaid_compute::ComputeError>(())
//! ```
//!
//! # Features
//! - `tz` (default): calendar arithmetic and casts of timestamps in zones named by IANA
//!   name, alkaid-array's feature of the same name. Without it, such a zone is an error
//!   naming the feature; UTC and fixed offsets work.
#![doc(test(attr(deny(warnings))))]

mod access;
pub mod aggregate;
pub mod arith;
mod bits;
pub mod bitwise;
pub mod boolean;
pub mod calendar;
pub mod cast;
pub mod cmp;
pub mod conditional;
mod decimal;
mod encoding;
mod error;
pub mod hash;
mod lift;
mod list_items;
pub mod math;
pub mod membership;
pub mod nested;
mod operand;
mod order;
mod pack;
pub mod predicate;
pub mod row;
mod row_eq;
pub mod sort;
pub mod string;
pub mod temporal;
mod text;
mod validity;
pub mod variant;

pub use aggregate::{
    Aggregate, Interpolation, all, any, count, count_distinct, max, mean, min, quantile,
    quantile_grouped, sum,
};
pub use arith::{
    abs, abs_wrapping, add, add_wrapping, div, div_wrapping, mul, mul_wrapping, neg, neg_wrapping,
    rem, sub, sub_wrapping,
};
pub use bitwise::{bit_and, bit_not, bit_or, bit_xor, shift_left, shift_right};
pub use boolean::{and, and_kleene, and_not, not, or, or_kleene, xor};
pub use cast::{CastOptions, can_cast, cast};
pub use cmp::{
    distinct, eq, gt, gt_eq, is_nan, is_not_null, is_null, lt, lt_eq, neq, not_distinct,
};
pub use conditional::{
    coalesce, fill_null, fill_null_backward, fill_null_forward, if_else, nullif,
};
pub use error::ComputeError;
pub use hash::{hash_rows, unique, value_counts};
pub use math::{
    RoundMode, acos, asin, atan, atan2, ceil, cos, exp, floor, ln, log2, log10, power, round, sign,
    sin, sqrt, tan, trunc,
};
pub use membership::{ValueSet, index_in, is_in};
pub use nested::{
    list_aggregate, list_contains, list_element, list_flatten, list_length, list_slice, map_keys,
    map_lookup, map_values, struct_field,
};
pub use predicate::Predicate;
pub use sort::{
    SortColumn, SortOptions, lexsort, lexsort_to_indices, lower_bound, rank, sort_to_indices,
    top_k, upper_bound,
};
pub use string::{
    concat_elements, contains, ends_with, ilike, length, like, lower, ltrim, octet_length,
    regexp_is_match, regexp_match, rtrim, split, starts_with, substring, substring_bytes, trim,
    upper,
};
pub use temporal::{DatePart, DateUnit, date_bin, date_trunc, extract, strftime, strptime};

//! Compute kernels: comparison, boolean logic, arithmetic, aggregates and hashing over
//! Alkaid arrays.
//!
//! The kernels an expression evaluator runs first. Every kernel takes arrays of every type
//! it makes sense for, honours offsets and nulls, and takes dictionary and run-end encoded
//! inputs as they are.
//!
//! # Floats
//! Floats compare, sort, group and hash in one **total order**, the one PostgreSQL uses:
//! `-0.0` equals `0.0`, every NaN equals every other NaN, and NaN is greater than every
//! other value, infinity included.
//!
//! Depends on alkaid-select and the layers below.
#![doc(test(attr(deny(warnings))))]

mod access;
mod aggregate;
mod arith;
mod bits;
mod boolean;
mod calendar;
mod cmp;
mod decimal;
mod encoding;
mod error;
mod hash;
mod native;
mod operand;
mod order;
mod row_eq;

pub use aggregate::{Aggregate, all, any, count, count_distinct, max, mean, min, sum};
pub use arith::{
    abs, abs_wrapping, add, add_wrapping, div, div_wrapping, mul, mul_wrapping, neg, neg_wrapping,
    rem, sub, sub_wrapping,
};
pub use boolean::{and, and_kleene, and_not, not, or, or_kleene, xor};
pub use cmp::{
    distinct, eq, gt, gt_eq, is_nan, is_not_null, is_null, lt, lt_eq, neq, not_distinct,
};
pub use error::ComputeError;
pub use hash::{hash_rows, unique, value_counts};

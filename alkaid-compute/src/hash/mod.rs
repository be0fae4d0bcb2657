//! Hashing rows, and the distinct values built on it: [`hash_rows`], [`unique`],
//! [`value_counts`].
//!
//! # The hash
//! A 64-bit hash of each row over one or several columns, for joins and group-by. It is
//! **stable**: the same values and seed give the same hash on every run, machine and
//! version of this crate (a change would be a breaking change, named in the changelog), so
//! hashes may be stored or sent between processes. It is not a cryptographic hash, and
//! an adversary who knows the seed can make collisions; pick a random seed per query where
//! that matters.
//!
//! It is consistent with the crate's equality: values that compare equal hash equal. Text
//! and bytes hash by their bytes whatever their layout (`Utf8`, `LargeUtf8` and `Utf8View`
//! agree); dictionary and run-end encoded values hash as the values they stand for; `-0.0`
//! hashes as `0.0` and every NaN as one NaN; every null hashes alike.
//!
//! The algorithm, with `fold(a, b)` the 128-bit product of two `u64`s with its two halves
//! xor-ed together (`(a as u128 * b as u128)`, high 64 bits `^` low 64 bits), and `K`,
//! `NULL`, `STRUCT`, `LIST` and `UNION` the constants in this module:
//!
//! - a row's hash starts as `seed` and takes each column's value hash `v` in order:
//!   `h = fold(h ^ K, v ^ K.rotate_left(32))`;
//! - a null (at any level) has the value hash `NULL`;
//! - a fixed-width value, a byte string or a text of `n` bytes is read as little-endian
//!   64-bit words (the last one zero-padded): `x = K ^ n`, then `x = fold(x ^ word, K)` for
//!   each word; zero words for an empty string. Booleans are one byte, 0 or 1; integers,
//!   decimals, dates, times, timestamps, durations and intervals their stored bytes; floats
//!   their bytes after `-0.0` becomes `0.0` and any NaN the canonical quiet NaN;
//! - a struct: `x = STRUCT`, then `x = fold(x ^ child, K)` for each child's value hash;
//! - a list of `n` items (lists of every kind, fixed-size lists, maps):
//!   `x = fold(LIST ^ n, K)`, then `x = fold(x ^ item, K)` for each item's value hash;
//! - a union value: `x = fold(UNION ^ type_id, K)`, then `fold(x ^ value, K)`; a union
//!   whose member is null is a null (`NULL`).

mod unique;
mod values;

use alkaid_array::{Array, UInt64Array};
use alkaid_buffer::ScalarBuffer;

use crate::error::ComputeError;

pub(crate) use unique::DistinctRows;
pub use unique::{unique, value_counts};
pub(crate) use values::{bytes_hash, value_hashes};

/// The multiplier of every fold (the golden ratio's bits).
pub(crate) const K: u64 = 0x9e37_79b9_7f4a_7c15;
/// The value hash of a null.
pub(crate) const NULL: u64 = 0x2545_f491_4f6c_dd1d;
/// The start of a struct's hash.
const STRUCT: u64 = 0x8ebc_6af0_9c88_c6e3;
/// Mixed with a list's length.
const LIST: u64 = 0x5894_2f6d_42d1_4d5b;
/// Mixed with a union's type id.
const UNION: u64 = 0xd6e8_feb8_6659_fd93;

/// The high and low halves of the 128-bit product, xor-ed.
#[inline(always)]
pub(crate) fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product >> 64) as u64 ^ product as u64
}

/// A row hash `h` after taking one more column's value hash `v`.
#[inline(always)]
pub(crate) fn combine(h: u64, v: u64) -> u64 {
    fold(h ^ K, v ^ K.rotate_left(32))
}

/// The hash of each row of `columns` (all of one length), seeded; never null. The
/// algorithm is in the [module docs](self).
///
/// # Errors
/// If the columns differ in length, or there are none.
///
/// # Examples
/// ```
/// use alkaid_array::{Int32Array, StringArray, StringViewArray};
/// use alkaid_compute::hash_rows;
/// let ids = Int32Array::from(vec![1, 2, 1]);
/// let names = StringArray::from(vec!["a", "b", "a"]);
/// let hashes = hash_rows(&[&ids, &names], 42)?;
/// assert_eq!(hashes.value(0), hashes.value(2));
/// assert_ne!(hashes.value(0), hashes.value(1));
/// // The same text in another layout hashes the same.
/// let views = StringViewArray::from_iter_values(["a", "b", "a"]);
/// assert_eq!(hash_rows(&[&ids, &views], 42)?, hashes);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn hash_rows(columns: &[&dyn Array], seed: u64) -> Result<UInt64Array, ComputeError> {
    let Some(first) = columns.first() else {
        return Err(ComputeError::InvalidArgument(
            "hash_rows needs at least one column".into(),
        ));
    };
    let len = first.len();
    let mut hashes = vec![seed; len];
    for column in columns {
        if column.len() != len {
            return Err(ComputeError::LengthMismatch {
                what: "every column",
                expected: len,
                found: column.len(),
            });
        }
        let values = value_hashes(&column.to_data())?;
        for (h, v) in hashes.iter_mut().zip(&values) {
            *h = combine(*h, *v);
        }
    }
    Ok(UInt64Array::new(ScalarBuffer::from(hashes), None))
}

#[cfg(test)]
mod tests;

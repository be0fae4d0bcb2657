//! String and binary kernels: [`length`], [`octet_length`], [`substring`],
//! [`substring_bytes`], [`lower`], [`upper`], [`trim`], [`ltrim`], [`rtrim`],
//! [`starts_with`], [`ends_with`], [`contains`], [`like`], [`ilike`], [`regexp_is_match`],
//! [`regexp_match`], [`concat_elements`] and [`split`]; the edits [`replace`],
//! [`regexp_replace`], [`regexp_extract`], [`lpad`], [`rpad`], [`repeat`], [`reverse`],
//! [`initcap`], [`split_part`]; [`concat()`] and [`concat_ws`] (SQL's null rules);
//! [`strpos`], [`ascii`] and [`chr`].
//!
//! Every kernel takes `Utf8`, `LargeUtf8` and `Utf8View` (the byte-level ones binary of
//! the three layouts too), sliced or not; a dictionary of them is evaluated on its
//! dictionary once (a transform stays a dictionary, a test is looked up by key) and a
//! run-end encoded array on its runs. Transforms answer in the layout they were given.
//! Nulls stay null.
//!
//! # Characters and bytes
//! Text is UTF-8 and counted in characters (Unicode scalar values): `length("hé")` is 2,
//! `substring` cuts between characters. The `_bytes`/`octet_` forms count bytes. Binary
//! input is counted in bytes by every kernel.
//!
//! # Patterns
//! `like` and `ilike` take SQL patterns: `%` any run of characters, `_` one character,
//! `\` makes the next character literal (`\%`, `\_`, `\\`); a pattern ending with `\` is
//! an error. `ilike` folds case by Unicode's rules. The regular-expression kernels use the
//! `regex` crate's syntax; an invalid expression is an error.
//!
//! Patterns are one value for the whole column (SQL's `x LIKE 'abc%'`); a column of
//! patterns is not taken.

mod code_point;
mod edit;
mod join;
mod pad;
mod pattern;
#[cfg(test)]
mod tests;

mod transform;

use std::sync::Arc;

use alkaid_array::{
    Array, ArrayRef, BooleanArray, GenericListArray, Int32Array, Int64Array, StringArray,
    make_array,
};
use alkaid_buffer::{BooleanBuffer, NullBuffer, OffsetBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Field, PhysicalType};
use memchr::memmem;
use regex::bytes::Regex;

use crate::error::ComputeError;
use crate::lift::{Lift, lift_unary};
use crate::text::{check_input, each_value, is_text, test_prefix, test_values};
pub use code_point::{ascii, chr, strpos};
pub use edit::{
    initcap, regexp_extract, regexp_replace, repeat, replace, replace_at_most, reverse, split_part,
};
pub use join::{concat, concat_elements, concat_ws};
pub use pad::{lpad, rpad};
use pattern::Like;
pub use transform::{lower, ltrim, rtrim, substring, substring_bytes, trim, upper};

/// A test of every value of a text (or, with `bytes_too`, binary) input.
fn test(
    kernel: &'static str,
    array: &dyn Array,
    bytes_too: bool,
    test: impl Fn(&[u8]) -> bool,
) -> Result<BooleanArray, ComputeError> {
    test_bits(kernel, array, bytes_too, |plain| test_values(plain, &test))
}

/// [`test`] with the bits made by `bits` from each plain (not encoded) input.
fn test_bits(
    kernel: &'static str,
    array: &dyn Array,
    bytes_too: bool,
    bits: impl Fn(&ArrayData) -> Result<BooleanBuffer, ComputeError>,
) -> Result<BooleanArray, ComputeError> {
    let data = array.to_data();
    let result = lift_unary(&data, Lift::Gather, &|plain| {
        check_input(kernel, plain, bytes_too)?;
        Ok(BooleanArray::try_new(bits(plain)?, plain.nulls().cloned())?.to_data())
    })?;
    Ok(BooleanArray::try_from(result)?)
}

/// Whether each value starts with `prefix` (bytes; a text prefix for text).
///
/// # Errors
/// If the input is neither text nor binary.
///
/// # Examples
/// ```
/// use alkaid_array::StringArray;
/// use alkaid_compute::string::starts_with;
///
/// let names = StringArray::from(vec![Some("alkaid"), None, Some("arrow")]);
/// let found = starts_with(&names, "al")?;
/// assert_eq!(found.iter().collect::<Vec<_>>(), [Some(true), None, Some(false)]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn starts_with(
    array: &dyn Array,
    prefix: impl AsRef<[u8]>,
) -> Result<BooleanArray, ComputeError> {
    let prefix = prefix.as_ref();
    test_bits("starts_with", array, true, |plain| {
        test_prefix(plain, prefix)
    })
}

/// Whether each value ends with `suffix`.
///
/// # Errors
/// If the input is neither text nor binary.
pub fn ends_with(
    array: &dyn Array,
    suffix: impl AsRef<[u8]>,
) -> Result<BooleanArray, ComputeError> {
    let suffix = suffix.as_ref();
    test("ends_with", array, true, |v| v.ends_with(suffix))
}

/// Whether each value contains `needle` (found with `memchr`'s substring search).
///
/// # Errors
/// If the input is neither text nor binary.
pub fn contains(array: &dyn Array, needle: impl AsRef<[u8]>) -> Result<BooleanArray, ComputeError> {
    let finder = memmem::Finder::new(needle.as_ref());
    test("contains", array, true, |v| finder.find(v).is_some())
}

/// Whether each value matches the SQL pattern (see the [module docs](self)).
///
/// # Errors
/// If the input is not text, or the pattern ends with the escape character.
///
/// # Examples
/// ```
/// use alkaid_array::StringArray;
/// use alkaid_compute::string::{ilike, like};
///
/// let files = StringArray::from(vec!["data_1.csv", "data.CSV", "100%.txt"]);
/// let csv = like(&files, "%.csv")?;
/// assert_eq!(csv.iter().collect::<Vec<_>>(), [Some(true), Some(false), Some(false)]);
/// let any_case = ilike(&files, "data_%.csv")?;
/// assert_eq!(any_case.iter().collect::<Vec<_>>(), [Some(true), Some(false), Some(false)]);
/// let escaped = like(&files, r"100\%%")?;
/// assert_eq!(escaped.value(2), true);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn like(array: &dyn Array, pattern: &str) -> Result<BooleanArray, ComputeError> {
    let pattern = Like::new(pattern, false)?;
    // The commonest shapes with a loop of their own, rather than a choice per value:
    // a prefix asks the layout (views answer from their own bytes), a substring searches.
    match &pattern {
        Like::Prefix(prefix) => test_bits("like", array, false, |plain| test_prefix(plain, prefix)),
        Like::Contains(finder) => test("like", array, false, |v| finder.find(v).is_some()),
        _ => test("like", array, false, |v| pattern.matches(v)),
    }
}

/// [`like`], folding case.
///
/// # Errors
/// As [`like`].
pub fn ilike(array: &dyn Array, pattern: &str) -> Result<BooleanArray, ComputeError> {
    let pattern = Like::new(pattern, true)?;
    test("ilike", array, false, |v| pattern.matches(v))
}

/// Compiles a regular expression, naming it in the error.
fn regex(expression: &str) -> Result<Regex, ComputeError> {
    Regex::new(expression).map_err(|e| {
        ComputeError::InvalidArgument(format!("regular expression {expression:?}: {e}"))
    })
}

/// Whether each value has a match of the regular expression anywhere in it.
///
/// # Errors
/// If the input is not text or the expression is invalid.
pub fn regexp_is_match(array: &dyn Array, expression: &str) -> Result<BooleanArray, ComputeError> {
    let regex = regex(expression)?;
    test("regexp_is_match", array, false, |v| regex.is_match(v))
}

/// The capture groups of each value's first match as a list of strings (the whole match
/// if the expression has no groups; a group that took no part is a null item); null where
/// the value is null or nothing matches.
///
/// # Errors
/// If the input is not text or the expression is invalid.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, AsArray, ListArray, StringArray};
/// use alkaid_compute::string::regexp_match;
///
/// let dates = StringArray::from(vec![Some("2026-11-25"), Some("none"), None]);
/// let parts = regexp_match(&dates, r"(\d+)-(\d+)")?;
/// let parts = parts.as_typed::<ListArray>().unwrap();
/// assert_eq!(parts.value(0).as_string::<i32>().iter().collect::<Vec<_>>(), [Some("2026"), Some("11")]);
/// assert!(parts.is_null(1) && parts.is_null(2));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn regexp_match(array: &dyn Array, expression: &str) -> Result<ArrayRef, ComputeError> {
    let regex = regex(expression)?;
    let groups = regex.captures_len();
    lists_of_text("regexp_match", array, |value, items| {
        let Some(captures) = regex.captures(value) else {
            return false;
        };
        let wanted = if groups > 1 { 1..groups } else { 0..1 };
        items.extend(wanted.map(|g| captures.get(g).map(|m| m.as_bytes())));
        true
    })
}

/// Each value split at every occurrence of `delimiter`, as a list of strings (an empty
/// value gives one empty string; an empty delimiter splits nothing).
///
/// # Errors
/// If the input is not text.
pub fn split(array: &dyn Array, delimiter: &str) -> Result<ArrayRef, ComputeError> {
    let finder = memmem::Finder::new(delimiter.as_bytes());
    lists_of_text("split", array, |value, items| {
        if delimiter.is_empty() {
            items.push(Some(value));
            return true;
        }
        let mut start = 0;
        for found in finder.find_iter(value) {
            items.push(Some(&value[start..found]));
            start = found + delimiter.len();
        }
        items.push(Some(&value[start..]));
        true
    })
}

/// A `List<Utf8>` with, for each valid value, the items `items_of` pushes (or a null list
/// where it returns false).
fn lists_of_text<'v>(
    kernel: &'static str,
    array: &'v dyn Array,
    items_of: impl for<'a> Fn(&'a [u8], &mut Vec<Option<&'a [u8]>>) -> bool,
) -> Result<ArrayRef, ComputeError> {
    let data = crate::encoding::decoded(&array.to_data())?;
    check_input(kernel, &data, false)?;
    let mut strings = StringArray::builder(data.len(), 0);
    let mut offsets = vec![0i32];
    let mut valid = Vec::with_capacity(data.len());
    let mut items: Vec<Option<&[u8]>> = Vec::new();
    each_value(&data, |row, value| {
        items.clear();
        let listed = value.is_some_and(|v| items_of(v, &mut items));
        for item in &items {
            // Items are slices of UTF-8 values cut at matches of UTF-8 text: whole characters.
            match item.map(std::str::from_utf8) {
                Some(Ok(text)) => strings.append_value(text),
                Some(Err(_)) => {
                    return Err(ComputeError::InvalidArgument(format!(
                        "row {row}: not UTF-8"
                    )));
                }
                None => strings.append_null(),
            }
        }
        let end = offsets[offsets.len() - 1] as usize + items.len();
        offsets.push(i32::try_from(end).map_err(|_| ComputeError::Overflow {
            row: Some(row),
            message: format!("{kernel} gives more list items than 32-bit offsets address"),
        })?);
        valid.push(listed);
        Ok(())
    })?;
    let field = Arc::new(Field::new("item", DataType::Utf8, true));
    let offsets =
        OffsetBuffer::try_new(offsets.into()).map_err(|e| ComputeError::Data(e.into()))?;
    let nulls = Some(NullBuffer::from(valid)).filter(|n| n.null_count() > 0);
    let lists =
        GenericListArray::<i32>::try_new(field, offsets, Arc::new(strings.finish()), nulls)?;
    Ok(Arc::new(lists))
}

/// The number of characters of each text value, or bytes of each binary value: `Int32`,
/// or `Int64` for the large types.
///
/// # Errors
/// If the input is neither text nor binary.
pub fn length(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    lengths("length", array, true)
}

/// The number of bytes of each value: `Int32`, or `Int64` for the large types.
///
/// # Errors
/// If the input is neither text nor binary.
pub fn octet_length(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    lengths("octet_length", array, false)
}

/// Lengths in characters (for text, if `characters`) or bytes, from the offsets or views
/// alone when bytes are counted.
fn lengths(
    kernel: &'static str,
    array: &dyn Array,
    characters: bool,
) -> Result<ArrayRef, ComputeError> {
    /// A length as the output's integer type.
    trait Length {
        fn of(n: usize) -> Self;
    }
    impl Length for i32 {
        fn of(n: usize) -> Self {
            n as i32
        }
    }
    impl Length for i64 {
        fn of(n: usize) -> Self {
            n as i64
        }
    }
    /// Each value's length as `N` (`i32`, or `i64` for the large layouts).
    struct Measure<N> {
        len: usize,
        characters: bool,
        out: std::marker::PhantomData<N>,
    }
    impl<'a, N: Length> crate::access::BytesVisitor<'a> for Measure<N> {
        type Output = Vec<N>;
        fn visit<B: crate::access::ByteAccess<'a>>(self, values: B) -> Vec<N> {
            let narrow = N::of;
            if self.characters {
                // Characters are the bytes that do not continue one (10xxxxxx).
                (0..self.len)
                    .map(|i| {
                        narrow(
                            values
                                .value(i)
                                .iter()
                                .filter(|&&b| (b as i8) >= -0x40)
                                .count(),
                        )
                    })
                    .collect()
            } else {
                values.value_lens(self.len, narrow)
            }
        }
    }
    let data = array.to_data();
    let result = lift_unary(&data, Lift::Gather, &|plain| {
        check_input(kernel, plain, true)?;
        let (len, characters) = (plain.len(), characters && is_text(plain.data_type()));
        let nulls = plain.nulls().cloned();
        Ok(match plain.data_type().to_physical() {
            PhysicalType::LargeBinary => {
                let measure = Measure::<i64> {
                    len,
                    characters,
                    out: std::marker::PhantomData,
                };
                let counts = crate::access::visit_bytes(plain, measure)?.unwrap_or_default();
                Int64Array::new(counts.into(), nulls).to_data()
            }
            // At most 2 GiB per value in the 32-bit layouts (a view's length is 32 bits).
            _ => {
                let measure = Measure::<i32> {
                    len,
                    characters,
                    out: std::marker::PhantomData,
                };
                let counts = crate::access::visit_bytes(plain, measure)?.unwrap_or_default();
                Int32Array::new(counts.into(), nulls).to_data()
            }
        })
    })?;
    Ok(make_array(result))
}

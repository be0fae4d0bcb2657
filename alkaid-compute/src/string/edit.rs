//! Text edits: [`replace`] (and [`replace_at_most`]), [`regexp_replace`], [`regexp_extract`], [`repeat`],
//! [`reverse`], [`initcap`] and [`split_part`] (padding is in `pad.rs`). Each answers in
//! the layout it was given; a dictionary's values are edited once.

use std::borrow::Cow;

use alkaid_array::{Array, ArrayRef, make_array};
use alkaid_data::ArrayData;
use memchr::memmem;

use super::regex;
use super::transform::{as_text, transform, transform_appending};
use crate::error::ComputeError;
use crate::lift::{Lift, lift_unary};
use crate::text::{TextWriter, check_input, each_value};

/// Each value with every occurrence of `from` replaced by `to`, left to right, not
/// overlapping. An empty `from` leaves the values as they are (PostgreSQL's `replace`;
/// pyarrow's `replace_substring` inserts `to` between every byte instead). Text and
/// binary.
///
/// # Errors
/// If the input is not text or binary, or a 32-bit layout overflows.
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let fixed = alkaid_compute::string::replace(&StringArray::from(vec!["a-b-c", "none"]), "-", "+")?;
/// assert_eq!(fixed.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("a+b+c"), Some("none")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn replace(array: &dyn Array, from: &str, to: &str) -> Result<ArrayRef, ComputeError> {
    replace_at_most(array, from, to, usize::MAX)
}

/// [`replace`] of at most the first `max_replacements` occurrences in each value
/// (pyarrow's `replace_substring` with `max_replacements`); 0 leaves the values as they
/// are.
///
/// # Errors
/// As [`replace`].
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let once = alkaid_compute::string::replace_at_most(&StringArray::from(vec!["a-b-c"]), "-", "+", 1)?;
/// assert_eq!(once.as_string::<i32>().value(0), "a+b-c");
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn replace_at_most(
    array: &dyn Array,
    from: &str,
    to: &str,
    max_replacements: usize,
) -> Result<ArrayRef, ComputeError> {
    if from.is_empty() || max_replacements == 0 {
        return Ok(make_array(array.to_data()));
    }
    let finder = memmem::Finder::new(from.as_bytes());
    // Matches cut text between characters (both are whole UTF-8), and `to` is text.
    transform_appending("replace", array, true, 0, |_, _, value, out| {
        let mut last = 0;
        for at in finder.find_iter(value).take(max_replacements) {
            out.extend_from_slice(&value[last..at]);
            out.extend_from_slice(to.as_bytes());
            last = at + from.len();
        }
        out.extend_from_slice(&value[last..]);
        Ok(())
    })
}

/// Each value with every match of the regular expression replaced by `replacement`, in
/// which `$1`, `${name}` name the match's groups (the `regex` crate's syntax; pyarrow's
/// `replace_substring_regex` writes `\1`).
///
/// # Errors
/// If the input is not text, the expression is invalid, or a 32-bit layout overflows.
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let dates = StringArray::from(vec!["2026-11-28"]);
/// let swapped = alkaid_compute::string::regexp_replace(&dates, r"(\d+)-(\d+)-(\d+)", "$3.$2.$1")?;
/// assert_eq!(swapped.as_string::<i32>().value(0), "28.11.2026");
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn regexp_replace(
    array: &dyn Array,
    expression: &str,
    replacement: &str,
) -> Result<ArrayRef, ComputeError> {
    let regex = regex(expression)?;
    transform("regexp_replace", array, false, None, |_, _, value| {
        let replaced = regex.replace_all(value, replacement.as_bytes());
        // The text replaced and the replacement are UTF-8, and a match of a Unicode
        // expression starts and ends between characters; a `(?-u)` expression may not, so
        // the result is checked before it is kept.
        match std::str::from_utf8(&replaced) {
            Ok(_) => Ok(replaced),
            Err(_) => Err(ComputeError::InvalidArgument(format!(
                "regexp_replace: {expression:?} cut a character in two; use a Unicode expression"
            ))),
        }
    })
}

/// The text of group `group` (0: the whole match) of each value's first match of the
/// regular expression; null where there is no match or the group took no part in it.
///
/// # Errors
/// If the input is not text, the expression is invalid, or it has no such group.
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let mails = StringArray::from(vec!["ann@example.org", "no address"]);
/// let hosts = alkaid_compute::string::regexp_extract(&mails, r"@(.+)$", 1)?;
/// assert_eq!(hosts.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("example.org"), None]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn regexp_extract(
    array: &dyn Array,
    expression: &str,
    group: usize,
) -> Result<ArrayRef, ComputeError> {
    let regex = regex(expression)?;
    if group >= regex.captures_len() {
        return Err(ComputeError::InvalidArgument(format!(
            "regexp_extract: {expression:?} has no group {group} (it has {})",
            regex.captures_len() - 1
        )));
    }
    let result = lift_unary(&array.to_data(), Lift::Keep, &|plain: &ArrayData| {
        check_input("regexp_extract", plain, false)?;
        let mut writer = TextWriter::like(plain.data_type(), plain.len(), 0);
        each_value(plain, |row, value| {
            let found = value
                .and_then(|v| regex.captures(v))
                .and_then(|c| c.get(group))
                .map(|m| m.as_bytes());
            writer.push(row, found)
        })?;
        writer.finish(plain.data_type().clone())
    })?;
    Ok(make_array(result))
}

/// Each value repeated `times` times (empty for 0).
///
/// # Errors
/// If the input is not text or binary, or a 32-bit layout overflows.
pub fn repeat(array: &dyn Array, times: usize) -> Result<ArrayRef, ComputeError> {
    transform("repeat", array, true, None, |row, _, value| {
        value
            .len()
            .checked_mul(times)
            .filter(|&n| n <= isize::MAX as usize / 2)
            .ok_or_else(|| ComputeError::Overflow {
                row: Some(row),
                message: format!("repeat: {} bytes {times} times", value.len()),
            })?;
        Ok(Cow::Owned(value.repeat(times)))
    })
}

/// Each value with its characters in reverse order (bytes, for binary).
///
/// # Errors
/// If the input is not text or binary.
pub fn reverse(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    // `multibyte` is false for binary and for text that is all ASCII: bytes then.
    transform("reverse", array, true, None, |_, multibyte, value| {
        Ok(Cow::Owned(match multibyte {
            true => as_text(value)
                .chars()
                .rev()
                .collect::<String>()
                .into_bytes(),
            false => value.iter().rev().copied().collect(),
        }))
    })
}

/// Each value with the first letter of every word in upper case and the others in lower
/// case; a word is a run of letters and digits (PostgreSQL's `initcap`).
///
/// # Errors
/// If the input is not text, or a 32-bit layout overflows.
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let titles = alkaid_compute::string::initcap(&StringArray::from(vec!["hello wORLD-wide 2nd"]))?;
/// assert_eq!(titles.as_string::<i32>().value(0), "Hello World-Wide 2nd");
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn initcap(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    transform("initcap", array, false, None, |_, _, value| {
        let mut out = String::with_capacity(value.len());
        let mut in_word = false;
        for c in as_text(value).chars() {
            if in_word {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            in_word = c.is_alphanumeric();
        }
        Ok(Cow::Owned(out.into_bytes()))
    })
}

/// Field `n` of each value split at `delimiter`: counted from 1, or from the end if
/// negative (−1 is the last); empty where there is no such field (PostgreSQL's
/// `split_part`). An empty delimiter leaves one field, the whole value.
///
/// # Errors
/// If the input is not text, or `n` is 0.
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let paths = StringArray::from(vec!["a/b/c", "d"]);
/// let last = alkaid_compute::string::split_part(&paths, "/", -1)?;
/// assert_eq!(last.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("c"), Some("d")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn split_part(array: &dyn Array, delimiter: &str, n: i64) -> Result<ArrayRef, ComputeError> {
    if n == 0 {
        return Err(ComputeError::InvalidArgument(
            "split_part: field positions count from 1 (or from -1 at the end); 0 is none".into(),
        ));
    }
    let delimiter = delimiter.as_bytes();
    transform("split_part", array, false, None, |_, _, value| {
        let fields: Vec<&[u8]> = if delimiter.is_empty() {
            vec![value]
        } else {
            let mut fields = Vec::new();
            let mut last = 0;
            for at in memmem::find_iter(value, delimiter) {
                fields.push(&value[last..at]);
                last = at + delimiter.len();
            }
            fields.push(&value[last..]);
            fields
        };
        let index = match n {
            n if n > 0 => usize::try_from(n - 1).ok(),
            n => usize::try_from(n.unsigned_abs())
                .ok()
                .and_then(|k| fields.len().checked_sub(k)),
        };
        Ok(Cow::Borrowed(
            index.and_then(|i| fields.get(i)).copied().unwrap_or(b""),
        ))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alkaid_array::types::Int8Type;
    use alkaid_array::{
        AsArray, DictionaryArray, Int8Array, LargeStringArray, StringArray, StringViewArray,
    };

    use super::*;

    fn text(array: &ArrayRef) -> Vec<Option<String>> {
        let plain = make_array(crate::encoding::decoded(&array.to_data()).unwrap());
        let plain = crate::cast(
            plain.as_ref(),
            &alkaid_schema::DataType::Utf8,
            crate::CastOptions::STRICT,
        )
        .unwrap();
        plain
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(String::from))
            .collect()
    }

    fn owned(values: &[Option<&str>]) -> Vec<Option<String>> {
        values.iter().map(|v| v.map(String::from)).collect()
    }

    #[test]
    fn replace_in_every_layout_and_a_dictionary() {
        let words = [Some("aXbXc"), None, Some("日X本"), Some("")];
        let expected = owned(&[Some("a--b--c"), None, Some("日--本"), Some("")]);
        let plain: ArrayRef = Arc::new(StringArray::from(words.to_vec()));
        let large: ArrayRef = Arc::new(LargeStringArray::from(words.to_vec()));
        let views: ArrayRef = Arc::new(StringViewArray::from_iter(words));
        for array in [plain, large, views] {
            let replaced = replace(array.as_ref(), "X", "--").unwrap();
            assert_eq!(replaced.data_type(), array.data_type());
            assert_eq!(text(&replaced), expected);
        }
        let values: ArrayRef = Arc::new(StringArray::from(vec!["aXa", "b"]));
        let keys = Int8Array::from(vec![Some(0), None, Some(1), Some(0)]);
        let dictionary = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
        let replaced = replace(dictionary.slice(1, 3).as_ref(), "X", "").unwrap();
        assert!(replaced.data_type().is_dictionary());
        assert_eq!(text(&replaced), owned(&[None, Some("b"), Some("aa")]));
        let same = replace(&StringArray::from(vec!["ab"]), "", "z").unwrap();
        assert_eq!(text(&same), owned(&[Some("ab")]));
    }

    #[test]
    fn replace_at_most_counts_matches_in_each_value_left_to_right() {
        let words = StringArray::from(vec![Some("aaaaa-aa"), None, Some("a"), Some("")]);
        // "aa" found left to right, never overlapping, each value counted on its own.
        let cases = [
            (0, "aaaaa-aa"),
            (1, "Xaaa-aa"),
            (2, "XXa-aa"),
            (3, "XXa-X"),
            (usize::MAX, "XXa-X"),
        ];
        for (count, first) in cases {
            let replaced = replace_at_most(&words, "aa", "X", count).unwrap();
            let expected = owned(&[Some(first), None, Some("a"), Some("")]);
            assert_eq!(text(&replaced), expected, "at most {count}");
        }
    }

    #[test]
    fn regular_expression_edits() {
        let input = StringArray::from(vec![Some("a1b22"), None, Some("été 3")]);
        let replaced = regexp_replace(&input, r"\d+", "#").unwrap();
        assert_eq!(text(&replaced), owned(&[Some("a#b#"), None, Some("été #")]));
        let extracted = regexp_extract(&input, r"([a-zé]+)(\d)", 2).unwrap();
        assert_eq!(text(&extracted), owned(&[Some("1"), None, None]));
        let whole = regexp_extract(&input, r"\p{L}+", 0).unwrap();
        assert_eq!(text(&whole), owned(&[Some("a"), None, Some("été")]));
        let error = regexp_extract(&input, r"(a)", 2).unwrap_err().to_string();
        assert!(error.contains("has no group 2 (it has 1)"), "{error}");
        let error = regexp_replace(&input, r"(?-u)\xC3", "")
            .unwrap_err()
            .to_string();
        assert!(error.contains("regexp_replace"), "{error}");
    }

    #[test]
    fn repeat_reverse_initcap_and_split_part() {
        let input = StringArray::from(vec![Some("ab"), None, Some("日本🦀")]);
        assert_eq!(
            text(&repeat(&input, 3).unwrap()),
            owned(&[Some("ababab"), None, Some("日本🦀日本🦀日本🦀")])
        );
        assert_eq!(
            text(&repeat(&input, 0).unwrap()),
            owned(&[Some(""), None, Some("")])
        );
        assert_eq!(
            text(&reverse(&input).unwrap()),
            owned(&[Some("ba"), None, Some("🦀本日")])
        );
        let titles = StringArray::from(vec!["ÉCOLE d'été", "x1y z", ""]);
        assert_eq!(
            text(&initcap(&titles).unwrap()),
            owned(&[Some("École D'Été"), Some("X1y Z"), Some("")])
        );
        let paths = StringArray::from(vec![Some("a,b,,c"), Some(""), None]);
        assert_eq!(
            text(&split_part(&paths, ",", 2).unwrap()),
            owned(&[Some("b"), Some(""), None])
        );
        assert_eq!(
            text(&split_part(&paths, ",", 3).unwrap()),
            owned(&[Some(""), Some(""), None])
        );
        assert_eq!(
            text(&split_part(&paths, ",", -1).unwrap()),
            owned(&[Some("c"), Some(""), None])
        );
        assert_eq!(
            text(&split_part(&paths, ",", -5).unwrap()),
            owned(&[Some(""), Some(""), None])
        );
        assert_eq!(
            text(&split_part(&paths, ",", 9).unwrap()),
            owned(&[Some(""), Some(""), None])
        );
        assert_eq!(
            text(&split_part(&paths, "", 1).unwrap()),
            owned(&[Some("a,b,,c"), Some(""), None])
        );
        assert!(split_part(&paths, ",", 0).is_err());
    }
}

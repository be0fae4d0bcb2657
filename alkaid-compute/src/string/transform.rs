//! Value-to-value text kernels: case, trimming and substrings. Each answers in the layout
//! it was given, and a dictionary stays a dictionary with its values transformed once.

use std::borrow::Cow;

use alkaid_array::{Array, ArrayRef, make_array};
use alkaid_buffer::{OffsetSize, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::PhysicalType;

use crate::access::{ByteAccess, offset_bytes};
use crate::error::ComputeError;
use crate::lift::{Lift, lift_unary};
use crate::text::{TextWriter, check_input, each_value, is_text};

/// A value's new bytes, given its row, whether it may hold multi-byte characters (it is
/// text, and its array's bytes are not all ASCII: one scan of them all spares a kernel
/// asking of each value), and its bytes. For text, the new bytes are valid UTF-8 whenever
/// the old ones are (every kernel here cuts at character boundaries or builds a
/// `String`): [`map_offsets`] relies on it. Kernels pass
/// their closures as a type parameter, not a `dyn`, so that each is inlined into the
/// loop over the values (a call per value through a pointer: `substring` 48 ms, now 38).
pub(super) trait MapValue:
    for<'a> Fn(usize, bool, &'a [u8]) -> Result<Cow<'a, [u8]>, ComputeError>
{
}
impl<F: for<'a> Fn(usize, bool, &'a [u8]) -> Result<Cow<'a, [u8]>, ComputeError>> MapValue for F {}

/// A map of ASCII text done byte by byte in place, which gives ASCII again (case changes):
/// an array whose bytes are all ASCII is mapped at once, its offsets kept.
pub(super) type Bytewise = fn(&mut [u8]);

/// Every valid value of a text (or, with `bytes_too`, binary) input through `map`, or
/// all at once through `bytewise` where it is given and the bytes are all ASCII.
pub(super) fn transform(
    kernel: &'static str,
    array: &dyn Array,
    bytes_too: bool,
    bytewise: Option<Bytewise>,
    map: impl MapValue,
) -> Result<ArrayRef, ComputeError> {
    each_plain(kernel, array, bytes_too, |plain, text| {
        match plain.data_type().to_physical() {
            PhysicalType::Binary => return map_offsets::<i32>(plain, text, bytewise, &map),
            PhysicalType::LargeBinary => return map_offsets::<i64>(plain, text, bytewise, &map),
            _ => {}
        }
        let mut writer = TextWriter::like_input(plain);
        each_value(plain, |row, value| match value {
            Some(value) => writer.push(row, Some(&map(row, text, value)?)),
            None => writer.push(row, None),
        })?;
        writer.finish(plain.data_type().clone())
    })
}

/// `edit` of each plain input (a dictionary's values once, through `Lift::Keep`), checked
/// to be text (or, with `bytes_too`, binary) and told whether it is text: what
/// [`transform`] and [`transform_appending`] share.
fn each_plain(
    kernel: &'static str,
    array: &dyn Array,
    bytes_too: bool,
    edit: impl Fn(&ArrayData, bool) -> Result<ArrayData, ComputeError>,
) -> Result<ArrayRef, ComputeError> {
    let result = lift_unary(&array.to_data(), Lift::Keep, &|plain: &ArrayData| {
        check_input(kernel, plain, bytes_too)?;
        edit(plain, is_text(plain.data_type()))
    })?;
    Ok(make_array(result))
}

/// A value's new bytes appended to the result's: given its row, whether it may hold
/// multi-byte characters (as for [`MapValue`]), its bytes and the bytes to append to.
/// For text, what it appends is valid UTF-8 whenever the value is: [`append_offsets`]
/// relies on it.
pub(super) trait AppendValue:
    Fn(usize, bool, &[u8], &mut Vec<u8>) -> Result<(), ComputeError>
{
}
impl<F: Fn(usize, bool, &[u8], &mut Vec<u8>) -> Result<(), ComputeError>> AppendValue for F {}

/// As [`transform`], for edits that build most values anew (padding, replacing): each
/// result appended straight into the result's bytes (offsets layouts) or into one
/// reused vector (views), with no allocation per value. Built as values of two new
/// strings each, `lpad` of 4 Mi short values took 387 ms against pyarrow's 83.
///
/// `grows_by` is about how many bytes an edit adds to a value (0 if it does not know):
/// the result's bytes are reserved once for the input's plus that much per row, so that
/// they are not moved halfway (each move copies what was written and faults in fresh
/// pages).
pub(super) fn transform_appending(
    kernel: &'static str,
    array: &dyn Array,
    bytes_too: bool,
    grows_by: usize,
    append: impl AppendValue,
) -> Result<ArrayRef, ComputeError> {
    each_plain(kernel, array, bytes_too, |plain, text| {
        match plain.data_type().to_physical() {
            PhysicalType::Binary => {
                return append_offsets::<i32>(plain, text, grows_by, &append);
            }
            PhysicalType::LargeBinary => {
                return append_offsets::<i64>(plain, text, grows_by, &append);
            }
            _ => {}
        }
        let mut writer = TextWriter::like_input(plain);
        let mut scratch = Vec::new();
        each_value(plain, |row, value| match value {
            Some(value) => {
                scratch.clear();
                append(row, text, value, &mut scratch)?;
                writer.push(row, Some(&scratch))
            }
            None => writer.push(row, None),
        })?;
        writer.finish(plain.data_type().clone())
    })
}

/// [`transform_appending`] for the layouts with offsets.
fn append_offsets<O: OffsetSize>(
    plain: &ArrayData,
    text: bool,
    grows_by: usize,
    append: &impl AppendValue,
) -> Result<ArrayData, ComputeError> {
    let len = plain.len();
    let source = offset_bytes::<O>(plain)?;
    let used = source.all_values().unwrap_or_default();
    let multibyte = text && !used.is_ascii();
    // A guess, never a promise: a large `grows_by` is capped at 64 bytes a row.
    let mut values: Vec<u8> =
        Vec::with_capacity(used.len() + used.len() / 4 + len * grows_by.min(64));
    let mut offsets: Vec<O> = Vec::with_capacity(len + 1);
    offsets.push(O::ZERO);
    for row in 0..len {
        if plain.is_valid(row) {
            append(row, multibyte, source.value(row), &mut values)?;
        }
        offsets.push(
            O::from_usize(values.len()).ok_or_else(|| ComputeError::Overflow {
                row: Some(row),
                message: "the result exceeds what its offsets address; use a large or view type"
                    .into(),
            })?,
        );
    }
    let builder = ArrayData::builder(plain.data_type().clone())
        .len(len)
        .nulls(plain.nulls().cloned())
        .buffers(vec![
            ScalarBuffer::from(offsets).into_inner(),
            values.into(),
        ]);
    // SAFETY: the offsets were written above, one per slot plus one, from 0, never
    // decreasing, ending at the length of `values`; what each row appended is valid
    // UTF-8 for text (the `AppendValue` contract), so every offset falls between
    // characters. Debug builds check it all.
    Ok(unsafe { builder.build_unchecked() })
}

/// [`transform`] for the layouts with offsets: the new values and offsets written in one
/// pass straight from the old offsets, with no builder in between.
fn map_offsets<O: OffsetSize>(
    plain: &ArrayData,
    text: bool,
    bytewise: Option<Bytewise>,
    map: &impl MapValue,
) -> Result<ArrayData, ComputeError> {
    let len = plain.len();
    let source = offset_bytes::<O>(plain)?;
    let offsets = source.offsets();
    // The bytes the slots use: scanned once for non-ASCII, and where results are cut from.
    let used = source.all_values().unwrap_or_default();
    let multibyte = text && !used.is_ascii();
    if let (Some(bytewise), false) = (bytewise, multibyte) {
        return ascii_at_once::<O>(plain, offsets, used, bytewise);
    }
    // Written at `end` rather than pushed: most results are no longer than their input,
    // and a short one is copied as 16 bytes (see `put`).
    let mut values: Vec<u8> = vec![0; used.len() + SHORT];
    let mut end = 0;
    let mut out: Vec<O> = Vec::with_capacity(len + 1);
    out.push(O::ZERO);
    for row in 0..len {
        if plain.is_valid(row) {
            let value = source.value(row);
            end = put(&mut values, end, &map(row, multibyte, value)?, used);
        }
        out.push(O::from_usize(end).ok_or_else(|| ComputeError::Overflow {
            row: Some(row),
            message: "the result exceeds what its offsets address; use a large or view type".into(),
        })?);
    }
    values.truncate(end);
    let offsets = ScalarBuffer::from(out).into_inner();
    let builder = ArrayData::builder(plain.data_type().clone())
        .len(len)
        .nulls(plain.nulls().cloned())
        .buffers(vec![offsets, values.into()]);
    // SAFETY: the offsets were written above, one per slot plus one, starting at 0,
    // never decreasing and ending at the length of `values`; each value is whole output of
    // `map`, which keeps text valid UTF-8 (its contract), so every offset falls between
    // characters. Validating it all again cost as much as the kernel itself (substring
    // 46 ms against 22 ms); debug builds still check it.
    Ok(unsafe { builder.build_unchecked() })
}

/// [`map_offsets`] of an array whose bytes are all ASCII by a [`Bytewise`] map: its used
/// bytes copied and mapped in one pass, its offsets moved to start at 0 (`lower` of 4 Mi
/// short values: 100 ms value by value, each result a new allocation).
fn ascii_at_once<O: OffsetSize>(
    plain: &ArrayData,
    offsets: &[O],
    used: &[u8],
    bytewise: Bytewise,
) -> Result<ArrayData, ComputeError> {
    let mut values = used.to_vec();
    bytewise(&mut values);
    let first = offsets.first().map_or(0, |o| o.as_usize());
    let moved: Vec<O> = offsets
        .iter()
        .map(|o| O::usize_as(o.as_usize() - first))
        .collect();
    let builder = ArrayData::builder(plain.data_type().clone())
        .len(plain.len())
        .nulls(plain.nulls().cloned())
        .buffers(vec![ScalarBuffer::from(moved).into_inner(), values.into()]);
    // SAFETY: the offsets are the input's (valid: never decreasing, within its bytes)
    // less the first, so they start at 0 and end at the length of `values`, the input's
    // bytes between the first and last offset; those were all ASCII and a `Bytewise` map
    // keeps them ASCII, so they are UTF-8 between any two offsets. Debug builds check it.
    Ok(unsafe { builder.build_unchecked() })
}

/// Values up to this long are copied as a whole 16-byte block by [`put`].
const SHORT: usize = 16;

/// Writes `value` into `out` at `at` and returns where it ends; `out` keeps [`SHORT`]
/// bytes of room past that. A value of at most [`SHORT`] bytes that lies inside `source`
/// (a cut of an input value) is copied as the 16 bytes starting there, one load and one
/// store, the excess overwritten by the next value: a call to `memcpy` per value took a
/// third of `substring`'s time.
#[inline(always)]
fn put(out: &mut Vec<u8>, at: usize, value: &[u8], source: &[u8]) -> usize {
    let end = at + value.len();
    if out.len() < end + SHORT {
        out.resize((end + SHORT).max(out.len() * 2), 0);
    }
    // Where `value` starts in `source`, if it lies inside it (addresses compared, nothing
    // read through them).
    let offset = (value.as_ptr() as usize).wrapping_sub(source.as_ptr() as usize);
    let inside = offset <= source.len() && value.len() <= source.len() - offset;
    let chunk = source.get(offset..).and_then(<[u8]>::first_chunk::<SHORT>);
    match chunk {
        Some(&chunk) if inside && value.len() <= SHORT => {
            *out[at..]
                .first_chunk_mut::<SHORT>()
                .expect("SHORT bytes of room") = chunk;
        }
        _ => out[at..end].copy_from_slice(value),
    }
    end
}

/// `value` as text (it is: the input's type says so, and validation checked it).
pub(super) fn as_text(value: &[u8]) -> &str {
    // The kernels only call this on the values of validated text arrays.
    std::str::from_utf8(value).unwrap_or_default()
}

/// Each text value in lower case: ASCII values byte by byte, others by Unicode's rules
/// (which may change their length: `"İ"` lowers to two characters).
///
/// # Errors
/// If the input is not text, or a 32-bit layout overflows.
pub fn lower(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    transform(
        "lower",
        array,
        false,
        Some(<[u8]>::make_ascii_lowercase),
        |_, _, value| {
            Ok(if value.is_ascii() {
                Cow::Owned(value.to_ascii_lowercase())
            } else {
                Cow::Owned(as_text(value).to_lowercase().into_bytes())
            })
        },
    )
}

/// Each text value in upper case (as [`lower`]: `"ß"` uppers to `"SS"`).
///
/// # Errors
/// As [`lower`].
pub fn upper(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    transform(
        "upper",
        array,
        false,
        Some(<[u8]>::make_ascii_uppercase),
        |_, _, value| {
            Ok(if value.is_ascii() {
                Cow::Owned(value.to_ascii_uppercase())
            } else {
                Cow::Owned(as_text(value).to_uppercase().into_bytes())
            })
        },
    )
}

/// Which ends [`trimmed`] trims.
#[derive(Clone, Copy)]
enum Ends {
    Both,
    Start,
    End,
}

fn trimmed(
    kernel: &'static str,
    array: &dyn Array,
    characters: &str,
    ends: Ends,
) -> Result<ArrayRef, ComputeError> {
    let set: Vec<char> = characters.chars().collect();
    let ascii: Option<Vec<u8>> = characters.is_ascii().then(|| characters.bytes().collect());
    transform(kernel, array, false, None, |_, _, value| {
        let (mut start, mut end) = (0, value.len());
        if let Some(set) = &ascii {
            // ASCII characters never occur inside a multi-byte character: cut bytes.
            if !matches!(ends, Ends::End) {
                while start < end && set.contains(&value[start]) {
                    start += 1;
                }
            }
            if !matches!(ends, Ends::Start) {
                while end > start && set.contains(&value[end - 1]) {
                    end -= 1;
                }
            }
            return Ok(Cow::Borrowed(&value[start..end]));
        }
        let text = as_text(value);
        let cut = match ends {
            Ends::Both => text.trim_matches(set.as_slice()),
            Ends::Start => text.trim_start_matches(set.as_slice()),
            Ends::End => text.trim_end_matches(set.as_slice()),
        };
        Ok(Cow::Borrowed(cut.as_bytes()))
    })
}

/// Each text value without the characters of `characters` at either end (SQL's
/// `TRIM(BOTH characters FROM x)`; `TRIM(x)` is `trim(x, " ")`).
///
/// # Errors
/// If the input is not text.
///
/// # Examples
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// use alkaid_compute::string::trim;
///
/// let padded = StringArray::from(vec!["  a b  ", "xx", ""]);
/// let trimmed = trim(&padded, " x")?;
/// assert_eq!(trimmed.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("a b"), Some(""), Some("")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn trim(array: &dyn Array, characters: &str) -> Result<ArrayRef, ComputeError> {
    trimmed("trim", array, characters, Ends::Both)
}

/// [`trim`] at the start only (SQL's `LTRIM`).
///
/// # Errors
/// As [`trim`].
pub fn ltrim(array: &dyn Array, characters: &str) -> Result<ArrayRef, ComputeError> {
    trimmed("ltrim", array, characters, Ends::Start)
}

/// [`trim`] at the end only (SQL's `RTRIM`).
///
/// # Errors
/// As [`trim`].
pub fn rtrim(array: &dyn Array, characters: &str) -> Result<ArrayRef, ComputeError> {
    trimmed("rtrim", array, characters, Ends::End)
}

/// The window `start`, `length` of `count` units: `start` counts from 0, or back from the
/// end if negative (clamped to the value); `length` `None` runs to the end.
fn window(count: usize, start: i64, length: Option<u64>) -> (usize, usize) {
    let count_i = i64::try_from(count).unwrap_or(i64::MAX);
    let begin = if start < 0 {
        count_i.saturating_add(start).max(0)
    } else {
        start.min(count_i)
    } as usize;
    let end = match length {
        Some(n) => begin
            .saturating_add(usize::try_from(n).unwrap_or(usize::MAX))
            .min(count),
        None => count,
    };
    (begin, end)
}

/// Part of each value: `length` characters (bytes, for binary) from `start`, which counts
/// from 0, or back from the end if negative; `length` `None` takes the rest. A window
/// past the end gives what there is (possibly the empty string).
///
/// # Errors
/// If the input is neither text nor binary.
///
/// # Examples
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// use alkaid_compute::string::substring;
///
/// let words = StringArray::from(vec!["héllo", "日本語", "a"]);
/// let head = substring(&words, 1, Some(2))?;
/// assert_eq!(head.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("él"), Some("本語"), Some("")]);
/// let tail = substring(&words, -2, None)?;
/// assert_eq!(tail.as_string::<i32>().value(0), "lo");
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn substring(
    array: &dyn Array,
    start: i64,
    length: Option<u64>,
) -> Result<ArrayRef, ComputeError> {
    transform(
        "substring",
        array,
        true,
        None,
        #[inline(always)]
        |_, multibyte, value| {
            if !multibyte || value.is_ascii() {
                let (begin, end) = window(value.len(), start, length);
                return Ok(Cow::Borrowed(&value[begin..end]));
            }
            let text = as_text(value);
            let count = text.chars().count();
            let (begin, end) = window(count, start, length);
            let mut bounds = text.char_indices().map(|(i, _)| i).chain([text.len()]);
            let from = bounds.nth(begin).unwrap_or(text.len());
            let to = if end > begin {
                bounds.nth(end - begin - 1).unwrap_or(text.len())
            } else {
                from
            };
            Ok(Cow::Borrowed(&value[from..to]))
        },
    )
}

/// Part of each value by bytes (as [`substring`] counts them). For text, a window that
/// would cut a character in two is an error naming the row.
///
/// # Errors
/// If the input is neither text nor binary, or a cut splits a character.
pub fn substring_bytes(
    array: &dyn Array,
    start: i64,
    length: Option<u64>,
) -> Result<ArrayRef, ComputeError> {
    transform(
        "substring_bytes",
        array,
        true,
        None,
        |row, multibyte, value| {
            let (begin, end) = window(value.len(), start, length);
            if multibyte {
                let whole = as_text(value);
                if !whole.is_char_boundary(begin) || !whole.is_char_boundary(end) {
                    return Err(ComputeError::InvalidArgument(format!(
                        "row {row}: bytes {begin}..{end} of {whole:?} cut a character in two"
                    )));
                }
            }
            Ok(Cow::Borrowed(&value[begin..end]))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_writes_cuts_copies_and_grows() {
        let source: Vec<u8> = (0..40).collect();
        let mut out = vec![0; 4 + SHORT];
        // A short cut of the source (16-byte copy), one near its end (plain copy), a long
        // one, an owned value, and an empty one: the room grows as needed.
        let mut end = put(&mut out, 0, &source[3..6], &source);
        end = put(&mut out, end, &source[37..40], &source);
        end = put(&mut out, end, &source[10..30], &source);
        let owned = vec![7u8, 7, 7];
        end = put(&mut out, end, &owned, &source);
        end = put(&mut out, end, &[], &source);
        out.truncate(end);
        let mut expected = vec![3, 4, 5, 37, 38, 39];
        expected.extend(10..30);
        expected.extend([7, 7, 7]);
        assert_eq!(out, expected);
    }
}

//! Padding text to a width in characters: [`lpad`] and [`rpad`], each value's padding
//! cut from `fill` laid out once and appended straight into the result.

use alkaid_array::{Array, ArrayRef};

use super::transform::{as_text, transform_appending};
use crate::error::ComputeError;

/// Each value padded on the left with `fill` to `width` characters, or cut to its first
/// `width` characters if longer (PostgreSQL's `lpad`; pyarrow's `utf8_lpad` leaves longer
/// values whole). An empty `fill` pads nothing.
///
/// # Errors
/// If the input is not text, or a 32-bit layout overflows.
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let padded = alkaid_compute::string::lpad(&StringArray::from(vec!["7", "12345"]), 3, "0")?;
/// assert_eq!(padded.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("007"), Some("123")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn lpad(array: &dyn Array, width: usize, fill: &str) -> Result<ArrayRef, ComputeError> {
    pad("lpad", array, width, fill, true)
}

/// As [`lpad`], padding on the right.
///
/// # Errors
/// As [`lpad`].
pub fn rpad(array: &dyn Array, width: usize, fill: &str) -> Result<ArrayRef, ComputeError> {
    pad("rpad", array, width, fill, false)
}

fn pad(
    kernel: &'static str,
    array: &dyn Array,
    width: usize,
    fill: &str,
    left: bool,
) -> Result<ArrayRef, ComputeError> {
    let padding = Padding::new(fill, width);
    // A value as long as `width` characters of `fill` at most (none are longer).
    let grows_by = padding.bytes_for(width);
    transform_appending(
        kernel,
        array,
        false,
        grows_by,
        |row, multibyte, value, out| {
            // An ASCII value's length is its count of characters.
            let count = match multibyte {
                false => value.len(),
                true => as_text(value).chars().count(),
            };
            if count >= width {
                let cut = match multibyte {
                    false => width,
                    true => cut_at(as_text(value), width),
                };
                out.extend_from_slice(&value[..cut]);
            } else if left {
                padding.append(row, width - count, out)?;
                out.extend_from_slice(value);
            } else {
                out.extend_from_slice(value);
                padding.append(row, width - count, out)?;
            }
            Ok(())
        },
    )
}

/// The byte where `text`'s first `chars` characters end.
fn cut_at(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(at, _)| at)
}

/// Paddings up to about this many characters are cut from one lay-out of `fill`; longer
/// ones repeat it (a lay-out of an absurd width would be a large allocation before the
/// first row).
const LAID_OUT: usize = 4096;

/// `fill` repeated a whole number of times, up to `width` characters and about
/// [`LAID_OUT`] (at least one whole `fill`), and where each prefix of it ends.
struct Padding {
    text: String,
    /// `ends[k]`: the bytes of the first `k` characters of `text`.
    ends: Vec<usize>,
}

impl Padding {
    fn new(fill: &str, width: usize) -> Self {
        let per_fill = fill.chars().count().max(1);
        let fills = width.min(LAID_OUT).div_ceil(per_fill).max(1);
        let text = fill.repeat(fills);
        let mut ends = Vec::with_capacity(text.len() + 1);
        ends.push(0);
        ends.extend(text.char_indices().map(|(at, c)| at + c.len_utf8()));
        Self { text, ends }
    }

    /// The bytes of `chars` characters of padding.
    fn bytes_for(&self, chars: usize) -> usize {
        let laid_out = self.ends.len() - 1;
        match laid_out {
            0 => 0,
            _ => (chars / laid_out)
                .saturating_mul(self.text.len())
                .saturating_add(self.ends[chars % laid_out]),
        }
    }

    /// Appends `chars` characters of padding (none for an empty `fill`): whole lay-outs
    /// while more are needed (each ends where a `fill` ends, so the cycle goes on), then a
    /// prefix. A padding longer than the lay-out is first asked of the allocator, so that
    /// a width past what memory holds is an error naming `row`, not an abort.
    #[inline]
    fn append(&self, row: usize, mut chars: usize, out: &mut Vec<u8>) -> Result<(), ComputeError> {
        let laid_out = self.ends.len() - 1;
        if laid_out == 0 {
            return Ok(());
        }
        if chars > laid_out {
            let bytes = self.bytes_for(chars);
            out.try_reserve(bytes).map_err(|_| ComputeError::Overflow {
                row: Some(row),
                message: format!("a padding of {chars} characters ({bytes} bytes)"),
            })?;
        }
        while chars > laid_out {
            out.extend_from_slice(self.text.as_bytes());
            chars -= laid_out;
        }
        out.extend_from_slice(&self.text.as_bytes()[..self.ends[chars]]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use alkaid_array::{AsArray, LargeStringArray, StringArray};
    use alkaid_schema::DataType;

    use super::*;
    use crate::cast::{CastOptions, cast};

    /// Any text array's values, read through a cast to `LargeUtf8`.
    fn texts(array: &dyn Array) -> Vec<Option<String>> {
        let large = cast(array, &DataType::LargeUtf8, CastOptions::SAFE).unwrap();
        let large = large.as_string::<i64>();
        large.iter().map(|v| v.map(str::to_string)).collect()
    }

    fn owned(values: &[Option<&str>]) -> Vec<Option<String>> {
        values.iter().map(|v| v.map(str::to_string)).collect()
    }

    #[test]
    fn padding_counts_characters_and_cuts_long_values() {
        let input = StringArray::from(vec![Some("日本"), Some("abcdef"), None, Some("")]);
        let left = lpad(&input, 4, "xy").unwrap();
        let expected = [Some("xy日本"), Some("abcd"), None, Some("xyxy")];
        assert_eq!(texts(left.as_ref()), owned(&expected));
        let right = rpad(&input, 3, "é").unwrap();
        let expected = [Some("日本é"), Some("abc"), None, Some("ééé")];
        assert_eq!(texts(right.as_ref()), owned(&expected));
        let none = lpad(&input, 5, "").unwrap();
        assert_eq!(texts(none.as_ref())[0], Some("日本".into()));
    }

    #[test]
    fn every_layout_and_width_matches_the_reference() {
        let values = vec![Some("x"), None, Some("héllo wörld"), Some(""), Some("ab")];
        let plain = StringArray::from(values.clone());
        let large = LargeStringArray::from(values.clone());
        let views = cast(&plain, &DataType::Utf8View, CastOptions::SAFE).unwrap();
        let widths = [0, 3, 7, 12, LAID_OUT - 1, LAID_OUT + 5, 3 * LAID_OUT + 2];
        for (width, fill) in widths
            .into_iter()
            .zip(["-", "é•", "", "ab", "abc", "é•x", "xy"])
        {
            for left in [true, false] {
                let expected: Vec<Option<String>> = values
                    .iter()
                    .map(|v| {
                        let v = (*v)?;
                        let n = v.chars().count();
                        if n >= width {
                            return Some(v.chars().take(width).collect());
                        }
                        let pad: String = fill.chars().cycle().take(width - n).collect();
                        Some(if left { pad + v } else { v.to_string() + &pad })
                    })
                    .collect();
                let kernel = if left { lpad } else { rpad };
                for input in [&plain as &dyn Array, &large, views.as_ref()] {
                    let padded = kernel(input, width, fill).unwrap();
                    padded
                        .to_data()
                        .validate(alkaid_data::ValidationLevel::Full)
                        .unwrap();
                    assert_eq!(texts(padded.as_ref()), expected, "{width} {fill:?}");
                }
                let of_slice = kernel(plain.slice(1, 4).as_ref(), width, fill).unwrap();
                assert_eq!(texts(of_slice.as_ref()), expected[1..]);
            }
        }
    }

    #[test]
    fn a_width_past_memory_is_an_error_naming_the_row() {
        let input = StringArray::from(vec![Some("long enough"), None, Some("x")]);
        let error = lpad(&input, 1 << 60, "ab").unwrap_err().to_string();
        assert!(
            error.contains("row 0") || error.contains("at row 0"),
            "{error}"
        );
        assert!(error.contains("padding"), "{error}");
    }
}

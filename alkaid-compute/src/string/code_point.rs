//! Characters and their numbers: [`ascii`] (the first character's code point), [`chr`]
//! (the character of a code point) and [`strpos`] (where a substring starts, in
//! characters).

use alkaid_array::{Array, ArrayRef, Int32Array, Int64Array, make_array};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};
use memchr::memmem;

use crate::access::native_values;
use crate::cast::{CastOptions, cast};
use crate::error::ComputeError;
use crate::lift::{Lift, lift_unary};
use crate::text::{TextWriter, check_input, each_value};

/// The code point of each value's first character as `Int32`; 0 for an empty value
/// (PostgreSQL's `ascii`, which despite its name is not limited to ASCII).
///
/// # Errors
/// If the input is not text.
///
/// ```
/// use alkaid_array::{Int32Array, StringArray};
/// let codes = alkaid_compute::string::ascii(&StringArray::from(vec!["A", "é", ""]))?;
/// assert_eq!(alkaid_array::AsArray::as_primitive::<alkaid_array::types::Int32Type>(codes.as_ref()), &Int32Array::from(vec![65, 233, 0]));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn ascii(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let result = lift_unary(&array.to_data(), Lift::Gather, &|plain: &ArrayData| {
        check_input("ascii", plain, false)?;
        let mut codes = Vec::with_capacity(plain.len());
        each_value(plain, |_, value| {
            // Validated text: the first character is whole (an empty value has none: 0).
            let first = value.map(|v| {
                let text = std::str::from_utf8(v).unwrap_or_default();
                text.chars().next().map_or(0, |c| c as i32)
            });
            codes.push(first);
            Ok(())
        })?;
        Ok(Int32Array::from(codes).to_data())
    })?;
    Ok(make_array(result))
}

/// The character whose code point is each value (any integer type), as `Utf8`.
///
/// # Errors
/// If the input is not integers, or a valid row's value is not a Unicode scalar value
/// (a surrogate, negative, past `U+10FFFF`) or is 0 (PostgreSQL refuses `chr(0)`: text
/// cannot hold it), naming the row.
///
/// ```
/// use alkaid_array::{AsArray, Int64Array};
/// let letters = alkaid_compute::string::chr(&Int64Array::from(vec![Some(72), None, Some(0x1F980)]))?;
/// assert_eq!(letters.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("H"), None, Some("🦀")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn chr(array: &dyn Array) -> Result<ArrayRef, ComputeError> {
    let result = lift_unary(&array.to_data(), Lift::Keep, &|plain: &ArrayData| {
        if !plain.data_type().is_integer() {
            return Err(ComputeError::unsupported(
                "chr",
                format!("expected integers, found {}", plain.data_type()),
            ));
        }
        let wide = cast(
            make_array(plain.clone()).as_ref(),
            &DataType::Int64,
            CastOptions::STRICT,
        )?;
        let codes = native_values::<i64>(&wide.to_data())?;
        let mut writer = TextWriter::like(&DataType::Utf8, plain.len(), plain.len());
        let mut buffer = [0u8; 4];
        for (row, &code) in codes.iter().enumerate() {
            if plain.is_null(row) {
                writer.push(row, None)?;
                continue;
            }
            let c = u32::try_from(code)
                .ok()
                .filter(|&c| c != 0)
                .and_then(char::from_u32)
                .ok_or_else(|| {
                    ComputeError::InvalidArgument(format!(
                        "chr: {code} at row {row} is not the code point of a character"
                    ))
                })?;
            writer.push(row, Some(c.encode_utf8(&mut buffer).as_bytes()))?;
        }
        writer.finish(DataType::Utf8)
    })?;
    Ok(make_array(result))
}

/// Where `needle` first starts in each value, counted in characters from 1 (bytes, for
/// binary); 0 where it does not occur (PostgreSQL's `strpos`; pyarrow's `find_substring`
/// counts bytes from 0 and answers −1). An empty needle is found at 1. `Int32`, or `Int64`
/// for the large layouts.
///
/// # Errors
/// If the input is not text or binary.
///
/// ```
/// use alkaid_array::{Int32Array, StringArray};
/// let at = alkaid_compute::string::strpos(&StringArray::from(vec!["héllo", "x"]), "llo")?;
/// assert_eq!(alkaid_array::AsArray::as_primitive::<alkaid_array::types::Int32Type>(at.as_ref()), &Int32Array::from(vec![3, 0]));
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn strpos(array: &dyn Array, needle: &str) -> Result<ArrayRef, ComputeError> {
    let finder = memmem::Finder::new(needle.as_bytes());
    let result = lift_unary(&array.to_data(), Lift::Gather, &|plain: &ArrayData| {
        check_input("strpos", plain, true)?;
        let text = crate::text::is_text(plain.data_type());
        let mut positions: Vec<Option<i64>> = Vec::with_capacity(plain.len());
        each_value(plain, |_, value| {
            positions.push(value.map(|v| match finder.find(v) {
                None => 0,
                Some(at) if text => {
                    // Characters before `at`: the bytes that do not continue one.
                    v[..at].iter().filter(|&&b| (b as i8) >= -0x40).count() as i64 + 1
                }
                Some(at) => at as i64 + 1,
            }));
            Ok(())
        })?;
        Ok(match plain.data_type().to_physical() {
            PhysicalType::LargeBinary => Int64Array::from(positions).to_data(),
            _ => Int32Array::from(
                positions
                    .into_iter()
                    .map(|p| p.map(|p| p as i32))
                    .collect::<Vec<_>>(),
            )
            .to_data(),
        })
    })?;
    Ok(make_array(result))
}

#[cfg(test)]
mod tests {
    use alkaid_array::types::Int32Type;
    use alkaid_array::{
        AsArray, BinaryArray, Int8Array, Int64Array, LargeStringArray, StringArray, UInt32Array,
    };

    use super::*;

    #[test]
    fn code_points_both_ways() {
        let codes = ascii(&StringArray::from(vec![Some("Ω!"), None, Some("")])).unwrap();
        assert_eq!(
            codes.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(),
            [Some(937), None, Some(0)]
        );
        let letters = chr(&Int8Array::from(vec![Some(97), None])).unwrap();
        assert_eq!(
            letters.as_string::<i32>().iter().collect::<Vec<_>>(),
            [Some("a"), None]
        );
        for bad in [0i64, -1, 0xD800, 0x110000] {
            let error = chr(&Int64Array::from(vec![Some(65), Some(bad)]))
                .unwrap_err()
                .to_string();
            assert!(error.contains(&format!("{bad} at row 1")), "{error}");
        }
        // A bad value under a null is no error.
        let masked = chr(&UInt32Array::from(vec![None, Some(66)])).unwrap();
        assert_eq!(masked.as_string::<i32>().value(1), "B");
        assert!(chr(&StringArray::from(vec!["a"])).is_err());
    }

    #[test]
    fn positions_count_characters_from_one() {
        let found = strpos(
            &StringArray::from(vec![Some("日本語"), Some("abc"), None, Some("")]),
            "語",
        )
        .unwrap();
        assert_eq!(
            found.as_primitive::<Int32Type>().iter().collect::<Vec<_>>(),
            [Some(3), Some(0), None, Some(0)]
        );
        let empty = strpos(&StringArray::from(vec!["abc"]), "").unwrap();
        assert_eq!(empty.as_primitive::<Int32Type>().value(0), 1);
        let bytes = strpos(&BinaryArray::from(vec![&b"\xffab"[..]]), "a").unwrap();
        assert_eq!(bytes.as_primitive::<Int32Type>().value(0), 2);
        let large = strpos(&LargeStringArray::from(vec!["xé"]), "é").unwrap();
        assert_eq!(large.data_type(), &DataType::Int64);
    }
}

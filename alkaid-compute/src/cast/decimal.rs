//! Decimals to decimals and numbers, both ways. Changing the scale multiplies exactly or
//! divides rounding half away from zero (as SQL does: `CAST(2.5 AS INTEGER)` is 3), and
//! every result is checked against the target's precision. Floats are scaled and rounded
//! the same way; a NaN or infinity does not convert.

use alkaid_buffer::native::i256;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, DecimalType};

use super::numeric::{Number, numeric_physical, with_number};
use super::options::CastOptions;
use super::values::{Converted, convert_rows};
use crate::access::native_values;
use crate::decimal::{
    DecimalNative, decimal_to_i256, max_of_precision, pow10, round_div, with_decimal,
};
use crate::error::ComputeError;

fn decimal_type(data_type: &DataType) -> Option<&DecimalType> {
    match data_type {
        DataType::Decimal(d) => Some(d),
        _ => None,
    }
}

/// `value` (an unscaled number at scale `from`) at scale `to`, rounded; `None` on overflow.
fn rescale(value: i256, from: i32, to: i32) -> Option<i256> {
    let shift = to - from;
    let factor = pow10(shift.unsigned_abs())?;
    if shift >= 0 {
        value.checked_mul(factor)
    } else {
        round_div(value, factor)
    }
}

/// An unscaled value into a decimal of `target`, if it fits its precision and width.
fn fit<T: DecimalNative>(value: i256, target: &DecimalType) -> Option<T> {
    let limit = max_of_precision(target.precision());
    let magnitude = if value.is_negative() {
        value.checked_neg()?
    } else {
        value
    };
    if magnitude > limit {
        return None;
    }
    T::try_narrow(value)
}

/// Text for an unscaled value at a scale, for errors.
fn show(value: i256, scale: i32) -> String {
    let digits = value.to_string();
    match usize::try_from(scale) {
        // A scale from text's exponent may be huge: shown as an exponent, not padded out.
        Ok(scale) if scale > 80 => format!("{digits}e-{scale}"),
        Ok(scale) if scale > 0 => {
            let (sign, digits) = digits
                .strip_prefix('-')
                .map_or(("", digits.as_str()), |d| ("-", d));
            let padded = format!("{digits:0>width$}", width = scale + 1);
            let (whole, fraction) = padded.split_at(padded.len() - scale);
            format!("{sign}{whole}.{fraction}")
        }
        _ => digits,
    }
}

/// The array of `to` (a decimal) made of unscaled values at `scale`, rescaled and fitted.
pub(super) fn into_decimals(
    to: &DataType,
    len: usize,
    nulls: Option<&alkaid_buffer::NullBuffer>,
    options: CastOptions,
    value_at: impl Fn(usize) -> Converted<(i256, i32)>,
) -> Result<ArrayData, ComputeError> {
    let target = decimal_type(to).expect("a decimal target");
    let scale = i32::from(target.scale());
    with_decimal!(target.width(), |T| convert_rows::<T>(
        to,
        len,
        nulls,
        options,
        |row| {
            let (value, from) = value_at(row)?;
            rescale(value, from, scale)
                .and_then(|v| fit::<T>(v, target))
                .ok_or_else(|| format!("{} does not fit {to}", show(value, from)))
        }
    ))
}

/// Decimals as decimals of another precision, scale or width.
pub(super) fn decimals(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    let from = i32::from(
        decimal_type(data.data_type())
            .expect("a decimal input")
            .scale(),
    );
    let values = decimal_to_i256(data)?;
    into_decimals(to, data.len(), data.nulls(), options, |row| {
        Ok((values[row], from))
    })
}

/// Integers and floats as decimals.
pub(super) fn from_numbers(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    let p = numeric_physical(data.data_type()).expect("a numeric input");
    let scale = i32::from(decimal_type(to).expect("a decimal target").scale());
    with_number!(
        p,
        |S| {
            let values = native_values::<S>(data)?;
            into_decimals(to, data.len(), data.nulls(), options, |row| {
                let value = values[row];
                if S::INTEGER {
                    return Ok((i256::from_i128(value.as_integer()), 0));
                }
                float_unscaled(value.as_float(), scale)
                    .map(|v| (v, scale))
                    .ok_or_else(|| format!("{value} does not fit {to}"))
            })
        },
        Err(ComputeError::unsupported(
            "cast",
            format!("{} to {to}", data.data_type())
        ))
    )
}

/// `2^n` as a 256-bit integer (`n < 255`).
fn pow2(n: u32) -> Option<i256> {
    match n {
        0..128 => Some(i256::from_parts(1 << n, 0)),
        128..255 => Some(i256::from_parts(0, 1 << (n - 128))),
        _ => None,
    }
}

/// `x * 10^scale` rounded half away from zero: small results are scaled and rounded as
/// floats; large ones exactly, from the float's mantissa and exponent in integers.
fn float_unscaled(x: f64, scale: i32) -> Option<i256> {
    if !x.is_finite() {
        return None;
    }
    let scaled = (x * 10f64.powi(scale)).round();
    if scaled.abs() < 1.7e38 {
        return Some(i256::from_i128(scaled as i128));
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, exponent) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, exponent - 1075)
    };
    let mut numerator = i256::from_i128(i128::from(mantissa));
    let mut denominator = i256::ONE;
    let shift = pow2(exponent.unsigned_abs())?;
    let ten = pow10(scale.unsigned_abs())?;
    if exponent >= 0 {
        numerator = numerator.checked_mul(shift)?;
    } else {
        denominator = denominator.checked_mul(shift)?;
    }
    if scale >= 0 {
        numerator = numerator.checked_mul(ten)?;
    } else {
        denominator = denominator.checked_mul(ten)?;
    }
    let magnitude = round_div(numerator, denominator)?;
    if x < 0.0 {
        magnitude.checked_neg()
    } else {
        Some(magnitude)
    }
}

/// An unscaled 256-bit value as a float.
fn to_f64(value: i256) -> f64 {
    if let Some(small) = value.to_i128() {
        return small as f64;
    }
    // Beyond 128 bits the high part dominates: adding the low part loses nothing that
    // an f64 could hold (for small negative values it would cancel catastrophically).
    let (low, high) = value.to_parts();
    high as f64 * 2f64.powi(128) + low as f64
}

/// The float nearest to `value / 10^scale`: one division of exact operands when both
/// are exact as floats (|value| < 2^53, 10^scale up to 10^22), else through the decimal
/// text, which Rust's parser rounds correctly.
fn decimal_f64(value: i256, scale: i32) -> f64 {
    let exact = value.to_i128().is_some_and(|v| v.unsigned_abs() < 1 << 53);
    if exact && (0..=22).contains(&scale) {
        return to_f64(value) / 10f64.powi(scale);
    }
    format!("{value}e{}", -scale)
        .parse()
        .unwrap_or_else(|_| to_f64(value) / 10f64.powi(scale))
}

/// Decimals as integers (rounded half away from zero) or floats.
pub(super) fn to_numbers(
    data: &ArrayData,
    to: &DataType,
    options: CastOptions,
) -> Result<ArrayData, ComputeError> {
    let scale = i32::from(
        decimal_type(data.data_type())
            .expect("a decimal input")
            .scale(),
    );
    let values = decimal_to_i256(data)?;
    let p = numeric_physical(to).expect("a numeric target");
    with_number!(
        p,
        |T| convert_rows::<T>(to, data.len(), data.nulls(), options, |row| {
            let value = values[row];
            let fail = || format!("{} does not fit {to}", show(value, scale));
            if T::INTEGER {
                let whole = rescale(value, scale, 0).ok_or_else(fail)?;
                whole.to_i128().and_then(T::from_integer).ok_or_else(fail)
            } else {
                T::from_float(decimal_f64(value, scale)).ok_or_else(fail)
            }
        }),
        Err(ComputeError::unsupported(
            "cast",
            format!("{} to {to}", data.data_type())
        ))
    )
}

/// Text as decimals: `[+-]digits[.digits][e[+-]digits]`, surrounding spaces allowed,
/// rounded half away from zero to the target's scale.
pub(super) fn parse_decimal(text: &str) -> Option<(i256, i32)> {
    let text = text.trim();
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (sign, digits) = match mantissa.as_bytes().first()? {
        b'-' => (true, &mantissa[1..]),
        b'+' => (false, &mantissa[1..]),
        _ => (false, mantissa),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let all: String = [whole, fraction].concat();
    // At most 76 significant digits; more leading zeros are dropped first.
    let significant = all.trim_start_matches('0');
    let unscaled: i256 = if significant.is_empty() {
        i256::ZERO
    } else {
        significant.parse().ok()?
    };
    let unscaled = if sign {
        unscaled.checked_neg()?
    } else {
        unscaled
    };
    let scale = i32::try_from(fraction.len()).ok()?.checked_sub(exponent)?;
    Some((unscaled, scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rescaling_rounds_half_away_from_zero() {
        let v = |x: i128| i256::from_i128(x);
        assert_eq!(rescale(v(25), 1, 0), Some(v(3)));
        assert_eq!(rescale(v(-25), 1, 0), Some(v(-3)));
        assert_eq!(rescale(v(24), 1, 0), Some(v(2)));
        assert_eq!(rescale(v(7), 0, 3), Some(v(7000)));
        assert_eq!(rescale(i256::MAX, 0, 1), None);
        assert_eq!(show(v(-5), 3), "-0.005");
        assert_eq!(show(v(12345), 2), "123.45");
        assert_eq!(show(v(7), 2_000_000_000), "7e-2000000000");
    }

    #[test]
    fn decimal_text_parses_with_exponents_and_signs() {
        let v = |x: i128, s: i32| Some((i256::from_i128(x), s));
        assert_eq!(parse_decimal("12.50"), v(1250, 2));
        assert_eq!(parse_decimal(" -0.5 "), v(-5, 1));
        assert_eq!(parse_decimal("+3"), v(3, 0));
        assert_eq!(parse_decimal("1.5e3"), v(15, -2));
        assert_eq!(parse_decimal(".5"), v(5, 1));
        assert_eq!(
            parse_decimal(
                "000000000000000000000000000000000000000000000000000000000000000000000000000000001"
            ),
            v(1, 0)
        );
        for bad in ["", ".", "-", "1.2.3", "1e", "abc", "1 2", "--1"] {
            assert_eq!(parse_decimal(bad), None, "{bad:?}");
        }
    }
}

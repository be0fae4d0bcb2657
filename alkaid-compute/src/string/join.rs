//! Joining the values of several columns row by row: [`concat_elements`] (SQL's `||`,
//! null if any is null), [`concat`] (SQL's `CONCAT`, nulls as empty) and [`concat_ws`]
//! (nulls skipped, a separator between the rest).

use alkaid_array::{Array, ArrayRef, Datum, make_array};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use super::text::{TextWriter, check_input, each_value, is_text};
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::operand::Operand;

/// What a null argument does to its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nulls {
    /// The row is null.
    Propagate,
    /// The argument is left out (as empty, or with no separator before it).
    Skip,
}

/// Each row's values of `columns` joined end to end (SQL's `a || b`): null where any of
/// them is null. Text columns give `Utf8` (`LargeUtf8` if any input is large), binary
/// columns `Binary` (`LargeBinary`).
///
/// # Errors
/// If the columns differ in length, mix text and binary, or are neither.
pub fn concat_elements(columns: &[&dyn Array]) -> Result<ArrayRef, ComputeError> {
    let operands: Vec<Operand> = columns
        .iter()
        .map(|c| Operand::array(c.to_data()))
        .collect();
    join("concat_elements", &operands, None, Nulls::Propagate)
}

/// Each row's values of `arguments` (text or binary arrays of one length, or scalars)
/// joined end to end, a null counting as empty (SQL's `CONCAT`: the result is never null).
///
/// # Errors
/// As [`concat_elements`].
///
/// ```
/// use alkaid_array::{AsArray, Scalar, StringArray};
/// let first = StringArray::from(vec![Some("ann"), None]);
/// let full = alkaid_compute::string::concat(&[&first, &Scalar::from(" smith")])?;
/// assert_eq!(full.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("ann smith"), Some(" smith")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn concat(arguments: &[&dyn Datum]) -> Result<ArrayRef, ComputeError> {
    let operands: Vec<Operand> = arguments.iter().map(|a| Operand::of(*a)).collect();
    join("concat", &operands, None, Nulls::Skip)
}

/// Each row's values of `arguments` that are not null, with `separator` between them
/// (SQL's `CONCAT_WS`; a row of nulls gives an empty value).
///
/// # Errors
/// As [`concat_elements`].
///
/// ```
/// use alkaid_array::{AsArray, StringArray};
/// let city = StringArray::from(vec![Some("Oslo"), None]);
/// let country = StringArray::from(vec![Some("Norway"), Some("Chile")]);
/// let place = alkaid_compute::string::concat_ws(", ", &[&city, &country])?;
/// assert_eq!(place.as_string::<i32>().iter().collect::<Vec<_>>(), [Some("Oslo, Norway"), Some("Chile")]);
/// # Ok::<(), alkaid_compute::ComputeError>(())
/// ```
pub fn concat_ws(separator: &str, arguments: &[&dyn Datum]) -> Result<ArrayRef, ComputeError> {
    let operands: Vec<Operand> = arguments.iter().map(|a| Operand::of(*a)).collect();
    join(
        "concat_ws",
        &operands,
        Some(separator.as_bytes()),
        Nulls::Skip,
    )
}

fn join(
    kernel: &'static str,
    operands: &[Operand],
    separator: Option<&[u8]>,
    nulls: Nulls,
) -> Result<ArrayRef, ComputeError> {
    let Some(first) = operands.first() else {
        return Err(ComputeError::InvalidArgument(format!(
            "{kernel} needs at least one argument"
        )));
    };
    let data: Vec<ArrayData> = operands
        .iter()
        .map(|o| decoded(&o.data))
        .collect::<Result<_, _>>()?;
    let text = is_text(data[0].data_type());
    let mut large = false;
    let mut len = None;
    for (operand, d) in operands.iter().zip(&data) {
        check_input(kernel, d, true)?;
        if is_text(d.data_type()) != text {
            return Err(ComputeError::unsupported(
                kernel,
                format!(
                    "cannot join {} with {}",
                    first.data.data_type(),
                    d.data_type()
                ),
            ));
        }
        if operand.scalar && d.len() != 1 {
            return Err(ComputeError::InvalidArgument(format!(
                "{kernel}: expected a scalar of one slot, found {} slots",
                d.len()
            )));
        }
        match len {
            _ if operand.scalar => {}
            None => len = Some(d.len()),
            Some(expected) if expected != d.len() => {
                return Err(ComputeError::LengthMismatch {
                    what: "every array argument",
                    expected,
                    found: d.len(),
                });
            }
            Some(_) => {}
        }
        large |= d.data_type().to_physical() == PhysicalType::LargeBinary;
    }
    let output = match (text, large) {
        (true, false) => DataType::Utf8,
        (true, true) => DataType::LargeUtf8,
        (false, false) => DataType::Binary,
        (false, true) => DataType::LargeBinary,
    };
    let len = len.unwrap_or(1);
    // Per row: the bytes so far, whether any value was written (for the separator), and
    // whether the row is null.
    let mut joined: Vec<(Vec<u8>, bool, bool)> = vec![(Vec::new(), false, false); len];
    for (operand, d) in operands.iter().zip(&data) {
        let mut scalar = None;
        each_value(d, |row, value| {
            if operand.scalar {
                scalar = Some(value.map(<[u8]>::to_vec));
                return Ok(());
            }
            append(&mut joined[row], value, separator, nulls);
            Ok(())
        })?;
        if let Some(value) = scalar {
            for slot in &mut joined {
                append(slot, value.as_deref(), separator, nulls);
            }
        }
    }
    let bytes: usize = joined.iter().map(|(v, _, _)| v.len()).sum();
    let mut writer = TextWriter::like(&output, len, bytes);
    for (row, (value, _, null)) in joined.iter().enumerate() {
        writer.push(row, (!null).then_some(value.as_slice()))?;
    }
    Ok(make_array(writer.finish(output)?))
}

fn append(
    (out, written, null): &mut (Vec<u8>, bool, bool),
    value: Option<&[u8]>,
    separator: Option<&[u8]>,
    nulls: Nulls,
) {
    match (value, nulls) {
        (None, Nulls::Propagate) => *null = true,
        (None, Nulls::Skip) => {}
        (Some(value), _) => {
            if let (Some(separator), true) = (separator, *written) {
                out.extend_from_slice(separator);
            }
            out.extend_from_slice(value);
            *written = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use alkaid_array::{AsArray, BinaryArray, LargeStringArray, Scalar, StringArray};

    use super::*;

    fn text(array: &ArrayRef) -> Vec<Option<&str>> {
        match array.data_type() {
            DataType::LargeUtf8 => array.as_string::<i64>().iter().collect(),
            _ => array.as_string::<i32>().iter().collect(),
        }
    }

    #[test]
    fn the_three_null_rules() {
        let a = StringArray::from(vec![Some("a"), None, None]);
        let b = StringArray::from(vec![Some("b"), Some("b"), None]);
        let strict = concat_elements(&[&a, &b]).unwrap();
        assert_eq!(text(&strict), [Some("ab"), None, None]);
        let lenient = concat(&[&a, &b]).unwrap();
        assert_eq!(text(&lenient), [Some("ab"), Some("b"), Some("")]);
        let separated = concat_ws("-", &[&a, &Scalar::from("x"), &b]).unwrap();
        assert_eq!(text(&separated), [Some("a-x-b"), Some("x-b"), Some("x")]);
        let empty = concat_ws("-", &[&a.slice(0, 0).as_ref()]);
        assert!(empty.is_err() || empty.unwrap().is_empty());
    }

    #[test]
    fn output_types_and_errors() {
        let large = LargeStringArray::from(vec!["é"]);
        let joined = concat(&[&StringArray::from(vec!["x"]), &large]).unwrap();
        assert_eq!(joined.data_type(), &DataType::LargeUtf8);
        assert_eq!(text(&joined), [Some("xé")]);
        let scalars = concat(&[&Scalar::from("a"), &Scalar::from("b")]).unwrap();
        assert_eq!(text(&scalars), [Some("ab")]);
        let bytes = concat(&[&BinaryArray::from(vec![&b"\xff"[..]])]).unwrap();
        assert_eq!(bytes.data_type(), &DataType::Binary);
        let error = concat(&[
            &StringArray::from(vec!["x"]),
            &BinaryArray::from(vec![&b"y"[..]]),
        ])
        .unwrap_err();
        assert!(
            error.to_string().contains("cannot join Utf8 with Binary"),
            "{error}"
        );
        let error = concat(&[
            &StringArray::from(vec!["x"]),
            &StringArray::from(vec!["y", "z"]),
        ])
        .unwrap_err();
        assert!(error.to_string().contains("found 2"), "{error}");
        assert!(concat(&[]).is_err());
    }
}

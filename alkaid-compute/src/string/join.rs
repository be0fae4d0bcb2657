//! Joining the values of several columns row by row: [`concat_elements`] (SQL's `||`,
//! null if any is null), [`concat`] (SQL's `CONCAT`, nulls as empty) and [`concat_ws`]
//! (nulls skipped, a separator between the rest).

use alkaid_array::{Array, ArrayRef, Datum, make_array};
use alkaid_buffer::{Buffer, NullBuffer, OffsetSize};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use crate::access::{ByteAccess, OffsetBytes, ViewBytes, offset_bytes, view_bytes};
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::operand::Operand;
use crate::text::{check_input, is_text};

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
    let columns: Vec<(Column<'_>, Option<NullBuffer>)> = operands
        .iter()
        .zip(&data)
        .map(|(operand, d)| Column::of(operand, d))
        .collect::<Result<_, _>>()?;
    let how = Pieces { separator, nulls };
    let (offsets, bytes, valid) = match large {
        false => join_rows::<i32>(&columns, len, how)?,
        true => join_rows::<i64>(&columns, len, how)?,
    };
    let builder = ArrayData::builder(output)
        .len(len)
        .nulls(valid)
        .buffers(vec![offsets, bytes]);
    // SAFETY: each value is whole values of fully valid arguments of one kind (text, for
    // a text result) with the caller's separator (a `&str` for text) between them, and
    // the offsets count the bytes written; full validation would re-read every byte. The
    // property tests validate results fully.
    Ok(make_array(unsafe { builder.build_structural() }?))
}

/// How the values of a row are put together.
#[derive(Clone, Copy)]
struct Pieces<'s> {
    separator: Option<&'s [u8]>,
    nulls: Nulls,
}

/// One argument's values, as the row loop reads them.
enum Column<'a> {
    Offsets32(OffsetBytes<'a, i32>),
    Offsets64(OffsetBytes<'a, i64>),
    Views(ViewBytes<'a>),
    /// A scalar's value (empty if null) for every row.
    One(&'a [u8]),
}

impl<'a> Column<'a> {
    /// The argument's values and validity over the rows (a null scalar's is all null).
    fn of(
        operand: &Operand,
        data: &'a ArrayData,
    ) -> Result<(Self, Option<NullBuffer>), ComputeError> {
        let column = match data.data_type().to_physical() {
            PhysicalType::LargeBinary => Self::Offsets64(offset_bytes::<i64>(data)?),
            PhysicalType::BinaryView => Self::Views(view_bytes(data)?),
            _ => Self::Offsets32(offset_bytes::<i32>(data)?),
        };
        if !operand.scalar {
            return Ok((column, data.nulls().cloned()));
        }
        Ok(match data.is_valid(0) {
            true => (Self::One(column.value(0)), None),
            false => (Self::One(&[]), Some(NullBuffer::new_null(1))),
        })
    }

    #[inline(always)]
    fn value(&self, row: usize) -> &'a [u8] {
        match self {
            Self::Offsets32(values) => values.value(row),
            Self::Offsets64(values) => values.value(row),
            Self::Views(values) => values.value(row),
            Self::One(value) => value,
        }
    }

    /// The bytes of its values over `len` rows (null slots included): an upper bound.
    fn bytes(&self, len: usize) -> usize {
        match self {
            Self::Offsets32(values) => values.all_values().map_or(0, <[u8]>::len),
            Self::Offsets64(values) => values.all_values().map_or(0, <[u8]>::len),
            Self::Views(values) => (0..len).map(|row| values.value_len(row)).sum(),
            Self::One(value) => value.len().saturating_mul(len),
        }
    }

    fn is_one(&self) -> bool {
        matches!(self, Self::One(_))
    }
}

/// Whether row `row` of a column with validity `valid` is null (a scalar's one slot
/// stands for every row).
#[inline(always)]
fn is_null(column: &Column<'_>, valid: &Option<NullBuffer>, row: usize) -> bool {
    match valid {
        None => false,
        Some(valid) => valid.is_null(if column.is_one() { 0 } else { row }),
    }
}

/// The rows joined, row by row, into offsets of `O` and one data buffer, with the result's
/// validity.
fn join_rows<O: OffsetSize>(
    columns: &[(Column<'_>, Option<NullBuffer>)],
    len: usize,
    how: Pieces<'_>,
) -> Result<(Buffer, Buffer, Option<NullBuffer>), ComputeError> {
    // SQL's `||`: a row is null where any argument is.
    let valid = match how.nulls {
        Nulls::Skip => None,
        Nulls::Propagate => {
            let mut valid: Option<NullBuffer> = None;
            for (column, nulls) in columns {
                let nulls = match (column, nulls) {
                    (_, None) => continue,
                    (Column::One(_), Some(_)) => NullBuffer::new_null(len),
                    (_, Some(nulls)) => nulls.clone(),
                };
                valid = NullBuffer::union(valid.as_ref(), Some(&nulls));
            }
            valid
        }
    };
    let separators = how
        .separator
        .map_or(0, |s| s.len() * columns.len().saturating_sub(1));
    let capacity = columns
        .iter()
        .map(|(column, _)| column.bytes(len))
        .fold(separators.saturating_mul(len), usize::saturating_add);
    // The bytes of every argument: the result is at most that, so it is never moved.
    let mut bytes: Vec<u8> = Vec::new();
    bytes
        .try_reserve_exact(capacity)
        .map_err(|_| ComputeError::Overflow {
            row: None,
            message: format!("the joined values would take {capacity} bytes"),
        })?;
    let mut offsets: Vec<O> = Vec::with_capacity(len + 1);
    offsets.push(O::ZERO);
    // SQL's `||` of values that fit the offsets: every row's values copied, a null row's
    // slots too (their bytes are a valid value that the validity hides, as arrow-rs
    // leaves them), with no test per row.
    if how.nulls == Nulls::Propagate
        && how.separator.is_none()
        && (O::IS_LARGE || capacity <= i32::MAX as usize)
    {
        // The common case, text with 32-bit offsets, read without a match per value.
        let plain: Vec<OffsetBytes<'_, i32>> = columns
            .iter()
            .filter_map(|(column, _)| match column {
                Column::Offsets32(values) => Some(*values),
                _ => None,
            })
            .collect();
        // Every row below `len` is a slot of every array argument (their lengths were
        // checked equal to `len`; scalars are `One`, not here), and the arguments are
        // valid array data, whose offsets lie in order within their bytes: the
        // `value_unchecked` calls below read within them.
        match plain.as_slice() {
            // Two columns, the common `a || b`, in a loop the compiler unrolls.
            [left, right] if columns.len() == 2 => {
                for row in 0..len {
                    // SAFETY: `row < len`, a slot of both columns (above).
                    unsafe {
                        bytes.extend_from_slice(left.value_unchecked(row));
                        bytes.extend_from_slice(right.value_unchecked(row));
                    }
                    offsets.push(O::usize_as(bytes.len()));
                }
            }
            _ if plain.len() == columns.len() => {
                for row in 0..len {
                    for values in &plain {
                        // SAFETY: `row < len`, a slot of every column (above).
                        bytes.extend_from_slice(unsafe { values.value_unchecked(row) });
                    }
                    offsets.push(O::usize_as(bytes.len()));
                }
            }
            _ => {
                for row in 0..len {
                    for (column, _) in columns {
                        bytes.extend_from_slice(column.value(row));
                    }
                    offsets.push(O::usize_as(bytes.len()));
                }
            }
        }
        let valid = valid.filter(|v| v.null_count() > 0);
        return Ok((Buffer::from_vec(offsets), Buffer::from_vec(bytes), valid));
    }
    for row in 0..len {
        if valid.as_ref().is_none_or(|v| v.is_valid(row)) {
            let mut first = true;
            for (column, nulls) in columns {
                // A row kept under `Propagate` has no null argument.
                if how.nulls == Nulls::Skip && is_null(column, nulls, row) {
                    continue;
                }
                if let (Some(separator), false) = (how.separator, first) {
                    bytes.extend_from_slice(separator);
                }
                first = false;
                bytes.extend_from_slice(column.value(row));
            }
            if !O::IS_LARGE && bytes.len() > i32::MAX as usize {
                return Err(ComputeError::offsets_overflow(row));
            }
        }
        // In range: checked above for 32-bit offsets; a vector's length fits i64.
        offsets.push(O::usize_as(bytes.len()));
    }
    let valid = valid.filter(|v| v.null_count() > 0);
    Ok((Buffer::from_vec(offsets), Buffer::from_vec(bytes), valid))
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

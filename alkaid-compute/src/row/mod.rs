//! A row format: several columns encoded into one byte string per row, such that comparing
//! two rows' bytes (memcmp) orders them as the columns would sort ([`crate::sort`], each
//! column with its own direction and null placement); and decoded back into columns.
//! Multi-column sorts, merges, group-by keys and joins compare one slice instead of
//! dispatching per column per comparison.
//!
//! Each value is a marker byte (valid, or null before or after the values) and then its
//! bytes: fixed-width values as big-endian bytes in the crate's order (floats with `-0.0`
//! and `0.0` alike and every NaN one NaN, so those decode canonically), variable-length
//! ones escaped so that no value's bytes are a prefix of another's; a descending column's
//! bytes are inverted. Dictionaries and run-end encoded columns are encoded by their
//! values and decode as plain arrays of them.
//!
//! Types: `Null`, booleans, every fixed-width type (integers, floats, decimals, temporal
//! values, intervals), and text and bytes of every layout. Nested types are not encoded
//! yet (an `Unsupported` error).
//!
//! # Example
//! ```
//! use alkaid_array::{Int64Array, StringArray};
//! use alkaid_compute::row::{RowConverter, SortField};
//! use alkaid_compute::sort::SortOptions;
//! use alkaid_schema::DataType;
//!
//! let converter = RowConverter::new(vec![
//!     SortField::new(DataType::Utf8, SortOptions::ASCENDING),
//!     SortField::new(DataType::Int64, SortOptions::DESCENDING),
//! ])?;
//! let city = StringArray::from(vec!["Oslo", "Lima", "Oslo"]);
//! let year = Int64Array::from(vec![2020, 2021, 2024]);
//! let rows = converter.convert_columns(&[&city, &year])?;
//! assert!(rows.row(1) < rows.row(2)); // Lima first
//! assert!(rows.row(2) < rows.row(0)); // then Oslo, the later year first
//! let back = converter.convert_rows(&rows)?;
//! assert_eq!(back[1].len(), 3);
//! # Ok::<(), alkaid_compute::ComputeError>(())
//! ```

mod bytes;
mod fixed;
#[cfg(test)]
mod tests;

use alkaid_array::{Array, ArrayRef, FixedSizeBinaryArray, make_array};
use alkaid_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, PhysicalType};

use crate::access::{ByteAccess, BytesVisitor, native_values, visit_bytes};
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::native::with_native;
use crate::sort::SortOptions;
use crate::string::text::TextWriter;
use fixed::RowBytes;

/// One column of a [`RowConverter`]: its type and how it orders.
#[derive(Clone, Debug, PartialEq)]
pub struct SortField {
    /// The column's type (a dictionary or run-end encoded type is encoded by its values).
    pub data_type: DataType,
    /// Its direction and null placement.
    pub options: SortOptions,
}

impl SortField {
    /// A column of `data_type` ordered as `options` says.
    pub fn new(data_type: DataType, options: SortOptions) -> Self {
        Self { data_type, options }
    }
}

/// The encoded rows of some columns: one byte string per row, in one buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    data: Vec<u8>,
    /// One more than there are rows: row `i` is `data[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<usize>,
}

impl Rows {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`'s bytes.
    ///
    /// # Panics
    /// If `i` is not a row.
    pub fn row(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The rows in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(|i| self.row(i))
    }
}

/// Converts columns to [`Rows`] and back.
#[derive(Clone, Debug)]
pub struct RowConverter {
    fields: Vec<SortField>,
}

/// The type a field's values have in a row (an encoding's values).
fn value_type(data_type: &DataType) -> &DataType {
    match data_type {
        DataType::Dictionary { value, .. } => value_type(value),
        DataType::RunEndEncoded(ree) => value_type(ree.values().data_type()),
        other => other,
    }
}

/// The marker bytes: valid rows, then null rows before or after them.
const VALID: u8 = 1;
fn null_marker(options: SortOptions) -> u8 {
    if options.nulls_first { 0 } else { 2 }
}

fn is_variable(data_type: &DataType) -> bool {
    crate::access::is_binary_like(data_type.to_physical())
}

impl RowConverter {
    /// A converter for columns of these types, in this order.
    ///
    /// # Errors
    /// If a type has no row encoding (nested types).
    pub fn new(fields: Vec<SortField>) -> Result<Self, ComputeError> {
        for field in &fields {
            let supported = matches!(
                value_type(&field.data_type).to_physical(),
                PhysicalType::Null | PhysicalType::Boolean | PhysicalType::Primitive(_)
            ) || is_variable(value_type(&field.data_type));
            if !supported {
                return Err(ComputeError::unsupported(
                    "row format",
                    format!("{} has no row encoding", field.data_type),
                ));
            }
        }
        Ok(Self { fields })
    }

    /// The fields, in order.
    pub fn fields(&self) -> &[SortField] {
        &self.fields
    }

    /// Each row of `columns` encoded (see the [module docs](self)).
    ///
    /// # Errors
    /// If the columns do not match the fields in number, type or length, or there are more
    /// bytes than memory holds.
    pub fn convert_columns(&self, columns: &[&dyn Array]) -> Result<Rows, ComputeError> {
        if columns.len() != self.fields.len() {
            return Err(ComputeError::LengthMismatch {
                what: "columns for the row converter",
                expected: self.fields.len(),
                found: columns.len(),
            });
        }
        let len = columns.first().map_or(0, |c| c.len());
        let mut plain = Vec::with_capacity(columns.len());
        for (column, field) in columns.iter().zip(&self.fields) {
            if column.data_type() != &field.data_type {
                return Err(ComputeError::unsupported(
                    "row format",
                    format!(
                        "a {} column for a {} field",
                        column.data_type(),
                        field.data_type
                    ),
                ));
            }
            if column.len() != len {
                return Err(ComputeError::LengthMismatch {
                    what: "row converter column",
                    expected: len,
                    found: column.len(),
                });
            }
            plain.push(decoded(&column.to_data())?);
        }
        // Each row's length first, then every column written at each row's cursor.
        let mut lengths = vec![0usize; len];
        for data in &plain {
            add_lengths(data, &mut lengths)?;
        }
        let mut offsets = Vec::with_capacity(len + 1);
        let mut total = 0usize;
        offsets.push(0);
        for length in &lengths {
            total = total.checked_add(*length).ok_or_else(|| {
                ComputeError::InvalidArgument("the rows outgrow the address space".into())
            })?;
            offsets.push(total);
        }
        let mut rows = Rows {
            data: vec![0; total],
            offsets,
        };
        let mut cursors: Vec<usize> = rows.offsets[..len].to_vec();
        for (data, field) in plain.iter().zip(&self.fields) {
            write_column(data, field.options, &mut rows.data, &mut cursors)?;
        }
        Ok(rows)
    }

    /// The columns encoded in `rows`, decoded (dictionaries and runs as plain arrays of
    /// their values; `-0.0` as `0.0` and NaNs as one NaN).
    ///
    /// # Errors
    /// If a row ends early or holds bytes no column encodes (rows made elsewhere).
    pub fn convert_rows(&self, rows: &Rows) -> Result<Vec<ArrayRef>, ComputeError> {
        let mut cursors: Vec<usize> = rows.offsets[..rows.len()].to_vec();
        self.fields
            .iter()
            .map(|field| {
                let data = read_column(
                    value_type(&field.data_type),
                    field.options,
                    rows,
                    &mut cursors,
                )?;
                Ok(make_array(data))
            })
            .collect()
    }
}

/// Adds each row's bytes for one column to `lengths`.
fn add_lengths(data: &ArrayData, lengths: &mut [usize]) -> Result<(), ComputeError> {
    match data.data_type().to_physical() {
        PhysicalType::Null => lengths.iter_mut().for_each(|l| *l += 1),
        PhysicalType::Boolean => lengths.iter_mut().for_each(|l| *l += 2),
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            lengths
                .iter_mut()
                .for_each(|l| *l += 1 + <T as RowBytes>::WIDTH)
        }),
        _ => {
            struct Lengths<'l, 'd>(&'l mut [usize], &'d ArrayData);
            impl<'a> BytesVisitor<'a> for Lengths<'_, '_> {
                type Output = ();
                fn visit<B: ByteAccess<'a>>(self, values: B) {
                    let nulls = self.1.nulls();
                    let valid = |row: usize| nulls.is_none_or(|n| n.is_valid(row));
                    if zero_free(&values) {
                        // No escapes anywhere: a value's length is enough.
                        for (row, length) in self.0.iter_mut().enumerate() {
                            *length += if valid(row) {
                                values.value_len(row) + 3
                            } else {
                                1
                            };
                        }
                        return;
                    }
                    for (row, length) in self.0.iter_mut().enumerate() {
                        *length += 1;
                        if valid(row) {
                            *length += bytes::encoded_len(values.value(row));
                        }
                    }
                }
            }
            visit_bytes(data, Lengths(lengths, data))?.ok_or_else(|| no_encoding(data))?;
        }
    }
    Ok(())
}

/// Whether no value of `values` holds a zero byte, known from one scan of the bytes of
/// layouts that keep them together (`false` for views: unknown).
fn zero_free<'a>(values: &impl ByteAccess<'a>) -> bool {
    values
        .all_values()
        .is_some_and(|all| memchr::memchr(0, all).is_none())
}

fn no_encoding(data: &ArrayData) -> ComputeError {
    ComputeError::unsupported(
        "row format",
        format!("{} has no row encoding", data.data_type()),
    )
}

/// Writes one column's values at each row's cursor, advancing it.
fn write_column(
    data: &ArrayData,
    options: SortOptions,
    out: &mut [u8],
    cursors: &mut [usize],
) -> Result<(), ComputeError> {
    let null = null_marker(options);
    let flip = if options.descending { 0xFF } else { 0 };
    let nulls = data.nulls();
    let valid = |row: usize| nulls.is_none_or(|n| n.is_valid(row));
    match data.data_type().to_physical() {
        PhysicalType::Null => {
            for cursor in cursors.iter_mut() {
                out[*cursor] = null;
                *cursor += 1;
            }
        }
        PhysicalType::Boolean => {
            let bits = BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len());
            for (row, cursor) in cursors.iter_mut().enumerate() {
                let at = *cursor;
                out[at] = if valid(row) { VALID } else { null };
                out[at + 1] = if valid(row) {
                    u8::from(bits.value(row)) ^ flip
                } else {
                    0
                };
                *cursor += 2;
            }
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let values = native_values::<T>(data)?;
            let width = <T as RowBytes>::WIDTH;
            let rows = cursors.iter_mut().zip(values.iter()).enumerate();
            for (row, (cursor, &value)) in rows {
                let at = *cursor;
                let slot = &mut out[at..at + 1 + width];
                if valid(row) {
                    slot[0] = VALID;
                    value.encode(&mut slot[1..]);
                    if flip != 0 {
                        slot[1..].iter_mut().for_each(|b| *b = !*b);
                    }
                } else {
                    slot[0] = null;
                }
                *cursor = at + 1 + width;
            }
        }),
        _ => {
            struct Write<'o, 'c, 'd> {
                out: &'o mut [u8],
                cursors: &'c mut [usize],
                data: &'d ArrayData,
                null: u8,
                flip: u8,
            }
            impl<'a> BytesVisitor<'a> for Write<'_, '_, '_> {
                type Output = ();
                fn visit<B: ByteAccess<'a>>(self, values: B) {
                    let nulls = self.data.nulls();
                    let escape = !zero_free(&values);
                    for (row, cursor) in self.cursors.iter_mut().enumerate() {
                        let at = *cursor;
                        if nulls.is_some_and(|n| n.is_null(row)) {
                            self.out[at] = self.null;
                            *cursor += 1;
                            continue;
                        }
                        self.out[at] = VALID;
                        let value = values.value(row);
                        let taken = bytes::encode_into(value, escape, &mut self.out[at + 1..]);
                        if self.flip != 0 {
                            self.out[at + 1..at + 1 + taken]
                                .iter_mut()
                                .for_each(|b| *b = !*b);
                        }
                        *cursor += 1 + taken;
                    }
                }
            }
            visit_bytes(
                data,
                Write {
                    out,
                    cursors,
                    data,
                    null,
                    flip,
                },
            )?
            .ok_or_else(|| no_encoding(data))?;
        }
    }
    Ok(())
}

fn malformed(row: usize) -> ComputeError {
    ComputeError::InvalidArgument(format!("row {row} is not in this converter's row format"))
}

/// The marker of row `row` at its cursor: whether the value is valid. Advances the cursor.
fn read_marker(
    rows: &Rows,
    row: usize,
    cursor: &mut usize,
    options: SortOptions,
) -> Result<bool, ComputeError> {
    let end = rows.offsets[row + 1];
    let marker = *rows.data[..end]
        .get(*cursor)
        .ok_or_else(|| malformed(row))?;
    *cursor += 1;
    match marker {
        VALID => Ok(true),
        m if m == null_marker(options) => Ok(false),
        _ => Err(malformed(row)),
    }
}

/// Reads one column of `data_type` from every row at its cursor, advancing the cursors.
fn read_column(
    data_type: &DataType,
    options: SortOptions,
    rows: &Rows,
    cursors: &mut [usize],
) -> Result<ArrayData, ComputeError> {
    let len = rows.len();
    let flip = if options.descending { 0xFF } else { 0 };
    let mut valid = Vec::with_capacity(len);
    let nulls = |valid: Vec<bool>| Some(NullBuffer::from(valid)).filter(|n| n.null_count() > 0);
    let field_bytes = |row: usize, cursor: usize, width: usize| -> Result<Vec<u8>, ComputeError> {
        let end = rows.offsets[row + 1];
        let bytes = rows.data[..end]
            .get(cursor..cursor + width)
            .ok_or_else(|| malformed(row))?;
        Ok(bytes.iter().map(|b| b ^ flip).collect())
    };
    match data_type.to_physical() {
        PhysicalType::Null => {
            for (row, cursor) in cursors.iter_mut().enumerate() {
                if read_marker(rows, row, cursor, options)? {
                    return Err(malformed(row));
                }
            }
            Ok(alkaid_array::NullArray::new(len).to_data())
        }
        PhysicalType::Boolean => {
            let mut bits = Vec::with_capacity(len);
            for (row, cursor) in cursors.iter_mut().enumerate() {
                valid.push(read_marker(rows, row, cursor, options)?);
                let byte = field_bytes(row, *cursor, 1)?[0];
                bits.push(byte == 1);
                *cursor += 1;
            }
            Ok(
                alkaid_array::BooleanArray::try_new(BooleanBuffer::from(bits), nulls(valid))?
                    .to_data(),
            )
        }
        PhysicalType::Primitive(p) => with_native!(p, |T| {
            let width = <T as RowBytes>::WIDTH;
            let mut values: Vec<T> = Vec::with_capacity(len);
            for (row, cursor) in cursors.iter_mut().enumerate() {
                let is_valid = read_marker(rows, row, cursor, options)?;
                valid.push(is_valid);
                if is_valid {
                    values.push(T::decode(&field_bytes(row, *cursor, width)?));
                    *cursor += width;
                } else {
                    values.push(T::default());
                    // A null's bytes are there too, as zeros.
                    field_bytes(row, *cursor, width)?;
                    *cursor += width;
                }
            }
            Ok(ArrayData::builder(data_type.clone())
                .len(len)
                .nulls(nulls(valid))
                .buffers(vec![ScalarBuffer::from(values).into_inner()])
                .build()?)
        }),
        physical => {
            let mut values: Vec<Option<Vec<u8>>> = Vec::with_capacity(len);
            for (row, cursor) in cursors.iter_mut().enumerate() {
                if !read_marker(rows, row, cursor, options)? {
                    values.push(None);
                    continue;
                }
                let end = rows.offsets[row + 1];
                let mut value = Vec::new();
                let taken = bytes::decode(&rows.data[*cursor..end], options.descending, &mut value)
                    .ok_or_else(|| malformed(row))?;
                *cursor += taken;
                values.push(Some(value));
            }
            if let PhysicalType::FixedSizeBinary(width) = physical {
                let width = usize::try_from(width).unwrap_or(0);
                if values.iter().flatten().any(|v| v.len() != width) {
                    return Err(ComputeError::InvalidArgument(format!(
                        "a {data_type} value of another width in the rows"
                    )));
                }
                return Ok(FixedSizeBinaryArray::try_from_iter(width, values)?.to_data());
            }
            let mut writer = TextWriter::like(data_type, len, 0);
            for (row, value) in values.iter().enumerate() {
                writer.push(row, value.as_deref())?;
            }
            writer.finish(data_type.clone())
        }
    }
}

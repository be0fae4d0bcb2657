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
//! bytes are inverted. Dictionaries and run-end encoded columns, at any depth, are
//! encoded by their values and decode as plain arrays of them.
//!
//! Nested values order as [`crate::sort`] orders them, each level with the column's
//! direction and null placement: a struct is its marker and then its fields in order (a
//! null struct's fields as nulls, so that two null rows are the same bytes); a list of any
//! kind or a map is its marker, then each item after a mark byte, then an end mark that
//! sorts before an item's mark when ascending (a list that is a prefix of another comes
//! first) and after it when descending; a fixed-size list is its marker and its items (a
//! null one's as nulls).
//!
//! Types: every type but unions (an `Unsupported` error), nested to any depth.
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
mod decode;
mod encode;
mod fixed;
mod layout;
mod persist;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, make_array};
use alkaid_schema::{DataType, FieldRef, MapType, PhysicalType};

use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::sort::SortOptions;
pub use layout::Rows;
use layout::no_encoding;
pub use persist::{Origin, RowMerger};

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

/// Converts columns to [`Rows`] and back.
#[derive(Clone, Debug)]
pub struct RowConverter {
    fields: Vec<SortField>,
}

impl RowConverter {
    /// A converter for columns of these types, in this order.
    ///
    /// # Errors
    /// If a type has no row encoding (nested types).
    pub fn new(fields: Vec<SortField>) -> Result<Self, ComputeError> {
        for field in &fields {
            if !encodable(&plain_type(&field.data_type)) {
                return Err(no_encoding(&field.data_type));
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
        // Each row's length first: the fixed-width columns' once for all rows, the others'
        // row by row, added up in the offsets (row `i`'s at `i + 1`). Then the offsets
        // turn into each row's start, one slot late, and serve as the cursors the columns
        // are written at: each ends where its row ends, which is the next row's start.
        let fixed: usize = plain.iter().filter_map(encode::fixed_width).sum();
        let mut offsets = vec![0usize; len + 1];
        for data in plain.iter().filter(|d| encode::fixed_width(d).is_none()) {
            encode::add_lengths(data, None, &mut offsets[1..])?;
        }
        let mut total = 0usize;
        for slot in &mut offsets[1..] {
            let length = *slot + fixed;
            *slot = total;
            total = total.checked_add(length).ok_or_else(|| {
                ComputeError::InvalidArgument("the rows outgrow the address space".into())
            })?;
        }
        let mut rows = Rows {
            data: vec![0; total],
            offsets,
        };
        for (data, field) in plain.iter().zip(&self.fields) {
            let cursors = &mut rows.offsets[1..];
            encode::write_column(data, field.options, None, &mut rows.data, cursors)?;
        }
        debug_assert_eq!(rows.offsets.last().copied().unwrap_or(0), total);
        Ok(rows)
    }

    /// The columns encoded in `rows`, decoded (dictionaries and runs as plain arrays of
    /// their values; `-0.0` as `0.0` and NaNs as one NaN).
    ///
    /// # Errors
    /// If a row ends early or holds bytes no column encodes (rows made elsewhere).
    pub fn convert_rows(&self, rows: &Rows) -> Result<Vec<ArrayRef>, ComputeError> {
        let mut slots: Vec<decode::Slot> = (0..rows.len()).map(|i| (i, rows.offsets[i])).collect();
        self.fields
            .iter()
            .map(|field| {
                let data_type = plain_type(&field.data_type);
                let data = decode::read_column(&data_type, field.options, rows, &mut slots)?;
                Ok(make_array(data))
            })
            .collect()
    }
}

/// `data_type` with every dictionary and run-end encoding in it replaced by its values'
/// type: what its rows decode to.
fn plain_type(data_type: &DataType) -> DataType {
    let plain_field = |field: &FieldRef| -> FieldRef {
        Arc::new(
            field
                .as_ref()
                .clone()
                .with_data_type(plain_type(field.data_type())),
        )
    };
    match data_type {
        DataType::Dictionary { value, .. } => plain_type(value),
        DataType::RunEndEncoded(ree) => plain_type(ree.values().data_type()),
        DataType::Struct(fields) => {
            DataType::Struct(fields.iter().map(plain_field).collect::<Vec<_>>().into())
        }
        DataType::List(item) => DataType::List(plain_field(item)),
        DataType::LargeList(item) => DataType::LargeList(plain_field(item)),
        DataType::ListView(item) => DataType::ListView(plain_field(item)),
        DataType::LargeListView(item) => DataType::LargeListView(plain_field(item)),
        DataType::FixedSizeList(item, size) => DataType::FixedSizeList(plain_field(item), *size),
        DataType::Map(map) => MapType::try_new(plain_field(map.entries()), map.keys_sorted())
            .map_or_else(|_| data_type.clone(), DataType::Map),
        other => other.clone(),
    }
}

/// Whether `data_type` (plain) has a row encoding: everything but unions, at any depth.
fn encodable(data_type: &DataType) -> bool {
    match data_type.to_physical() {
        PhysicalType::SparseUnion | PhysicalType::DenseUnion => false,
        _ => data_type
            .children()
            .iter()
            .all(|f| encodable(f.data_type())),
    }
}

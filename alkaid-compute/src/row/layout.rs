//! What encoding and decoding share: the rows themselves and the marker bytes.

use alkaid_schema::{DataType, PhysicalType};

use crate::error::ComputeError;
use crate::sort::SortOptions;

/// The encoded rows of some columns: one byte string per row, in one buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    pub(super) data: Vec<u8>,
    /// One more than there are rows: row `i` is `data[offsets[i]..offsets[i + 1]]`.
    pub(super) offsets: Vec<usize>,
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

/// The marker bytes: valid rows, then null rows before or after them.
pub(super) const VALID: u8 = 1;
pub(super) fn null_marker(options: SortOptions) -> u8 {
    if options.nulls_first { 0 } else { 2 }
}

/// A list's item mark and end mark: an item sorts after the end of a list that stops
/// there when ascending (a prefix comes first), before it when descending.
pub(super) fn list_marks(options: SortOptions) -> (u8, u8) {
    if options.descending { (1, 2) } else { (2, 1) }
}

pub(super) fn no_encoding(data_type: &DataType) -> ComputeError {
    ComputeError::unsupported("row format", format!("{data_type} has no row encoding"))
}

/// Whether a physical type is a list of any kind (maps are lists physically).
pub(super) fn is_list(physical: PhysicalType) -> bool {
    matches!(
        physical,
        PhysicalType::List
            | PhysicalType::LargeList
            | PhysicalType::ListView
            | PhysicalType::LargeListView
            | PhysicalType::FixedSizeList(_)
    )
}

/// Whether a list kind writes a mark byte before each item and after the last: all but
/// fixed-size lists, whose rows all have the same number of items.
pub(super) fn marks_items(physical: PhysicalType) -> bool {
    !matches!(physical, PhysicalType::FixedSizeList(_))
}

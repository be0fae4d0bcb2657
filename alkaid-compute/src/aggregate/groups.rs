//! The input of a grouped aggregate: the plain values, the rows that count (valid, and
//! kept by the mask) and each row's group, checked once for every grouped kernel.

use alkaid_array::{Array, BooleanArray};
use alkaid_buffer::BooleanBuffer;
use alkaid_data::ArrayData;

use super::rows::{and_optional, mask_bits};
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::validity::logical_nulls;

/// The input of a grouped aggregate: plain values, the rows that count, their groups.
pub(super) struct Grouped<'g> {
    /// The values, decoded.
    pub data: ArrayData,
    selection: Option<BooleanBuffer>,
    /// Each row's group; empty for the whole-array form, where every row is in group 0.
    groups: &'g [u32],
    /// The number of groups.
    pub count: usize,
}

impl<'g> Grouped<'g> {
    /// The rows of `array` that `mask` keeps, with their group ids, checked.
    pub fn of(
        array: &dyn Array,
        groups: &'g [u32],
        group_count: usize,
        mask: Option<&BooleanArray>,
    ) -> Result<Self, ComputeError> {
        if groups.len() != array.len() {
            return Err(ComputeError::LengthMismatch {
                what: "the group ids",
                expected: array.len(),
                found: groups.len(),
            });
        }
        if let Some(row) = groups.iter().position(|&g| g as usize >= group_count) {
            return Err(ComputeError::InvalidArgument(format!(
                "group id {} at row {row} is not below the number of groups, {group_count}",
                groups[row]
            )));
        }
        Self::build(array, groups, group_count, mask)
    }

    /// The rows of `array` that `mask` keeps, all in one group: the whole-array
    /// aggregates, with no group id per row to allocate, read or check.
    pub fn whole(array: &dyn Array, mask: Option<&BooleanArray>) -> Result<Self, ComputeError> {
        Self::build(array, &[], 1, mask)
    }

    fn build(
        array: &dyn Array,
        groups: &'g [u32],
        count: usize,
        mask: Option<&BooleanArray>,
    ) -> Result<Self, ComputeError> {
        let data = decoded(&array.to_data())?;
        let mask = mask.map(|m| mask_bits(m, data.len())).transpose()?;
        Ok(Self {
            selection: and_optional(logical_nulls(&data)?.map(|n| n.into_inner()), mask),
            data,
            groups,
            count,
        })
    }

    /// Row `row`'s group.
    #[inline(always)]
    pub fn group(&self, row: usize) -> usize {
        match self.groups.is_empty() {
            true => 0,
            false => self.groups[row] as usize,
        }
    }

    /// Whether every row counts (no null, nothing masked out): the rows are `0..len`.
    pub fn every_row(&self) -> bool {
        self.selection.is_none()
    }

    /// Calls `f(row, group)` for every row that counts.
    pub fn each(&self, mut f: impl FnMut(usize, usize)) {
        match (&self.selection, self.groups.is_empty()) {
            (Some(s), true) => s.set_indices().for_each(|row| f(row, 0)),
            (None, true) => (0..self.data.len()).for_each(|row| f(row, 0)),
            (Some(s), false) => s
                .set_indices()
                .for_each(|row| f(row, self.groups[row] as usize)),
            (None, false) => (0..self.data.len()).for_each(|row| f(row, self.groups[row] as usize)),
        }
    }
}

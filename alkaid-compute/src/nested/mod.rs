//! Nested values: lists, structs and maps taken apart.
//!
//! | kernel | result |
//! | --- | --- |
//! | [`list_length`] | each list's number of items (`Int32`, `Int64` for the large kinds) |
//! | [`list_element`] | the item at a position, from 0 (negative: from the end, −1 the last); null past either end |
//! | [`list_slice`] | the items from `start` up to `stop` (not included), as a list (`LargeList` for the large kinds) |
//! | [`list_flatten`] | every item of every list that is not null, in order |
//! | [`list_contains`] | whether a list holds a value (SQL's null rules below) |
//! | [`list_aggregate`] | an [`Aggregate`](crate::Aggregate) of each list's items (`sum`, `min`, `max`, `count`, `mean`, …) |
//! | [`struct_field`] | a struct's field by name, null where the struct is |
//! | [`map_keys`], [`map_values`] | each map's keys or values as a list, sharing the map's offsets (no copy) |
//! | [`map_lookup`] | the value of a key in each map (its first entry with that key) |
//!
//! The list kernels take every list kind: `List`, `LargeList`, the two list views,
//! `FixedSizeList`, and `Map` (a list of entries); a dictionary or run-end encoded input is
//! decoded first. A null list gives a null. Items compare as the crate's
//! [equality](crate::hash) says (NaN equals NaN; nested values item by item).
//!
//! `list_contains` and `map_lookup` follow SQL: a null needle or key gives null rows;
//! a null item never matches.

mod fields;
mod items;
mod lists;

pub use fields::{map_keys, map_lookup, map_values, struct_field};
pub use items::{list_aggregate, list_contains};
pub use lists::{list_element, list_flatten, list_length, list_slice};

use alkaid_array::Array;
use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, FieldRef, PhysicalType};

use crate::access::list_ranges;
use crate::encoding::decoded;
use crate::error::ComputeError;
use crate::validity::logical_nulls;

/// A list-like input taken apart: its rows' item ranges, validity and child.
struct Lists {
    /// Each row's `(start, length)` in `child`.
    ranges: Vec<(usize, usize)>,
    nulls: Option<NullBuffer>,
    child: ArrayData,
    /// The item field.
    item: FieldRef,
    /// Whether offsets are 64-bit.
    large: bool,
}

impl Lists {
    fn of(kernel: &'static str, array: &dyn Array) -> Result<Self, ComputeError> {
        let data = decoded(&array.to_data())?;
        let large = matches!(
            data.data_type().to_physical(),
            PhysicalType::LargeList | PhysicalType::LargeListView
        );
        let item = match data.data_type() {
            DataType::List(item)
            | DataType::LargeList(item)
            | DataType::ListView(item)
            | DataType::LargeListView(item)
            | DataType::FixedSizeList(item, _) => item.clone(),
            DataType::Map(map) => map.entries().clone(),
            other => {
                return Err(ComputeError::unsupported(
                    kernel,
                    format!("expected a list, found {other}"),
                ));
            }
        };
        Ok(Self {
            ranges: list_ranges(&data)?,
            nulls: logical_nulls(&data)?,
            child: data.children()[0].clone(),
            item,
            large,
        })
    }

    fn is_valid(&self, row: usize) -> bool {
        self.nulls.as_ref().is_none_or(|n| n.is_valid(row))
    }

    fn len(&self) -> usize {
        self.ranges.len()
    }
}

#[cfg(test)]
mod tests;

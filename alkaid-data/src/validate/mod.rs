//! Validation of [`ArrayData`], at three levels.
//!
//! - [`ValidationLevel::Structural`]: cheap and independent of the values. The type is valid;
//!   the buffer count matches the layout; every buffer is long enough for `offset + len` at
//!   its width and aligned for its values; the validity bitmap exists only where the layout
//!   has one and covers every slot; children have the count, types and lengths the type asks
//!   for; a dictionary exists exactly when the type is a dictionary.
//! - [`ValidationLevel::Full`]: reads the values, O(n). Offsets are non-negative,
//!   non-decreasing and within their data or child; text is UTF-8 and offsets do not split
//!   characters; views have non-negative lengths, zero padding, buffer indices and ranges
//!   that exist and prefixes that match; list views stay inside their child; dictionary keys
//!   of valid slots are inside the dictionary; union type ids are declared and dense offsets
//!   inside their child and in order for each child; run ends are positive, increasing, not
//!   null and cover the array; map keys are not null.
//! - [`ValidationLevel::Strict`]: data-quality checks the spec does not demand, the ones Arrow
//!   C++'s full validation makes: decimals fit their precision, `Date64` values are whole
//!   days, times of day lie within one day, a map's entries struct is not nullable. Checks
//!   that need a field rather than a type (nullability, extension types such as
//!   `arrow.json`) are made one layer up, by `alkaid-array`'s field validation.
//!
//! Children and dictionaries are validated at the same level, first; an error in a child
//! carries the child's name in its [path](DataError::path). No input, however corrupt, makes
//! validation panic, overflow or read out of bounds: every length is computed with checked
//! arithmetic and every read goes through a bounds-checked slice.

mod run_ends;
mod slots;
mod strict;
mod structure;
mod union;
mod values;
mod views;

#[cfg(test)]
mod tests;

use alkaid_schema::PhysicalType;

use crate::{ArrayData, DataError};

/// How much to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum ValidationLevel {
    /// Counts, lengths, alignment and types; no values read.
    Structural,
    /// Everything the spec requires, reading every offset, view, key, type id and run end.
    #[default]
    Full,
    /// Full, plus data-quality checks the spec does not demand.
    Strict,
}

pub(crate) fn validate(data: &ArrayData, level: ValidationLevel) -> Result<(), DataError> {
    structure::check(data)?;
    let fields = data.data_type.children();
    for (i, child) in data.children.iter().enumerate() {
        let name = fields.get(i).map_or("?", |field| field.name());
        validate(child, level).map_err(|e| e.in_child(name))?;
    }
    if let Some(dictionary) = &data.dictionary {
        validate(dictionary, level).map_err(|e| e.in_child("dictionary"))?;
    }
    if level >= ValidationLevel::Full {
        check_values(data)?;
    }
    if level >= ValidationLevel::Strict {
        strict::check(data)?;
    }
    Ok(())
}

/// The structural checks of `data` itself, not of its children or dictionary.
pub(crate) fn check_structure_shallow(data: &ArrayData) -> Result<(), DataError> {
    structure::check(data)
}

/// The full checks of `data` itself: one dispatch on the physical type.
fn check_values(data: &ArrayData) -> Result<(), DataError> {
    match data.data_type.to_physical() {
        PhysicalType::Binary => values::check_binary::<i32>(data),
        PhysicalType::LargeBinary => values::check_binary::<i64>(data),
        PhysicalType::BinaryView => views::check(data),
        PhysicalType::List => values::check_list::<i32>(data),
        PhysicalType::LargeList => values::check_list::<i64>(data),
        PhysicalType::ListView => values::check_list_view::<i32>(data),
        PhysicalType::LargeListView => values::check_list_view::<i64>(data),
        PhysicalType::Dictionary(key) => values::check_keys(data, key),
        PhysicalType::SparseUnion | PhysicalType::DenseUnion => union::check(data),
        PhysicalType::RunEndEncoded(_) => run_ends::check(data),
        PhysicalType::Null
        | PhysicalType::Boolean
        | PhysicalType::Primitive(_)
        | PhysicalType::FixedSizeBinary(_)
        | PhysicalType::FixedSizeList(_)
        | PhysicalType::Struct => Ok(()),
    }
}

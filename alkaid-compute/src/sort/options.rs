//! How a column is sorted: its direction and where its nulls go.

/// The direction of a sort and where its nulls go.
///
/// The default is [`SortOptions::ASCENDING`], which puts nulls last, as SQL's `ORDER BY x`
/// does in PostgreSQL (and [`SortOptions::DESCENDING`] puts them first). arrow-rs's
/// default puts nulls first in both directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortOptions {
    /// Largest first.
    pub descending: bool,
    /// Null rows before the values (otherwise after).
    pub nulls_first: bool,
}

impl SortOptions {
    /// Smallest first, nulls last (SQL's `ASC`).
    pub const ASCENDING: Self = Self {
        descending: false,
        nulls_first: false,
    };
    /// Largest first, nulls first (SQL's `DESC`).
    pub const DESCENDING: Self = Self {
        descending: true,
        nulls_first: true,
    };

    /// These options with nulls first (`true`) or last.
    #[must_use]
    pub const fn with_nulls_first(self, nulls_first: bool) -> Self {
        Self {
            nulls_first,
            ..self
        }
    }
}

impl Default for SortOptions {
    fn default() -> Self {
        Self::ASCENDING
    }
}

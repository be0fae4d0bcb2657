//! What a cast does with a value that does not convert.

/// What a cast does with a value that does not convert.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastOptions {
    /// Make the row null (`true`) or fail with an error naming it (`false`).
    pub safe: bool,
}

impl CastOptions {
    /// Failures are errors (SQL's `CAST`).
    pub const STRICT: Self = Self { safe: false };
    /// Failures are nulls (SQL's `TRY_CAST`).
    pub const SAFE: Self = Self { safe: true };
}

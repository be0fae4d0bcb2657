//! [`DataError`]: what is wrong with an array, and where.

use std::fmt;

use alkaid_buffer::BufferError;
use alkaid_schema::SchemaError;

/// Which check failed; what callers branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataErrorKind {
    /// The data type itself is invalid.
    InvalidType,
    /// Wrong number of buffers for the layout.
    BufferCount,
    /// A buffer is shorter than the array needs.
    BufferTooShort,
    /// A buffer is not aligned for its values.
    Misaligned,
    /// A validity bitmap where the layout has none, or of the wrong length.
    Validity,
    /// The declared null count disagrees with the validity bitmap.
    NullCount,
    /// Wrong number of children, or a child of the wrong type.
    Children,
    /// A child is shorter than the array needs.
    ChildTooShort,
    /// A dictionary where none belongs, or none where one must be.
    Dictionary,
    /// Offsets that are negative, decreasing, or past the data.
    Offsets,
    /// Text that is not UTF-8, or offsets that split a character.
    Utf8,
    /// A malformed binary view.
    View,
    /// A list view whose range leaves the child.
    ListView,
    /// A dictionary key outside the dictionary.
    DictionaryKey,
    /// A union type id that is not declared.
    UnionTypeId,
    /// A dense union offset outside its child.
    UnionOffset,
    /// Run ends that are not positive, not increasing, null, or too short.
    RunEnds,
    /// A null map key.
    MapKey,
    /// A decimal value with more digits than its precision (strict level).
    DecimalPrecision,
    /// A `Date64` value that is not a whole day (strict level).
    Date64,
    /// A time-of-day value outside `[0, one day)` (strict level).
    TimeOfDay,
    /// A map whose entries struct is nullable (strict level).
    MapEntries,
    /// A slice or length that does not fit.
    OutOfBounds,
}

/// An array that is not valid: which check failed, where (a path of child names from the
/// array that was validated, such as `b.item`), and a message naming the type and the index
/// or byte offset.
///
/// # Examples
/// ```
/// use alkaid_data::{DataError, DataErrorKind};
/// let error = DataError::new(DataErrorKind::Offsets, "offset 3 at index 1 is less than offset 5 before it")
///     .in_child("item")
///     .in_child("b");
/// assert_eq!(error.to_string(), "b.item: offset 3 at index 1 is less than offset 5 before it");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    kind: DataErrorKind,
    /// Child names from the outermost array inwards.
    path: Vec<String>,
    message: String,
}

impl DataError {
    /// An error at the array being validated.
    pub fn new(kind: DataErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            path: Vec::new(),
            message: message.into(),
        }
    }

    /// The same error, seen from the parent: `name` is the child it happened in.
    pub fn in_child(mut self, name: &str) -> Self {
        self.path.insert(0, name.to_string());
        self
    }

    /// Which check failed.
    pub fn kind(&self) -> DataErrorKind {
        self.kind
    }

    /// The child names from the validated array to where the error is (empty: the array
    /// itself).
    pub fn path(&self) -> &[String] {
        &self.path
    }

    /// What is wrong, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path.join("."))?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for DataError {}

impl From<SchemaError> for DataError {
    fn from(error: SchemaError) -> Self {
        Self::new(DataErrorKind::InvalidType, error.to_string())
    }
}

impl From<BufferError> for DataError {
    fn from(error: BufferError) -> Self {
        let kind = match error {
            BufferError::Misaligned { .. } => DataErrorKind::Misaligned,
            BufferError::PartialElement { .. } => DataErrorKind::BufferTooShort,
            BufferError::OutOfBounds { .. } => DataErrorKind::OutOfBounds,
            BufferError::InvalidOffsets { .. } => DataErrorKind::Offsets,
            // A kind added to the buffer layer later: its message still says what.
            _ => DataErrorKind::InvalidType,
        };
        Self::new(kind, error.to_string())
    }
}

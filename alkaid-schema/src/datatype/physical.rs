//! [`PhysicalType`]: what a logical type looks like in memory.
//!
//! About forty logical types share some fifteen physical layouts: `Date32`, `Time32` and
//! year-month intervals are all `i32` values; `Utf8` is `Binary` whose bytes are UTF-8; a map
//! is a list of structs. Code that moves or compares values matches on the physical type and
//! never sees the logical distinctions. This is the one place that decides the mapping.

use super::{DataType, DecimalWidth, IntegerType, IntervalUnit, RunEndType, TimeUnit, UnionMode};

/// The Rust value type of a fixed-width layout (its values in a single data buffer), as a
/// value: about thirty logical types share these fifteen. alkaid-array's `with_native!`
/// turns one back into the Rust type (alkaid-buffer's `NativeType`) for code that needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NativeKind {
    /// `i8`.
    Int8,
    /// `i16`.
    Int16,
    /// `i32`.
    Int32,
    /// `i64`.
    Int64,
    /// `u8`.
    UInt8,
    /// `u16`.
    UInt16,
    /// `u32`.
    UInt32,
    /// `u64`.
    UInt64,
    /// `f16`.
    Float16,
    /// `f32`.
    Float32,
    /// `f64`.
    Float64,
    /// `i128` (decimal 128).
    Int128,
    /// 256-bit integer (decimal 256).
    Int256,
    /// Days and milliseconds, two `i32`s.
    DayTime,
    /// Months and days (`i32`) and nanoseconds (`i64`).
    MonthDayNano,
}

impl NativeKind {
    /// Width of one value in bytes.
    pub const fn byte_width(self) -> usize {
        match self {
            Self::Int8 | Self::UInt8 => 1,
            Self::Int16 | Self::UInt16 | Self::Float16 => 2,
            Self::Int32 | Self::UInt32 | Self::Float32 => 4,
            Self::Int64 | Self::UInt64 | Self::Float64 | Self::DayTime => 8,
            Self::Int128 | Self::MonthDayNano => 16,
            Self::Int256 => 32,
        }
    }
}

/// The physical layout of a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhysicalType {
    /// No buffers at all.
    Null,
    /// Validity and a bitmap of values.
    Boolean,
    /// Validity and a buffer of fixed-width values.
    Primitive(NativeKind),
    /// Validity and a buffer of `width`-byte values.
    FixedSizeBinary(i32),
    /// Validity, `i32` offsets and data.
    Binary,
    /// Validity, `i64` offsets and data.
    LargeBinary,
    /// Validity, 16-byte views and variadic data buffers.
    BinaryView,
    /// Validity, `i32` offsets and one child.
    List,
    /// Validity, `i64` offsets and one child.
    LargeList,
    /// Validity, `i32` offsets and sizes, and one child.
    ListView,
    /// Validity, `i64` offsets and sizes, and one child.
    LargeListView,
    /// Validity and one child of `size` values per slot.
    FixedSizeList(i32),
    /// Validity and children of the same length.
    Struct,
    /// Type ids and children of the union's length; no validity.
    SparseUnion,
    /// Type ids, `i32` offsets and children; no validity.
    DenseUnion,
    /// Validity and keys of this type, plus a dictionary of values.
    Dictionary(IntegerType),
    /// No buffers; run ends and values children.
    RunEndEncoded(RunEndType),
}

impl DataType {
    /// The physical layout of this type.
    ///
    /// # Examples
    /// ```
    /// use alkaid_schema::{DataType, PhysicalType, NativeKind, TimeUnit};
    /// let int32 = PhysicalType::Primitive(NativeKind::Int32);
    /// assert_eq!(DataType::Date32.to_physical(), int32);
    /// assert_eq!(DataType::Time(TimeUnit::Millisecond).to_physical(), int32);
    /// assert_eq!(DataType::Utf8.to_physical(), PhysicalType::Binary);
    /// ```
    pub fn to_physical(&self) -> PhysicalType {
        use NativeKind as P;
        let primitive = PhysicalType::Primitive;
        match self {
            Self::Null => PhysicalType::Null,
            Self::Boolean => PhysicalType::Boolean,
            Self::Int8 => primitive(P::Int8),
            Self::Int16 => primitive(P::Int16),
            Self::Int32 | Self::Date32 | Self::Interval(IntervalUnit::YearMonth) => {
                primitive(P::Int32)
            }
            Self::Int64 | Self::Date64 | Self::Timestamp(..) | Self::Duration(_) => {
                primitive(P::Int64)
            }
            Self::UInt8 => primitive(P::UInt8),
            Self::UInt16 => primitive(P::UInt16),
            Self::UInt32 => primitive(P::UInt32),
            Self::UInt64 => primitive(P::UInt64),
            Self::Float16 => primitive(P::Float16),
            Self::Float32 => primitive(P::Float32),
            Self::Float64 => primitive(P::Float64),
            Self::Decimal(decimal) => primitive(match decimal.width() {
                DecimalWidth::W32 => P::Int32,
                DecimalWidth::W64 => P::Int64,
                DecimalWidth::W128 => P::Int128,
                DecimalWidth::W256 => P::Int256,
            }),
            Self::Time(unit) => primitive(match unit {
                TimeUnit::Second | TimeUnit::Millisecond => P::Int32,
                TimeUnit::Microsecond | TimeUnit::Nanosecond => P::Int64,
            }),
            Self::Interval(IntervalUnit::DayTime) => primitive(P::DayTime),
            Self::Interval(IntervalUnit::MonthDayNano) => primitive(P::MonthDayNano),
            Self::FixedSizeBinary(width) => PhysicalType::FixedSizeBinary(*width),
            Self::Binary | Self::Utf8 => PhysicalType::Binary,
            Self::LargeBinary | Self::LargeUtf8 => PhysicalType::LargeBinary,
            Self::BinaryView | Self::Utf8View => PhysicalType::BinaryView,
            Self::List(_) | Self::Map(_) => PhysicalType::List,
            Self::LargeList(_) => PhysicalType::LargeList,
            Self::ListView(_) => PhysicalType::ListView,
            Self::LargeListView(_) => PhysicalType::LargeListView,
            Self::FixedSizeList(_, size) => PhysicalType::FixedSizeList(*size),
            Self::Struct(_) => PhysicalType::Struct,
            Self::Union(union) => match union.mode() {
                UnionMode::Sparse => PhysicalType::SparseUnion,
                UnionMode::Dense => PhysicalType::DenseUnion,
            },
            Self::Dictionary { key, .. } => PhysicalType::Dictionary(*key),
            Self::RunEndEncoded(ree) => PhysicalType::RunEndEncoded(ree.run_end_type()),
        }
    }
}

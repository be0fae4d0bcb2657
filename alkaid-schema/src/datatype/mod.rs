//! [`DataType`]: every logical type of the format, with its parameters.
//!
//! Types whose parameters have invariants (decimals, maps, unions, run-end encoding) carry
//! them in small types whose constructors check them ([`DecimalType`], [`MapType`],
//! [`UnionType`], [`RunEndEncodedType`]); dictionary keys are an [`IntegerType`] and times
//! carry only a [`TimeUnit`], from which the 32 or 64-bit width follows. So an invalid
//! combination cannot be built, except negative fixed sizes, which [`DataType::validate`]
//! rejects (the format stores them as signed integers, and readers call it).

mod display;
mod format;
pub(crate) use display::write_field;
mod params;
mod parse;

pub use parse::MAX_DEPTH as MAX_PARSE_DEPTH;
mod physical;

use std::sync::Arc;

pub use params::{
    DecimalType, DecimalWidth, IntegerType, MapType, RunEndEncodedType, RunEndType, UnionMode,
    UnionType,
};
pub use physical::{NativeKind, PhysicalType};

use crate::{Field, FieldRef, Fields, SchemaError};

/// The unit of a time, timestamp or duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TimeUnit {
    /// Seconds.
    Second,
    /// Milliseconds.
    Millisecond,
    /// Microseconds.
    Microsecond,
    /// Nanoseconds.
    Nanosecond,
}

impl TimeUnit {
    /// All four, coarsest first.
    pub const ALL: [TimeUnit; 4] = [
        Self::Second,
        Self::Millisecond,
        Self::Microsecond,
        Self::Nanosecond,
    ];

    /// The short name used in type text: `s`, `ms`, `us`, `ns`.
    pub fn abbreviation(self) -> &'static str {
        match self {
            Self::Second => "s",
            Self::Millisecond => "ms",
            Self::Microsecond => "us",
            Self::Nanosecond => "ns",
        }
    }
}

/// The unit of an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntervalUnit {
    /// Months, as one 32-bit integer.
    YearMonth,
    /// Days and milliseconds, as two 32-bit integers.
    DayTime,
    /// Months, days (32-bit each) and nanoseconds (64-bit).
    MonthDayNano,
}

/// A logical data type.
///
/// # Examples
/// ```
/// use alkaid_schema::{DataType, Field, TimeUnit};
///
/// let ts = DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into()));
/// let points = DataType::list(DataType::Struct(vec![
///     Field::new("x", DataType::Float64, false),
///     Field::new("y", DataType::Float64, false),
/// ].into()));
/// assert!(points.is_nested() && ts.is_temporal());
///
/// // One notation for display and parsing.
/// let text = points.to_string();
/// assert_eq!(text, "List(item: Struct(x: Float64 not null, y: Float64 not null))");
/// assert_eq!(text.parse::<DataType>().unwrap(), points);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DataType {
    /// No values: every slot is null; no buffers.
    Null,
    /// Booleans, bit-packed.
    Boolean,
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
    /// IEEE half-precision float.
    Float16,
    /// IEEE single-precision float.
    Float32,
    /// IEEE double-precision float.
    Float64,
    /// Fixed-point decimal of 32, 64, 128 or 256 bits.
    Decimal(DecimalType),
    /// Days since the UNIX epoch, as `i32`.
    Date32,
    /// Milliseconds since the UNIX epoch, as `i64` (whole days by convention).
    Date64,
    /// Time of day since midnight: `Time32` for seconds and milliseconds, `Time64` for
    /// microseconds and nanoseconds.
    Time(TimeUnit),
    /// Time since the UNIX epoch as `i64`, with an optional IANA timezone name or offset.
    Timestamp(TimeUnit, Option<Arc<str>>),
    /// An elapsed time, as `i64`.
    Duration(TimeUnit),
    /// A calendar interval.
    Interval(IntervalUnit),
    /// Byte strings of one width (must not be negative).
    FixedSizeBinary(i32),
    /// Byte strings with `i32` offsets.
    Binary,
    /// UTF-8 strings with `i32` offsets.
    Utf8,
    /// Byte strings with `i64` offsets.
    LargeBinary,
    /// UTF-8 strings with `i64` offsets.
    LargeUtf8,
    /// Byte strings as 16-byte views into variadic data buffers.
    BinaryView,
    /// UTF-8 strings as 16-byte views into variadic data buffers.
    Utf8View,
    /// Lists with `i32` offsets.
    List(FieldRef),
    /// Lists with `i64` offsets.
    LargeList(FieldRef),
    /// Lists with `i32` offsets and sizes (list views).
    ListView(FieldRef),
    /// Lists with `i64` offsets and sizes.
    LargeListView(FieldRef),
    /// Lists of one size (must not be negative).
    FixedSizeList(FieldRef, i32),
    /// A struct of named child fields.
    Struct(Fields),
    /// Maps from keys to values, stored as a list of key-value structs.
    Map(MapType),
    /// A union of child types, sparse or dense.
    Union(UnionType),
    /// Dictionary-encoded values: integer keys into a dictionary of values.
    Dictionary {
        /// The key (index) type.
        key: IntegerType,
        /// The type of the dictionary's values.
        value: Box<DataType>,
        /// Whether the dictionary's order is meaningful (for comparisons).
        ordered: bool,
    },
    /// Run-end encoded values.
    RunEndEncoded(RunEndEncodedType),
}

impl DataType {
    // ----- checked and convenience constructors

    /// A decimal of `width` bits (32, 64, 128 or 256), `precision` and `scale`.
    ///
    /// # Errors
    /// If the width is not one of the four, or the precision does not fit it.
    pub fn decimal(width_bits: u16, precision: u8, scale: i8) -> Result<Self, SchemaError> {
        let width = DecimalWidth::from_bits(width_bits).ok_or_else(|| {
            SchemaError::invalid(
                "Decimal",
                format!("expected a width of 32, 64, 128 or 256 bits, found {width_bits}"),
            )
        })?;
        Ok(Self::Decimal(DecimalType::try_new(
            width, precision, scale,
        )?))
    }

    /// `Time32` in seconds or milliseconds.
    ///
    /// # Errors
    /// For microseconds and nanoseconds, which need `Time64`.
    pub fn time32(unit: TimeUnit) -> Result<Self, SchemaError> {
        match unit {
            TimeUnit::Second | TimeUnit::Millisecond => Ok(Self::Time(unit)),
            _ => Err(SchemaError::invalid(
                "Time32",
                format!("expected s or ms, found {}", unit.abbreviation()),
            )),
        }
    }

    /// `Time64` in microseconds or nanoseconds.
    ///
    /// # Errors
    /// For seconds and milliseconds, which need `Time32`.
    pub fn time64(unit: TimeUnit) -> Result<Self, SchemaError> {
        match unit {
            TimeUnit::Microsecond | TimeUnit::Nanosecond => Ok(Self::Time(unit)),
            _ => Err(SchemaError::invalid(
                "Time64",
                format!("expected us or ns, found {}", unit.abbreviation()),
            )),
        }
    }

    /// A list of nullable `item`s of `item_type`.
    pub fn list(item_type: DataType) -> Self {
        Self::List(Arc::new(Field::new("item", item_type, true)))
    }

    /// A large list of nullable `item`s of `item_type`.
    pub fn large_list(item_type: DataType) -> Self {
        Self::LargeList(Arc::new(Field::new("item", item_type, true)))
    }

    /// A fixed-size list of `size` nullable items.
    ///
    /// # Errors
    /// If `size` is negative.
    pub fn fixed_size_list(item_type: DataType, size: i32) -> Result<Self, SchemaError> {
        let data_type = Self::FixedSizeList(Arc::new(Field::new("item", item_type, true)), size);
        data_type.validate()?;
        Ok(data_type)
    }

    /// A dictionary of `value` indexed by `key`, unordered.
    pub fn dictionary(key: IntegerType, value: DataType) -> Self {
        Self::Dictionary {
            key,
            value: Box::new(value),
            ordered: false,
        }
    }

    /// A map from non-nullable `key`s to nullable `value`s, in an entries field named
    /// "entries" with children "key" and "value".
    pub fn map(key: DataType, value: DataType, keys_sorted: bool) -> Self {
        let map = MapType::new_entries(
            Field::new("key", key, false),
            Field::new("value", value, true),
            keys_sorted,
        );
        Self::Map(map.expect("a non-nullable key always makes a valid map"))
    }

    /// Checks what the type system cannot: fixed sizes are not negative, here and in every
    /// child and dictionary value type.
    ///
    /// # Errors
    /// Naming the offending type.
    pub fn validate(&self) -> Result<(), SchemaError> {
        self.validate_shallow()?;
        if let Self::Dictionary { value, .. } = self {
            value.validate()?;
        }
        self.children()
            .iter()
            .try_for_each(|child| child.data_type().validate())
    }

    /// [`validate`](Self::validate) for this type's own parameters only, not its children's
    /// or a dictionary's value type: for code that assembles types (or arrays) bottom up and
    /// has checked every part already. Checking the whole tree at every level would cost
    /// time quadratic in the depth.
    ///
    /// # Errors
    /// Naming the offending type.
    pub fn validate_shallow(&self) -> Result<(), SchemaError> {
        match self {
            Self::FixedSizeBinary(width) if *width < 0 => Err(SchemaError::invalid(
                "FixedSizeBinary",
                format!("expected a non-negative width, found {width}"),
            )),
            Self::FixedSizeList(_, size) if *size < 0 => Err(SchemaError::invalid(
                "FixedSizeList",
                format!("expected a non-negative size, found {size}"),
            )),
            _ => Ok(()),
        }
    }

    // ----- structure

    /// The child fields, in order: the item of a list, the fields of a struct or union, the
    /// entries of a map, the run ends and values of a run-end encoded type. A dictionary has
    /// none (its values are a type, see [`dictionary_value_type`](Self::dictionary_value_type)).
    pub fn children(&self) -> &[FieldRef] {
        match self {
            Self::List(item)
            | Self::LargeList(item)
            | Self::ListView(item)
            | Self::LargeListView(item)
            | Self::FixedSizeList(item, _) => std::slice::from_ref(item),
            Self::Struct(fields) => fields,
            Self::Map(map) => std::slice::from_ref(map.entries()),
            Self::Union(union) => union.fields(),
            Self::RunEndEncoded(ree) => ree.children(),
            _ => &[],
        }
    }

    /// The value type of a dictionary.
    pub fn dictionary_value_type(&self) -> Option<&DataType> {
        match self {
            Self::Dictionary { value, .. } => Some(value),
            _ => None,
        }
    }

    /// Equality that ignores the metadata of child fields at every depth.
    pub fn eq_ignoring_metadata(&self, other: &DataType) -> bool {
        self.eq_with_children(other, Field::eq_ignoring_metadata)
    }

    /// Equality that ignores the names and metadata of child fields at every depth (their
    /// types and nullability still count): two types whose arrays are laid out and read
    /// the same, so that one's array can be handed over as the other's without a copy.
    pub fn eq_ignoring_names(&self, other: &DataType) -> bool {
        self.eq_with_children(other, |a, b| {
            a.is_nullable() == b.is_nullable() && a.data_type().eq_ignoring_names(b.data_type())
        })
    }

    /// Equality of everything but the child fields, which `same_child` compares.
    fn eq_with_children(&self, other: &DataType, same_child: fn(&Field, &Field) -> bool) -> bool {
        match (self, other) {
            (
                Self::Dictionary {
                    key,
                    value,
                    ordered,
                },
                Self::Dictionary {
                    key: k,
                    value: v,
                    ordered: o,
                },
            ) => key == k && ordered == o && value.eq_with_children(v, same_child),
            (Self::FixedSizeList(_, a), Self::FixedSizeList(_, b)) if a != b => false,
            (Self::Map(a), Self::Map(b)) if a.keys_sorted() != b.keys_sorted() => false,
            (Self::Union(a), Self::Union(b))
                if a.mode() != b.mode() || a.type_ids() != b.type_ids() =>
            {
                false
            }
            _ if std::mem::discriminant(self) != std::mem::discriminant(other) => false,
            _ => {
                let (mine, theirs) = (self.children(), other.children());
                if mine.is_empty() && theirs.is_empty() {
                    return self == other;
                }
                mine.len() == theirs.len() && mine.iter().zip(theirs).all(|(a, b)| same_child(a, b))
            }
        }
    }

    // ----- classification

    /// Whether values have children: lists, structs, maps, unions, run-end encoded.
    /// Dictionaries are not nested (their values are a separate array).
    pub fn is_nested(&self) -> bool {
        !self.children().is_empty() || matches!(self, Self::Struct(_) | Self::Union(_))
    }

    /// Whether the type is an integer.
    pub fn is_integer(&self) -> bool {
        IntegerType::from_data_type(self).is_some()
    }

    /// Whether the type is a signed integer.
    pub fn is_signed_integer(&self) -> bool {
        IntegerType::from_data_type(self).is_some_and(IntegerType::is_signed)
    }

    /// Whether the type is a floating-point number.
    pub fn is_floating(&self) -> bool {
        matches!(self, Self::Float16 | Self::Float32 | Self::Float64)
    }

    /// Whether the type is a decimal.
    pub fn is_decimal(&self) -> bool {
        matches!(self, Self::Decimal(_))
    }

    /// Whether the type is a number: integer, float or decimal.
    pub fn is_numeric(&self) -> bool {
        self.is_integer() || self.is_floating() || self.is_decimal()
    }

    /// Whether the type is a date, time, timestamp, duration or interval.
    pub fn is_temporal(&self) -> bool {
        matches!(
            self,
            Self::Date32
                | Self::Date64
                | Self::Time(_)
                | Self::Timestamp(..)
                | Self::Duration(_)
                | Self::Interval(_)
        )
    }

    /// Whether the type holds UTF-8 text.
    pub fn is_string(&self) -> bool {
        matches!(self, Self::Utf8 | Self::LargeUtf8 | Self::Utf8View)
    }

    /// Whether the type holds variable-length bytes or text (offsets or views).
    pub fn is_binary_like(&self) -> bool {
        matches!(
            self,
            Self::Binary
                | Self::LargeBinary
                | Self::BinaryView
                | Self::Utf8
                | Self::LargeUtf8
                | Self::Utf8View
        )
    }

    /// Whether the type is one of the list layouts (including maps, which are lists of
    /// entries).
    pub fn is_list_like(&self) -> bool {
        matches!(
            self,
            Self::List(_)
                | Self::LargeList(_)
                | Self::ListView(_)
                | Self::LargeListView(_)
                | Self::FixedSizeList(..)
                | Self::Map(_)
        )
    }

    /// Whether the type is dictionary-encoded.
    pub fn is_dictionary(&self) -> bool {
        matches!(self, Self::Dictionary { .. })
    }

    /// Width in bytes of one value of a fixed-width primitive type (`None` for booleans,
    /// which are bits, and for everything that is not a primitive).
    pub fn primitive_byte_width(&self) -> Option<usize> {
        match self.to_physical() {
            PhysicalType::Primitive(primitive) => Some(primitive.byte_width()),
            _ => None,
        }
    }

    /// Bit width of a `Time` type: 32 for seconds and milliseconds, 64 otherwise.
    pub fn time_bit_width(unit: TimeUnit) -> u16 {
        match unit {
            TimeUnit::Second | TimeUnit::Millisecond => 32,
            TimeUnit::Microsecond | TimeUnit::Nanosecond => 64,
        }
    }

    /// The deepest nesting of child fields below this type (0 for a type without children;
    /// a dictionary counts its value type's depth).
    pub fn nesting_depth(&self) -> usize {
        let children = self
            .children()
            .iter()
            .map(|c| c.data_type().nesting_depth() + 1);
        let dictionary = self.dictionary_value_type().map(DataType::nesting_depth);
        children.chain(dictionary).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;

//! The parameters of data types that have invariants, as types whose constructors check them,
//! so that an invalid decimal, map, union or run-end encoded type cannot be built.

use std::sync::Arc;

use super::DataType;
use crate::{Field, FieldRef, Fields, SchemaError};

/// The storage width of a decimal type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DecimalWidth {
    /// 32-bit values, precision up to 9.
    W32,
    /// 64-bit values, precision up to 18.
    W64,
    /// 128-bit values, precision up to 38.
    W128,
    /// 256-bit values, precision up to 76.
    W256,
}

impl DecimalWidth {
    /// The largest precision the width can hold.
    pub const fn max_precision(self) -> u8 {
        match self {
            Self::W32 => 9,
            Self::W64 => 18,
            Self::W128 => 38,
            Self::W256 => 76,
        }
    }

    /// The width in bits.
    pub const fn bits(self) -> u16 {
        match self {
            Self::W32 => 32,
            Self::W64 => 64,
            Self::W128 => 128,
            Self::W256 => 256,
        }
    }

    /// The width for a bit count (32, 64, 128 or 256).
    pub const fn from_bits(bits: u16) -> Option<Self> {
        match bits {
            32 => Some(Self::W32),
            64 => Some(Self::W64),
            128 => Some(Self::W128),
            256 => Some(Self::W256),
            _ => None,
        }
    }

    pub(crate) const fn type_name(self) -> &'static str {
        match self {
            Self::W32 => "Decimal32",
            Self::W64 => "Decimal64",
            Self::W128 => "Decimal128",
            Self::W256 => "Decimal256",
        }
    }
}

/// A decimal type: width, precision (significant digits) and scale (digits after the point;
/// negative scales multiply by a power of ten).
///
/// # Examples
/// ```
/// use alkaid_schema::{DecimalType, DecimalWidth};
/// let money = DecimalType::try_new(DecimalWidth::W128, 38, 2).unwrap();
/// assert_eq!((money.precision(), money.scale()), (38, 2));
/// assert!(DecimalType::try_new(DecimalWidth::W32, 10, 2).is_err()); // 9 digits at most
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecimalType {
    width: DecimalWidth,
    precision: u8,
    scale: i8,
}

impl DecimalType {
    /// A decimal of `width` with `precision` digits, `scale` of them after the point.
    ///
    /// # Errors
    /// If `precision` is 0 or more than the width holds.
    pub fn try_new(width: DecimalWidth, precision: u8, scale: i8) -> Result<Self, SchemaError> {
        if precision == 0 || precision > width.max_precision() {
            return Err(SchemaError::invalid(
                width.type_name(),
                format!(
                    "expected a precision from 1 to {}, found {precision}",
                    width.max_precision()
                ),
            ));
        }
        Ok(Self {
            width,
            precision,
            scale,
        })
    }

    /// The storage width.
    pub fn width(&self) -> DecimalWidth {
        self.width
    }

    /// Significant digits.
    pub fn precision(&self) -> u8 {
        self.precision
    }

    /// Digits after the decimal point.
    pub fn scale(&self) -> i8 {
        self.scale
    }
}

/// An integer type that can index a dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntegerType {
    /// `i8` keys.
    Int8,
    /// `i16` keys.
    Int16,
    /// `i32` keys.
    Int32,
    /// `i64` keys.
    Int64,
    /// `u8` keys.
    UInt8,
    /// `u16` keys.
    UInt16,
    /// `u32` keys.
    UInt32,
    /// `u64` keys.
    UInt64,
}

impl IntegerType {
    /// All eight, signed first, narrowest first.
    pub const ALL: [IntegerType; 8] = [
        Self::Int8,
        Self::Int16,
        Self::Int32,
        Self::Int64,
        Self::UInt8,
        Self::UInt16,
        Self::UInt32,
        Self::UInt64,
    ];

    /// The same integer as a [`DataType`].
    pub fn to_data_type(self) -> DataType {
        match self {
            Self::Int8 => DataType::Int8,
            Self::Int16 => DataType::Int16,
            Self::Int32 => DataType::Int32,
            Self::Int64 => DataType::Int64,
            Self::UInt8 => DataType::UInt8,
            Self::UInt16 => DataType::UInt16,
            Self::UInt32 => DataType::UInt32,
            Self::UInt64 => DataType::UInt64,
        }
    }

    /// The integer type of `data_type`, if it is one.
    pub fn from_data_type(data_type: &DataType) -> Option<Self> {
        Some(match data_type {
            DataType::Int8 => Self::Int8,
            DataType::Int16 => Self::Int16,
            DataType::Int32 => Self::Int32,
            DataType::Int64 => Self::Int64,
            DataType::UInt8 => Self::UInt8,
            DataType::UInt16 => Self::UInt16,
            DataType::UInt32 => Self::UInt32,
            DataType::UInt64 => Self::UInt64,
            _ => return None,
        })
    }

    /// The integer of `bits` (8, 16, 32 or 64) bits and the given signedness, as the
    /// format's metadata describes integers.
    ///
    /// ```
    /// use alkaid_schema::IntegerType;
    /// assert_eq!(IntegerType::from_bit_width(16, false), Some(IntegerType::UInt16));
    /// assert_eq!(IntegerType::from_bit_width(24, true), None);
    /// ```
    pub fn from_bit_width(bits: i64, signed: bool) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.byte_width() as i64 * 8 == bits && t.is_signed() == signed)
    }

    /// Whether the integer is signed.
    pub fn is_signed(self) -> bool {
        matches!(self, Self::Int8 | Self::Int16 | Self::Int32 | Self::Int64)
    }

    /// Width in bytes.
    pub fn byte_width(self) -> usize {
        match self {
            Self::Int8 | Self::UInt8 => 1,
            Self::Int16 | Self::UInt16 => 2,
            Self::Int32 | Self::UInt32 => 4,
            Self::Int64 | Self::UInt64 => 8,
        }
    }
}

/// The integer type of run ends: 16, 32 or 64-bit signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunEndType {
    /// `i16` run ends.
    Int16,
    /// `i32` run ends.
    Int32,
    /// `i64` run ends.
    Int64,
}

impl RunEndType {
    /// The same integer as a [`DataType`].
    pub fn to_data_type(self) -> DataType {
        match self {
            Self::Int16 => DataType::Int16,
            Self::Int32 => DataType::Int32,
            Self::Int64 => DataType::Int64,
        }
    }

    /// Width in bytes.
    pub fn byte_width(self) -> usize {
        match self {
            Self::Int16 => 2,
            Self::Int32 => 4,
            Self::Int64 => 8,
        }
    }
}

/// A map type: a list of `entries` structs with a key and a value field.
///
/// # Examples
/// ```
/// use alkaid_schema::{DataType, Field, MapType};
/// let map = MapType::new_entries(
///     Field::new("key", DataType::Utf8, false),
///     Field::new("value", DataType::Int64, true),
///     false,
/// ).unwrap();
/// assert_eq!(map.key().name(), "key");
/// assert_eq!(map.entries().name(), "entries");
/// // Keys must not be nullable.
/// assert!(MapType::new_entries(
///     Field::new("key", DataType::Utf8, true), Field::new("value", DataType::Int64, true), false,
/// ).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MapType {
    entries: FieldRef,
    keys_sorted: bool,
}

impl MapType {
    /// A map whose `entries` field is a struct of two fields, a key and a value.
    ///
    /// The names of the entries, key and value fields are not fixed by the spec and are kept
    /// as given; the entries field is conventionally named "entries" and not nullable.
    ///
    /// # Errors
    /// If `entries` is not a struct of exactly two fields, or its first field (the key) is
    /// nullable.
    pub fn try_new(entries: impl Into<FieldRef>, keys_sorted: bool) -> Result<Self, SchemaError> {
        let entries = entries.into();
        let DataType::Struct(fields) = entries.data_type() else {
            return Err(SchemaError::invalid(
                "Map",
                format!(
                    "expected a struct of key and value as entries, found {}",
                    entries.data_type()
                ),
            ));
        };
        if fields.len() != 2 {
            return Err(SchemaError::invalid(
                "Map",
                format!(
                    "expected 2 entry fields (key and value), found {}",
                    fields.len()
                ),
            ));
        }
        if fields[0].is_nullable() {
            return Err(SchemaError::invalid(
                "Map",
                format!(
                    "expected a non-nullable key field, found nullable field {:?}",
                    fields[0].name()
                ),
            ));
        }
        Ok(Self {
            entries,
            keys_sorted,
        })
    }

    /// A map with an entries field named "entries" (not nullable) holding `key` and `value`.
    ///
    /// # Errors
    /// If `key` is nullable.
    pub fn new_entries(key: Field, value: Field, keys_sorted: bool) -> Result<Self, SchemaError> {
        let entries = Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![key, value])),
            false,
        );
        Self::try_new(entries, keys_sorted)
    }

    /// The entries field (a struct of key and value).
    pub fn entries(&self) -> &FieldRef {
        &self.entries
    }

    /// The key field.
    pub fn key(&self) -> &FieldRef {
        &self.entry_fields()[0]
    }

    /// The value field.
    pub fn value(&self) -> &FieldRef {
        &self.entry_fields()[1]
    }

    /// Whether the keys of each map are sorted.
    pub fn keys_sorted(&self) -> bool {
        self.keys_sorted
    }

    fn entry_fields(&self) -> &Fields {
        match self.entries.data_type() {
            DataType::Struct(fields) => fields,
            _ => unreachable!("try_new checked that the entries are a struct"),
        }
    }
}

/// How a union lays out its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnionMode {
    /// Every child has the union's length; a slot's value is at the same index in its child.
    Sparse,
    /// Children hold only their own values; an offsets buffer says where each slot's value is.
    Dense,
}

/// A union type: its child fields, the type id of each, and the mode.
///
/// # Examples
/// ```
/// use alkaid_schema::{DataType, Field, UnionMode, UnionType};
/// let union = UnionType::try_new(
///     vec![Field::new("i", DataType::Int32, true), Field::new("s", DataType::Utf8, true)],
///     vec![5, 7],
///     UnionMode::Dense,
/// ).unwrap();
/// assert_eq!(union.field_for_type_id(7).unwrap().name(), "s");
/// assert!(UnionType::try_new(vec![Field::new("i", DataType::Int32, true)], vec![128], UnionMode::Sparse).is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct UnionType(Arc<UnionParts>);

/// Behind one pointer, so that a union does not make every `DataType` larger (types are
/// moved with every array).
#[derive(PartialEq, Eq, Hash)]
struct UnionParts {
    fields: Fields,
    type_ids: Box<[i8]>,
    mode: UnionMode,
}

impl std::fmt::Debug for UnionType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnionType")
            .field("fields", &self.0.fields)
            .field("type_ids", &self.0.type_ids)
            .field("mode", &self.0.mode)
            .finish()
    }
}

impl UnionType {
    /// The largest type id the format allows.
    pub const MAX_TYPE_ID: i32 = 127;

    /// A union of `fields`, child `i` tagged with `type_ids[i]`.
    ///
    /// Type ids are given as `i32` so that out-of-range ids from outside can be reported
    /// rather than truncated.
    ///
    /// # Errors
    /// If the counts differ, or a type id is negative, above 127 or repeated.
    pub fn try_new(
        fields: impl Into<Fields>,
        type_ids: impl IntoIterator<Item = i32>,
        mode: UnionMode,
    ) -> Result<Self, SchemaError> {
        let fields = fields.into();
        let ids: Vec<i32> = type_ids.into_iter().collect();
        if ids.len() != fields.len() {
            return Err(SchemaError::invalid(
                "Union",
                format!(
                    "expected one type id per field ({}), found {}",
                    fields.len(),
                    ids.len()
                ),
            ));
        }
        let mut seen = [false; 128];
        let mut checked = Vec::with_capacity(ids.len());
        for &id in &ids {
            let Some(small) = i8::try_from(id).ok().filter(|&id| id >= 0) else {
                return Err(SchemaError::invalid(
                    "Union",
                    format!(
                        "expected type ids from 0 to {}, found {id}",
                        Self::MAX_TYPE_ID
                    ),
                ));
            };
            if std::mem::replace(&mut seen[small as usize], true) {
                return Err(SchemaError::invalid(
                    "Union",
                    format!("type id {id} appears twice"),
                ));
            }
            checked.push(small);
        }
        Ok(Self(Arc::new(UnionParts {
            fields,
            type_ids: checked.into(),
            mode,
        })))
    }

    /// A union whose type ids are the field indices `0..n`.
    ///
    /// # Errors
    /// If there are more than 128 fields.
    pub fn with_default_ids(
        fields: impl Into<Fields>,
        mode: UnionMode,
    ) -> Result<Self, SchemaError> {
        let fields = fields.into();
        let count = fields.len() as i32;
        Self::try_new(fields, 0..count, mode)
    }

    /// The child fields.
    pub fn fields(&self) -> &Fields {
        &self.0.fields
    }

    /// The type id of each child.
    pub fn type_ids(&self) -> &[i8] {
        &self.0.type_ids
    }

    /// Sparse or dense.
    pub fn mode(&self) -> UnionMode {
        self.0.mode
    }

    /// The index of the child tagged `type_id`.
    pub fn child_index(&self, type_id: i8) -> Option<usize> {
        self.0.type_ids.iter().position(|&id| id == type_id)
    }

    /// The child field tagged `type_id`.
    pub fn field_for_type_id(&self, type_id: i8) -> Option<&FieldRef> {
        self.child_index(type_id).map(|i| &self.0.fields[i])
    }
}

/// A run-end encoded type: a `run_ends` field of 16, 32 or 64-bit integers and a `values`
/// field.
///
/// # Examples
/// ```
/// use alkaid_schema::{DataType, Field, RunEndEncodedType, RunEndType};
/// let ree = RunEndEncodedType::new(RunEndType::Int32, Field::new("values", DataType::Utf8, true));
/// assert_eq!(ree.run_end_type(), RunEndType::Int32);
/// assert!(RunEndEncodedType::try_new(
///     Field::new("run_ends", DataType::Int8, false), Field::new("values", DataType::Utf8, true),
/// ).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RunEndEncodedType {
    /// Run ends, then values: one array, so that `DataType::children` can lend both, and
    /// behind one pointer, so that this type does not make every `DataType` larger.
    children: Arc<[FieldRef; 2]>,
    run_end_type: RunEndType,
}

impl RunEndEncodedType {
    /// A run-end encoded type from its two child fields, as read from a schema.
    ///
    /// # Errors
    /// If the run ends are not `Int16`, `Int32` or `Int64`, or are nullable.
    pub fn try_new(
        run_ends: impl Into<FieldRef>,
        values: impl Into<FieldRef>,
    ) -> Result<Self, SchemaError> {
        let (run_ends, values) = (run_ends.into(), values.into());
        let run_end_type = match run_ends.data_type() {
            DataType::Int16 => RunEndType::Int16,
            DataType::Int32 => RunEndType::Int32,
            DataType::Int64 => RunEndType::Int64,
            other => {
                return Err(SchemaError::invalid(
                    "RunEndEncoded",
                    format!("expected Int16, Int32 or Int64 run ends, found {other}"),
                ));
            }
        };
        if run_ends.is_nullable() {
            return Err(SchemaError::invalid(
                "RunEndEncoded",
                "expected a non-nullable run ends field, found a nullable one",
            ));
        }
        Ok(Self {
            children: Arc::new([run_ends, values]),
            run_end_type,
        })
    }

    /// A run-end encoded type with the standard child name `run_ends`.
    pub fn new(run_end_type: RunEndType, values: impl Into<FieldRef>) -> Self {
        let run_ends = Arc::new(Field::new("run_ends", run_end_type.to_data_type(), false));
        Self {
            children: Arc::new([run_ends, values.into()]),
            run_end_type,
        }
    }

    /// The run ends field.
    pub fn run_ends(&self) -> &FieldRef {
        &self.children[0]
    }

    /// The values field.
    pub fn values(&self) -> &FieldRef {
        &self.children[1]
    }

    /// The integer type of the run ends.
    /// Run ends and values, in that order.
    pub fn children(&self) -> &[FieldRef; 2] {
        &self.children
    }

    /// The integer type of the run ends.
    pub fn run_end_type(&self) -> RunEndType {
        self.run_end_type
    }
}

//! One Variant value, read in place from its bytes.

use super::metadata::{VariantMetadata, read_unsigned};
use super::{VariantError, VariantList, VariantObject};

/// A Variant value: one of the spec's primitive types, or an object or an array whose
/// members are read on demand. Borrows the metadata (`'m`) and the value's bytes (`'v`).
///
/// [`Variant::try_new`] checks the whole value; [`Variant::parse`] reads only its outer
/// layer, for readers of data already validated (every read is still bounds-checked and
/// fails with an error, never a panic).
///
/// ```
/// use alkaid_array::variant::{EMPTY_METADATA, Variant, VariantMetadata};
///
/// let metadata = VariantMetadata::try_new(&EMPTY_METADATA)?;
/// // A short string: basic type 1, length 2.
/// let value = Variant::try_new(metadata, &[0x09, b'h', b'i'])?;
/// assert_eq!(value, Variant::String("hi"));
/// assert_eq!(value.type_name(), "string");
/// # Ok::<(), alkaid_array::variant::VariantError>(())
/// ```
///
/// The spec may add primitive types without a new version, so the enum is
/// `#[non_exhaustive]`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Variant<'m, 'v> {
    /// Variant null.
    Null,
    /// A boolean.
    Boolean(bool),
    /// An 8-bit signed integer.
    Int8(i8),
    /// A 16-bit signed integer.
    Int16(i16),
    /// A 32-bit signed integer.
    Int32(i32),
    /// A 64-bit signed integer.
    Int64(i64),
    /// A 32-bit float.
    Float(f32),
    /// A 64-bit float.
    Double(f64),
    /// A decimal of up to 9 digits: the unscaled value and the scale (0 to 38).
    Decimal4(i32, u8),
    /// A decimal of up to 18 digits.
    Decimal8(i64, u8),
    /// A decimal of up to 38 digits.
    Decimal16(i128, u8),
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since the epoch, in UTC.
    TimestampMicros(i64),
    /// Microseconds since the epoch, without a zone.
    TimestampNtzMicros(i64),
    /// Nanoseconds since the epoch, in UTC.
    TimestampNanos(i64),
    /// Nanoseconds since the epoch, without a zone.
    TimestampNtzNanos(i64),
    /// Microseconds since midnight, without a zone.
    Time(i64),
    /// Bytes.
    Binary(&'v [u8]),
    /// Text (short or long string in the encoding).
    String(&'v str),
    /// A UUID, its 16 bytes big-endian.
    Uuid([u8; 16]),
    /// An object.
    Object(VariantObject<'m, 'v>),
    /// An array.
    List(VariantList<'m, 'v>),
}

/// The basic types, the low two bits of a value's first byte (3, an array, is the rest).
pub(super) const PRIMITIVE: u8 = 0;
pub(super) const SHORT_STRING: u8 = 1;
pub(super) const OBJECT: u8 = 2;

/// How deep objects and arrays may nest: deeper values are refused rather than read
/// with a recursion as deep as an attacker likes.
pub const MAX_DEPTH: usize = 128;

impl<'m, 'v> Variant<'m, 'v> {
    /// Reads the outer layer of `value`; nested values are read when asked for.
    ///
    /// # Errors
    /// When the outer layer does not fit the bytes, or names an unknown type.
    pub fn parse(metadata: VariantMetadata<'m>, value: &'v [u8]) -> Result<Self, VariantError> {
        let Some(&first) = value.first() else {
            return Err(VariantError::value("empty value".into()));
        };
        let header = first >> 2;
        Ok(match first & 3 {
            PRIMITIVE => primitive(header, &value[1..])?,
            SHORT_STRING => {
                let len = usize::from(header);
                let bytes = value
                    .get(1..1 + len)
                    .ok_or_else(|| truncated("short string"))?;
                Self::String(utf8(bytes)?)
            }
            OBJECT => Self::Object(VariantObject::parse(metadata, value)?),
            _ => Self::List(VariantList::parse(metadata, value)?),
        })
    }

    /// The spec's name of the value's type (`int32`, `string`, `object`, …); a short
    /// string and a long one are both `string`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Variant::Null => "null",
            Variant::Boolean(_) => "boolean",
            Variant::Int8(_) => "int8",
            Variant::Int16(_) => "int16",
            Variant::Int32(_) => "int32",
            Variant::Int64(_) => "int64",
            Variant::Float(_) => "float",
            Variant::Double(_) => "double",
            Variant::Decimal4(..) => "decimal4",
            Variant::Decimal8(..) => "decimal8",
            Variant::Decimal16(..) => "decimal16",
            Variant::Date(_) => "date",
            Variant::TimestampMicros(_) => "timestamp",
            Variant::TimestampNtzMicros(_) => "timestamp_ntz",
            Variant::TimestampNanos(_) => "timestamp_nanos",
            Variant::TimestampNtzNanos(_) => "timestamp_ntz_nanos",
            Variant::Time(_) => "time",
            Variant::Binary(_) => "binary",
            Variant::String(_) => "string",
            Variant::Uuid(_) => "uuid",
            Variant::Object(_) => "object",
            Variant::List(_) => "array",
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&VariantObject<'m, 'v>> {
        match self {
            Self::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_list(&self) -> Option<&VariantList<'m, 'v>> {
        match self {
            Self::List(l) => Some(l),
            _ => None,
        }
    }
}

/// The primitive of type `id` whose payload starts `data`.
fn primitive<'m, 'v>(id: u8, data: &'v [u8]) -> Result<Variant<'m, 'v>, VariantError> {
    fn fixed<const N: usize>(data: &[u8], what: &str) -> Result<[u8; N], VariantError> {
        data.get(..N)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| truncated(what))
    }
    let scale = |what: &str| -> Result<u8, VariantError> {
        let scale = *data.first().ok_or_else(|| truncated(what))?;
        if scale > 38 {
            return Err(VariantError::value(format!(
                "{what} scale {scale} is over 38"
            )));
        }
        Ok(scale)
    };
    let sized = |what: &str| -> Result<&'v [u8], VariantError> {
        let len = read_unsigned(data, 0, 4).ok_or_else(|| truncated(what))?;
        data.get(4..4usize.saturating_add(len))
            .ok_or_else(|| truncated(what))
    };
    Ok(match id {
        0 => Variant::Null,
        1 => Variant::Boolean(true),
        2 => Variant::Boolean(false),
        3 => Variant::Int8(i8::from_le_bytes(fixed(data, "int8")?)),
        4 => Variant::Int16(i16::from_le_bytes(fixed(data, "int16")?)),
        5 => Variant::Int32(i32::from_le_bytes(fixed(data, "int32")?)),
        6 => Variant::Int64(i64::from_le_bytes(fixed(data, "int64")?)),
        7 => Variant::Double(f64::from_le_bytes(fixed(data, "double")?)),
        8 => {
            let scale = scale("decimal4")?;
            Variant::Decimal4(i32::from_le_bytes(fixed(&data[1..], "decimal4")?), scale)
        }
        9 => {
            let scale = scale("decimal8")?;
            Variant::Decimal8(i64::from_le_bytes(fixed(&data[1..], "decimal8")?), scale)
        }
        10 => {
            let scale = scale("decimal16")?;
            Variant::Decimal16(i128::from_le_bytes(fixed(&data[1..], "decimal16")?), scale)
        }
        11 => Variant::Date(i32::from_le_bytes(fixed(data, "date")?)),
        12 => Variant::TimestampMicros(i64::from_le_bytes(fixed(data, "timestamp")?)),
        13 => Variant::TimestampNtzMicros(i64::from_le_bytes(fixed(data, "timestamp_ntz")?)),
        14 => Variant::Float(f32::from_le_bytes(fixed(data, "float")?)),
        15 => Variant::Binary(sized("binary")?),
        16 => Variant::String(utf8(sized("string")?)?),
        17 => Variant::Time(i64::from_le_bytes(fixed(data, "time")?)),
        18 => Variant::TimestampNanos(i64::from_le_bytes(fixed(data, "timestamp_nanos")?)),
        19 => Variant::TimestampNtzNanos(i64::from_le_bytes(fixed(data, "timestamp_ntz_nanos")?)),
        20 => Variant::Uuid(fixed(data, "uuid")?),
        other => {
            return Err(VariantError::value(format!(
                "unknown primitive type {other}"
            )));
        }
    })
}

/// How many bytes the value at the start of `bytes` takes, read from its headers alone.
///
/// # Errors
/// When the headers do not fit the bytes or name an unknown type.
pub fn encoded_len(bytes: &[u8]) -> Result<usize, VariantError> {
    let Some(&first) = bytes.first() else {
        return Err(VariantError::value("empty value".into()));
    };
    let header = first >> 2;
    let len = match first & 3 {
        PRIMITIVE => {
            1 + match header {
                0..=2 => 0,
                3 => 1,
                4 => 2,
                5 | 11 | 14 => 4,
                6 | 7 | 12 | 13 | 17 | 18 | 19 => 8,
                8 => 5,
                9 => 9,
                10 => 17,
                15 | 16 => {
                    4 + read_unsigned(bytes, 1, 4).ok_or_else(|| truncated("binary or string"))?
                }
                20 => 16,
                other => {
                    return Err(VariantError::value(format!(
                        "unknown primitive type {other}"
                    )));
                }
            }
        }
        SHORT_STRING => 1 + usize::from(header),
        OBJECT => VariantObject::parse_layout(bytes)?.end,
        _ => VariantList::parse_layout(bytes)?.end,
    };
    if len > bytes.len() {
        return Err(truncated("value"));
    }
    Ok(len)
}

pub(super) fn truncated(what: &str) -> VariantError {
    VariantError::value(format!("{what} runs past the end of its bytes"))
}

pub(super) fn utf8(bytes: &[u8]) -> Result<&str, VariantError> {
    std::str::from_utf8(bytes).map_err(|e| {
        VariantError::value(format!(
            "string is not UTF-8 (at byte {} of it)",
            e.valid_up_to()
        ))
    })
}

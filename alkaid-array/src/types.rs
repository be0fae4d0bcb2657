//! Marker types that tie a logical fixed-width type to its native value type.
//!
//! `PrimitiveArray<Int32Type>` holds `i32`s typed `Int32`; `PrimitiveArray<Date32Type>` holds
//! `i32`s typed `Date32`. Types with parameters (timestamps with a timezone, decimals with a
//! precision and scale) keep their exact [`DataType`] in the array; the marker only says
//! which data types it accepts and which one is the default.

use std::fmt::Debug;

use alkaid_buffer::NativeType;
use alkaid_buffer::native::{IntervalDayTime, IntervalMonthDayNano, f16, i256};
use alkaid_schema::{DataType, DecimalType, DecimalWidth, IntervalUnit, TimeUnit};

/// A logical fixed-width type.
pub trait PrimitiveType: Debug + Send + Sync + 'static {
    /// The value type in memory.
    type Native: NativeType;

    /// The data type of a new array of this type.
    fn default_data_type() -> DataType;

    /// Whether arrays of `data_type` hold values of this type (for example every
    /// `Timestamp(ns, _)` for [`TimestampNanosecondType`]).
    fn accepts(data_type: &DataType) -> bool;

    /// A short name for messages, e.g. "Int32".
    const NAME: &'static str;
}

macro_rules! primitive_type {
    ($(#[$doc:meta])* $name:ident, $native:ty, $default:expr, $accepts:pat $(if $guard:expr)?) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl PrimitiveType for $name {
            type Native = $native;
            const NAME: &'static str = stringify!($name);
            fn default_data_type() -> DataType {
                $default
            }
            fn accepts(data_type: &DataType) -> bool {
                matches!(data_type, $accepts $(if $guard)?)
            }
        }
    };
}

primitive_type!(/** `Int8` as `i8`. */ Int8Type, i8, DataType::Int8, DataType::Int8);
primitive_type!(/** `Int16` as `i16`. */ Int16Type, i16, DataType::Int16, DataType::Int16);
primitive_type!(/** `Int32` as `i32`. */ Int32Type, i32, DataType::Int32, DataType::Int32);
primitive_type!(/** `Int64` as `i64`. */ Int64Type, i64, DataType::Int64, DataType::Int64);
primitive_type!(/** `UInt8` as `u8`. */ UInt8Type, u8, DataType::UInt8, DataType::UInt8);
primitive_type!(/** `UInt16` as `u16`. */ UInt16Type, u16, DataType::UInt16, DataType::UInt16);
primitive_type!(/** `UInt32` as `u32`. */ UInt32Type, u32, DataType::UInt32, DataType::UInt32);
primitive_type!(/** `UInt64` as `u64`. */ UInt64Type, u64, DataType::UInt64, DataType::UInt64);
primitive_type!(/** `Float16` as `f16`. */ Float16Type, f16, DataType::Float16, DataType::Float16);
primitive_type!(/** `Float32` as `f32`. */ Float32Type, f32, DataType::Float32, DataType::Float32);
primitive_type!(/** `Float64` as `f64`. */ Float64Type, f64, DataType::Float64, DataType::Float64);
primitive_type!(/** `Date32`: days since the epoch as `i32`. */ Date32Type, i32, DataType::Date32, DataType::Date32);
primitive_type!(/** `Date64`: milliseconds since the epoch as `i64`. */ Date64Type, i64, DataType::Date64, DataType::Date64);
primitive_type!(/** `Time32(s)` as `i32`. */ Time32SecondType, i32, DataType::Time(TimeUnit::Second), DataType::Time(TimeUnit::Second));
primitive_type!(/** `Time32(ms)` as `i32`. */ Time32MillisecondType, i32, DataType::Time(TimeUnit::Millisecond), DataType::Time(TimeUnit::Millisecond));
primitive_type!(/** `Time64(us)` as `i64`. */ Time64MicrosecondType, i64, DataType::Time(TimeUnit::Microsecond), DataType::Time(TimeUnit::Microsecond));
primitive_type!(/** `Time64(ns)` as `i64`. */ Time64NanosecondType, i64, DataType::Time(TimeUnit::Nanosecond), DataType::Time(TimeUnit::Nanosecond));
primitive_type!(/** `Timestamp(s, any timezone)` as `i64`. */ TimestampSecondType, i64, DataType::Timestamp(TimeUnit::Second, None), DataType::Timestamp(TimeUnit::Second, _));
primitive_type!(/** `Timestamp(ms, any timezone)` as `i64`. */ TimestampMillisecondType, i64, DataType::Timestamp(TimeUnit::Millisecond, None), DataType::Timestamp(TimeUnit::Millisecond, _));
primitive_type!(/** `Timestamp(us, any timezone)` as `i64`. */ TimestampMicrosecondType, i64, DataType::Timestamp(TimeUnit::Microsecond, None), DataType::Timestamp(TimeUnit::Microsecond, _));
primitive_type!(/** `Timestamp(ns, any timezone)` as `i64`. */ TimestampNanosecondType, i64, DataType::Timestamp(TimeUnit::Nanosecond, None), DataType::Timestamp(TimeUnit::Nanosecond, _));
primitive_type!(/** `Duration(s)` as `i64`. */ DurationSecondType, i64, DataType::Duration(TimeUnit::Second), DataType::Duration(TimeUnit::Second));
primitive_type!(/** `Duration(ms)` as `i64`. */ DurationMillisecondType, i64, DataType::Duration(TimeUnit::Millisecond), DataType::Duration(TimeUnit::Millisecond));
primitive_type!(/** `Duration(us)` as `i64`. */ DurationMicrosecondType, i64, DataType::Duration(TimeUnit::Microsecond), DataType::Duration(TimeUnit::Microsecond));
primitive_type!(/** `Duration(ns)` as `i64`. */ DurationNanosecondType, i64, DataType::Duration(TimeUnit::Nanosecond), DataType::Duration(TimeUnit::Nanosecond));
primitive_type!(/** `Interval(YearMonth)`: months as `i32`. */ IntervalYearMonthType, i32, DataType::Interval(IntervalUnit::YearMonth), DataType::Interval(IntervalUnit::YearMonth));
primitive_type!(/** `Interval(DayTime)`. */ IntervalDayTimeType, IntervalDayTime, DataType::Interval(IntervalUnit::DayTime), DataType::Interval(IntervalUnit::DayTime));
primitive_type!(/** `Interval(MonthDayNano)`. */ IntervalMonthDayNanoType, IntervalMonthDayNano, DataType::Interval(IntervalUnit::MonthDayNano), DataType::Interval(IntervalUnit::MonthDayNano));

fn decimal(width: DecimalWidth, scale: i8) -> DataType {
    let decimal = DecimalType::try_new(width, width.max_precision(), scale);
    DataType::Decimal(decimal.expect("the maximum precision of a width is valid"))
}

macro_rules! decimal_type {
    ($(#[$doc:meta])* $name:ident, $native:ty, $width:expr, $scale:expr) => {
        primitive_type!(
            $(#[$doc])* $name, $native, decimal($width, $scale),
            DataType::Decimal(d) if d.width() == $width
        );
    };
}

decimal_type!(/** `Decimal32(p, s)` as `i32`; new arrays are `Decimal32(9, 2)`. */ Decimal32Type, i32, DecimalWidth::W32, 2);
decimal_type!(/** `Decimal64(p, s)` as `i64`; new arrays are `Decimal64(18, 6)`. */ Decimal64Type, i64, DecimalWidth::W64, 6);
decimal_type!(/** `Decimal128(p, s)` as `i128`; new arrays are `Decimal128(38, 10)`. */ Decimal128Type, i128, DecimalWidth::W128, 10);
decimal_type!(/** `Decimal256(p, s)` as `i256`; new arrays are `Decimal256(76, 10)`. */ Decimal256Type, i256, DecimalWidth::W256, 10);

/// Something to do with a primitive type chosen at run time: [`visit_primitive`] calls
/// [`visit`](Self::visit) with the marker type of a data type.
pub trait PrimitiveVisitor {
    /// What the visit gives.
    type Output;
    /// Runs with `T` as the marker type.
    fn visit<T: PrimitiveType>(self) -> Self::Output;
}

/// Calls `visitor` with the marker type of `data_type`, or returns `None` if the type is not
/// fixed-width. The one place that maps fixed-width data types to marker types.
///
/// # Examples
/// ```
/// use alkaid_array::types::{visit_primitive, PrimitiveType, PrimitiveVisitor};
/// use alkaid_schema::DataType;
/// struct Width;
/// impl PrimitiveVisitor for Width {
///     type Output = usize;
///     fn visit<T: PrimitiveType>(self) -> usize { size_of::<T::Native>() }
/// }
/// assert_eq!(visit_primitive(&DataType::Date64, Width), Some(8));
/// assert_eq!(visit_primitive(&DataType::Utf8, Width), None);
/// ```
pub fn visit_primitive<V: PrimitiveVisitor>(data_type: &DataType, visitor: V) -> Option<V::Output> {
    Some(match data_type {
        DataType::Int8 => visitor.visit::<Int8Type>(),
        DataType::Int16 => visitor.visit::<Int16Type>(),
        DataType::Int32 => visitor.visit::<Int32Type>(),
        DataType::Int64 => visitor.visit::<Int64Type>(),
        DataType::UInt8 => visitor.visit::<UInt8Type>(),
        DataType::UInt16 => visitor.visit::<UInt16Type>(),
        DataType::UInt32 => visitor.visit::<UInt32Type>(),
        DataType::UInt64 => visitor.visit::<UInt64Type>(),
        DataType::Float16 => visitor.visit::<Float16Type>(),
        DataType::Float32 => visitor.visit::<Float32Type>(),
        DataType::Float64 => visitor.visit::<Float64Type>(),
        DataType::Decimal(decimal) => match decimal.width() {
            DecimalWidth::W32 => visitor.visit::<Decimal32Type>(),
            DecimalWidth::W64 => visitor.visit::<Decimal64Type>(),
            DecimalWidth::W128 => visitor.visit::<Decimal128Type>(),
            DecimalWidth::W256 => visitor.visit::<Decimal256Type>(),
        },
        DataType::Date32 => visitor.visit::<Date32Type>(),
        DataType::Date64 => visitor.visit::<Date64Type>(),
        DataType::Time(TimeUnit::Second) => visitor.visit::<Time32SecondType>(),
        DataType::Time(TimeUnit::Millisecond) => visitor.visit::<Time32MillisecondType>(),
        DataType::Time(TimeUnit::Microsecond) => visitor.visit::<Time64MicrosecondType>(),
        DataType::Time(TimeUnit::Nanosecond) => visitor.visit::<Time64NanosecondType>(),
        DataType::Timestamp(TimeUnit::Second, _) => visitor.visit::<TimestampSecondType>(),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            visitor.visit::<TimestampMillisecondType>()
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            visitor.visit::<TimestampMicrosecondType>()
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => visitor.visit::<TimestampNanosecondType>(),
        DataType::Duration(TimeUnit::Second) => visitor.visit::<DurationSecondType>(),
        DataType::Duration(TimeUnit::Millisecond) => visitor.visit::<DurationMillisecondType>(),
        DataType::Duration(TimeUnit::Microsecond) => visitor.visit::<DurationMicrosecondType>(),
        DataType::Duration(TimeUnit::Nanosecond) => visitor.visit::<DurationNanosecondType>(),
        DataType::Interval(IntervalUnit::YearMonth) => visitor.visit::<IntervalYearMonthType>(),
        DataType::Interval(IntervalUnit::DayTime) => visitor.visit::<IntervalDayTimeType>(),
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            visitor.visit::<IntervalMonthDayNanoType>()
        }
        _ => return None,
    })
}

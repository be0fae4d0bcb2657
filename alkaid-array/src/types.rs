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
    /// The value type in memory; it prints as the value (intervals spelled out).
    type Native: NativeType + std::fmt::Display;

    /// The data type of a new array of this type.
    fn default_data_type() -> DataType;

    /// Whether arrays of `data_type` hold values of this type (for example every
    /// `Timestamp(ns, _)` for [`TimestampNanosecondType`]).
    fn accepts(data_type: &DataType) -> bool;

    /// A short name for messages, e.g. "Int32".
    const NAME: &'static str;
}

/// The one list of fixed-width types: each line names a marker type, its native value
/// type, the data type of new arrays, and the data types it accepts. The macro makes the
/// marker types and the dispatch of [`visit_primitive`] from it, so adding a fixed-width
/// type is one line here.
macro_rules! primitive_types {
    ($({ $(#[$doc:meta])* $name:ident, $native:ty, $default:expr, $accepts:pat $(if $guard:expr)? })*) => {
        $(
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
        )*

        /// Calls `visitor` with the marker type of `data_type`, or gives the visitor back
        /// if the type is not fixed-width.
        pub(crate) fn try_visit_primitive<V: PrimitiveVisitor>(
            data_type: &DataType,
            visitor: V,
        ) -> Result<V::Output, V> {
            match data_type {
                $($accepts $(if $guard)? => Ok(visitor.visit::<$name>()),)*
                _ => Err(visitor),
            }
        }
    };
}

fn decimal(width: DecimalWidth, scale: i8) -> DataType {
    let decimal = DecimalType::try_new(width, width.max_precision(), scale);
    DataType::Decimal(decimal.expect("the maximum precision of a width is valid"))
}

#[rustfmt::skip]
primitive_types! {
    { /** `Int8` as `i8`. */ Int8Type, i8, DataType::Int8, DataType::Int8 }
    { /** `Int16` as `i16`. */ Int16Type, i16, DataType::Int16, DataType::Int16 }
    { /** `Int32` as `i32`. */ Int32Type, i32, DataType::Int32, DataType::Int32 }
    { /** `Int64` as `i64`. */ Int64Type, i64, DataType::Int64, DataType::Int64 }
    { /** `UInt8` as `u8`. */ UInt8Type, u8, DataType::UInt8, DataType::UInt8 }
    { /** `UInt16` as `u16`. */ UInt16Type, u16, DataType::UInt16, DataType::UInt16 }
    { /** `UInt32` as `u32`. */ UInt32Type, u32, DataType::UInt32, DataType::UInt32 }
    { /** `UInt64` as `u64`. */ UInt64Type, u64, DataType::UInt64, DataType::UInt64 }
    { /** `Float16` as `f16`. */ Float16Type, f16, DataType::Float16, DataType::Float16 }
    { /** `Float32` as `f32`. */ Float32Type, f32, DataType::Float32, DataType::Float32 }
    { /** `Float64` as `f64`. */ Float64Type, f64, DataType::Float64, DataType::Float64 }
    { /** `Date32`: days since the epoch as `i32`. */ Date32Type, i32, DataType::Date32, DataType::Date32 }
    { /** `Date64`: milliseconds since the epoch as `i64`. */ Date64Type, i64, DataType::Date64, DataType::Date64 }
    { /** `Time32(s)` as `i32`. */ Time32SecondType, i32, DataType::Time(TimeUnit::Second), DataType::Time(TimeUnit::Second) }
    { /** `Time32(ms)` as `i32`. */ Time32MillisecondType, i32, DataType::Time(TimeUnit::Millisecond), DataType::Time(TimeUnit::Millisecond) }
    { /** `Time64(us)` as `i64`. */ Time64MicrosecondType, i64, DataType::Time(TimeUnit::Microsecond), DataType::Time(TimeUnit::Microsecond) }
    { /** `Time64(ns)` as `i64`. */ Time64NanosecondType, i64, DataType::Time(TimeUnit::Nanosecond), DataType::Time(TimeUnit::Nanosecond) }
    { /** `Timestamp(s, any timezone)` as `i64`. */ TimestampSecondType, i64, DataType::Timestamp(TimeUnit::Second, None), DataType::Timestamp(TimeUnit::Second, _) }
    { /** `Timestamp(ms, any timezone)` as `i64`. */ TimestampMillisecondType, i64, DataType::Timestamp(TimeUnit::Millisecond, None), DataType::Timestamp(TimeUnit::Millisecond, _) }
    { /** `Timestamp(us, any timezone)` as `i64`. */ TimestampMicrosecondType, i64, DataType::Timestamp(TimeUnit::Microsecond, None), DataType::Timestamp(TimeUnit::Microsecond, _) }
    { /** `Timestamp(ns, any timezone)` as `i64`. */ TimestampNanosecondType, i64, DataType::Timestamp(TimeUnit::Nanosecond, None), DataType::Timestamp(TimeUnit::Nanosecond, _) }
    { /** `Duration(s)` as `i64`. */ DurationSecondType, i64, DataType::Duration(TimeUnit::Second), DataType::Duration(TimeUnit::Second) }
    { /** `Duration(ms)` as `i64`. */ DurationMillisecondType, i64, DataType::Duration(TimeUnit::Millisecond), DataType::Duration(TimeUnit::Millisecond) }
    { /** `Duration(us)` as `i64`. */ DurationMicrosecondType, i64, DataType::Duration(TimeUnit::Microsecond), DataType::Duration(TimeUnit::Microsecond) }
    { /** `Duration(ns)` as `i64`. */ DurationNanosecondType, i64, DataType::Duration(TimeUnit::Nanosecond), DataType::Duration(TimeUnit::Nanosecond) }
    { /** `Interval(YearMonth)`: months as `i32`. */ IntervalYearMonthType, i32, DataType::Interval(IntervalUnit::YearMonth), DataType::Interval(IntervalUnit::YearMonth) }
    { /** `Interval(DayTime)`. */ IntervalDayTimeType, IntervalDayTime, DataType::Interval(IntervalUnit::DayTime), DataType::Interval(IntervalUnit::DayTime) }
    { /** `Interval(MonthDayNano)`. */ IntervalMonthDayNanoType, IntervalMonthDayNano, DataType::Interval(IntervalUnit::MonthDayNano), DataType::Interval(IntervalUnit::MonthDayNano) }
    { /** `Decimal32(p, s)` as `i32`; new arrays are `Decimal32(9, 2)`. */ Decimal32Type, i32, decimal(DecimalWidth::W32, 2), DataType::Decimal(d) if d.width() == DecimalWidth::W32 }
    { /** `Decimal64(p, s)` as `i64`; new arrays are `Decimal64(18, 6)`. */ Decimal64Type, i64, decimal(DecimalWidth::W64, 6), DataType::Decimal(d) if d.width() == DecimalWidth::W64 }
    { /** `Decimal128(p, s)` as `i128`; new arrays are `Decimal128(38, 10)`. */ Decimal128Type, i128, decimal(DecimalWidth::W128, 10), DataType::Decimal(d) if d.width() == DecimalWidth::W128 }
    { /** `Decimal256(p, s)` as `i256`; new arrays are `Decimal256(76, 10)`. */ Decimal256Type, i256, decimal(DecimalWidth::W256, 10), DataType::Decimal(d) if d.width() == DecimalWidth::W256 }
}

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
    try_visit_primitive(data_type, visitor).ok()
}

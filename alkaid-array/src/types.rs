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

/// The native kinds, for the macros below (not part of the API).
#[doc(hidden)]
pub use alkaid_schema::NativeKind as __NativeKind;

/// The marker type, in the list above, whose values are of the native kind `$kind`: the
/// one map behind `with_native!` and its kin (not part of the API).
#[doc(hidden)]
#[macro_export]
macro_rules! __native_marker {
    (Int8) => {
        $crate::types::Int8Type
    };
    (Int16) => {
        $crate::types::Int16Type
    };
    (Int32) => {
        $crate::types::Int32Type
    };
    (Int64) => {
        $crate::types::Int64Type
    };
    (UInt8) => {
        $crate::types::UInt8Type
    };
    (UInt16) => {
        $crate::types::UInt16Type
    };
    (UInt32) => {
        $crate::types::UInt32Type
    };
    (UInt64) => {
        $crate::types::UInt64Type
    };
    (Float16) => {
        $crate::types::Float16Type
    };
    (Float32) => {
        $crate::types::Float32Type
    };
    (Float64) => {
        $crate::types::Float64Type
    };
    (Int128) => {
        $crate::types::Decimal128Type
    };
    (Int256) => {
        $crate::types::Decimal256Type
    };
    (DayTime) => {
        $crate::types::IntervalDayTimeType
    };
    (MonthDayNano) => {
        $crate::types::IntervalMonthDayNanoType
    };
}

/// A `match` on `$kind` with an arm per listed kind, each evaluating `$body` with `$t` its
/// native type; with `else`, any other kind is the caller's broken promise (not part of
/// the API).
#[doc(hidden)]
#[macro_export]
macro_rules! __native_match {
    ($kind:expr, $t:ident, $body:expr; $($variant:ident)*) => {
        match $kind {
            $($crate::types::__NativeKind::$variant => {
                #[allow(non_camel_case_types, dead_code)]
                type $t = <$crate::__native_marker!($variant) as $crate::types::PrimitiveType>::Native;
                $body
            })*
        }
    };
    ($kind:expr, $t:ident, $body:expr; $($variant:ident)*; else $what:literal) => {
        match $kind {
            $($crate::types::__NativeKind::$variant => {
                #[allow(non_camel_case_types, dead_code)]
                type $t = <$crate::__native_marker!($variant) as $crate::types::PrimitiveType>::Native;
                $body
            })*
            other => unreachable!("{other:?} is not {}; callers check", $what),
        }
    };
}

/// Evaluates `$body` with `$t` naming the Rust type of the values of `$kind`, an
/// [`alkaid_schema::NativeKind`] known only at run time: the physical counterpart of
/// [`visit_primitive`], for code that reads values whatever their logical type (comparison,
/// hashing, `min`/`max`: `Date32`, `Time32` and `Int32` are all `i32`), and whose body
/// needs the concrete type (any trait it implements), not only [`PrimitiveType`]'s bounds.
///
/// Each kind's type is that of a marker type in the primitive list above, so the list
/// stays the one map from types to Rust values.
///
/// ```
/// use alkaid_array::with_native;
/// use alkaid_schema::NativeKind;
/// let widths: Vec<usize> = [NativeKind::Int8, NativeKind::Int256, NativeKind::MonthDayNano]
///     .into_iter()
///     .map(|kind| with_native!(kind, |T| size_of::<T>()))
///     .collect();
/// assert_eq!(widths, [1, 32, 16]);
/// ```
#[macro_export]
macro_rules! with_native {
    ($kind:expr, |$t:ident| $body:expr) => {
        $crate::__native_match!($kind, $t, $body;
            Int8 Int16 Int32 Int64 UInt8 UInt16 UInt32 UInt64 Float16 Float32 Float64
            Int128 Int256 DayTime MonthDayNano)
    };
}

/// As [`with_native!`](crate::with_native), for a `$kind` the caller has checked is an integer (`Int8` to
/// `UInt64`), so that `$body` may use what only integers have.
///
/// # Panics
/// On any other kind: checking is the caller's part.
#[macro_export]
macro_rules! with_integer {
    ($kind:expr, |$t:ident| $body:expr) => {
        $crate::__native_match!($kind, $t, $body;
            Int8 Int16 Int32 Int64 UInt8 UInt16 UInt32 UInt64; else "an integer")
    };
}

/// As [`with_native!`](crate::with_native), for a `$kind` the caller has checked is a float.
///
/// # Panics
/// On any other kind: checking is the caller's part.
#[macro_export]
macro_rules! with_float {
    ($kind:expr, |$t:ident| $body:expr) => {
        $crate::__native_match!($kind, $t, $body; Float16 Float32 Float64; else "a float")
    };
}

#[cfg(test)]
mod tests {
    use alkaid_schema::NativeKind;

    #[test]
    fn every_native_kind_names_a_type_of_its_width() {
        let kinds = [
            NativeKind::Int8,
            NativeKind::Int16,
            NativeKind::Int32,
            NativeKind::Int64,
            NativeKind::UInt8,
            NativeKind::UInt16,
            NativeKind::UInt32,
            NativeKind::UInt64,
            NativeKind::Float16,
            NativeKind::Float32,
            NativeKind::Float64,
            NativeKind::Int128,
            NativeKind::Int256,
            NativeKind::DayTime,
            NativeKind::MonthDayNano,
        ];
        for kind in kinds {
            assert_eq!(
                with_native!(kind, |T| size_of::<T>()),
                kind.byte_width(),
                "{kind:?}"
            );
        }
        let integers: Vec<bool> = kinds[..8]
            .iter()
            .map(|&kind| with_integer!(kind, |T| T::MIN < T::default()))
            .collect();
        assert_eq!(
            integers,
            [true, true, true, true, false, false, false, false]
        );
        let floats: Vec<usize> = kinds[8..11]
            .iter()
            .map(|&kind| with_float!(kind, |T| size_of::<T>()))
            .collect();
        assert_eq!(floats, [2, 4, 8]);
    }
}

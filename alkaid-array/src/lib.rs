//! Typed arrays, builders and record batches.
//!
//! The crate users touch most. It depends on `alkaid-buffer`, `alkaid-schema` and
//! `alkaid-data`.
//!
//! | item | what it is |
//! | --- | --- |
//! | [`Array`], [`ArrayRef`] | any array, dyn-safe and shared; [`AsArray`] downcasts, [`make_array`] wraps `ArrayData` |
//! | [`PrimitiveArray`] | every fixed-width type: integers, floats, decimals, dates, times, timestamps, durations, intervals ([`types`]) |
//! | [`BooleanArray`], [`NullArray`] | booleans, and all-null slots |
//! | [`GenericByteArray`] | [`BinaryArray`], [`LargeBinaryArray`], [`StringArray`], [`LargeStringArray`] |
//! | [`GenericByteViewArray`] | [`BinaryViewArray`], [`StringViewArray`]: 16-byte views into shared data buffers |
//! | [`GenericListArray`], [`GenericListViewArray`], [`MapArray`] | lists with offsets or with (offset, size) views, and maps |
//! | [`StructArray`], [`UnionArray`] | structs of any children; sparse and dense unions |
//! | [`FixedSizeBinaryArray`], [`FixedSizeListArray`] | values and lists of one width |
//! | [`DictionaryArray`] | keys of any integer type into a dictionary; [`GenericByteDictionaryBuilder`] deduplicates by hashing |
//! | [`RunArray`] | run-end encoded values with `i16`/`i32`/`i64` run ends; run builders merge equal neighbours |
//! | builders | [`PrimitiveBuilder`], [`BooleanBuilder`], [`GenericByteBuilder`], [`GenericListBuilder`], [`StructBuilder`]; any of them as a `dyn` [`ArrayBuilder`] |
//! | [`RecordBatch`] | a schema and its columns, checked |
//! | [`Scalar`], [`Datum`] | one value of any type; a kernel's input, array or scalar |
//! | [`ffi_stream`] | the C stream interface: batches handed to and taken from other libraries in one process |
//! | [`ffi_device_stream`] | the C device interface's stream, for CPU batches: the same, for consumers that ask for devices |
//! | [`display`] | readable text for every type (`Display` for `dyn Array`), and tables of batches |
//! | [`make_builder`] | a `dyn` [`ArrayBuilder`] for a data type known only at run time |
//!
//! [`make_array`] gives the typed array for every data type; [`ArrayData`](alkaid_data::ArrayData)
//! itself also implements [`Array`].
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use alkaid_array::{make_array, ArrayRef, AsArray, Float64Array, StringArray};
//! use alkaid_array::types::Float64Type;
//!
//! let prices = Float64Array::from(vec![Some(9.5), None, Some(3.25)]);
//! let names = StringArray::from(vec!["apple", "pear", "fig"]);
//! let columns: Vec<ArrayRef> = vec![Arc::new(prices), Arc::new(names)];
//!
//! // Type-erased arrays travel as ArrayData and back without copying.
//! let round_trip = make_array(columns[0].to_data());
//! let total: f64 = round_trip.as_primitive::<Float64Type>().iter().flatten().sum();
//! assert_eq!(total, 12.75);
//! assert_eq!(columns[1].as_string::<i32>().value(2), "fig");
//! ```
//!
//! # Features
//! - `tz` (default): timestamps in zones named by IANA name (`Europe/Paris`), from the
//!   system's time-zone database or one compiled in. Without it, UTC and fixed offsets
//!   (`+01:00`) still resolve, and a named zone is an error that says what is missing
//!   ([`display::resolve_timezone`]).
#![doc(test(attr(deny(warnings))))]

/// The `Array` methods that every typed array writes the same way: `as_any` returns the
/// array itself, `slice` boxes the typed `slice_typed`, and `data_type`, `len` and `nulls`
/// read the given expressions (`self` is passed in so that they can name it). Each
/// `impl Array for …` is then this line and `to_data`. Defined before the modules so that
/// textual macro scoping reaches them all.
macro_rules! array_basics {
    ($self:ident => data_type: $data_type:expr, len: $len:expr, nulls: $nulls:expr) => {
        fn as_any(&$self) -> &dyn ::std::any::Any {
            $self
        }

        fn slice(&$self, offset: usize, len: usize) -> $crate::ArrayRef {
            ::std::sync::Arc::new($self.slice_typed(offset, len))
        }

        fn data_type(&$self) -> &::alkaid_schema::DataType {
            $data_type
        }

        fn len(&$self) -> usize {
            $len
        }

        fn nulls(&$self) -> Option<&::alkaid_buffer::NullBuffer> {
            $nulls
        }
    };
}

mod array;
mod boolean;
mod builder;
mod bytes;
mod calendar;
mod cast;
mod dictionary;
pub mod display;
mod dynamic;
mod error;
pub mod ffi_device_stream;
pub mod ffi_stream;
mod field_validation;
mod fixed_binary;
mod fixed_list;
pub mod list;
mod map;
mod null;
mod primitive;
mod record_batch;
mod run;
mod scalar;
mod structure;
pub mod types;
mod union;
pub mod variant;
mod view;
mod visit;

pub use array::{Array, ArrayRef, make_array};
pub use boolean::{BooleanArray, BooleanBuilder};
pub use builder::ArrayBuilder;
pub use bytes::{
    BinaryArray, ByteArrayType, GenericBinaryType, GenericByteArray, GenericByteBuilder,
    GenericStringType, LargeBinaryArray, LargeStringArray, StringArray,
};
pub use cast::AsArray;
pub use dictionary::{
    DictionaryArray, DictionaryKey, GenericByteDictionaryBuilder, PlainDictionaryBuilder,
    PrimitiveDictionaryBuilder,
};
pub use dynamic::make_builder;
pub use error::ArrayError;
pub use field_validation::{check_nullability, validate_field};
pub use fixed_binary::{FixedSizeBinaryArray, FixedSizeBinaryBuilder};
pub use fixed_list::{FixedSizeListArray, FixedSizeListBuilder};
pub use list::{
    GenericListArray, GenericListBuilder, GenericListViewArray, GenericListViewBuilder,
    LargeListArray, LargeListViewArray, ListArray, ListViewArray,
};
pub use map::{MapArray, MapBuilder};
pub use null::{NullArray, NullBuilder};
pub use primitive::{PrimitiveArray, PrimitiveBuilder};
pub use record_batch::{RecordBatch, RecordBatchOptions};
pub use run::{
    ByteRunBuilder, PlainRunBuilder, PrimitiveRunBuilder, RunArray, RunEndIndex, StringRunBuilder,
};
pub use scalar::{Datum, Scalar};
pub use structure::{StructArray, StructBuilder};
pub use union::{UnionArray, UnionBuilder};
pub use view::{
    BinaryViewArray, BinaryViewType, ByteViewType, GenericByteViewArray, GenericByteViewBuilder,
    StringViewArray, StringViewType,
};
pub use visit::{ArrayVisitor, NewBuilder, SlotText, TypedArray, visit_array};

macro_rules! primitive_aliases {
    ($($alias:ident => $t:ident),* $(,)?) => {$(
        #[doc = concat!("A [`PrimitiveArray`] of [`types::", stringify!($t), "`].")]
        pub type $alias = PrimitiveArray<types::$t>;
    )*};
}

primitive_aliases!(
    Int8Array => Int8Type, Int16Array => Int16Type, Int32Array => Int32Type, Int64Array => Int64Type,
    UInt8Array => UInt8Type, UInt16Array => UInt16Type, UInt32Array => UInt32Type, UInt64Array => UInt64Type,
    Float16Array => Float16Type, Float32Array => Float32Type, Float64Array => Float64Type,
    Date32Array => Date32Type, Date64Array => Date64Type,
    Time32SecondArray => Time32SecondType, Time32MillisecondArray => Time32MillisecondType,
    Time64MicrosecondArray => Time64MicrosecondType, Time64NanosecondArray => Time64NanosecondType,
    TimestampSecondArray => TimestampSecondType, TimestampMillisecondArray => TimestampMillisecondType,
    TimestampMicrosecondArray => TimestampMicrosecondType, TimestampNanosecondArray => TimestampNanosecondType,
    DurationSecondArray => DurationSecondType, DurationMillisecondArray => DurationMillisecondType,
    DurationMicrosecondArray => DurationMicrosecondType, DurationNanosecondArray => DurationNanosecondType,
    IntervalYearMonthArray => IntervalYearMonthType, IntervalDayTimeArray => IntervalDayTimeType,
    IntervalMonthDayNanoArray => IntervalMonthDayNanoType,
    Decimal32Array => Decimal32Type, Decimal64Array => Decimal64Type,
    Decimal128Array => Decimal128Type, Decimal256Array => Decimal256Type,
);

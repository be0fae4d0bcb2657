//! [`visit_array`]: the one map from a data type to the typed array that holds it.
//!
//! Code that needs the typed array of a type chosen at run time ([`make_array`], display,
//! [`make_builder`], kernels in the crates above) writes an [`ArrayVisitor`] and lets this
//! map pick the type; fixed-width types go through
//! [`visit_primitive`](crate::types::visit_primitive)'s list. What every typed array does
//! for the generic code of this crate is a trait of [`TypedArray`]: printing a slot
//! ([`SlotText`], written in `display/slots.rs`) and making a builder of its type
//! ([`NewBuilder`], in `dynamic.rs`).
//!
//! [`make_array`]: crate::make_array
//! [`make_builder`]: crate::make_builder

use std::fmt;

use alkaid_data::ArrayData;
use alkaid_schema::{DataType, IntegerType, RunEndType};

use crate::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, PrimitiveType, PrimitiveVisitor, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type, try_visit_primitive,
};
use crate::{
    Array, ArrayBuilder, ArrayError, BinaryArray, BinaryViewArray, BooleanArray, DictionaryArray,
    FixedSizeBinaryArray, FixedSizeListArray, LargeBinaryArray, LargeListArray, LargeListViewArray,
    LargeStringArray, ListArray, ListViewArray, MapArray, NullArray, PrimitiveArray, RunArray,
    StringArray, StringViewArray, StructArray, UnionArray,
};

/// A typed array: made from valid [`ArrayData`] of its type without copying, printed slot
/// by slot, and built by a builder of its exact type.
pub trait TypedArray:
    Array + TryFrom<ArrayData, Error = ArrayError> + SlotText + NewBuilder
{
}

impl<A> TypedArray for A where
    A: Array + TryFrom<ArrayData, Error = ArrayError> + SlotText + NewBuilder
{
}

/// How a typed array prints one slot, in [`display`](crate::display)'s notation.
pub trait SlotText {
    /// Appends slot `i`'s value to `out`; the caller has written `null` for a null slot of
    /// an array with validity of its own (encodings and unions print their children's).
    fn write_slot(&self, i: usize, out: &mut String) -> fmt::Result;
}

/// How [`make_builder`](crate::make_builder) makes a builder for a typed array's data
/// type.
pub trait NewBuilder {
    /// A builder of arrays of `data_type` (one of the types this array holds), with room
    /// for `capacity` values.
    ///
    /// # Errors
    /// If `data_type` is not one this array holds, or has a negative size.
    fn new_builder(
        data_type: &DataType,
        capacity: usize,
    ) -> Result<Box<dyn ArrayBuilder>, ArrayError>;
}

/// Something to do with the typed array of a data type chosen at run time:
/// [`visit_array`] calls [`visit`](Self::visit) with the array type.
pub trait ArrayVisitor {
    /// What the visit gives.
    type Output;
    /// Runs with `A` as the typed array.
    fn visit<A: TypedArray>(self) -> Self::Output;
}

/// Calls `visitor` with the typed array of `data_type`: `PrimitiveArray<Int32Type>` for
/// `Int32`, `DictionaryArray<UInt8Type>` for a dictionary with `UInt8` keys, and so on for
/// every type.
///
/// # Examples
/// ```
/// use std::any::TypeId;
/// use alkaid_array::{visit_array, ArrayVisitor, Date32Array, StringArray, TypedArray};
/// use alkaid_schema::DataType;
/// struct Which;
/// impl ArrayVisitor for Which {
///     type Output = TypeId;
///     fn visit<A: TypedArray>(self) -> TypeId {
///         TypeId::of::<A>()
///     }
/// }
/// assert_eq!(visit_array(&DataType::Utf8, Which), TypeId::of::<StringArray>());
/// assert_eq!(visit_array(&DataType::Date32, Which), TypeId::of::<Date32Array>());
/// ```
pub fn visit_array<V: ArrayVisitor>(data_type: &DataType, visitor: V) -> V::Output {
    let visitor = match try_visit_primitive(data_type, Primitive(visitor)) {
        Ok(output) => return output,
        Err(Primitive(visitor)) => visitor,
    };
    match data_type {
        DataType::Null => visitor.visit::<NullArray>(),
        DataType::Boolean => visitor.visit::<BooleanArray>(),
        DataType::Binary => visitor.visit::<BinaryArray>(),
        DataType::LargeBinary => visitor.visit::<LargeBinaryArray>(),
        DataType::Utf8 => visitor.visit::<StringArray>(),
        DataType::LargeUtf8 => visitor.visit::<LargeStringArray>(),
        DataType::BinaryView => visitor.visit::<BinaryViewArray>(),
        DataType::Utf8View => visitor.visit::<StringViewArray>(),
        DataType::FixedSizeBinary(_) => visitor.visit::<FixedSizeBinaryArray>(),
        DataType::List(_) => visitor.visit::<ListArray>(),
        DataType::LargeList(_) => visitor.visit::<LargeListArray>(),
        DataType::ListView(_) => visitor.visit::<ListViewArray>(),
        DataType::LargeListView(_) => visitor.visit::<LargeListViewArray>(),
        DataType::FixedSizeList(..) => visitor.visit::<FixedSizeListArray>(),
        DataType::Struct(_) => visitor.visit::<StructArray>(),
        DataType::Map(_) => visitor.visit::<MapArray>(),
        DataType::Union(_) => visitor.visit::<UnionArray>(),
        DataType::Dictionary { key, .. } => match key {
            IntegerType::Int8 => visitor.visit::<DictionaryArray<Int8Type>>(),
            IntegerType::Int16 => visitor.visit::<DictionaryArray<Int16Type>>(),
            IntegerType::Int32 => visitor.visit::<DictionaryArray<Int32Type>>(),
            IntegerType::Int64 => visitor.visit::<DictionaryArray<Int64Type>>(),
            IntegerType::UInt8 => visitor.visit::<DictionaryArray<UInt8Type>>(),
            IntegerType::UInt16 => visitor.visit::<DictionaryArray<UInt16Type>>(),
            IntegerType::UInt32 => visitor.visit::<DictionaryArray<UInt32Type>>(),
            IntegerType::UInt64 => visitor.visit::<DictionaryArray<UInt64Type>>(),
        },
        DataType::RunEndEncoded(ree) => match ree.run_end_type() {
            RunEndType::Int16 => visitor.visit::<RunArray<Int16Type>>(),
            RunEndType::Int32 => visitor.visit::<RunArray<Int32Type>>(),
            RunEndType::Int64 => visitor.visit::<RunArray<Int64Type>>(),
        },
        // Every other type is fixed-width, and the list in `types.rs` names them all (its
        // tests visit each one).
        _ => unreachable!("{data_type} is fixed-width but not in the list of primitive types"),
    }
}

/// Passes a primitive visit on as a visit of its `PrimitiveArray`.
struct Primitive<V>(V);

impl<V: ArrayVisitor> PrimitiveVisitor for Primitive<V> {
    type Output = V::Output;

    fn visit<T: PrimitiveType>(self) -> V::Output {
        self.0.visit::<PrimitiveArray<T>>()
    }
}

#[cfg(test)]
mod tests {
    use alkaid_schema::{Field, IntervalUnit, TimeUnit};

    use super::*;

    /// Makes an empty array of the visited type from empty data of `data_type`.
    struct Empty<'a>(&'a DataType);

    impl ArrayVisitor for Empty<'_> {
        type Output = Result<DataType, ArrayError>;

        fn visit<A: TypedArray>(self) -> Self::Output {
            let array = A::try_from(ArrayData::new_empty(self.0))?;
            Ok(array.data_type().clone())
        }
    }

    #[test]
    fn every_type_visits_the_array_that_holds_it() {
        let mut types = vec![
            DataType::Null,
            DataType::Boolean,
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::UInt8,
            DataType::UInt16,
            DataType::UInt32,
            DataType::UInt64,
            DataType::Float16,
            DataType::Float32,
            DataType::Float64,
            DataType::Date32,
            DataType::Date64,
            DataType::Binary,
            DataType::LargeBinary,
            DataType::Utf8,
            DataType::LargeUtf8,
            DataType::BinaryView,
            DataType::Utf8View,
            DataType::FixedSizeBinary(3),
            "List(item: Int32)".parse().unwrap(),
            "LargeList(item: Utf8)".parse().unwrap(),
            "ListView(item: Int32)".parse().unwrap(),
            "LargeListView(item: Int32)".parse().unwrap(),
            DataType::FixedSizeList(Field::new("item", DataType::Int8, true).into(), 2),
            "Struct(a: Int32, b: Utf8)".parse().unwrap(),
            "Map(entries: Struct(key: Utf8 not null, value: Int32) not null)"
                .parse()
                .unwrap(),
            "Union(Sparse, 0 => a: Int32, 1 => b: Utf8)"
                .parse()
                .unwrap(),
            "Union(Dense, 0 => a: Int32)".parse().unwrap(),
            "RunEndEncoded(run_ends: Int16 not null, values: Utf8)"
                .parse()
                .unwrap(),
            "RunEndEncoded(run_ends: Int32 not null, values: Utf8)"
                .parse()
                .unwrap(),
            "RunEndEncoded(run_ends: Int64 not null, values: Utf8)"
                .parse()
                .unwrap(),
            DataType::Interval(IntervalUnit::YearMonth),
            DataType::Interval(IntervalUnit::DayTime),
            DataType::Interval(IntervalUnit::MonthDayNano),
        ];
        for unit in [
            TimeUnit::Second,
            TimeUnit::Millisecond,
            TimeUnit::Microsecond,
            TimeUnit::Nanosecond,
        ] {
            types.push(DataType::Time(unit));
            types.push(DataType::Timestamp(unit, None));
            types.push(DataType::Timestamp(unit, Some("Europe/Paris".into())));
            types.push(DataType::Duration(unit));
        }
        for bits in [32, 64, 128, 256] {
            types.push(DataType::decimal(bits, 7, 2).unwrap());
        }
        for key in [
            "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
        ] {
            types.push(format!("Dictionary({key}, Utf8)").parse().unwrap());
        }
        for data_type in &types {
            assert_eq!(
                visit_array(data_type, Empty(data_type)).as_ref(),
                Ok(data_type),
                "{data_type}"
            );
        }
    }
}

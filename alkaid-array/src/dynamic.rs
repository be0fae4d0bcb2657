//! [`make_builder`]: a builder for a data type known only at run time.
//!
//! A reader of CSV, JSON or a database learns its column types from a schema; it asks for
//! one builder per field, reaches each builder's typed methods through
//! [`ArrayBuilder::as_any_mut`], and finishes them into arrays of exactly the schema's types
//! (timezones, decimal precision, field names and nested children included).
//!
//! [`visit_array`] picks the typed array of the data type; each typed array names its builder
//! here ([`NewBuilder`]), and nested ones ask [`make_builder`] for their children's.

use std::marker::PhantomData;

use alkaid_buffer::OffsetSize;
use alkaid_schema::{DataType, RunEndEncodedType};

use crate::types::{PrimitiveType, PrimitiveVisitor, visit_primitive};
use crate::visit::{ArrayVisitor, NewBuilder, TypedArray, visit_array};
use crate::{
    ArrayBuilder, ArrayError, BooleanArray, BooleanBuilder, ByteArrayType, ByteRunBuilder,
    ByteViewType, DictionaryArray, DictionaryKey, FixedSizeBinaryArray, FixedSizeBinaryBuilder,
    FixedSizeListArray, FixedSizeListBuilder, GenericBinaryType, GenericByteArray,
    GenericByteBuilder, GenericByteDictionaryBuilder, GenericByteViewArray, GenericByteViewBuilder,
    GenericListArray, GenericListBuilder, GenericListViewArray, GenericListViewBuilder,
    GenericStringType, MapArray, MapBuilder, NullArray, NullBuilder, PlainDictionaryBuilder,
    PlainRunBuilder, PrimitiveArray, PrimitiveBuilder, PrimitiveDictionaryBuilder,
    PrimitiveRunBuilder, RunArray, RunEndIndex, StructArray, StructBuilder, UnionArray,
    UnionBuilder,
};

type DynBuilder = Result<Box<dyn ArrayBuilder>, ArrayError>;

/// A builder of arrays of `data_type`.
///
/// Dictionaries of fixed-width, binary and text values deduplicate as they are filled, and
/// run-end encoded arrays of such values merge equal neighbours; for views and nested values
/// the builders are plain ([`PlainDictionaryBuilder`], [`PlainRunBuilder`]): one entry or one
/// run per value.
///
/// # Errors
/// For negative fixed sizes.
///
/// # Examples
/// ```
/// use alkaid_array::{make_builder, ArrayBuilder, GenericListBuilder, PrimitiveBuilder};
/// use alkaid_array::types::Int32Type;
/// use alkaid_schema::DataType;
///
/// let data_type: DataType = "List(item: Int32 not null)".parse()?;
/// let mut builder = make_builder(&data_type, 8)?;
/// let lists = builder
///     .as_any_mut()
///     .downcast_mut::<GenericListBuilder<i32, Box<dyn ArrayBuilder>>>()
///     .unwrap();
/// lists.values().as_any_mut().downcast_mut::<PrimitiveBuilder<Int32Type>>().unwrap().append_value(7);
/// lists.append(true);
/// let array = builder.try_finish()?;
/// assert_eq!(array.data_type(), &data_type);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn make_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
    visit_array(
        data_type,
        BuilderOf {
            data_type,
            capacity,
        },
    )
}

/// Asks the visited typed array for its builder.
struct BuilderOf<'a> {
    data_type: &'a DataType,
    capacity: usize,
}

impl ArrayVisitor for BuilderOf<'_> {
    type Output = DynBuilder;
    fn visit<A: TypedArray>(self) -> DynBuilder {
        A::new_builder(self.data_type, self.capacity)
    }
}

/// The error for a data type that the array type asked does not hold.
fn not_held(what: &str, data_type: &DataType) -> ArrayError {
    ArrayError::TypeMismatch {
        expected: what.to_string(),
        found: data_type.clone(),
    }
}

/// A size from the schema, which must not be negative.
fn size(size: i32, data_type: &DataType) -> Result<usize, ArrayError> {
    usize::try_from(size).map_err(|_| not_held("a non-negative size", data_type))
}

/// The builders of the children of `data_type`.
fn children(
    data_type: &DataType,
    capacity: usize,
) -> Result<Vec<Box<dyn ArrayBuilder>>, ArrayError> {
    let fields = data_type.children();
    fields
        .iter()
        .map(|field| make_builder(field.data_type(), capacity))
        .collect()
}

impl NewBuilder for NullArray {
    fn new_builder(data_type: &DataType, _: usize) -> DynBuilder {
        match data_type {
            DataType::Null => Ok(Box::new(NullBuilder::new())),
            other => Err(not_held("Null", other)),
        }
    }
}

impl NewBuilder for BooleanArray {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        match data_type {
            DataType::Boolean => Ok(Box::new(BooleanBuilder::with_capacity(capacity))),
            other => Err(not_held("Boolean", other)),
        }
    }
}

impl<T: PrimitiveType> NewBuilder for PrimitiveArray<T> {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        let builder = PrimitiveBuilder::<T>::with_capacity(capacity);
        Ok(Box::new(builder.with_data_type(data_type.clone())?))
    }
}

impl<T: ByteArrayType> NewBuilder for GenericByteArray<T> {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        if data_type != T::data_type() {
            return Err(not_held(&T::data_type().to_string(), data_type));
        }
        Ok(Box::new(GenericByteBuilder::<T>::with_capacity(
            capacity, 0,
        )))
    }
}

impl<T: ByteViewType> NewBuilder for GenericByteViewArray<T> {
    fn new_builder(data_type: &DataType, _: usize) -> DynBuilder {
        if data_type != T::data_type() {
            return Err(not_held(&T::data_type().to_string(), data_type));
        }
        Ok(Box::new(GenericByteViewBuilder::<T>::new()))
    }
}

impl NewBuilder for FixedSizeBinaryArray {
    fn new_builder(data_type: &DataType, _: usize) -> DynBuilder {
        match data_type {
            DataType::FixedSizeBinary(width) => Ok(Box::new(FixedSizeBinaryBuilder::try_new(
                size(*width, data_type)?,
            )?)),
            other => Err(not_held("FixedSizeBinary", other)),
        }
    }
}

impl<O: OffsetSize> NewBuilder for GenericListArray<O> {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        match (O::IS_LARGE, data_type) {
            (false, DataType::List(item)) | (true, DataType::LargeList(item)) => {
                let items = make_builder(item.data_type(), capacity)?;
                Ok(Box::new(
                    GenericListBuilder::<O, _>::new(items).with_field(item.clone()),
                ))
            }
            (large, other) => Err(not_held(if large { "LargeList" } else { "List" }, other)),
        }
    }
}

impl<O: OffsetSize> NewBuilder for GenericListViewArray<O> {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        match (O::IS_LARGE, data_type) {
            (false, DataType::ListView(item)) | (true, DataType::LargeListView(item)) => {
                let items = make_builder(item.data_type(), capacity)?;
                Ok(Box::new(
                    GenericListViewBuilder::<O, _>::new(items).with_field(item.clone()),
                ))
            }
            (large, other) => Err(not_held(
                if large { "LargeListView" } else { "ListView" },
                other,
            )),
        }
    }
}

impl NewBuilder for FixedSizeListArray {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        match data_type {
            DataType::FixedSizeList(item, list_size) => {
                let items = make_builder(item.data_type(), capacity)?;
                let builder = FixedSizeListBuilder::new(items, size(*list_size, data_type)?);
                Ok(Box::new(builder.with_field(item.clone())))
            }
            other => Err(not_held("FixedSizeList", other)),
        }
    }
}

impl NewBuilder for StructArray {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        match data_type {
            DataType::Struct(fields) => Ok(Box::new(StructBuilder::new(
                fields.clone(),
                children(data_type, capacity)?,
            ))),
            other => Err(not_held("Struct", other)),
        }
    }
}

impl NewBuilder for MapArray {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        match data_type {
            DataType::Map(map) => {
                let keys = make_builder(map.key().data_type(), capacity)?;
                let values = make_builder(map.value().data_type(), capacity)?;
                Ok(Box::new(
                    MapBuilder::new(keys, values).with_type(map.clone()),
                ))
            }
            other => Err(not_held("Map", other)),
        }
    }
}

impl NewBuilder for UnionArray {
    fn new_builder(data_type: &DataType, capacity: usize) -> DynBuilder {
        match data_type {
            DataType::Union(union) => Ok(Box::new(UnionBuilder::new(
                union.clone(),
                children(data_type, capacity)?,
            )?)),
            other => Err(not_held("Union", other)),
        }
    }
}

impl<K: DictionaryKey> NewBuilder for DictionaryArray<K> {
    fn new_builder(data_type: &DataType, _: usize) -> DynBuilder {
        let DataType::Dictionary {
            key,
            value,
            ordered,
        } = data_type
        else {
            return Err(not_held("Dictionary", data_type));
        };
        if *key != K::KEY {
            return Err(not_held(
                &format!("a dictionary with {:?} keys", K::KEY),
                data_type,
            ));
        }
        fn bytes<K: DictionaryKey, T: ByteArrayType>(ordered: bool) -> Box<dyn ArrayBuilder> {
            Box::new(GenericByteDictionaryBuilder::<K, T>::new().with_ordered(ordered))
        }
        let ordered = *ordered;
        Ok(match value.as_ref() {
            DataType::Utf8 => bytes::<K, GenericStringType<i32>>(ordered),
            DataType::LargeUtf8 => bytes::<K, GenericStringType<i64>>(ordered),
            DataType::Binary => bytes::<K, GenericBinaryType<i32>>(ordered),
            DataType::LargeBinary => bytes::<K, GenericBinaryType<i64>>(ordered),
            other => match visit_primitive(
                other,
                PrimitiveDictionaryOf::<K> {
                    value: other,
                    ordered,
                    key: PhantomData,
                },
            ) {
                Some(builder) => builder?,
                None => Box::new(
                    PlainDictionaryBuilder::<K>::new(make_builder(other, 0)?).with_ordered(ordered),
                ),
            },
        })
    }
}

/// A dictionary builder of fixed-width values of the exact data type.
struct PrimitiveDictionaryOf<'a, K> {
    value: &'a DataType,
    ordered: bool,
    key: PhantomData<K>,
}

impl<K: DictionaryKey> PrimitiveVisitor for PrimitiveDictionaryOf<'_, K> {
    type Output = DynBuilder;
    fn visit<T: PrimitiveType>(self) -> DynBuilder {
        let builder =
            PrimitiveDictionaryBuilder::<K, T>::new().with_value_type(self.value.clone())?;
        Ok(Box::new(builder.with_ordered(self.ordered)))
    }
}

impl<R: RunEndIndex> NewBuilder for RunArray<R> {
    fn new_builder(data_type: &DataType, _: usize) -> DynBuilder {
        let DataType::RunEndEncoded(ree) = data_type else {
            return Err(not_held("RunEndEncoded", data_type));
        };
        if ree.run_end_type() != R::RUN_END {
            return Err(not_held(
                &format!("run ends of {:?}", R::RUN_END),
                data_type,
            ));
        }
        Ok(match ree.values().data_type() {
            DataType::Utf8 => {
                Box::new(ByteRunBuilder::<R, GenericStringType<i32>>::new().with_type(ree.clone()))
            }
            DataType::LargeUtf8 => {
                Box::new(ByteRunBuilder::<R, GenericStringType<i64>>::new().with_type(ree.clone()))
            }
            DataType::Binary => {
                Box::new(ByteRunBuilder::<R, GenericBinaryType<i32>>::new().with_type(ree.clone()))
            }
            DataType::LargeBinary => {
                Box::new(ByteRunBuilder::<R, GenericBinaryType<i64>>::new().with_type(ree.clone()))
            }
            other => match visit_primitive(
                other,
                PrimitiveRunsOf::<R> {
                    ree,
                    run_end: PhantomData,
                },
            ) {
                Some(builder) => builder?,
                None => Box::new(PlainRunBuilder::<R>::new(
                    make_builder(other, 0)?,
                    ree.clone(),
                )),
            },
        })
    }
}

/// A run builder of fixed-width values of the exact data type.
struct PrimitiveRunsOf<'a, R> {
    ree: &'a RunEndEncodedType,
    run_end: PhantomData<R>,
}

impl<R: RunEndIndex> PrimitiveVisitor for PrimitiveRunsOf<'_, R> {
    type Output = DynBuilder;
    fn visit<T: PrimitiveType>(self) -> DynBuilder {
        Ok(Box::new(
            PrimitiveRunBuilder::<R, T>::new().with_type(self.ree.clone())?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Int8Type, Int32Type};
    use crate::{LargeStringArray, StringArray};

    #[test]
    fn a_typed_array_refuses_a_type_it_does_not_hold() {
        let parse = |text: &str| text.parse::<DataType>().unwrap();
        let refused = [
            PrimitiveArray::<Int32Type>::new_builder(&DataType::Utf8, 0),
            StringArray::new_builder(&DataType::LargeUtf8, 0),
            GenericListArray::<i32>::new_builder(&parse("LargeList(item: Int32)"), 0),
            DictionaryArray::<Int8Type>::new_builder(&parse("Dictionary(Int16, Utf8)"), 0),
            RunArray::<Int32Type>::new_builder(
                &parse("RunEndEncoded(run_ends: Int16 not null, values: Utf8)"),
                0,
            ),
            make_builder(&DataType::FixedSizeBinary(-1), 0),
        ];
        for result in refused {
            assert!(matches!(result, Err(ArrayError::TypeMismatch { .. })));
        }
        assert!(LargeStringArray::new_builder(&DataType::LargeUtf8, 0).is_ok());
    }
}

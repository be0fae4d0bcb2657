//! [`make_builder`]: a builder for a data type known only at run time.
//!
//! A reader of CSV, JSON or a database learns its column types from a schema; it asks for
//! one builder per field, reaches each builder's typed methods through
//! [`ArrayBuilder::as_any_mut`], and finishes them into arrays of exactly the schema's types
//! (timezones, decimal precision, field names and nested children included).

use std::marker::PhantomData;

use alkaid_schema::{DataType, IntegerType, RunEndEncodedType, RunEndType};

use crate::types::*;
use crate::{
    ArrayBuilder, ArrayError, BinaryViewType, BooleanBuilder, ByteRunBuilder, DictionaryKey,
    FixedSizeBinaryBuilder, FixedSizeListBuilder, GenericBinaryType, GenericByteBuilder,
    GenericByteDictionaryBuilder, GenericByteViewBuilder, GenericListBuilder,
    GenericListViewBuilder, GenericStringType, MapBuilder, NullBuilder, PlainDictionaryBuilder,
    PlainRunBuilder, PrimitiveBuilder, PrimitiveDictionaryBuilder, PrimitiveRunBuilder,
    RunEndIndex, StringViewType, StructBuilder, UnionBuilder,
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
    if let Some(builder) = visit_primitive(
        data_type,
        PrimitiveBuilderOf {
            data_type,
            capacity,
        },
    ) {
        return builder;
    }
    let child = |index: usize| make_builder(data_type.children()[index].data_type(), capacity);
    let negative = || ArrayError::TypeMismatch {
        expected: "a non-negative size".to_string(),
        found: data_type.clone(),
    };
    Ok(match data_type {
        DataType::Null => Box::new(NullBuilder::new()),
        DataType::Boolean => Box::new(BooleanBuilder::with_capacity(capacity)),
        DataType::FixedSizeBinary(width) => Box::new(FixedSizeBinaryBuilder::try_new(
            usize::try_from(*width).map_err(|_| negative())?,
        )?),
        DataType::Binary => Box::new(GenericByteBuilder::<GenericBinaryType<i32>>::with_capacity(
            capacity, 0,
        )),
        DataType::LargeBinary => Box::new(
            GenericByteBuilder::<GenericBinaryType<i64>>::with_capacity(capacity, 0),
        ),
        DataType::Utf8 => Box::new(GenericByteBuilder::<GenericStringType<i32>>::with_capacity(
            capacity, 0,
        )),
        DataType::LargeUtf8 => Box::new(
            GenericByteBuilder::<GenericStringType<i64>>::with_capacity(capacity, 0),
        ),
        DataType::BinaryView => Box::new(GenericByteViewBuilder::<BinaryViewType>::new()),
        DataType::Utf8View => Box::new(GenericByteViewBuilder::<StringViewType>::new()),
        DataType::List(field) => {
            Box::new(GenericListBuilder::<i32, _>::new(child(0)?).with_field(field.clone()))
        }
        DataType::LargeList(field) => {
            Box::new(GenericListBuilder::<i64, _>::new(child(0)?).with_field(field.clone()))
        }
        DataType::ListView(field) => {
            Box::new(GenericListViewBuilder::<i32, _>::new(child(0)?).with_field(field.clone()))
        }
        DataType::LargeListView(field) => {
            Box::new(GenericListViewBuilder::<i64, _>::new(child(0)?).with_field(field.clone()))
        }
        DataType::FixedSizeList(field, size) => {
            let size = usize::try_from(*size).map_err(|_| negative())?;
            Box::new(FixedSizeListBuilder::new(child(0)?, size).with_field(field.clone()))
        }
        DataType::Struct(fields) => {
            let children = (0..fields.len())
                .map(child)
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(StructBuilder::new(fields.clone(), children))
        }
        DataType::Map(map) => {
            let keys = make_builder(map.key().data_type(), capacity)?;
            let values = make_builder(map.value().data_type(), capacity)?;
            Box::new(MapBuilder::new(keys, values).with_type(map.clone()))
        }
        DataType::Union(union) => {
            let children = (0..union.fields().len())
                .map(child)
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(UnionBuilder::new(union.clone(), children)?)
        }
        DataType::Dictionary {
            key,
            value,
            ordered,
        } => match key {
            IntegerType::Int8 => dictionary::<Int8Type>(value, *ordered)?,
            IntegerType::Int16 => dictionary::<Int16Type>(value, *ordered)?,
            IntegerType::Int32 => dictionary::<Int32Type>(value, *ordered)?,
            IntegerType::Int64 => dictionary::<Int64Type>(value, *ordered)?,
            IntegerType::UInt8 => dictionary::<UInt8Type>(value, *ordered)?,
            IntegerType::UInt16 => dictionary::<UInt16Type>(value, *ordered)?,
            IntegerType::UInt32 => dictionary::<UInt32Type>(value, *ordered)?,
            IntegerType::UInt64 => dictionary::<UInt64Type>(value, *ordered)?,
        },
        DataType::RunEndEncoded(ree) => match ree.run_end_type() {
            RunEndType::Int16 => runs::<Int16Type>(ree)?,
            RunEndType::Int32 => runs::<Int32Type>(ree)?,
            RunEndType::Int64 => runs::<Int64Type>(ree)?,
        },
        _ => unreachable!("visit_primitive handled every fixed-width type"),
    })
}

/// A primitive builder of the exact data type.
struct PrimitiveBuilderOf<'a> {
    data_type: &'a DataType,
    capacity: usize,
}

impl PrimitiveVisitor for PrimitiveBuilderOf<'_> {
    type Output = DynBuilder;
    fn visit<T: PrimitiveType>(self) -> DynBuilder {
        Ok(Box::new(
            PrimitiveBuilder::<T>::with_capacity(self.capacity)
                .with_data_type(self.data_type.clone())?,
        ))
    }
}

fn dictionary<K: DictionaryKey>(value: &DataType, ordered: bool) -> DynBuilder {
    fn bytes<K: DictionaryKey, T: crate::ByteArrayType>(ordered: bool) -> Box<dyn ArrayBuilder> {
        Box::new(GenericByteDictionaryBuilder::<K, T>::new().with_ordered(ordered))
    }
    Ok(match value {
        DataType::Utf8 => bytes::<K, GenericStringType<i32>>(ordered),
        DataType::LargeUtf8 => bytes::<K, GenericStringType<i64>>(ordered),
        DataType::Binary => bytes::<K, GenericBinaryType<i32>>(ordered),
        DataType::LargeBinary => bytes::<K, GenericBinaryType<i64>>(ordered),
        other => match visit_primitive(
            other,
            PrimitiveDictionaryOf::<K> {
                value,
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

fn runs<R: RunEndIndex>(ree: &RunEndEncodedType) -> DynBuilder {
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

//! [`AsArray`]: one vocabulary for downcasting a `dyn Array` to its typed array.

use crate::types::PrimitiveType;
use crate::{
    Array, BooleanArray, ByteArrayType, GenericByteArray, GenericStringType, NullArray,
    PrimitiveArray,
};

/// Downcasts of `dyn Array`: `as_*` panics on a type mismatch, `as_*_opt` returns `None`.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{ArrayRef, AsArray, Int32Array};
/// use alkaid_array::types::Int32Type;
/// let array: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
/// assert_eq!(array.as_primitive::<Int32Type>().value(1), 2);
/// assert!(array.as_string_opt::<i32>().is_none());
/// ```
pub trait AsArray {
    /// The array as the typed array `T`, if it is one: works for every typed array
    /// (`as_typed::<StructArray>()`, `as_typed::<DictionaryArray<Int8Type>>()`, …).
    fn as_typed<T: Array>(&self) -> Option<&T>;

    /// The array as a `PrimitiveArray<T>`, if it is one.
    fn as_primitive_opt<T: PrimitiveType>(&self) -> Option<&PrimitiveArray<T>>;
    /// The array as a `BooleanArray`, if it is one.
    fn as_boolean_opt(&self) -> Option<&BooleanArray>;
    /// The array as a `NullArray`, if it is one.
    fn as_null_opt(&self) -> Option<&NullArray>;
    /// The array as a `GenericByteArray<T>`, if it is one.
    fn as_bytes_opt<T: ByteArrayType>(&self) -> Option<&GenericByteArray<T>>;

    /// The array as a `PrimitiveArray<T>`.
    ///
    /// # Panics
    /// If it is not one.
    fn as_primitive<T: PrimitiveType>(&self) -> &PrimitiveArray<T> {
        self.as_primitive_opt()
            .unwrap_or_else(|| panic!("expected a PrimitiveArray<{}>", T::NAME))
    }

    /// The array as a `BooleanArray`.
    ///
    /// # Panics
    /// If it is not one.
    fn as_boolean(&self) -> &BooleanArray {
        self.as_boolean_opt().expect("expected a BooleanArray")
    }

    /// The array as a `GenericByteArray<T>`.
    ///
    /// # Panics
    /// If it is not one.
    fn as_bytes<T: ByteArrayType>(&self) -> &GenericByteArray<T> {
        self.as_bytes_opt()
            .unwrap_or_else(|| panic!("expected a {} array", T::DATA_TYPE))
    }

    /// The array as a string array with offsets `O`, if it is one.
    fn as_string_opt<O>(&self) -> Option<&GenericByteArray<GenericStringType<O>>>
    where
        GenericStringType<O>: ByteArrayType,
    {
        self.as_bytes_opt()
    }

    /// The array as a string array with offsets `O`.
    ///
    /// # Panics
    /// If it is not one.
    fn as_string<O>(&self) -> &GenericByteArray<GenericStringType<O>>
    where
        GenericStringType<O>: ByteArrayType,
    {
        self.as_bytes()
    }
}

impl AsArray for dyn Array + '_ {
    fn as_typed<T: Array>(&self) -> Option<&T> {
        self.as_any().downcast_ref()
    }

    fn as_primitive_opt<T: PrimitiveType>(&self) -> Option<&PrimitiveArray<T>> {
        self.as_any().downcast_ref()
    }

    fn as_boolean_opt(&self) -> Option<&BooleanArray> {
        self.as_any().downcast_ref()
    }

    fn as_null_opt(&self) -> Option<&NullArray> {
        self.as_any().downcast_ref()
    }

    fn as_bytes_opt<T: ByteArrayType>(&self) -> Option<&GenericByteArray<T>> {
        self.as_any().downcast_ref()
    }
}

impl AsArray for std::sync::Arc<dyn Array> {
    fn as_typed<T: Array>(&self) -> Option<&T> {
        self.as_ref().as_typed()
    }

    fn as_primitive_opt<T: PrimitiveType>(&self) -> Option<&PrimitiveArray<T>> {
        self.as_ref().as_primitive_opt()
    }

    fn as_boolean_opt(&self) -> Option<&BooleanArray> {
        self.as_ref().as_boolean_opt()
    }

    fn as_null_opt(&self) -> Option<&NullArray> {
        self.as_ref().as_null_opt()
    }

    fn as_bytes_opt<T: ByteArrayType>(&self) -> Option<&GenericByteArray<T>> {
        self.as_ref().as_bytes_opt()
    }
}

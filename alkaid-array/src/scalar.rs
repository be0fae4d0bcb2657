//! [`Scalar`] and [`Datum`]: one value of any type, and what a kernel takes as an input.
//!
//! Kernels that combine two inputs (comparison, arithmetic, boolean logic) take each as a
//! [`Datum`]: an array of the output's length, or a [`Scalar`] that stands for the same value
//! in every row. A scalar is an array of one slot, so it has every type an array has
//! (a dictionary-encoded string, a decimal with its precision, a timestamp with its zone),
//! and kernels read it with the same code that reads arrays.

use std::fmt;
use std::sync::Arc;

use alkaid_data::ArrayData;
use alkaid_schema::{DataType, UnionMode};

use crate::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, PrimitiveType, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use crate::{
    Array, ArrayError, ArrayRef, AsArray, BinaryArray, BooleanArray, PrimitiveArray, StringArray,
    make_array, make_builder,
};

/// One value of any type, possibly null: an array of exactly one slot.
///
/// # Examples
/// ```
/// use alkaid_array::{Scalar, types::Int64Type};
/// use alkaid_schema::DataType;
///
/// let five = Scalar::from(5i64);
/// assert_eq!(five.data_type(), &DataType::Int64);
/// assert_eq!(five.value::<Int64Type>(), Some(5));
/// let missing = Scalar::new_null(&DataType::Utf8)?;
/// assert!(missing.is_null());
/// assert_eq!(Scalar::from("fig").to_string(), "fig");
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Scalar {
    array: ArrayRef,
}

impl Scalar {
    /// The value in `array`, which must have exactly one slot.
    ///
    /// # Errors
    /// If `array` does not have one slot.
    pub fn try_new(array: ArrayRef) -> Result<Self, ArrayError> {
        if array.len() != 1 {
            return Err(ArrayError::LengthMismatch {
                what: "a scalar's array".to_string(),
                expected: 1,
                found: array.len(),
            });
        }
        Ok(Self { array })
    }

    /// Slot `i` of `array` as a scalar (sharing its memory).
    ///
    /// # Panics
    /// If `i >= array.len()`.
    pub fn from_array(array: &dyn Array, i: usize) -> Self {
        Self {
            array: array.slice(i, 1),
        }
    }

    /// A null of `data_type`.
    ///
    /// # Errors
    /// For types no builder makes (a negative fixed size).
    pub fn new_null(data_type: &DataType) -> Result<Self, ArrayError> {
        let mut builder = make_builder(data_type, 1)?;
        builder.append_null();
        Self::try_new(builder.try_finish()?)
    }

    /// A value of the fixed-width type `T`, with `T`'s default data type.
    pub fn primitive<T: PrimitiveType>(value: T::Native) -> Self {
        let array = PrimitiveArray::<T>::from_iter([Some(value)]);
        Self {
            array: Arc::new(array),
        }
    }

    /// The value's type.
    pub fn data_type(&self) -> &DataType {
        self.array.data_type()
    }

    /// The one-slot array that holds the value.
    pub fn array(&self) -> &ArrayRef {
        &self.array
    }

    /// The one-slot array that holds the value.
    pub fn into_array(self) -> ArrayRef {
        self.array
    }

    /// Whether the value is null: the slot itself, or what it points at (a dictionary
    /// entry, a run's value, a union member), since a null there is the value too.
    pub fn is_null(&self) -> bool {
        slot_is_null(&self.array.to_data(), 0)
    }

    /// The value as `T::Native`, if it is not null and the type is one `T` accepts.
    pub fn value<T: PrimitiveType>(&self) -> Option<T::Native> {
        let array = self.array.as_primitive_opt::<T>()?;
        array.is_valid(0).then(|| array.value(0))
    }

    /// The value as a boolean, if it is a valid `Boolean`.
    pub fn as_bool(&self) -> Option<bool> {
        let array = self.array.as_boolean_opt()?;
        array.is_valid(0).then(|| array.value(0))
    }

    /// The value as text, if it is a valid `Utf8` or `LargeUtf8`.
    pub fn as_str(&self) -> Option<&str> {
        if let Some(array) = self.array.as_string_opt::<i32>() {
            return array.is_valid(0).then(|| array.value(0));
        }
        let array = self.array.as_string_opt::<i64>()?;
        array.is_valid(0).then(|| array.value(0))
    }
}

/// Whether slot `i` of `data` is null, looking through dictionaries, runs and unions.
fn slot_is_null(data: &ArrayData, i: usize) -> bool {
    if data.is_null(i) {
        return true;
    }
    match data.data_type() {
        DataType::Dictionary { .. } => {
            let keys = make_array(data.clone());
            let key = keyed_position(keys.as_ref(), i);
            match (key, data.dictionary()) {
                (Some(key), Some(values)) => slot_is_null(values, key),
                _ => true,
            }
        }
        DataType::RunEndEncoded(_) => {
            let array = make_array(data.slice(i, 1));
            let run = run_of_first_slot(array.as_ref());
            slot_is_null(&data.children()[1], run)
        }
        DataType::Union(union) => {
            let position = data.offset() + i;
            let id = data.buffers()[0][position] as i8;
            let Some(child) = union.child_index(id) else {
                return true;
            };
            let child_slot = match union.mode() {
                UnionMode::Sparse => position,
                UnionMode::Dense => {
                    let offsets = &data.buffers()[1];
                    let at = position * 4;
                    let raw = [
                        offsets[at],
                        offsets[at + 1],
                        offsets[at + 2],
                        offsets[at + 3],
                    ];
                    i32::from_le_bytes(raw) as usize
                }
            };
            // A sparse child's slots line up with the union's buffers; a dense one's are
            // the offsets. Either way `child_slot` is a slot of the child.
            slot_is_null(&data.children()[child], child_slot)
        }
        _ => false,
    }
}

/// The dictionary position slot `i` of a dictionary array points at.
fn keyed_position(array: &dyn Array, i: usize) -> Option<usize> {
    use crate::DictionaryArray;
    macro_rules! keyed {
        ($($key:ty),*) => {$(
            if let Some(dictionary) = array.as_typed::<DictionaryArray<$key>>() {
                return dictionary.key(i);
            }
        )*};
    }
    keyed!(
        Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type
    );
    None
}

/// The run that slot 0 of a run-end encoded array falls in.
fn run_of_first_slot(array: &dyn Array) -> usize {
    use crate::RunArray;
    macro_rules! runs {
        ($($index:ty),*) => {$(
            if let Some(runs) = array.as_typed::<RunArray<$index>>() {
                return runs.physical_index(0);
            }
        )*};
    }
    runs!(Int16Type, Int32Type, Int64Type);
    0
}

impl PartialEq for Scalar {
    /// Logical equality of the two one-slot arrays: type, validity and value.
    fn eq(&self, other: &Self) -> bool {
        alkaid_data::equal(&self.array.to_data(), &other.array.to_data())
    }
}

impl fmt::Display for Scalar {
    /// The value as the table display shows it (`null` for a null).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::display::format_value(self.array.as_ref(), 0))
    }
}

macro_rules! scalar_from_native {
    ($($native:ty => $t:ty),*) => {$(
        impl From<$native> for Scalar {
            fn from(value: $native) -> Self {
                Self::primitive::<$t>(value)
            }
        }
    )*};
}
scalar_from_native!(
    i8 => Int8Type, i16 => Int16Type, i32 => Int32Type, i64 => Int64Type,
    u8 => UInt8Type, u16 => UInt16Type, u32 => UInt32Type, u64 => UInt64Type,
    f32 => Float32Type, f64 => Float64Type
);

impl From<bool> for Scalar {
    /// A `Boolean` value: one of two arrays made once and shared (aggregates such as
    /// `any` answer with one, and making an array costs more than their work).
    fn from(value: bool) -> Self {
        static BOOLEANS: std::sync::OnceLock<[ArrayRef; 2]> = std::sync::OnceLock::new();
        let [no, yes] = BOOLEANS.get_or_init(|| {
            [false, true].map(|b| Arc::new(BooleanArray::from(vec![b])) as ArrayRef)
        });
        Self {
            array: Arc::clone(if value { yes } else { no }),
        }
    }
}

impl From<&str> for Scalar {
    /// A `Utf8` value.
    fn from(value: &str) -> Self {
        Self {
            array: Arc::new(StringArray::from(vec![value])),
        }
    }
}

impl From<&[u8]> for Scalar {
    /// A `Binary` value.
    fn from(value: &[u8]) -> Self {
        Self {
            array: Arc::new(BinaryArray::from_iter([Some(value)])),
        }
    }
}

/// One input of a kernel: an array, or a scalar that stands for its value in every row.
///
/// Implemented by every typed array, `dyn Array`, `&dyn Array`, [`ArrayRef`] and
/// [`Scalar`]; kernels take `&dyn Datum`.
///
/// # Examples
/// ```
/// use alkaid_array::{Datum, Int32Array, Scalar};
/// fn describe(input: &dyn Datum) -> String {
///     let (array, is_scalar) = input.get();
///     format!("{} of {}", if is_scalar { "scalar" } else { "array" }, array.data_type())
/// }
/// assert_eq!(describe(&Int32Array::from(vec![1, 2])), "array of Int32");
/// assert_eq!(describe(&Scalar::from(1i32)), "scalar of Int32");
/// ```
pub trait Datum {
    /// The array behind the input, and whether it is a scalar (then it has one slot).
    fn get(&self) -> (&dyn Array, bool);
}

impl<T: Array> Datum for T {
    fn get(&self) -> (&dyn Array, bool) {
        (self, false)
    }
}

impl Datum for dyn Array {
    fn get(&self) -> (&dyn Array, bool) {
        (self, false)
    }
}

impl Datum for &dyn Array {
    fn get(&self) -> (&dyn Array, bool) {
        (*self, false)
    }
}

impl Datum for ArrayRef {
    fn get(&self) -> (&dyn Array, bool) {
        (self.as_ref(), false)
    }
}

impl Datum for Scalar {
    fn get(&self) -> (&dyn Array, bool) {
        (self.array.as_ref(), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Int32Type;
    use crate::{DictionaryArray, Int32Array, RunArray};

    #[test]
    fn a_scalar_has_exactly_one_slot() {
        assert!(Scalar::try_new(Arc::new(Int32Array::from(vec![1, 2]))).is_err());
        assert!(Scalar::try_new(Arc::new(Int32Array::from(Vec::<i32>::new()))).is_err());
        let one = Scalar::try_new(Arc::new(Int32Array::from(vec![7]))).unwrap();
        assert_eq!(one.value::<Int32Type>(), Some(7));
        assert_eq!(one.value::<Int64Type>(), None);
    }

    #[test]
    fn nulls_are_seen_through_dictionaries_and_runs() {
        let values: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None]));
        let keys = Int32Array::from(vec![Some(0), Some(1), None]);
        let dictionary = DictionaryArray::<Int32Type>::try_new(keys, Arc::clone(&values)).unwrap();
        let null_flags: Vec<bool> = (0..3)
            .map(|i| Scalar::from_array(&dictionary, i).is_null())
            .collect();
        assert_eq!(null_flags, [false, true, true]);
        let runs =
            RunArray::<Int32Type>::try_new(Int32Array::from(vec![2, 5]), Arc::clone(&values))
                .unwrap();
        let null_flags: Vec<bool> = (0..5)
            .map(|i| Scalar::from_array(&runs, i).is_null())
            .collect();
        assert_eq!(null_flags, [false, false, true, true, true]);
    }

    #[test]
    fn typed_getters_refuse_nulls_and_other_types() {
        assert_eq!(Scalar::from(true).as_bool(), Some(true));
        assert_eq!(Scalar::from("x").as_str(), Some("x"));
        assert_eq!(Scalar::from(1.5f64).as_str(), None);
        let null = Scalar::new_null(&DataType::Boolean).unwrap();
        assert_eq!(null.as_bool(), None);
        assert_eq!(null.to_string(), "null");
        assert_eq!(Scalar::from(&b"ab"[..]).data_type(), &DataType::Binary);
    }

    #[test]
    fn equality_is_logical() {
        assert_eq!(Scalar::from(3i32), Scalar::from(3i32));
        assert_ne!(Scalar::from(3i32), Scalar::from(3i64));
        assert_ne!(
            Scalar::from(3i32),
            Scalar::new_null(&DataType::Int32).unwrap()
        );
    }
}

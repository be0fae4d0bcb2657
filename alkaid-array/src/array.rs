//! The [`Array`] trait, [`ArrayRef`], and [`make_array`]: arrays without their static type.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::visit::{ArrayVisitor, TypedArray, visit_array};

/// An array of any type, shared and dyn-safe.
///
/// Every typed array implements it; [`AsArray`](crate::AsArray) downcasts back.
/// [`to_data`](Self::to_data) and [`make_array`] convert to and from [`ArrayData`] without
/// copying values.
pub trait Array: Debug + Send + Sync + 'static {
    /// The array as `Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;

    /// The array as type-erased data (shares the buffers).
    fn to_data(&self) -> ArrayData;

    /// The data type.
    fn data_type(&self) -> &DataType;

    /// Number of slots.
    fn len(&self) -> usize;

    /// Whether there are no slots.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The validity of the slots, if any slot may be null.
    fn nulls(&self) -> Option<&NullBuffer>;

    /// Number of null slots.
    fn null_count(&self) -> usize {
        self.nulls().map_or(0, NullBuffer::null_count)
    }

    /// Whether slot `i` is null.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    fn is_null(&self, i: usize) -> bool {
        assert!(
            i < self.len(),
            "slot {i} out of bounds for length {}",
            self.len()
        );
        self.nulls().is_some_and(|nulls| nulls.is_null(i))
    }

    /// Whether slot `i` is valid.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    fn is_valid(&self, i: usize) -> bool {
        !self.is_null(i)
    }

    /// Slots `[offset, offset + len)`, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    fn slice(&self, offset: usize, len: usize) -> ArrayRef;
}

/// A shared, type-erased array.
pub type ArrayRef = Arc<dyn Array>;

/// An [`ArrayData`] is itself an array, for code that holds type-erased data and wants to
/// pass it on as an [`ArrayRef`] without choosing a typed array.
impl Array for ArrayData {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn to_data(&self) -> ArrayData {
        self.clone()
    }

    fn data_type(&self) -> &DataType {
        ArrayData::data_type(self)
    }

    fn len(&self) -> usize {
        ArrayData::len(self)
    }

    fn nulls(&self) -> Option<&NullBuffer> {
        ArrayData::nulls(self)
    }

    fn null_count(&self) -> usize {
        ArrayData::null_count(self)
    }

    fn is_null(&self, i: usize) -> bool {
        ArrayData::is_null(self, i)
    }

    fn slice(&self, offset: usize, len: usize) -> ArrayRef {
        Arc::new(ArrayData::slice(self, offset, len))
    }
}

/// The typed array for `data`, as an [`ArrayRef`]; no values are copied.
///
/// # Examples
/// ```
/// use alkaid_array::{make_array, Array, AsArray, Int32Array};
/// let data = Int32Array::from(vec![1, 2, 3]).to_data();
/// let array = make_array(data);
/// assert_eq!(&array.as_primitive::<alkaid_array::types::Int32Type>().values()[..], &[1, 2, 3]);
/// ```
pub fn make_array(data: ArrayData) -> ArrayRef {
    // The visit picks the constructor from the type alone, so that `data` need not be
    // borrowed by the visit and moved into it at once (no clone of its data type).
    let make = visit_array(data.data_type(), MakeArray);
    make(data)
}

/// Picks the typed array's constructor for a data type.
struct MakeArray;

impl ArrayVisitor for MakeArray {
    type Output = fn(ArrayData) -> ArrayRef;

    fn visit<A: TypedArray>(self) -> Self::Output {
        fn make<A: TypedArray>(data: ArrayData) -> ArrayRef {
            // `visit_array` chose `A` for this data type, and valid data of a type always
            // makes that type's array; a failure here is a bug in the map, not bad input.
            Arc::new(A::try_from(data).expect("visit_array picks the typed array of the data type"))
        }
        make::<A>
    }
}

//! The [`Array`] trait, [`ArrayRef`], and [`make_array`]: arrays without their static type.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use alkaid_buffer::NullBuffer;
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::types::*;
use crate::{
    BinaryArray, BooleanArray, FixedSizeBinaryArray, FixedSizeListArray, LargeBinaryArray,
    LargeListArray, LargeStringArray, ListArray, NullArray, PrimitiveArray, StringArray,
    StructArray,
};

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
    macro_rules! primitive {
        ($t:ty) => {
            Arc::new(PrimitiveArray::<$t>::try_from(data).expect("the data type was matched"))
        };
    }
    match data.data_type() {
        DataType::Null => Arc::new(NullArray::try_from(data).expect("the data type was matched")),
        DataType::Boolean => {
            Arc::new(BooleanArray::try_from(data).expect("the data type was matched"))
        }
        DataType::Int8 => primitive!(Int8Type),
        DataType::Int16 => primitive!(Int16Type),
        DataType::Int32 => primitive!(Int32Type),
        DataType::Int64 => primitive!(Int64Type),
        DataType::UInt8 => primitive!(UInt8Type),
        DataType::UInt16 => primitive!(UInt16Type),
        DataType::UInt32 => primitive!(UInt32Type),
        DataType::UInt64 => primitive!(UInt64Type),
        DataType::Float16 => primitive!(Float16Type),
        DataType::Float32 => primitive!(Float32Type),
        DataType::Float64 => primitive!(Float64Type),
        DataType::Date32 => primitive!(Date32Type),
        DataType::Date64 => primitive!(Date64Type),
        DataType::Time(alkaid_schema::TimeUnit::Second) => primitive!(Time32SecondType),
        DataType::Time(alkaid_schema::TimeUnit::Millisecond) => primitive!(Time32MillisecondType),
        DataType::Time(alkaid_schema::TimeUnit::Microsecond) => primitive!(Time64MicrosecondType),
        DataType::Time(alkaid_schema::TimeUnit::Nanosecond) => primitive!(Time64NanosecondType),
        DataType::Timestamp(alkaid_schema::TimeUnit::Second, _) => primitive!(TimestampSecondType),
        DataType::Timestamp(alkaid_schema::TimeUnit::Millisecond, _) => {
            primitive!(TimestampMillisecondType)
        }
        DataType::Timestamp(alkaid_schema::TimeUnit::Microsecond, _) => {
            primitive!(TimestampMicrosecondType)
        }
        DataType::Timestamp(alkaid_schema::TimeUnit::Nanosecond, _) => {
            primitive!(TimestampNanosecondType)
        }
        DataType::Duration(alkaid_schema::TimeUnit::Second) => primitive!(DurationSecondType),
        DataType::Duration(alkaid_schema::TimeUnit::Millisecond) => {
            primitive!(DurationMillisecondType)
        }
        DataType::Duration(alkaid_schema::TimeUnit::Microsecond) => {
            primitive!(DurationMicrosecondType)
        }
        DataType::Duration(alkaid_schema::TimeUnit::Nanosecond) => {
            primitive!(DurationNanosecondType)
        }
        DataType::Interval(alkaid_schema::IntervalUnit::YearMonth) => {
            primitive!(IntervalYearMonthType)
        }
        DataType::Interval(alkaid_schema::IntervalUnit::DayTime) => primitive!(IntervalDayTimeType),
        DataType::Interval(alkaid_schema::IntervalUnit::MonthDayNano) => {
            primitive!(IntervalMonthDayNanoType)
        }
        DataType::Decimal(decimal) => match decimal.width() {
            alkaid_schema::DecimalWidth::W32 => primitive!(Decimal32Type),
            alkaid_schema::DecimalWidth::W64 => primitive!(Decimal64Type),
            alkaid_schema::DecimalWidth::W128 => primitive!(Decimal128Type),
            alkaid_schema::DecimalWidth::W256 => primitive!(Decimal256Type),
        },
        DataType::Binary => {
            Arc::new(BinaryArray::try_from(data).expect("the data type was matched"))
        }
        DataType::LargeBinary => {
            Arc::new(LargeBinaryArray::try_from(data).expect("the data type was matched"))
        }
        DataType::Utf8 => Arc::new(StringArray::try_from(data).expect("the data type was matched")),
        DataType::LargeUtf8 => {
            Arc::new(LargeStringArray::try_from(data).expect("the data type was matched"))
        }
        DataType::List(_) => {
            Arc::new(ListArray::try_from(data).expect("the data type was matched"))
        }
        DataType::LargeList(_) => {
            Arc::new(LargeListArray::try_from(data).expect("the data type was matched"))
        }
        DataType::FixedSizeBinary(_) => {
            Arc::new(FixedSizeBinaryArray::try_from(data).expect("the data type was matched"))
        }
        DataType::FixedSizeList(..) => {
            Arc::new(FixedSizeListArray::try_from(data).expect("the data type was matched"))
        }
        DataType::Dictionary { key, .. } => match key {
            alkaid_schema::IntegerType::Int8 => dictionary::<Int8Type>(data),
            alkaid_schema::IntegerType::Int16 => dictionary::<Int16Type>(data),
            alkaid_schema::IntegerType::Int32 => dictionary::<Int32Type>(data),
            alkaid_schema::IntegerType::Int64 => dictionary::<Int64Type>(data),
            alkaid_schema::IntegerType::UInt8 => dictionary::<UInt8Type>(data),
            alkaid_schema::IntegerType::UInt16 => dictionary::<UInt16Type>(data),
            alkaid_schema::IntegerType::UInt32 => dictionary::<UInt32Type>(data),
            alkaid_schema::IntegerType::UInt64 => dictionary::<UInt64Type>(data),
        },
        DataType::RunEndEncoded(ree) => match ree.run_end_type() {
            alkaid_schema::RunEndType::Int16 => run::<Int16Type>(data),
            alkaid_schema::RunEndType::Int32 => run::<Int32Type>(data),
            alkaid_schema::RunEndType::Int64 => run::<Int64Type>(data),
        },
        DataType::BinaryView => {
            Arc::new(crate::BinaryViewArray::try_from(data).expect("the data type was matched"))
        }
        DataType::Utf8View => {
            Arc::new(crate::StringViewArray::try_from(data).expect("the data type was matched"))
        }
        DataType::ListView(_) => {
            Arc::new(crate::ListViewArray::try_from(data).expect("the data type was matched"))
        }
        DataType::LargeListView(_) => {
            Arc::new(crate::LargeListViewArray::try_from(data).expect("the data type was matched"))
        }
        DataType::Map(_) => {
            Arc::new(crate::MapArray::try_from(data).expect("the data type was matched"))
        }
        DataType::Union(_) => {
            Arc::new(crate::UnionArray::try_from(data).expect("the data type was matched"))
        }
        DataType::Struct(_) => {
            Arc::new(StructArray::try_from(data).expect("the data type was matched"))
        }
    }
}

fn dictionary<K: crate::DictionaryKey>(data: ArrayData) -> ArrayRef {
    Arc::new(crate::DictionaryArray::<K>::try_from(data).expect("the key type was matched"))
}

fn run<R: crate::RunEndIndex>(data: ArrayData) -> ArrayRef {
    Arc::new(crate::RunArray::<R>::try_from(data).expect("the run end type was matched"))
}

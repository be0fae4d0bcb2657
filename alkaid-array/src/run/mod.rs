//! [`RunArray`]: run-end encoded values.

mod builder;

pub use builder::{ByteRunBuilder, PlainRunBuilder, PrimitiveRunBuilder, StringRunBuilder};

use std::fmt;
use std::sync::Arc;

use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Field, RunEndEncodedType, RunEndType};

use crate::types::{Int16Type, Int32Type, Int64Type, PrimitiveType};
use crate::{Array, ArrayError, ArrayRef, PrimitiveArray, make_array};

/// An integer type that can hold run ends: `i16`, `i32` or `i64`.
pub trait RunEndIndex: PrimitiveType {
    /// The run end type as the schema names it.
    const RUN_END: RunEndType;
    /// The run end as a position, or `None` if it is negative.
    fn to_position(value: Self::Native) -> Option<usize>;
    /// A position as a run end, if it fits.
    fn from_position(position: usize) -> Option<Self::Native>;
}

macro_rules! run_end_index {
    ($($t:ty => $variant:ident),*) => {$(
        impl RunEndIndex for $t {
            const RUN_END: RunEndType = RunEndType::$variant;
            fn to_position(value: Self::Native) -> Option<usize> {
                usize::try_from(value).ok()
            }
            fn from_position(position: usize) -> Option<Self::Native> {
                Self::Native::try_from(position).ok()
            }
        }
    )*};
}
run_end_index!(Int16Type => Int16, Int32Type => Int32, Int64Type => Int64);

/// Run-end encoded values: run `r` covers logical slots up to `run_ends[r]` and holds
/// `values[r]`. Slicing is O(1): it moves a logical window over the runs.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{Array, Int32Array, RunArray, StringArray};
/// use alkaid_array::types::Int32Type;
///
/// // "a" "a" "a" "b" "b"
/// let runs = RunArray::<Int32Type>::try_new(
///     Int32Array::from(vec![3, 5]),
///     Arc::new(StringArray::from(vec!["a", "b"])),
/// )?;
/// assert_eq!(runs.len(), 5);
/// assert_eq!(runs.physical_index(3), 1);
/// assert_eq!(runs.slice_typed(2, 2).physical_index(0), 0);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
pub struct RunArray<R: RunEndIndex> {
    data_type: DataType,
    run_ends: PrimitiveArray<R>,
    values: ArrayRef,
    offset: usize,
    len: usize,
}

impl<R: RunEndIndex> RunArray<R> {
    /// Runs ending at `run_ends`, holding `values`; as long as the last run end.
    ///
    /// # Errors
    /// If run ends are null, not positive or not increasing, or the counts differ.
    pub fn try_new(run_ends: PrimitiveArray<R>, values: ArrayRef) -> Result<Self, ArrayError> {
        let len = match run_ends.len() {
            0 => 0,
            // A negative last run end is rejected by the validation below.
            n => R::to_position(run_ends.value(n - 1)).unwrap_or(0),
        };
        let values_field = Field::new("values", values.data_type().clone(), true);
        let data_type = DataType::RunEndEncoded(RunEndEncodedType::new(R::RUN_END, values_field));
        let data = ArrayData::builder(data_type)
            .len(len)
            .children(vec![run_ends.to_data(), values.to_data()])
            .build()?;
        Self::try_from(data)
    }

    /// Runs of exactly `ree_type` (its child field names, nullability and metadata).
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), and if the children's types are not the type's.
    pub fn try_new_with_type(
        ree_type: RunEndEncodedType,
        run_ends: PrimitiveArray<R>,
        values: ArrayRef,
    ) -> Result<Self, ArrayError> {
        let len = match run_ends.len() {
            0 => 0,
            n => R::to_position(run_ends.value(n - 1)).unwrap_or(0),
        };
        let data = ArrayData::builder(DataType::RunEndEncoded(ree_type))
            .len(len)
            .children(vec![run_ends.to_data(), values.to_data()])
            .build()?;
        Self::try_from(data)
    }

    /// The run ends (of all runs, not only those the window covers).
    pub fn run_ends(&self) -> &PrimitiveArray<R> {
        &self.run_ends
    }

    /// The value of each run.
    pub fn values(&self) -> &ArrayRef {
        &self.values
    }

    /// Logical offset of slot 0 in the runs.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The run that logical slot `i` falls in (binary search over the run ends).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn physical_index(&self, i: usize) -> usize {
        assert!(
            i < self.len,
            "slot {i} out of bounds for length {}",
            self.len
        );
        let position = self.offset + i;
        self.run_ends
            .values()
            .partition_point(|&end| R::to_position(end).is_some_and(|end| end <= position))
    }

    /// Slot `i` as a one-value array of the values' type.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn value(&self, i: usize) -> ArrayRef {
        self.values.slice(self.physical_index(i), 1)
    }

    /// Every logical slot's run index (for reading [`values`](Self::values)).
    pub fn iter_runs(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        (0..self.len).map(|i| self.physical_index(i))
    }

    /// Logical slots `[offset, offset + len)`, sharing the runs.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice_typed(&self, offset: usize, len: usize) -> Self {
        assert!(
            offset.checked_add(len).is_some_and(|end| end <= self.len),
            "slice out of bounds"
        );
        Self {
            data_type: self.data_type.clone(),
            run_ends: self.run_ends.clone(),
            values: Arc::clone(&self.values),
            offset: self.offset + offset,
            len,
        }
    }
}

impl<R: RunEndIndex> Clone for RunArray<R> {
    fn clone(&self) -> Self {
        self.slice_typed(0, self.len)
    }
}

impl<R: RunEndIndex> Array for RunArray<R> {
    // Run-end encoded arrays have no validity of their own; nulls live in the values.
    array_basics!(self => data_type: &self.data_type, len: self.len, nulls: None);

    fn to_data(&self) -> ArrayData {
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.len)
            .offset(self.offset)
            .children(vec![self.run_ends.to_data(), self.values.to_data()]);
        // SAFETY: the run ends were validated (positive, increasing, not null, as many as
        // values) and cover offset + len, which slicing only shrinks.
        unsafe { builder.build_unchecked() }
    }
}

impl<R: RunEndIndex> TryFrom<ArrayData> for RunArray<R> {
    type Error = ArrayError;

    fn try_from(data: ArrayData) -> Result<Self, ArrayError> {
        match data.data_type() {
            DataType::RunEndEncoded(ree) if ree.run_end_type() == R::RUN_END => {}
            other => {
                return Err(ArrayError::TypeMismatch {
                    expected: format!("RunEndEncoded({})", R::NAME),
                    found: other.clone(),
                });
            }
        }
        Ok(Self {
            data_type: data.data_type().clone(),
            run_ends: PrimitiveArray::try_from(data.children()[0].clone())?,
            values: make_array(data.children()[1].clone()),
            offset: data.offset(),
            len: data.len(),
        })
    }
}

impl<R: RunEndIndex> fmt::Debug for RunArray<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RunArray({} slots in {} runs of {})",
            self.len,
            self.run_ends.len(),
            self.data_type
        )
    }
}

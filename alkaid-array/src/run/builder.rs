//! Run builders: append values one at a time; equal neighbours merge into one run.

use std::any::Any;
use std::sync::Arc;

use alkaid_schema::RunEndEncodedType;

use super::{RunArray, RunEndIndex};
use crate::types::PrimitiveType;
use crate::{
    ArrayBuilder, ArrayError, ArrayRef, ByteArrayType, GenericByteBuilder, GenericStringType,
    PrimitiveBuilder,
};

/// The bookkeeping both run builders share: the run ends and the current run.
#[derive(Debug)]
struct Runs<R: RunEndIndex> {
    ends: PrimitiveBuilder<R>,
    /// Logical slots appended so far.
    len: usize,
    /// The exact type to make, if the caller gave one.
    ree_type: Option<RunEndEncodedType>,
}

impl<R: RunEndIndex> Runs<R> {
    fn new() -> Self {
        Self {
            ends: PrimitiveBuilder::with_capacity(0),
            len: 0,
            ree_type: None,
        }
    }

    /// Extends the current run by one slot (`continues`) or starts a new one; returns
    /// whether a new run started.
    ///
    /// # Panics
    /// If the logical length no longer fits the run end type.
    fn push(&mut self, continues: bool) -> bool {
        self.len += 1;
        let end = R::from_position(self.len)
            .expect("run-end encoded array longer than its run end type allows");
        if continues {
            let last = self.ends.len() - 1;
            self.ends.set_last(end, last);
            false
        } else {
            self.ends.append_value(end);
            true
        }
    }

    /// The runs so far with `values` (one per run) as a run array; starts again empty.
    fn finish(&mut self, values: ArrayRef) -> RunArray<R> {
        let ends = self.ends.finish();
        self.len = 0;
        match &self.ree_type {
            Some(ree_type) => RunArray::try_new_with_type(ree_type.clone(), ends, values),
            None => RunArray::try_new(ends, values),
        }
        .expect("runs built in order, with values of the type's own type, are valid")
    }
}

/// Builds a [`RunArray`] of primitive values; equal neighbours (and neighbouring nulls)
/// share a run.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, PrimitiveRunBuilder};
/// use alkaid_array::types::{Int16Type, Int64Type};
/// let mut builder = PrimitiveRunBuilder::<Int16Type, Int64Type>::new();
/// for v in [Some(7), Some(7), None, None, Some(7)] {
///     builder.append_option(v);
/// }
/// let runs = builder.finish();
/// assert_eq!((runs.len(), runs.run_ends().len()), (5, 3));
/// ```
#[derive(Debug)]
pub struct PrimitiveRunBuilder<R: RunEndIndex, V: PrimitiveType> {
    runs: Runs<R>,
    values: PrimitiveBuilder<V>,
    last: Option<Option<V::Native>>,
}

impl<R: RunEndIndex, V: PrimitiveType> PrimitiveRunBuilder<R, V> {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            runs: Runs::new(),
            values: PrimitiveBuilder::with_capacity(0),
            last: None,
        }
    }

    /// Makes runs of exactly `ree_type` (its child fields, and the values' timezone or
    /// decimal precision).
    ///
    /// # Errors
    /// If `V` does not accept the values' data type.
    pub fn with_type(mut self, ree_type: RunEndEncodedType) -> Result<Self, ArrayError> {
        self.values = self
            .values
            .with_data_type(ree_type.values().data_type().clone())?;
        self.runs.ree_type = Some(ree_type);
        Ok(self)
    }

    /// Appends a value or a null.
    ///
    /// # Panics
    /// If the logical length no longer fits the run end type.
    pub fn append_option(&mut self, value: Option<V::Native>) {
        if self.runs.push(self.last == Some(value)) {
            self.values.append_option(value);
            self.last = Some(value);
        }
    }

    /// Appends a value.
    ///
    /// # Panics
    /// As [`append_option`](Self::append_option).
    pub fn append_value(&mut self, value: V::Native) {
        self.append_option(Some(value));
    }

    /// Number of logical slots appended.
    pub fn len(&self) -> usize {
        self.runs.len
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.runs.len == 0
    }

    /// Finishes the array, leaving the builder empty.
    pub fn finish(&mut self) -> RunArray<R> {
        self.last = None;
        self.runs.finish(Arc::new(self.values.finish()))
    }
}

impl<R: RunEndIndex, V: PrimitiveType> Default for PrimitiveRunBuilder<R, V> {
    fn default() -> Self {
        Self::new()
    }
}

/// Builds a [`RunArray`] of strings with offsets `O`; equal neighbours share a run.
pub type StringRunBuilder<R, O> = ByteRunBuilder<R, GenericStringType<O>>;

/// Builds a [`RunArray`] of binary or text values; equal neighbours (and neighbouring
/// nulls) share a run.
///
/// # Examples
/// ```
/// use alkaid_array::{Array, StringRunBuilder};
/// use alkaid_array::types::Int32Type;
/// let mut builder = StringRunBuilder::<Int32Type, i32>::new();
/// for v in ["x", "x", "y"] {
///     builder.append_value(v);
/// }
/// assert_eq!(builder.finish().run_ends().len(), 2);
/// ```
pub struct ByteRunBuilder<R: RunEndIndex, T: ByteArrayType> {
    runs: Runs<R>,
    values: GenericByteBuilder<T>,
    /// The last value appended (its bytes), if any.
    last: Option<Option<Box<[u8]>>>,
}

impl<R: RunEndIndex, T: ByteArrayType> ByteRunBuilder<R, T> {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            runs: Runs::new(),
            values: GenericByteBuilder::with_capacity(0, 0),
            last: None,
        }
    }

    /// Makes runs of exactly `ree_type` (its child field names and metadata); its values
    /// must be this builder's value type.
    pub fn with_type(mut self, ree_type: RunEndEncodedType) -> Self {
        self.runs.ree_type = Some(ree_type);
        self
    }

    /// Appends a value or a null.
    ///
    /// # Panics
    /// If the logical length no longer fits the run end type.
    pub fn append_option(&mut self, value: Option<&T::Native>) {
        let bytes: Option<&[u8]> = value.map(AsRef::as_ref);
        let continues = self
            .last
            .as_ref()
            .is_some_and(|last| last.as_deref() == bytes);
        if self.runs.push(continues) {
            match value {
                Some(value) => self.values.append_native(value),
                None => self.values.append_null(),
            }
            self.last = Some(bytes.map(Into::into));
        }
    }

    /// Appends a value.
    ///
    /// # Panics
    /// As [`append_option`](Self::append_option).
    pub fn append_value(&mut self, value: impl AsRef<T::Native>) {
        self.append_option(Some(value.as_ref()));
    }

    /// Number of logical slots appended.
    pub fn len(&self) -> usize {
        self.runs.len
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.runs.len == 0
    }

    /// Finishes the array, leaving the builder empty.
    pub fn finish(&mut self) -> RunArray<R> {
        self.last = None;
        self.runs.finish(Arc::new(self.values.finish()))
    }
}

impl<R: RunEndIndex, T: ByteArrayType> Default for ByteRunBuilder<R, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: RunEndIndex, V: PrimitiveType> ArrayBuilder for PrimitiveRunBuilder<R, V> {
    fn len(&self) -> usize {
        PrimitiveRunBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.append_option(None);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(PrimitiveRunBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl<R: RunEndIndex, T: ByteArrayType> ArrayBuilder for ByteRunBuilder<R, T> {
    fn len(&self) -> usize {
        ByteRunBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.append_option(None);
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(ByteRunBuilder::finish(self)))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A run builder for any value type that does not merge: each value appended to
/// [`values`](Self::values) becomes a run of one slot, closed by
/// [`append_run`](Self::append_run). What [`make_builder`](crate::make_builder) gives for
/// run-end encoded views and nested values, which cannot be compared as they arrive.
pub struct PlainRunBuilder<R: RunEndIndex> {
    runs: Runs<R>,
    values: Box<dyn ArrayBuilder>,
}

impl<R: RunEndIndex> PlainRunBuilder<R> {
    /// A builder whose run values come from `values`, making arrays of exactly `ree_type`.
    pub fn new(values: Box<dyn ArrayBuilder>, ree_type: RunEndEncodedType) -> Self {
        let mut runs = Runs::new();
        runs.ree_type = Some(ree_type);
        Self { runs, values }
    }

    /// The builder of run values.
    pub fn values(&mut self) -> &mut Box<dyn ArrayBuilder> {
        &mut self.values
    }

    /// Closes a run of one slot over the value just appended to [`values`](Self::values).
    ///
    /// # Errors
    /// If no value was appended for it.
    ///
    /// # Panics
    /// If the logical length no longer fits the run end type.
    pub fn append_run(&mut self) -> Result<(), ArrayError> {
        if self.values.len() != self.runs.ends.len() + 1 {
            return Err(ArrayError::LengthMismatch {
                what: "run values".to_string(),
                expected: self.runs.ends.len() + 1,
                found: self.values.len(),
            });
        }
        self.runs.push(false);
        Ok(())
    }

    /// Number of logical slots appended.
    pub fn len(&self) -> usize {
        self.runs.len
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.runs.len == 0
    }

    /// Finishes the array, leaving the builder empty.
    ///
    /// # Errors
    /// If the values do not make a valid array.
    pub fn finish(&mut self) -> Result<RunArray<R>, ArrayError> {
        let values = self.values.try_finish()?;
        Ok(self.runs.finish(values))
    }
}

impl<R: RunEndIndex> ArrayBuilder for PlainRunBuilder<R> {
    fn len(&self) -> usize {
        PlainRunBuilder::len(self)
    }
    fn append_null(&mut self) {
        self.values.append_null();
        self.append_run()
            .expect("one value was just appended for the run");
    }
    fn try_finish(&mut self) -> Result<ArrayRef, ArrayError> {
        Ok(Arc::new(PlainRunBuilder::finish(self)?))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

//! [`RecordBatch`]: a schema and one column per field, all of one length.

use std::sync::Arc;

use alkaid_schema::{DataType, Schema, SchemaRef};

use alkaid_data::{ArrayData, ValidationLevel};

use crate::{ArrayError, ArrayRef, validate_field};

/// Columns of equal length described by a schema.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use alkaid_array::{Int64Array, RecordBatch, StringArray};
/// use alkaid_schema::{DataType, Field, Schema};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("id", DataType::Int64, false),
///     Field::new("name", DataType::Utf8, true),
/// ]));
/// let batch = RecordBatch::try_new(schema, vec![
///     Arc::new(Int64Array::from(vec![1, 2, 3])),
///     Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])),
/// ])?;
/// assert_eq!(batch.num_rows(), 3);
/// assert_eq!(batch.column_by_name("name")?.null_count(), 1);
/// let tail = batch.slice(1, 2);
/// assert_eq!(tail.column(0).len(), 2);
/// # Ok::<(), alkaid_array::ArrayError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RecordBatch {
    schema: SchemaRef,
    columns: Vec<ArrayRef>,
    num_rows: usize,
}

impl RecordBatch {
    /// A batch of `columns` described by `schema`. The row count is the columns' length.
    ///
    /// # Errors
    /// If there are no columns (use [`try_new_with_rows`](Self::try_new_with_rows)), the
    /// column count differs from the field count, or a column has another length, another
    /// type than its field, or nulls in a non-nullable field; the error names the column.
    pub fn try_new(schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<Self, ArrayError> {
        let Some(first) = columns.first() else {
            return Err(ArrayError::ColumnMismatch {
                column: "batch".to_string(),
                reason: "a batch without columns needs an explicit row count".to_string(),
            });
        };
        let rows = first.len();
        Self::try_new_with_rows(schema, columns, rows)
    }

    /// A batch of `columns` with `num_rows` rows; the only way to make a batch without
    /// columns.
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new).
    pub fn try_new_with_rows(
        schema: SchemaRef,
        columns: Vec<ArrayRef>,
        num_rows: usize,
    ) -> Result<Self, ArrayError> {
        check_columns(&schema, &columns, num_rows, true)?;
        Ok(Self {
            schema,
            columns,
            num_rows,
        })
    }

    /// The batch as one struct array of its columns (how the C interfaces carry a batch),
    /// sharing their memory.
    ///
    /// # Errors
    /// Only if the struct's own structure fails its checks, which a batch's columns meet.
    pub fn to_struct_data(&self) -> Result<ArrayData, ArrayError> {
        let data_type = DataType::Struct(self.schema.fields().clone());
        let children = self.columns.iter().map(|c| c.to_data()).collect();
        let builder = ArrayData::builder(data_type)
            .len(self.num_rows)
            .children(children);
        // SAFETY: a batch's columns are valid arrays of its schema's types with one slot
        // per row (checked when the batch was made); only this level's structure is new.
        Ok(unsafe { builder.build_structural_shallow() }?)
    }

    /// The batch a struct array stands for (the C interfaces carry batches so): its
    /// children, sliced to its offset and length, are the columns of `schema`.
    ///
    /// # Errors
    /// If the struct has null rows (a batch has none), or its children do not fit
    /// `schema`.
    pub fn try_from_struct(schema: SchemaRef, data: &ArrayData) -> Result<Self, ArrayError> {
        if data.null_count() > 0 {
            return Err(ArrayError::Data(alkaid_data::DataError::new(
                alkaid_data::DataErrorKind::InvalidType,
                format!(
                    "a struct with {} null rows cannot be a record batch",
                    data.null_count()
                ),
            )));
        }
        let (offset, len) = (data.offset(), data.len());
        let columns = data
            .children()
            .iter()
            .map(|child| crate::make_array(child.slice(offset, len)))
            .collect();
        Self::try_new_with_rows(schema, columns, len)
    }

    /// A batch of `columns` checked as `options` say: readers of data written elsewhere
    /// accept nulls in non-nullable fields (the format calls nullability metadata).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use alkaid_array::{ArrayRef, Int32Array, RecordBatch, RecordBatchOptions};
    /// use alkaid_schema::{DataType, Field, Schema};
    ///
    /// let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int32, false)]));
    /// let column: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
    /// assert!(RecordBatch::try_new(schema.clone(), vec![column.clone()]).is_err());
    /// let options = RecordBatchOptions { num_rows: Some(2), check_nullability: false };
    /// let batch = RecordBatch::try_new_with_options(schema, vec![column], &options)?;
    /// assert_eq!(batch.column(0).null_count(), 1);
    /// # Ok::<(), alkaid_array::ArrayError>(())
    /// ```
    ///
    /// # Errors
    /// As [`try_new`](Self::try_new), nullability only when `options` asks for it.
    pub fn try_new_with_options(
        schema: SchemaRef,
        columns: Vec<ArrayRef>,
        options: &RecordBatchOptions,
    ) -> Result<Self, ArrayError> {
        let num_rows = match (options.num_rows, columns.first()) {
            (Some(rows), _) => rows,
            (None, Some(first)) => first.len(),
            (None, None) => {
                return Err(ArrayError::ColumnMismatch {
                    column: "batch".to_string(),
                    reason: "a batch without columns needs an explicit row count".to_string(),
                });
            }
        };
        check_columns(&schema, &columns, num_rows, options.check_nullability)?;
        Ok(Self {
            schema,
            columns,
            num_rows,
        })
    }

    /// A batch made without checking that the columns match the schema: for decoders that
    /// build each column from its field's own type and check the rest as they go, where
    /// comparing every column's type again would be pure cost. Debug builds still check.
    ///
    /// Nullability is not part of the contract: the format calls it metadata, and readers
    /// hand out what a file holds, nulls in a non-nullable field included (as Arrow C++
    /// does); [`validate`](Self::validate) at `Strict` finds them.
    ///
    /// # Safety
    /// One column per field, each of its field's type and of `num_rows` rows, as
    /// [`try_new_with_rows`](Self::try_new_with_rows) checks. Code that reads a batch
    /// (downcasting a column by its field's type, say) relies on it.
    pub unsafe fn new_unchecked(
        schema: SchemaRef,
        columns: Vec<ArrayRef>,
        num_rows: usize,
    ) -> Self {
        #[cfg(debug_assertions)]
        if let Err(e) = check_columns(&schema, &columns, num_rows, false) {
            panic!("RecordBatch::new_unchecked on a mismatched batch: {e}");
        }
        Self {
            schema,
            columns,
            num_rows,
        }
    }

    /// Validates every column against its field at `level` (see [`validate_field`]): at
    /// [`ValidationLevel::Strict`], nulls in a non-nullable field at any depth and
    /// `arrow.json` values that are not JSON are errors too.
    ///
    /// # Errors
    /// The first problem, naming the column.
    pub fn validate(&self, level: ValidationLevel) -> Result<(), ArrayError> {
        for (field, column) in self.schema.fields().iter().zip(&self.columns) {
            validate_field(field, &column.to_data(), level)?;
        }
        Ok(())
    }

    /// The schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.num_rows
    }

    /// Number of columns.
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }

    /// The columns.
    pub fn columns(&self) -> &[ArrayRef] {
        &self.columns
    }

    /// Column `i`.
    ///
    /// # Panics
    /// If `i >= self.num_columns()`.
    pub fn column(&self, i: usize) -> &ArrayRef {
        &self.columns[i]
    }

    /// The one column named `name`.
    ///
    /// # Errors
    /// If no field or several fields have the name.
    pub fn column_by_name(&self, name: &str) -> Result<&ArrayRef, ArrayError> {
        Ok(&self.columns[self.schema.index_of(name)?])
    }

    /// The columns at `indices`, in that order.
    ///
    /// # Errors
    /// For an index past the last column.
    pub fn project(&self, indices: &[usize]) -> Result<RecordBatch, ArrayError> {
        let schema: Schema = self.schema.project(indices)?;
        let columns = indices
            .iter()
            .map(|&i| Arc::clone(&self.columns[i]))
            .collect();
        Ok(Self {
            schema: Arc::new(schema),
            columns,
            num_rows: self.num_rows,
        })
    }

    /// Rows `[offset, offset + len)`, sharing memory.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn slice(&self, offset: usize, len: usize) -> RecordBatch {
        assert!(
            offset
                .checked_add(len)
                .is_some_and(|end| end <= self.num_rows),
            "slice of {len} rows at {offset} is out of bounds for {} rows",
            self.num_rows
        );
        let columns = self.columns.iter().map(|c| c.slice(offset, len)).collect();
        Self {
            schema: Arc::clone(&self.schema),
            columns,
            num_rows: len,
        }
    }
}

/// How [`RecordBatch::try_new_with_options`] builds a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordBatchOptions {
    /// The row count; `None` takes the first column's length.
    pub num_rows: Option<usize>,
    /// Whether nulls in a non-nullable field are an error (at the top level).
    pub check_nullability: bool,
}

impl Default for RecordBatchOptions {
    fn default() -> Self {
        Self {
            num_rows: None,
            check_nullability: true,
        }
    }
}

/// What a batch's constructors check: one column per field, each of its field's type and of
/// `num_rows` rows, and with `nullability`, no nulls in a column whose field is not nullable.
fn check_columns(
    schema: &Schema,
    columns: &[ArrayRef],
    num_rows: usize,
    nullability: bool,
) -> Result<(), ArrayError> {
    let fields = schema.fields();
    if columns.len() != fields.len() {
        return Err(ArrayError::ColumnMismatch {
            column: "batch".to_string(),
            reason: format!(
                "expected {} columns for the schema, found {}",
                fields.len(),
                columns.len()
            ),
        });
    }
    for (i, (column, field)) in columns.iter().zip(fields.iter()).enumerate() {
        // Named only when something is wrong: batches are built in hot loops.
        let name = || format!("column {i} ({:?})", field.name());
        if column.len() != num_rows {
            return Err(ArrayError::LengthMismatch {
                what: name(),
                expected: num_rows,
                found: column.len(),
            });
        }
        if column.data_type() != field.data_type() {
            return Err(ArrayError::ColumnMismatch {
                column: name(),
                reason: format!(
                    "expected type {}, found {}",
                    field.data_type(),
                    column.data_type()
                ),
            });
        }
        // A Null column's nulls are its type's (see `check_nullability`).
        let null_type = column.data_type() == &DataType::Null;
        if nullability && !field.is_nullable() && !null_type && column.null_count() > 0 {
            return Err(ArrayError::ColumnMismatch {
                column: name(),
                reason: format!("field is not nullable, found {} nulls", column.null_count()),
            });
        }
    }
    Ok(())
}

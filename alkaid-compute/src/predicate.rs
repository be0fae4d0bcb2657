//! [`Predicate`]: a condition on a batch's columns, such as a `WHERE` clause, in terms this
//! crate's kernels evaluate. Comparisons of columns with literals or other columns,
//! `IS [NOT] NULL`, `IS [NOT] DISTINCT FROM`, a boolean column on its own, and `AND`, `OR`,
//! `NOT` of those, with SQL's three-valued logic.
//!
//! A predicate names columns, not positions, so that one predicate serves every file of a
//! table whose columns come in different orders. Readers use it twice: against statistics
//! (Parquet row groups and pages) to skip what cannot match, then on the decoded rows.
//!
//! ```
//! use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
//! use alkaid_compute::predicate::{Comparison, Operand, Predicate};
//! use alkaid_schema::{DataType, Field, Schema};
//! use std::sync::Arc;
//!
//! let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
//! let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(5)]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![a]).unwrap();
//! let a_over_2 = Predicate::compare(Operand::column("a"), Comparison::Gt, Operand::literal(2));
//! a_over_2.check(&schema).unwrap();
//! let rows = a_over_2.evaluate(&batch).unwrap();
//! assert_eq!(rows.iter().collect::<Vec<_>>(), [Some(false), None, Some(true)]);
//! ```

use std::collections::BTreeSet;
use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, BooleanArray, Datum, RecordBatch, Scalar, make_array};
use alkaid_data::ArrayData;
use alkaid_schema::{DataType, Schema};

use crate::error::ComputeError;

/// A condition on a batch's columns.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// `left op right`.
    Compare(Comparison, Operand, Operand),
    /// SQL's `AND`.
    And(Box<Predicate>, Box<Predicate>),
    /// SQL's `OR`.
    Or(Box<Predicate>, Box<Predicate>),
    /// SQL's `NOT`.
    Not(Box<Predicate>),
    /// `IS NULL`.
    IsNull(Operand),
    /// `IS NOT NULL`.
    IsNotNull(Operand),
    /// A boolean column or literal on its own.
    Value(Operand),
}

/// A comparison of two values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `=`
    Eq,
    /// `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
    /// `IS DISTINCT FROM`
    Distinct,
    /// `IS NOT DISTINCT FROM`
    NotDistinct,
}

/// One side of a comparison: a column, by name, or a literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// The column of this name.
    Column(String),
    /// One value for every row.
    Literal(Scalar),
}

impl Operand {
    /// The column named `name`.
    pub fn column(name: impl Into<String>) -> Self {
        Self::Column(name.into())
    }

    /// The literal `value`.
    pub fn literal(value: impl Into<Scalar>) -> Self {
        Self::Literal(value.into())
    }

    fn add_column(&self, names: &mut BTreeSet<String>) {
        if let Self::Column(name) = self {
            names.insert(name.clone());
        }
    }
}

impl Comparison {
    /// The comparison with its sides swapped: `a < b` is `b > a`.
    pub fn flipped(self) -> Self {
        match self {
            Self::Lt => Self::Gt,
            Self::LtEq => Self::GtEq,
            Self::Gt => Self::Lt,
            Self::GtEq => Self::LtEq,
            symmetric => symmetric,
        }
    }

    /// `left op right`, row by row (a datum of one value stands for every row).
    ///
    /// # Errors
    /// If the kernel does not take the two types.
    pub fn apply(self, left: &dyn Datum, right: &dyn Datum) -> Result<BooleanArray, ComputeError> {
        let kernel = match self {
            Self::Eq => crate::cmp::eq,
            Self::NotEq => crate::cmp::neq,
            Self::Lt => crate::cmp::lt,
            Self::LtEq => crate::cmp::lt_eq,
            Self::Gt => crate::cmp::gt,
            Self::GtEq => crate::cmp::gt_eq,
            Self::Distinct => crate::cmp::distinct,
            Self::NotDistinct => crate::cmp::not_distinct,
        };
        kernel(left, right)
    }
}

impl Predicate {
    /// `left op right`.
    pub fn compare(left: Operand, op: Comparison, right: Operand) -> Self {
        Self::Compare(op, left, right)
    }

    /// `self AND other`.
    pub fn and(self, other: Predicate) -> Self {
        Self::And(Box::new(self), Box::new(other))
    }

    /// `self OR other`.
    pub fn or(self, other: Predicate) -> Self {
        Self::Or(Box::new(self), Box::new(other))
    }

    /// `NOT self`.
    #[allow(clippy::should_implement_trait)] // Reads as SQL; `!predicate` would not.
    pub fn not(self) -> Self {
        Self::Not(Box::new(self))
    }

    /// Checks that the predicate can be evaluated on batches of `schema`: every column it
    /// names is there, every comparison is one the kernels take (each is run on empty
    /// arrays of the columns' types), and the whole is boolean.
    ///
    /// # Errors
    /// What the predicate names that `schema` lacks, or the kernel's refusal.
    pub fn check(&self, schema: &Schema) -> Result<(), ComputeError> {
        let result = self.evaluate_with(&mut |operand| match operand {
            Operand::Column(name) => {
                let field = schema.field_with_name(name).map_err(|_| missing(name))?;
                Ok(Evaluated::Array(make_array(ArrayData::new_empty(
                    field.data_type(),
                ))))
            }
            Operand::Literal(scalar) => Ok(Evaluated::Scalar(scalar.clone())),
        })?;
        match result.data_type() {
            DataType::Boolean => Ok(()),
            other => Err(not_boolean(other)),
        }
    }

    /// The names of the columns the predicate reads.
    pub fn columns(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        self.add_columns(&mut names);
        names
    }

    fn add_columns(&self, names: &mut BTreeSet<String>) {
        match self {
            Self::Compare(_, left, right) => {
                left.add_column(names);
                right.add_column(names);
            }
            Self::And(left, right) | Self::Or(left, right) => {
                left.add_columns(names);
                right.add_columns(names);
            }
            Self::Not(inner) => inner.add_columns(names),
            Self::IsNull(operand) | Self::IsNotNull(operand) | Self::Value(operand) => {
                operand.add_column(names)
            }
        }
    }

    /// The predicate on each row of `batch` (which holds every column it reads, by name):
    /// true, false, or null where SQL's logic gives unknown. A `WHERE` clause keeps the
    /// true rows only.
    ///
    /// # Errors
    /// A column the batch lacks, or the kernel's refusal of a comparison.
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<BooleanArray, ComputeError> {
        let rows = batch.num_rows();
        let result = self.evaluate_with(&mut |operand| match operand {
            Operand::Column(name) => batch
                .column_by_name(name)
                .ok()
                .cloned()
                .map(Evaluated::Array)
                .ok_or_else(|| missing(name)),
            Operand::Literal(scalar) => Ok(Evaluated::Scalar(scalar.clone())),
        })?;
        // A predicate of literals alone is one value for every row.
        match result.len() == rows {
            true => Ok(result),
            false => Ok(BooleanArray::from(vec![
                result.iter().next().flatten();
                rows
            ])),
        }
    }

    /// The predicate evaluated, with `operand` giving each operand's values.
    fn evaluate_with(
        &self,
        operand: &mut dyn FnMut(&Operand) -> Result<Evaluated, ComputeError>,
    ) -> Result<BooleanArray, ComputeError> {
        match self {
            Self::Compare(comparison, left, right) => {
                let (left, right) = (operand(left)?, operand(right)?);
                comparison.apply(left.datum(), right.datum())
            }
            Self::And(left, right) => {
                let (left, right) = (left.evaluate_with(operand)?, right.evaluate_with(operand)?);
                crate::boolean::and_kleene(&left, &right)
            }
            Self::Or(left, right) => {
                let (left, right) = (left.evaluate_with(operand)?, right.evaluate_with(operand)?);
                crate::boolean::or_kleene(&left, &right)
            }
            Self::Not(inner) => crate::boolean::not(&inner.evaluate_with(operand)?),
            Self::IsNull(value) => crate::cmp::is_null(operand(value)?.array().as_ref()),
            Self::IsNotNull(value) => crate::cmp::is_not_null(operand(value)?.array().as_ref()),
            Self::Value(value) => {
                let array = operand(value)?.array();
                array
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .cloned()
                    .ok_or_else(|| not_boolean(array.data_type()))
            }
        }
    }
}

fn missing(name: &str) -> ComputeError {
    ComputeError::InvalidArgument(format!(
        "the predicate names a column {name:?} that is not there"
    ))
}

fn not_boolean(data_type: &DataType) -> ComputeError {
    ComputeError::Unsupported {
        kernel: "predicate",
        message: format!("expected a boolean value, found {data_type}"),
    }
}

/// An operand's values: a column, or a literal (one value for every row).
enum Evaluated {
    Array(ArrayRef),
    Scalar(Scalar),
}

impl Evaluated {
    fn datum(&self) -> &dyn Datum {
        match self {
            Self::Array(array) => array,
            Self::Scalar(scalar) => scalar,
        }
    }

    /// The values as an array (a literal's one slot).
    fn array(&self) -> ArrayRef {
        match self {
            Self::Array(array) => Arc::clone(array),
            Self::Scalar(scalar) => Arc::clone(scalar.array()),
        }
    }
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Int32Array, StringArray};
    use alkaid_schema::Field;

    use super::*;

    fn batch() -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![Some(1), None, Some(5)])),
            Arc::new(StringArray::from(vec![Some("x"), Some("y"), None])),
        ];
        RecordBatch::try_new(schema, columns).unwrap()
    }

    fn a_gt(value: i32) -> Predicate {
        Predicate::compare(
            Operand::column("a"),
            Comparison::Gt,
            Operand::literal(value),
        )
    }

    #[test]
    fn comparisons_and_logic_follow_sql() {
        let either = a_gt(2).or(Predicate::IsNull(Operand::column("s")));
        let result = either.evaluate(&batch()).unwrap();
        assert_eq!(
            result.iter().collect::<Vec<_>>(),
            [Some(false), None, Some(true)]
        );
        let neither = either.clone().not();
        assert_eq!(
            neither
                .evaluate(&batch())
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            [Some(true), None, Some(false)]
        );
        let distinct = Predicate::compare(
            Operand::column("a"),
            Comparison::Distinct,
            Operand::literal(1),
        );
        assert_eq!(
            distinct
                .evaluate(&batch())
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            [Some(false), Some(true), Some(true)]
        );
        assert_eq!(either.columns().into_iter().collect::<Vec<_>>(), ["a", "s"]);
    }

    #[test]
    fn check_refuses_what_the_kernels_do_not_take() {
        let batch = batch();
        let schema = batch.schema();
        assert!(a_gt(2).check(schema).is_ok());
        let mixed = Predicate::compare(Operand::column("a"), Comparison::Eq, Operand::literal("1"));
        assert!(mixed.check(schema).is_err());
        let absent = Predicate::IsNull(Operand::column("zz"));
        let error = absent.check(schema).unwrap_err().to_string();
        assert!(error.contains("\"zz\""), "{error}");
        assert!(
            Predicate::Value(Operand::column("a"))
                .check(schema)
                .is_err()
        );
    }

    #[test]
    fn a_predicate_of_literals_holds_for_every_row_or_none() {
        let always = Predicate::compare(Operand::literal(1), Comparison::Lt, Operand::literal(2));
        assert_eq!(always.evaluate(&batch()).unwrap().true_count(), 3);
        let never = always.not();
        assert_eq!(never.evaluate(&batch()).unwrap().true_count(), 0);
    }

    #[test]
    fn flipping_swaps_the_sides() {
        let batch = batch();
        for op in [
            Comparison::Eq,
            Comparison::NotEq,
            Comparison::Lt,
            Comparison::LtEq,
            Comparison::Gt,
            Comparison::GtEq,
            Comparison::Distinct,
            Comparison::NotDistinct,
        ] {
            let a = batch.column(0);
            let two = Scalar::from(2i32);
            let forward = op.apply(a, &two).unwrap();
            let back = op.flipped().apply(&two, a).unwrap();
            assert_eq!(forward, back, "{op:?}");
        }
    }
}

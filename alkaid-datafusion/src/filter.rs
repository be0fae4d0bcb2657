//! Filters evaluated by the scan with Alkaid's kernels: comparisons of columns with
//! literals or other columns, `IS [NOT] NULL`, `IS [NOT] DISTINCT FROM`, and `AND`, `OR`,
//! `NOT` of those (SQL's three-valued logic). DataFusion offers the scan each filter of a
//! query; those this module can translate are evaluated on every batch in Alkaid's arrays,
//! before the batch crosses to arrow-rs, and only the rows that pass cross (DataFusion then
//! drops its own filter). Anything else (arithmetic, casts, functions, `LIKE`) stays with
//! DataFusion.
//!
//! A translated filter is checked before the scan accepts it: its comparisons are run on
//! empty arrays of the columns' types, so that a combination the kernels do not take is
//! refused at planning, not failed at run time.

use std::collections::BTreeSet;
use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, BooleanArray, Datum, RecordBatch, Scalar, make_array};
use alkaid_compute::ComputeError;
use alkaid_data::ArrayData;
use datafusion::arrow::datatypes::Schema;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{
    BinaryExpr, Column, IsNotNullExpr, IsNullExpr, Literal, NotExpr,
};
use datafusion::physical_plan::PhysicalExpr;

/// A predicate over a batch's columns, in terms Alkaid's kernels evaluate.
#[derive(Debug, Clone)]
pub(crate) enum Predicate {
    /// `left op right`.
    Compare(Comparison, Operand, Operand),
    /// SQL's `AND`.
    And(Box<Predicate>, Box<Predicate>),
    /// SQL's `OR`.
    Or(Box<Predicate>, Box<Predicate>),
    /// `NOT`.
    Not(Box<Predicate>),
    /// `IS NULL`, or with `false`, `IS NOT NULL`.
    IsNull(Operand, bool),
    /// A boolean column or literal on its own.
    Value(Operand),
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comparison {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Distinct,
    NotDistinct,
}

/// One side of a comparison: a column of the file, by name, or a literal.
#[derive(Debug, Clone)]
pub(crate) enum Operand {
    Column(String),
    Literal(Scalar),
}

impl Predicate {
    /// The predicate `expr` stands for, if the scan can evaluate it: its columns are the
    /// file's (`file_schema`), and every comparison is one the kernels take.
    pub fn translate(expr: &Arc<dyn PhysicalExpr>, file_schema: &Schema) -> Option<Self> {
        let predicate = Self::from_expr(expr, file_schema)?;
        predicate.check(file_schema).then_some(predicate)
    }

    fn from_expr(expr: &Arc<dyn PhysicalExpr>, file_schema: &Schema) -> Option<Self> {
        if let Some(binary) = expr.downcast_ref::<BinaryExpr>() {
            let side = |e| Self::from_expr(e, file_schema).map(Box::new);
            let comparison = match binary.op() {
                Operator::And => {
                    return Some(Self::And(side(binary.left())?, side(binary.right())?));
                }
                Operator::Or => return Some(Self::Or(side(binary.left())?, side(binary.right())?)),
                Operator::Eq => Comparison::Eq,
                Operator::NotEq => Comparison::NotEq,
                Operator::Lt => Comparison::Lt,
                Operator::LtEq => Comparison::LtEq,
                Operator::Gt => Comparison::Gt,
                Operator::GtEq => Comparison::GtEq,
                Operator::IsDistinctFrom => Comparison::Distinct,
                Operator::IsNotDistinctFrom => Comparison::NotDistinct,
                _ => return None,
            };
            let operand = |e| Operand::from_expr(e, file_schema);
            return Some(Self::Compare(
                comparison,
                operand(binary.left())?,
                operand(binary.right())?,
            ));
        }
        if let Some(not) = expr.downcast_ref::<NotExpr>() {
            return Some(Self::Not(Box::new(Self::from_expr(
                not.arg(),
                file_schema,
            )?)));
        }
        if let Some(is_null) = expr.downcast_ref::<IsNullExpr>() {
            return Some(Self::IsNull(
                Operand::from_expr(is_null.arg(), file_schema)?,
                true,
            ));
        }
        if let Some(is_not_null) = expr.downcast_ref::<IsNotNullExpr>() {
            return Some(Self::IsNull(
                Operand::from_expr(is_not_null.arg(), file_schema)?,
                false,
            ));
        }
        let value = Operand::from_expr(expr, file_schema)?;
        Some(Self::Value(value))
    }

    /// Whether the kernels take every step of the predicate: each is run on empty arrays
    /// of the file's column types (and the literals), and a boolean value must be boolean.
    fn check(&self, file_schema: &Schema) -> bool {
        let empty = |operand: &Operand| -> Option<Evaluated> {
            match operand {
                Operand::Column(name) => {
                    let field = file_schema.field_with_name(name).ok()?;
                    let data_type =
                        alkaid_arrow::arrow59::data_type_from_arrow(field.data_type()).ok()?;
                    Some(Evaluated::Array(make_array(ArrayData::new_empty(
                        &data_type,
                    ))))
                }
                Operand::Literal(scalar) => Some(Evaluated::Scalar(scalar.clone())),
            }
        };
        self.evaluate_with(&mut |operand| empty(operand).ok_or_else(missing_column))
            .is_ok_and(|result| result.data_type() == &alkaid_schema::DataType::Boolean)
    }

    /// The names of the columns the predicate reads.
    pub fn columns(&self, names: &mut BTreeSet<String>) {
        match self {
            Self::Compare(_, left, right) => {
                left.column(names);
                right.column(names);
            }
            Self::And(left, right) | Self::Or(left, right) => {
                left.columns(names);
                right.columns(names);
            }
            Self::Not(inner) => inner.columns(names),
            Self::IsNull(operand, _) | Self::Value(operand) => operand.column(names),
        }
    }

    /// The rows of `batch` (which holds every column the predicate reads) where the
    /// predicate is true: a null is false, as in a `WHERE` clause.
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<BooleanArray, ComputeError> {
        let rows = batch.num_rows();
        let result = self.evaluate_with(&mut |operand| match operand {
            Operand::Column(name) => batch
                .column_by_name(name)
                .ok()
                .cloned()
                .map(Evaluated::Array)
                .ok_or_else(missing_column),
            Operand::Literal(scalar) => Ok(Evaluated::Scalar(scalar.clone())),
        })?;
        // A predicate of literals alone is one value for every row.
        match result.len() {
            len if len == rows => Ok(result),
            _ => {
                let keep = result.is_valid(0) && result.value(0);
                Ok(BooleanArray::from(vec![keep; rows]))
            }
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
                let kernel = match comparison {
                    Comparison::Eq => alkaid_compute::eq,
                    Comparison::NotEq => alkaid_compute::neq,
                    Comparison::Lt => alkaid_compute::lt,
                    Comparison::LtEq => alkaid_compute::lt_eq,
                    Comparison::Gt => alkaid_compute::gt,
                    Comparison::GtEq => alkaid_compute::gt_eq,
                    Comparison::Distinct => alkaid_compute::distinct,
                    Comparison::NotDistinct => alkaid_compute::not_distinct,
                };
                kernel(left.datum(), right.datum())
            }
            Self::And(left, right) => {
                let (left, right) = (left.evaluate_with(operand)?, right.evaluate_with(operand)?);
                alkaid_compute::and_kleene(&left, &right)
            }
            Self::Or(left, right) => {
                let (left, right) = (left.evaluate_with(operand)?, right.evaluate_with(operand)?);
                alkaid_compute::or_kleene(&left, &right)
            }
            Self::Not(inner) => alkaid_compute::not(&inner.evaluate_with(operand)?),
            Self::IsNull(value, null) => {
                let value = operand(value)?;
                let array = value.array();
                match null {
                    true => alkaid_compute::is_null(array.as_ref()),
                    false => alkaid_compute::is_not_null(array.as_ref()),
                }
            }
            Self::Value(value) => {
                let array = operand(value)?.array();
                array
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .cloned()
                    .ok_or_else(|| ComputeError::Unsupported {
                        kernel: "filter",
                        message: format!("expected a boolean value, found {}", array.data_type()),
                    })
            }
        }
    }
}

fn missing_column() -> ComputeError {
    ComputeError::InvalidArgument("a filter names a column the scan did not read".into())
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

impl Operand {
    fn from_expr(expr: &Arc<dyn PhysicalExpr>, file_schema: &Schema) -> Option<Self> {
        if let Some(column) = expr.downcast_ref::<Column>() {
            // Partition columns (past the file's own) are not in the files.
            let field = file_schema.fields().get(column.index())?;
            return (field.name() == column.name())
                .then(|| Self::Column(column.name().to_string()));
        }
        let literal = expr.downcast_ref::<Literal>()?;
        let array = literal.value().to_array().ok()?;
        let array = alkaid_arrow::arrow59::array_from_arrow(array.as_ref()).ok()?;
        Scalar::try_new(array).ok().map(Self::Literal)
    }

    fn column(&self, names: &mut BTreeSet<String>) {
        if let Self::Column(name) = self {
            names.insert(name.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use alkaid_array::{Int32Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field};
    use datafusion::common::ScalarValue;
    use datafusion::physical_expr::expressions::lit;

    use super::*;

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ])
    }

    fn column(name: &str, index: usize) -> Arc<dyn PhysicalExpr> {
        Arc::new(Column::new(name, index))
    }

    fn binary(
        left: Arc<dyn PhysicalExpr>,
        op: Operator,
        right: Arc<dyn PhysicalExpr>,
    ) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(left, op, right))
    }

    fn batch() -> RecordBatch {
        let schema = Arc::new(alkaid_schema::Schema::new(vec![
            alkaid_schema::Field::new("a", alkaid_schema::DataType::Int32, true),
            alkaid_schema::Field::new("s", alkaid_schema::DataType::Utf8, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![Some(1), None, Some(5)])),
            Arc::new(StringArray::from(vec![Some("x"), Some("y"), None])),
        ];
        RecordBatch::try_new(schema, columns).unwrap()
    }

    #[test]
    fn comparisons_and_logic_evaluate_with_sql_semantics() {
        let a_gt_2 = binary(
            column("a", 0),
            Operator::Gt,
            lit(ScalarValue::Int32(Some(2))),
        );
        let s_is_null = Arc::new(IsNullExpr::new(column("s", 1))) as Arc<dyn PhysicalExpr>;
        let either = binary(a_gt_2, Operator::Or, s_is_null);
        let predicate = Predicate::translate(&either, &schema()).unwrap();
        let result = predicate.evaluate(&batch()).unwrap();
        assert_eq!(
            result.iter().collect::<Vec<_>>(),
            [Some(false), None, Some(true)]
        );
        let mut names = BTreeSet::new();
        predicate.columns(&mut names);
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["a", "s"]);
    }

    #[test]
    fn what_the_kernels_do_not_take_stays_with_datafusion() {
        // Types that do not compare: refused at planning.
        let mixed = binary(
            column("a", 0),
            Operator::Eq,
            lit(ScalarValue::Utf8(Some("1".into()))),
        );
        assert!(Predicate::translate(&mixed, &schema()).is_none());
        // Arithmetic.
        let plus = binary(
            column("a", 0),
            Operator::Plus,
            lit(ScalarValue::Int32(Some(1))),
        );
        let compared = binary(plus, Operator::Gt, lit(ScalarValue::Int32(Some(2))));
        assert!(Predicate::translate(&compared, &schema()).is_none());
        // A non-boolean value on its own.
        assert!(Predicate::translate(&column("a", 0), &schema()).is_none());
        // A column past the file's (a partition column).
        let partition = binary(
            column("p", 2),
            Operator::Eq,
            lit(ScalarValue::Int32(Some(1))),
        );
        assert!(Predicate::translate(&partition, &schema()).is_none());
    }

    #[test]
    fn a_predicate_of_literals_holds_for_every_row_or_none() {
        let always = binary(
            lit(ScalarValue::Int32(Some(1))),
            Operator::Lt,
            lit(ScalarValue::Int32(Some(2))),
        );
        let predicate = Predicate::translate(&always, &schema()).unwrap();
        assert_eq!(predicate.evaluate(&batch()).unwrap().true_count(), 3);
    }
}

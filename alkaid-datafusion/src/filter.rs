//! Filters evaluated by the scan with Alkaid's kernels: DataFusion's physical expressions
//! translated into [`alkaid_compute::Predicate`]s (comparisons of columns with literals or
//! other columns, `IS [NOT] NULL`, `IS [NOT] DISTINCT FROM`, and `AND`, `OR`, `NOT` of those).
//! DataFusion offers the scan each filter of a query; those this module can translate are
//! evaluated on every batch in Alkaid's arrays, before the batch crosses to arrow-rs, and
//! only the rows that pass cross (DataFusion then drops its own filter). Anything else
//! (arithmetic, casts, functions, `LIKE`) stays with DataFusion.
//!
//! A translated filter is checked before the scan accepts it
//! ([`Predicate::check`](alkaid_compute::Predicate::check) on the file's schema), so that a
//! combination the kernels do not take is refused at planning, not failed at run time.

use std::sync::Arc;

use alkaid_array::Scalar;
use alkaid_compute::predicate::{Comparison, Operand, Predicate};
use datafusion::arrow::datatypes::Schema;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{
    BinaryExpr, Column, IsNotNullExpr, IsNullExpr, Literal, NotExpr,
};
use datafusion::physical_plan::PhysicalExpr;

/// The predicate `expr` stands for, if the scan can evaluate it: its columns are the file's
/// (`file_schema`), and every comparison is one the kernels take.
pub(crate) fn translate(expr: &Arc<dyn PhysicalExpr>, file_schema: &Schema) -> Option<Predicate> {
    let predicate = from_expr(expr, file_schema)?;
    let schema = alkaid_arrow::arrow59::schema_from_arrow(file_schema).ok()?;
    predicate.check(&schema).ok().map(|()| predicate)
}

fn from_expr(expr: &Arc<dyn PhysicalExpr>, file_schema: &Schema) -> Option<Predicate> {
    if let Some(binary) = expr.downcast_ref::<BinaryExpr>() {
        let side = |e| from_expr(e, file_schema);
        let comparison = match binary.op() {
            Operator::And => return Some(side(binary.left())?.and(side(binary.right())?)),
            Operator::Or => return Some(side(binary.left())?.or(side(binary.right())?)),
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
        let operand = |e| operand(e, file_schema);
        return Some(Predicate::compare(
            operand(binary.left())?,
            comparison,
            operand(binary.right())?,
        ));
    }
    if let Some(not) = expr.downcast_ref::<NotExpr>() {
        return Some(from_expr(not.arg(), file_schema)?.not());
    }
    if let Some(is_null) = expr.downcast_ref::<IsNullExpr>() {
        return Some(Predicate::IsNull(operand(is_null.arg(), file_schema)?));
    }
    if let Some(is_not_null) = expr.downcast_ref::<IsNotNullExpr>() {
        return Some(Predicate::IsNotNull(operand(
            is_not_null.arg(),
            file_schema,
        )?));
    }
    Some(Predicate::Value(operand(expr, file_schema)?))
}

fn operand(expr: &Arc<dyn PhysicalExpr>, file_schema: &Schema) -> Option<Operand> {
    if let Some(column) = expr.downcast_ref::<Column>() {
        // Partition columns (past the file's own) are not in the files.
        let field = file_schema.fields().get(column.index())?;
        return (field.name() == column.name()).then(|| Operand::column(column.name()));
    }
    let literal = expr.downcast_ref::<Literal>()?;
    let array = literal.value().to_array().ok()?;
    let array = alkaid_arrow::arrow59::array_from_arrow(array.as_ref()).ok()?;
    Scalar::try_new(array).ok().map(Operand::Literal)
}

#[cfg(test)]
mod tests {
    use alkaid_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
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
        let predicate = translate(&either, &schema()).unwrap();
        let result = predicate.evaluate(&batch()).unwrap();
        assert_eq!(
            result.iter().collect::<Vec<_>>(),
            [Some(false), None, Some(true)]
        );
        assert_eq!(
            predicate.columns().into_iter().collect::<Vec<_>>(),
            ["a", "s"]
        );
    }

    #[test]
    fn what_the_kernels_do_not_take_stays_with_datafusion() {
        // Types that do not compare: refused at planning.
        let mixed = binary(
            column("a", 0),
            Operator::Eq,
            lit(ScalarValue::Utf8(Some("1".into()))),
        );
        assert!(translate(&mixed, &schema()).is_none());
        // Arithmetic.
        let plus = binary(
            column("a", 0),
            Operator::Plus,
            lit(ScalarValue::Int32(Some(1))),
        );
        let compared = binary(plus, Operator::Gt, lit(ScalarValue::Int32(Some(2))));
        assert!(translate(&compared, &schema()).is_none());
        // A non-boolean value on its own.
        assert!(translate(&column("a", 0), &schema()).is_none());
        // A column past the file's (a partition column).
        let partition = binary(
            column("p", 2),
            Operator::Eq,
            lit(ScalarValue::Int32(Some(1))),
        );
        assert!(translate(&partition, &schema()).is_none());
    }

    #[test]
    fn a_predicate_of_literals_holds_for_every_row_or_none() {
        let always = binary(
            lit(ScalarValue::Int32(Some(1))),
            Operator::Lt,
            lit(ScalarValue::Int32(Some(2))),
        );
        let predicate = translate(&always, &schema()).unwrap();
        assert_eq!(predicate.evaluate(&batch()).unwrap().true_count(), 3);
    }
}

//! `GetSqlInfo`: what the server is and the SQL it speaks, one row per fact asked for,
//! each value in the dense union Flight SQL defines.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Int32Array, Int64Array, ListArray, RecordBatch, StringArray,
    UInt32Array, UnionArray, new_empty_array,
};
use datafusion::arrow::buffer::{OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, UnionFields};
use datafusion::arrow::error::ArrowError;
use datafusion::sql::sqlparser::keywords::ALL_KEYWORDS;

use crate::proto::{SqlInfo, SqlNullOrdering, SqlSupportedCaseSensitivity, SqlSupportedUnions};

/// One fact's value: the union's members, by their type ids (no fact answered here is a
/// `bigint_value`, 2, or an `int32_to_int32_list_map`, 5).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `string_value` (type id 0).
    String(String),
    /// `bool_value` (1).
    Bool(bool),
    /// `int32_bitmask` (3): also the member for a single enum value.
    Int32(i32),
    /// `string_list` (4).
    StringList(Vec<String>),
}

/// The facts this server answers, by id, in id order; `read_only` when its tables are
/// (in an object store: no updates, no bulk ingestion).
pub fn facts(statement_timeout_ms: i32, read_only: bool) -> Vec<(u32, Value)> {
    use Value::*;
    let keywords = ALL_KEYWORDS.iter().map(|k| k.to_string()).collect();
    let unions =
        (1 << SqlSupportedUnions::SqlUnion as i32) | (1 << SqlSupportedUnions::SqlUnionAll as i32);
    let facts = [
        (SqlInfo::FlightSqlServerName, String("Alkaid".into())),
        (
            SqlInfo::FlightSqlServerVersion,
            String(env!("CARGO_PKG_VERSION").into()),
        ),
        // The columnar format's version, which Alkaid's IPC writes.
        (SqlInfo::FlightSqlServerArrowVersion, String("1.5.0".into())),
        (SqlInfo::FlightSqlServerReadOnly, Bool(read_only)),
        (SqlInfo::FlightSqlServerSql, Bool(true)),
        (SqlInfo::FlightSqlServerSubstrait, Bool(false)),
        // SqlSupportedTransaction::None: no transaction actions.
        (SqlInfo::FlightSqlServerTransaction, Int32(0)),
        (SqlInfo::FlightSqlServerCancel, Bool(true)),
        (SqlInfo::FlightSqlServerBulkIngestion, Bool(!read_only)),
        (
            SqlInfo::FlightSqlServerIngestTransactionsSupported,
            Bool(false),
        ),
        (
            SqlInfo::FlightSqlServerStatementTimeout,
            Int32(statement_timeout_ms),
        ),
        (SqlInfo::FlightSqlServerTransactionTimeout, Int32(0)),
        (SqlInfo::SqlDdlCatalog, Bool(false)),
        (SqlInfo::SqlDdlSchema, Bool(false)),
        (SqlInfo::SqlDdlTable, Bool(false)),
        // DataFusion folds unquoted names to lower case and keeps quoted ones as written.
        (
            SqlInfo::SqlIdentifierCase,
            Int32(SqlSupportedCaseSensitivity::SqlCaseSensitivityLowercase as i32),
        ),
        (SqlInfo::SqlIdentifierQuoteChar, String("\"".into())),
        (
            SqlInfo::SqlQuotedIdentifierCase,
            Int32(SqlSupportedCaseSensitivity::SqlCaseSensitivityUnknown as i32),
        ),
        (SqlInfo::SqlAllTablesAreSelectable, Bool(true)),
        // Ascending order puts nulls last, descending first: nulls sort high.
        (
            SqlInfo::SqlNullOrdering,
            Int32(SqlNullOrdering::SqlNullsSortedHigh as i32),
        ),
        (SqlInfo::SqlKeywords, StringList(keywords)),
        (SqlInfo::SqlSearchStringEscape, String("\\".into())),
        (SqlInfo::SqlSupportsColumnAliasing, Bool(true)),
        (SqlInfo::SqlNullPlusNullIsNull, Bool(true)),
        (SqlInfo::SqlSupportsTableCorrelationNames, Bool(true)),
        (SqlInfo::SqlSupportsExpressionsInOrderBy, Bool(true)),
        (SqlInfo::SqlSupportsOrderByUnrelated, Bool(true)),
        (SqlInfo::SqlSupportsLikeEscapeClause, Bool(true)),
        (SqlInfo::SqlSupportsNonNullableColumns, Bool(true)),
        (SqlInfo::SqlSchemaTerm, String("schema".into())),
        (SqlInfo::SqlCatalogTerm, String("catalog".into())),
        (SqlInfo::SqlSelectForUpdateSupported, Bool(false)),
        (SqlInfo::SqlStoredProceduresSupported, Bool(false)),
        (SqlInfo::SqlCorrelatedSubqueriesSupported, Bool(true)),
        (SqlInfo::SqlSupportedUnions, Int32(unions)),
        (SqlInfo::SqlTransactionsSupported, Bool(false)),
        (SqlInfo::SqlBatchUpdatesSupported, Bool(false)),
        (SqlInfo::SqlSavepointsSupported, Bool(false)),
        (SqlInfo::SqlNamedParametersSupported, Bool(false)),
    ];
    facts
        .into_iter()
        .map(|(id, value)| (id as u32, value))
        .collect()
}

/// The `int32_to_int32_list_map` member's type.
fn int32_to_int32_list_map() -> DataType {
    let list = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
    let entries = Fields::from(vec![
        Field::new("key", DataType::Int32, false),
        Field::new("value", list, true),
    ]);
    DataType::Map(
        Arc::new(Field::new("entries", DataType::Struct(entries), false)),
        false,
    )
}

/// The union's members, in type-id order.
fn members() -> UnionFields {
    let strings = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    let fields = [
        Field::new("string_value", DataType::Utf8, true),
        Field::new("bool_value", DataType::Boolean, true),
        Field::new("bigint_value", DataType::Int64, true),
        Field::new("int32_bitmask", DataType::Int32, true),
        Field::new("string_list", strings, true),
        Field::new("int32_to_int32_list_map", int32_to_int32_list_map(), true),
    ];
    UnionFields::try_new(0..6, fields).expect("six distinct type ids")
}

/// The result's schema: `info_name uint32 not null, value dense_union<…> not null`.
pub fn schema() -> SchemaRef {
    let value = DataType::Union(members(), datafusion::arrow::datatypes::UnionMode::Dense);
    Arc::new(Schema::new(vec![
        Field::new("info_name", DataType::UInt32, false),
        Field::new("value", value, false),
    ]))
}

/// The facts with ids in `asked` (all of them when it is empty), in the order asked,
/// each once however often it is asked (a request of repeated ids would otherwise make
/// the answer many times its own size); ids the server does not know are left out, as
/// the protocol allows.
pub fn answer(
    asked: &[u32],
    statement_timeout_ms: i32,
    read_only: bool,
) -> Result<RecordBatch, ArrowError> {
    let all = facts(statement_timeout_ms, read_only);
    let mut answered = std::collections::HashSet::new();
    let chosen: Vec<&(u32, Value)> = match asked {
        [] => all.iter().collect(),
        _ => asked
            .iter()
            .filter(|id| answered.insert(**id))
            .filter_map(|id| all.iter().find(|(known, _)| known == id))
            .collect(),
    };
    let mut strings = Vec::new();
    let mut bools = Vec::new();
    let mut ints = Vec::new();
    let mut lists: Vec<Vec<String>> = Vec::new();
    let (mut type_ids, mut offsets) = (Vec::new(), Vec::new());
    for (_, value) in &chosen {
        let (id, offset) = match value {
            Value::String(s) => (0, push(&mut strings, s.clone())),
            Value::Bool(b) => (1, push(&mut bools, *b)),
            Value::Int32(n) => (3, push(&mut ints, *n)),
            Value::StringList(l) => (4, push(&mut lists, l.clone())),
        };
        type_ids.push(id);
        offsets.push(offset);
    }
    let fields = members();
    let children: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(strings)),
        Arc::new(BooleanArray::from(bools)),
        Arc::new(Int64Array::from(Vec::<i64>::new())),
        Arc::new(Int32Array::from(ints)),
        Arc::new(string_lists(lists)),
        new_empty_array(&int32_to_int32_list_map()),
    ];
    let union = UnionArray::try_new(
        fields,
        ScalarBuffer::from(type_ids),
        Some(ScalarBuffer::from(offsets)),
        children,
    )?;
    let names = UInt32Array::from_iter_values(chosen.iter().map(|(id, _)| *id));
    RecordBatch::try_new(schema(), vec![Arc::new(names), Arc::new(union)])
}

/// Pushes `value` and returns its index, as a union offset.
fn push<T>(values: &mut Vec<T>, value: T) -> i32 {
    values.push(value);
    (values.len() - 1) as i32
}

/// A list array of `lists` of strings.
fn string_lists(lists: Vec<Vec<String>>) -> ListArray {
    let offsets = OffsetBuffer::from_lengths(lists.iter().map(Vec::len));
    let values: StringArray = lists.into_iter().flatten().map(Some).collect();
    let field = Arc::new(Field::new("item", DataType::Utf8, true));
    ListArray::new(field, offsets, Arc::new(values), None)
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Array, AsArray};

    use super::*;

    #[test]
    fn facts_are_answered_in_the_order_asked_and_unknown_ids_left_out() {
        let asked = [
            SqlInfo::SqlKeywords as u32,
            9_999,
            SqlInfo::FlightSqlServerName as u32,
        ];
        let batch = answer(&asked, 0, false).unwrap();
        assert_eq!(batch.num_rows(), 2);
        let names = batch
            .column(0)
            .as_primitive::<datafusion::arrow::datatypes::UInt32Type>();
        assert_eq!(names.values().to_vec(), [508, 0]);
        let union = batch
            .column(1)
            .as_any()
            .downcast_ref::<UnionArray>()
            .unwrap();
        assert_eq!(union.type_id(0), 4);
        let keywords = union.value(0);
        let keywords = keywords.as_list::<i32>().value(0);
        assert!(
            keywords
                .as_string::<i32>()
                .iter()
                .any(|k| k == Some("SELECT"))
        );
        assert_eq!(union.type_id(1), 0);
        assert_eq!(union.value(1).as_string::<i32>().value(0), "Alkaid");
        let all = answer(&[], 5, false).unwrap();
        assert_eq!(all.num_rows(), facts(5, false).len());
        // Each fact once, however often it is asked.
        let keywords = SqlInfo::SqlKeywords as u32;
        let repeated = answer(&vec![keywords; 100_000], 0, false).unwrap();
        assert_eq!(repeated.num_rows(), 1);
        let mixed = answer(&[0, keywords, 0, keywords, 1], 0, false).unwrap();
        let names = mixed
            .column(0)
            .as_primitive::<datafusion::arrow::datatypes::UInt32Type>();
        assert_eq!(names.values().to_vec(), [0, keywords, 1]);
        let read_only = [
            SqlInfo::FlightSqlServerReadOnly as u32,
            SqlInfo::FlightSqlServerBulkIngestion as u32,
        ];
        for (flag, expected) in [(false, [false, true]), (true, [true, false])] {
            let batch = answer(&read_only, 0, flag).unwrap();
            let union = batch
                .column(1)
                .as_any()
                .downcast_ref::<UnionArray>()
                .unwrap();
            let got: Vec<bool> = (0..2)
                .map(|i| union.value(i).as_boolean().value(0))
                .collect();
            assert_eq!(got, expected, "read-only {flag}");
        }
        assert!(all.column(1).null_count() == 0);
    }
}

//! `GetSqlInfo`: what the server is and the SQL it speaks, one row per fact asked for,
//! each value in the dense union member Flight SQL defines for its id. Every id the
//! specification defines is answered, truly: "no" (or zero, "no limit or unknown")
//! where the server cannot, e.g. transactions; the function lists and conversions are
//! read off DataFusion itself (`engine.rs`).

mod engine;
mod union;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::execution::SessionState;
use datafusion::sql::sqlparser::keywords::ALL_KEYWORDS;

// Some enums share their names with `SqlInfo`'s ids, which `facts` names unqualified.
use crate::proto::{
    self as spec, SqlInfo, SqlSupportedCaseSensitivity, SqlSupportedResultSetConcurrency,
    SqlSupportedResultSetType, SqlTransactionIsolationLevel, SupportedAnsi92SqlGrammarLevel,
    SupportedSqlGrammar,
};
use engine::Functions;
pub use union::Value;

/// What the facts depend on besides the engine.
#[derive(Debug, Clone, Copy)]
pub struct Server {
    /// The statement timeout, in milliseconds.
    pub statement_timeout_ms: i32,
    /// Whether clients may not write (writes not allowed, or tables in an object store).
    pub read_only: bool,
}

/// A bitmask of `bits`.
fn mask(bits: &[i32]) -> i32 {
    bits.iter().fold(0, |mask, bit| mask | (1 << bit))
}

/// Every fact of a server over `state`, by id, in id order.
pub fn facts(server: Server, state: &SessionState) -> Vec<(u32, Value)> {
    use SqlInfo::*;
    use Value::*;
    let functions = Functions::of(state);
    let substrait = crate::substrait::version();
    let substrait_version = substrait.clone().map_or(NullString, String);
    let keywords = ALL_KEYWORDS.iter().map(|k| k.to_string()).collect();
    let unions = mask(&[
        spec::SqlSupportedUnions::SqlUnion as i32,
        spec::SqlSupportedUnions::SqlUnionAll as i32,
    ]);
    let group_by = mask(&[
        spec::SqlSupportedGroupBy::SqlGroupByUnrelated as i32,
        spec::SqlSupportedGroupBy::SqlGroupByBeyondSelect as i32,
    ]);
    let grammar = mask(&[
        SupportedSqlGrammar::SqlMinimumGrammar as i32,
        SupportedSqlGrammar::SqlCoreGrammar as i32,
    ]);
    let ansi92 = mask(&[SupportedAnsi92SqlGrammarLevel::Ansi92EntrySql as i32]);
    // `= ANY (subquery)` and `> ALL (subquery)` (quantified comparisons) are not planned.
    let subqueries = mask(&[
        spec::SqlSupportedSubqueries::SqlSubqueriesInComparisons as i32,
        spec::SqlSupportedSubqueries::SqlSubqueriesInExists as i32,
        spec::SqlSupportedSubqueries::SqlSubqueriesInIns as i32,
    ]);
    let no_isolation = SqlTransactionIsolationLevel::SqlTransactionNone as i32;
    let forward_only = mask(&[SqlSupportedResultSetType::SqlResultSetTypeForwardOnly as i32]);
    let read_only_results =
        mask(&[SqlSupportedResultSetConcurrency::SqlResultSetConcurrencyReadOnly as i32]);
    // The limits SQL itself has: none is set (zero: "no limit or unknown"); what bounds a
    // statement is the operator's limits on time, memory and message size.
    let no_limits = [
        SqlMaxBinaryLiteralLength,
        SqlMaxCharLiteralLength,
        SqlMaxColumnNameLength,
        SqlMaxColumnsInGroupBy,
        SqlMaxColumnsInIndex,
        SqlMaxColumnsInOrderBy,
        SqlMaxColumnsInSelect,
        SqlMaxColumnsInTable,
        SqlMaxConnections,
        SqlMaxCursorNameLength,
        SqlMaxIndexLength,
        SqlDbSchemaNameLength,
        SqlMaxProcedureNameLength,
        SqlMaxCatalogNameLength,
        SqlMaxRowSize,
        SqlMaxStatementLength,
        SqlMaxStatements,
        SqlMaxTableNameLength,
        SqlMaxTablesInSelect,
        SqlMaxUsernameLength,
    ]
    .map(|id| (id, Int64(0)));
    let mut facts = vec![
        (FlightSqlServerName, String("Alkaid".into())),
        (
            FlightSqlServerVersion,
            String(env!("CARGO_PKG_VERSION").into()),
        ),
        // The columnar format's version, which Alkaid's IPC writes.
        (FlightSqlServerArrowVersion, String("1.5.0".into())),
        (FlightSqlServerReadOnly, Bool(server.read_only)),
        (FlightSqlServerSql, Bool(true)),
        (FlightSqlServerSubstrait, Bool(substrait.is_some())),
        // The version the consumer was built for, the one known to read.
        (
            FlightSqlServerSubstraitMinVersion,
            substrait_version.clone(),
        ),
        (FlightSqlServerSubstraitMaxVersion, substrait_version),
        // SqlSupportedTransaction::None: no transaction actions.
        (FlightSqlServerTransaction, Int32(0)),
        (FlightSqlServerCancel, Bool(true)),
        (FlightSqlServerBulkIngestion, Bool(!server.read_only)),
        (FlightSqlServerIngestTransactionsSupported, Bool(false)),
        (
            FlightSqlServerStatementTimeout,
            Int32(server.statement_timeout_ms),
        ),
        (FlightSqlServerTransactionTimeout, Int32(0)),
        (SqlDdlCatalog, Bool(false)),
        (SqlDdlSchema, Bool(false)),
        (SqlDdlTable, Bool(false)),
        // DataFusion folds unquoted names to lower case and keeps quoted ones as written.
        (
            SqlIdentifierCase,
            Int32(SqlSupportedCaseSensitivity::SqlCaseSensitivityLowercase as i32),
        ),
        (SqlIdentifierQuoteChar, String("\"".into())),
        // Quoted names are compared as written, which the enum has no member for.
        (
            SqlQuotedIdentifierCase,
            Int32(SqlSupportedCaseSensitivity::SqlCaseSensitivityUnknown as i32),
        ),
        (SqlAllTablesAreSelectable, Bool(true)),
        // Ascending order puts nulls last, descending first: nulls sort high.
        (
            SqlNullOrdering,
            Int32(spec::SqlNullOrdering::SqlNullsSortedHigh as i32),
        ),
        (SqlKeywords, StringList(keywords)),
        (SqlNumericFunctions, StringList(functions.numeric)),
        (SqlStringFunctions, StringList(functions.string)),
        (SqlSystemFunctions, StringList(functions.system)),
        (SqlDatetimeFunctions, StringList(functions.datetime)),
        (SqlSearchStringEscape, String("\\".into())),
        (SqlExtraNameCharacters, String(std::string::String::new())),
        (SqlSupportsColumnAliasing, Bool(true)),
        (SqlNullPlusNullIsNull, Bool(true)),
        (SqlSupportsConvert, Int32ToInt32List(engine::conversions())),
        (SqlSupportsTableCorrelationNames, Bool(true)),
        // Correlation names may equal the tables' names.
        (SqlSupportsDifferentTableCorrelationNames, Bool(false)),
        (SqlSupportsExpressionsInOrderBy, Bool(true)),
        (SqlSupportsOrderByUnrelated, Bool(true)),
        (SqlSupportedGroupBy, Int32(group_by)),
        (SqlSupportsLikeEscapeClause, Bool(true)),
        (SqlSupportsNonNullableColumns, Bool(true)),
        (SqlSupportedGrammar, Int32(grammar)),
        (SqlAnsi92SupportedLevel, Int32(ansi92)),
        // Constraints are not enforced.
        (SqlSupportsIntegrityEnhancementFacility, Bool(false)),
        (
            SqlOuterJoinsSupportLevel,
            Int32(spec::SqlOuterJoinsSupportLevel::SqlFullOuterJoins as i32),
        ),
        (SqlSchemaTerm, String("schema".into())),
        (SqlProcedureTerm, String("procedure".into())),
        (SqlCatalogTerm, String("catalog".into())),
        (SqlCatalogAtStart, Bool(true)),
        (SqlSchemasSupportedActions, Int32(0)),
        (SqlCatalogsSupportedActions, Int32(0)),
        (SqlSupportedPositionedCommands, Int32(0)),
        (SqlSelectForUpdateSupported, Bool(false)),
        (SqlStoredProceduresSupported, Bool(false)),
        (SqlSupportedSubqueries, Int32(subqueries)),
        (SqlCorrelatedSubqueriesSupported, Bool(true)),
        (SqlSupportedUnions, Int32(unions)),
        (SqlMaxRowSizeIncludesBlobs, Bool(false)),
        (SqlDefaultTransactionIsolation, Int32(no_isolation)),
        (SqlTransactionsSupported, Bool(false)),
        (
            SqlSupportedTransactionsIsolationLevels,
            Int32(mask(&[no_isolation])),
        ),
        (SqlDataDefinitionCausesTransactionCommit, Bool(false)),
        (SqlDataDefinitionsInTransactionsIgnored, Bool(false)),
        (SqlSupportedResultSetTypes, Int32(forward_only)),
        (SqlSupportedConcurrenciesForResultSetUnspecified, Int32(0)),
        (
            SqlSupportedConcurrenciesForResultSetForwardOnly,
            Int32(read_only_results),
        ),
        (
            SqlSupportedConcurrenciesForResultSetScrollSensitive,
            Int32(0),
        ),
        (
            SqlSupportedConcurrenciesForResultSetScrollInsensitive,
            Int32(0),
        ),
        (SqlBatchUpdatesSupported, Bool(false)),
        (SqlSavepointsSupported, Bool(false)),
        (SqlNamedParametersSupported, Bool(false)),
        (SqlLocatorsUpdateCopy, Bool(false)),
        (SqlStoredFunctionsUsingCallSyntaxSupported, Bool(false)),
    ];
    facts.extend(no_limits);
    let mut facts: Vec<(u32, Value)> = facts
        .into_iter()
        .map(|(id, value)| (id as u32, value))
        .collect();
    facts.sort_by_key(|(id, _)| *id);
    facts
}

/// The result's schema.
pub fn schema() -> SchemaRef {
    union::schema()
}

/// The facts of `all` with ids in `asked` (all of them when it is empty), in the order
/// asked, each once however often it is asked (a request of repeated ids would otherwise
/// make the answer many times its own size); ids the server does not know are left out,
/// as the protocol allows.
pub fn answer(asked: &[u32], all: &[(u32, Value)]) -> Result<RecordBatch, ArrowError> {
    let mut answered = std::collections::HashSet::new();
    let chosen: Vec<&(u32, Value)> = match asked {
        [] => all.iter().collect(),
        _ => asked
            .iter()
            .filter(|id| answered.insert(**id))
            .filter_map(|id| all.iter().find(|(known, _)| known == id))
            .collect(),
    };
    union::batch(&chosen)
}

#[cfg(test)]
mod tests;

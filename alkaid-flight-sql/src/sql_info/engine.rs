//! The facts read off DataFusion itself rather than written down: which functions it
//! has, by the section its own documentation puts each in, and which SQL types its casts
//! convert between (Arrow's cast kernel, which DataFusion's `CAST` runs).

use std::collections::BTreeSet;

use datafusion::arrow::compute::can_cast_types;
use datafusion::arrow::datatypes::{DataType, IntervalUnit, TimeUnit};
use datafusion::execution::SessionState;

use crate::proto::SqlSupportsConvert;

/// The functions of a session, by the list `GetSqlInfo` names them in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Functions {
    /// `SQL_NUMERIC_FUNCTIONS`: the math functions.
    pub numeric: Vec<String>,
    /// `SQL_STRING_FUNCTIONS`: string, binary string and regular expression functions.
    pub string: Vec<String>,
    /// `SQL_SYSTEM_FUNCTIONS`: conditional, hashing and other functions.
    pub system: Vec<String>,
    /// `SQL_DATETIME_FUNCTIONS`: time and date functions.
    pub datetime: Vec<String>,
}

impl Functions {
    /// The scalar functions of `state`, each in the list its documentation's section
    /// says (those without documentation, or in other sections, in none), upper-cased
    /// as ODBC lists them, sorted.
    pub fn of(state: &SessionState) -> Self {
        let mut lists: [BTreeSet<String>; 4] = Default::default();
        for (name, function) in state.scalar_functions() {
            let Some(doc) = function.documentation() else {
                continue;
            };
            let list = match doc.doc_section.label {
                "Math Functions" => 0,
                "String Functions" | "Binary String Functions" | "Regular Expression Functions" => {
                    1
                }
                "Conditional Functions" | "Hashing Functions" | "Other Functions" => 2,
                "Time and Date Functions" => 3,
                _ => continue,
            };
            lists[list].insert(name.to_uppercase());
        }
        let [numeric, string, system, datetime] = lists.map(|set| set.into_iter().collect());
        Self {
            numeric,
            string,
            system,
            datetime,
        }
    }
}

/// The Arrow type each of ODBC's convertible SQL types is in DataFusion.
fn arrow_type(sql: SqlSupportsConvert) -> DataType {
    use SqlSupportsConvert::*;
    match sql {
        SqlConvertBigint => DataType::Int64,
        SqlConvertBinary | SqlConvertVarbinary => DataType::Binary,
        SqlConvertBit => DataType::Boolean,
        SqlConvertChar | SqlConvertVarchar => DataType::Utf8,
        SqlConvertDate => DataType::Date32,
        SqlConvertDecimal | SqlConvertNumeric => DataType::Decimal128(38, 10),
        // ODBC's FLOAT is double precision; REAL is single.
        SqlConvertFloat => DataType::Float64,
        SqlConvertReal => DataType::Float32,
        SqlConvertInteger => DataType::Int32,
        SqlConvertIntervalDayTime => DataType::Interval(IntervalUnit::DayTime),
        SqlConvertIntervalYearMonth => DataType::Interval(IntervalUnit::YearMonth),
        SqlConvertLongvarbinary => DataType::LargeBinary,
        SqlConvertLongvarchar => DataType::LargeUtf8,
        SqlConvertSmallint => DataType::Int16,
        SqlConvertTime => DataType::Time64(TimeUnit::Nanosecond),
        SqlConvertTimestamp => DataType::Timestamp(TimeUnit::Nanosecond, None),
        SqlConvertTinyint => DataType::Int8,
    }
}

/// `SQL_SUPPORTS_CONVERT`: for each SQL type (by its `SqlSupportsConvert` number), the
/// types a cast takes it to, itself left out.
pub fn conversions() -> Vec<(i32, Vec<i32>)> {
    let all: Vec<SqlSupportsConvert> = (0..)
        .map_while(|n| SqlSupportsConvert::try_from(n).ok())
        .collect();
    all.iter()
        .map(|&from| {
            let to = all
                .iter()
                .filter(|&&to| to != from && can_cast_types(&arrow_type(from), &arrow_type(to)))
                .map(|&to| to as i32)
                .collect();
            (from as i32, to)
        })
        .collect()
}

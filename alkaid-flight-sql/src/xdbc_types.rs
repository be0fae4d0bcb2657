//! `GetXdbcTypeInfo`: the SQL types DataFusion's dialect takes, described as ODBC and JDBC
//! describe types (JDBC's `DatabaseMetaData.getTypeInfo` is answered from this).

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Int32Array, ListArray, RecordBatch, StringArray,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::arrow::error::ArrowError;

use crate::metadata::xdbc_type_info_schema;
use crate::proto::{Nullable, Searchable, XdbcDataType, XdbcDatetimeSubcode};

/// One type's row.
struct Type {
    name: &'static str,
    data_type: XdbcDataType,
    /// Digits for exact numbers, bits for approximate ones, characters otherwise.
    column_size: Option<i32>,
    /// The quote around a literal (`'`), or its prefix and suffix.
    literal: Option<(&'static str, &'static str)>,
    create_params: Option<&'static [&'static str]>,
    case_sensitive: bool,
    searchable: Searchable,
    unsigned: Option<bool>,
    scale: Option<(i32, i32)>,
    /// The datetime subcode, for dates and times (whose SQL data type is then DATETIME).
    subcode: Option<XdbcDatetimeSubcode>,
    radix: Option<i32>,
}

/// The types, ordered by data type and then name, as the protocol asks.
fn types() -> Vec<Type> {
    use XdbcDataType as X;
    let number = |name, data_type, size, radix| Type {
        name,
        data_type,
        column_size: Some(size),
        literal: None,
        create_params: None,
        case_sensitive: false,
        searchable: Searchable::Basic,
        unsigned: Some(false),
        scale: None,
        subcode: None,
        radix: Some(radix),
    };
    let text = |name, data_type, literal| Type {
        name,
        data_type,
        column_size: Some(i32::MAX),
        literal: Some(literal),
        create_params: None,
        case_sensitive: true,
        searchable: Searchable::Full,
        unsigned: None,
        scale: None,
        subcode: None,
        radix: None,
    };
    let moment = |name, data_type, size, subcode| Type {
        name,
        data_type,
        column_size: Some(size),
        literal: Some(("'", "'")),
        create_params: None,
        case_sensitive: false,
        searchable: Searchable::Basic,
        unsigned: None,
        scale: None,
        subcode: Some(subcode),
        radix: None,
    };
    let mut types = vec![
        Type {
            name: "BOOLEAN",
            data_type: X::XdbcBit,
            column_size: Some(1),
            literal: None,
            create_params: None,
            case_sensitive: false,
            searchable: Searchable::Basic,
            unsigned: None,
            scale: None,
            subcode: None,
            radix: None,
        },
        number("TINYINT", X::XdbcTinyint, 3, 10),
        number("BIGINT", X::XdbcBigint, 19, 10),
        text("BYTEA", X::XdbcVarbinary, ("X'", "'")),
        Type {
            create_params: Some(&["precision", "scale"]),
            scale: Some((0, 38)),
            ..number("DECIMAL", X::XdbcDecimal, 38, 10)
        },
        number("INTEGER", X::XdbcInteger, 10, 10),
        number("SMALLINT", X::XdbcSmallint, 5, 10),
        number("REAL", X::XdbcReal, 24, 2),
        number("DOUBLE", X::XdbcDouble, 53, 2),
        text("VARCHAR", X::XdbcVarchar, ("'", "'")),
        moment(
            "DATE",
            X::XdbcDate,
            10,
            XdbcDatetimeSubcode::XdbcSubcodeYear,
        ),
        moment(
            "TIME",
            X::XdbcTime,
            18,
            XdbcDatetimeSubcode::XdbcSubcodeTime,
        ),
        moment(
            "TIMESTAMP",
            X::XdbcTimestamp,
            29,
            XdbcDatetimeSubcode::XdbcSubcodeTimestamp,
        ),
    ];
    types.sort_by_key(|t| (t.data_type as i32, t.name));
    types
}

/// The rows for `data_type` (every type when `None`).
pub fn answer(data_type: Option<i32>) -> Result<RecordBatch, ArrowError> {
    let chosen: Vec<Type> = types()
        .into_iter()
        .filter(|t| data_type.is_none_or(|d| d == t.data_type as i32))
        .collect();
    let strings = |f: &dyn Fn(&Type) -> Option<&str>| -> ArrayRef {
        Arc::new(chosen.iter().map(f).collect::<StringArray>())
    };
    let ints = |f: &dyn Fn(&Type) -> Option<i32>| -> ArrayRef {
        Arc::new(chosen.iter().map(f).collect::<Int32Array>())
    };
    let bools = |f: &dyn Fn(&Type) -> Option<bool>| -> ArrayRef {
        Arc::new(chosen.iter().map(f).collect::<BooleanArray>())
    };
    let params: Vec<Option<&[&str]>> = chosen.iter().map(|t| t.create_params).collect();
    let offsets = OffsetBuffer::from_lengths(params.iter().map(|p| p.map_or(0, <[_]>::len)));
    let values: StringArray = params
        .iter()
        .flatten()
        .flat_map(|p| p.iter().copied())
        .map(Some)
        .collect();
    let nulls = params.iter().map(Option::is_some).collect::<Vec<_>>();
    let create_params = ListArray::try_new(
        Arc::new(Field::new("item", DataType::Utf8, false)),
        offsets,
        Arc::new(values),
        Some(nulls.into()),
    )?;
    let datetime = XdbcDataType::XdbcDatetime as i32;
    let columns = vec![
        strings(&|t| Some(t.name)),
        ints(&|t| Some(t.data_type as i32)),
        ints(&|t| t.column_size),
        strings(&|t| t.literal.map(|l| l.0)),
        strings(&|t| t.literal.map(|l| l.1)),
        Arc::new(create_params),
        ints(&|_| Some(Nullable::NullabilityNullable as i32)),
        bools(&|t| Some(t.case_sensitive)),
        ints(&|t| Some(t.searchable as i32)),
        bools(&|t| t.unsigned),
        bools(&|_| Some(false)),
        bools(&|t| t.unsigned.map(|_| false)),
        strings(&|t| Some(t.name)),
        ints(&|t| t.scale.map(|s| s.0)),
        ints(&|t| t.scale.map(|s| s.1)),
        ints(&|t| {
            Some(if t.subcode.is_some() {
                datetime
            } else {
                t.data_type as i32
            })
        }),
        ints(&|t| t.subcode.map(|s| s as i32)),
        ints(&|t| t.radix),
        ints(&|_| None),
    ];
    RecordBatch::try_new(xdbc_type_info_schema(), columns)
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::AsArray;
    use datafusion::arrow::datatypes::Int32Type;

    use super::*;

    #[test]
    fn types_are_ordered_by_code_and_filtered_by_the_one_asked_for() {
        let all = answer(None).unwrap();
        assert_eq!(all.num_rows(), types().len());
        let codes = all.column(1).as_primitive::<Int32Type>().values().to_vec();
        assert!(codes.windows(2).all(|w| w[0] <= w[1]), "{codes:?}");
        let varchar = answer(Some(XdbcDataType::XdbcVarchar as i32)).unwrap();
        assert_eq!(varchar.num_rows(), 1);
        assert_eq!(varchar.column(0).as_string::<i32>().value(0), "VARCHAR");
        let date = answer(Some(XdbcDataType::XdbcDate as i32)).unwrap();
        let sql_type = date.column(15).as_primitive::<Int32Type>().value(0);
        assert_eq!(sql_type, XdbcDataType::XdbcDatetime as i32);
        assert_eq!(answer(Some(12_345)).unwrap().num_rows(), 0);
        let decimal = answer(Some(XdbcDataType::XdbcDecimal as i32)).unwrap();
        let params = decimal.column(5).as_list::<i32>().value(0);
        assert_eq!(
            params
                .as_string::<i32>()
                .iter()
                .flatten()
                .collect::<Vec<_>>(),
            ["precision", "scale"]
        );
    }
}

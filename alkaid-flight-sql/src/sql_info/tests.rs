use datafusion::arrow::array::{Array, AsArray, UnionArray};
use datafusion::arrow::datatypes::{DataType, Int32Type, UInt32Type};
use datafusion::execution::SessionStateBuilder;

use super::*;

/// The union member each id's value is in, as the specification's comments on
/// `SqlInfo` say (read from `format/FlightSql.proto`, not from `facts`).
fn specified_member(id: u32) -> Option<&'static str> {
    Some(match id {
        0 | 1 | 2 | 6 | 7 | 504 | 513 | 514 | 529 | 530 | 531 => "string_value",
        3
        | 4
        | 5
        | 9
        | 10
        | 11
        | 500
        | 501
        | 502
        | 506
        | 515
        | 516
        | 518..=521
        | 523
        | 524
        | 527
        | 532
        | 536
        | 537
        | 539
        | 556
        | 563
        | 565
        | 566
        | 572..=576 => "bool_value",
        541..=555 | 557..=561 => "bigint_value",
        8
        | 100
        | 101
        | 503
        | 505
        | 507
        | 522
        | 525
        | 526
        | 528
        | 533..=535
        | 538
        | 540
        | 562
        | 564
        | 567..=571 => "int32_bitmask",
        508..=512 => "string_list",
        517 => "int32_to_int32_list_map",
        _ => return None,
    })
}

fn state() -> SessionState {
    SessionStateBuilder::new().with_default_features().build()
}

fn server(read_only: bool) -> Server {
    Server {
        statement_timeout_ms: 600_000,
        read_only,
    }
}

fn union(batch: &RecordBatch) -> &UnionArray {
    batch.column(1).as_any().downcast_ref().unwrap()
}

#[test]
fn every_specified_id_is_answered_once_in_its_member() {
    let all = facts(server(false), &state());
    let specified: Vec<u32> = (0..10_000u32)
        .filter(|&id| SqlInfo::try_from(id as i32).is_ok())
        .collect();
    assert_eq!(specified.len(), 91, "ids the protocol file defines");
    let batch = answer(&specified, &all).unwrap();
    assert_eq!(batch.num_rows(), specified.len(), "each id answered");
    let ids = batch.column(0).as_primitive::<UInt32Type>();
    let values = union(&batch);
    let DataType::Union(members, _) = values.data_type() else {
        panic!("a union")
    };
    for (row, &asked) in specified.iter().enumerate() {
        let id = ids.value(row);
        assert_eq!(id, asked, "in the order asked");
        let (_, field) = members
            .iter()
            .find(|(type_id, _)| *type_id == values.type_id(row))
            .unwrap();
        let expected = specified_member(id).unwrap_or_else(|| panic!("id {id} in the table"));
        assert_eq!(field.name(), expected, "id {id}");
        // Only Substrait's versions may be null (when plans are not taken).
        let value = values.value(row);
        let no_substrait = crate::substrait::version().is_none();
        assert_eq!(
            value.is_null(0),
            no_substrait && matches!(id, 6 | 7),
            "id {id}"
        );
    }
    // Asking for nothing answers everything, in id order.
    let everything = answer(&[], &all).unwrap();
    let ids = everything.column(0).as_primitive::<UInt32Type>();
    assert_eq!(ids.values().to_vec(), specified);
}

#[test]
fn facts_are_answered_in_the_order_asked_each_once_and_unknown_ids_left_out() {
    let all = facts(server(false), &state());
    let keywords = SqlInfo::SqlKeywords as u32;
    let batch = answer(&[keywords, 9_999, 0], &all).unwrap();
    assert_eq!(batch.num_rows(), 2);
    let names = batch.column(0).as_primitive::<UInt32Type>();
    assert_eq!(names.values().to_vec(), [keywords, 0]);
    let keywords_list = union(&batch).value(0);
    let keywords_list = keywords_list.as_list::<i32>().value(0);
    assert!(
        keywords_list
            .as_string::<i32>()
            .iter()
            .any(|k| k == Some("SELECT"))
    );
    assert_eq!(union(&batch).value(1).as_string::<i32>().value(0), "Alkaid");
    // A request of repeated ids answers each once.
    let repeated = answer(&vec![keywords; 100_000], &all).unwrap();
    assert_eq!(repeated.num_rows(), 1);
    let mixed = answer(&[0, keywords, 0, keywords, 1], &all).unwrap();
    let names = mixed.column(0).as_primitive::<UInt32Type>();
    assert_eq!(names.values().to_vec(), [0, keywords, 1]);
}

#[test]
fn read_only_servers_say_so_and_take_no_ingestion() {
    let asked = [
        SqlInfo::FlightSqlServerReadOnly as u32,
        SqlInfo::FlightSqlServerBulkIngestion as u32,
    ];
    for (read_only, expected) in [(false, [false, true]), (true, [true, false])] {
        let batch = answer(&asked, &facts(server(read_only), &state())).unwrap();
        let got: Vec<bool> = (0..2)
            .map(|i| union(&batch).value(i).as_boolean().value(0))
            .collect();
        assert_eq!(got, expected, "read-only {read_only}");
    }
}

/// The strings of the `string_list` fact `id`.
fn list(all: &[(u32, Value)], id: SqlInfo) -> Vec<String> {
    match all.iter().find(|(known, _)| *known == id as u32) {
        Some((_, Value::StringList(list))) => list.clone(),
        other => panic!("{id:?}: {other:?}"),
    }
}

#[test]
fn function_lists_and_conversions_are_datafusions_own() {
    let all = facts(server(true), &state());
    assert!(list(&all, SqlInfo::SqlNumericFunctions).contains(&"ABS".to_string()));
    assert!(list(&all, SqlInfo::SqlStringFunctions).contains(&"UPPER".to_string()));
    assert!(list(&all, SqlInfo::SqlDatetimeFunctions).contains(&"NOW".to_string()));
    assert!(list(&all, SqlInfo::SqlSystemFunctions).contains(&"COALESCE".to_string()));
    let numeric = list(&all, SqlInfo::SqlNumericFunctions);
    assert!(!numeric.contains(&"UPPER".to_string()), "{numeric:?}");

    let batch = answer(&[SqlInfo::SqlSupportsConvert as u32], &all).unwrap();
    let map = union(&batch).value(0);
    let map = map.as_map();
    let keys = map.keys().as_primitive::<Int32Type>();
    assert_eq!(keys.len(), 20, "every SQL type ODBC names");
    let to_of = |from: SqlSupportsConvert| -> Vec<i32> {
        let row = keys.iter().position(|k| k == Some(from as i32)).unwrap();
        let lists = map.values().as_list::<i32>();
        lists
            .value(row)
            .as_primitive::<Int32Type>()
            .values()
            .to_vec()
    };
    use crate::proto::SqlSupportsConvert;
    let bigint = to_of(SqlSupportsConvert::SqlConvertBigint);
    assert!(bigint.contains(&(SqlSupportsConvert::SqlConvertVarchar as i32)));
    assert!(!bigint.contains(&(SqlSupportsConvert::SqlConvertBigint as i32)));
    // A date is not an interval.
    let date = to_of(SqlSupportsConvert::SqlConvertDate);
    assert!(!date.contains(&(SqlSupportsConvert::SqlConvertIntervalDayTime as i32)));
}

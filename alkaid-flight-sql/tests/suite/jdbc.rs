//! The Flight SQL JDBC driver's call sequence (`tests/jdbc_sequence.py`, which says from
//! which release and files of apache/arrow-java it is read), replayed with pyarrow's
//! Flight client against a server that wants a bearer token.

use std::time::Duration;

use alkaid_flight::ServerOptions;
use alkaid_flight_sql::SqlServiceOptions;

use crate::adbc::Scratch;
use crate::measured::run_script;
use crate::python::python_with;
use crate::server::Server;

#[test]
fn the_jdbc_drivers_calls_on_connect_metadata_and_a_prepared_query() {
    let Some(python) = python_with("flightsql, pyarrow.flight") else {
        return;
    };
    let scratch = Scratch::new();
    let (dir, out) = (scratch.dir.clone(), scratch.out.clone());
    let serving = ServerOptions::default().with_token("t0ken-for-jdbc");
    let server = Server::start(&dir, SqlServiceOptions::default(), serving);
    let args = [server.uri.as_str(), "t0ken-for-jdbc", out.to_str().unwrap()];
    run_script(&python, "jdbc_sequence.py", &args, Duration::from_secs(120));

    let facts = scratch.facts();
    let json = |value: &str| serde_json::from_str::<serde_json::Value>(value).unwrap();
    assert_eq!(facts["set_catalog_errors"], 0);
    // Setting the catalog to the one there is changes nothing, and makes no session.
    assert_eq!(facts["cookie"], json("[]"));
    assert_eq!(facts["sql_info_count"], 91);
    let accessors = facts["accessors"].as_object().unwrap();
    assert!(!accessors.is_empty());
    for (name, right_type) in accessors {
        assert_eq!(right_type, true, "{name}");
    }
    assert_eq!(facts["product"], "Alkaid");
    assert_eq!(facts["read_only"], true);
    assert_eq!(
        facts["tables"],
        json(r#"["cities", "events", "every_type", "trips"]"#)
    );
    assert_eq!(
        facts["tables_schema"],
        json(r#"["catalog_name", "db_schema_name", "table_name", "table_type"]"#)
    );
    assert_eq!(
        facts["columns"],
        json(r#"[["id", "int64", false], ["fare", "double", false], ["city", "string", false]]"#)
    );
    assert_eq!(facts["statement_type"], "SELECT");
    assert_eq!(facts["parameter_schema"], json(r#"[["$1", "int64"]]"#));
    assert_eq!(facts["prepared_rows"], json("[5, 6]"));
    // CloseSessionResult { status: CLOSED }.
    assert_eq!(facts["close_session"], "0801");
    let calls: Vec<&str> = facts["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(calls.first(), Some(&"HANDSHAKE"), "{calls:?}");
}

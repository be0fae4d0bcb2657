//! alkaid-flight-sql under flightsql-dbapi (`tests/flightsql_dbapi_client.py`): a second
//! Flight SQL client no one here wrote, as pandas and SQLAlchemy users reach a server,
//! with a bearer token.

use std::time::Duration;

use alkaid_flight::ServerOptions;
use alkaid_flight_sql::SqlServiceOptions;

use crate::adbc::Scratch;
use crate::measured::run_script;
use crate::python::python_with;
use crate::server::Server;

#[test]
fn flightsql_dbapi_pandas_and_sqlalchemy_read_and_reflect() {
    let Some(python) = python_with("flightsql, sqlalchemy, pandas") else {
        return;
    };
    let scratch = Scratch::new();
    let (dir, out) = (scratch.dir.clone(), scratch.out.clone());
    let serving = ServerOptions::default().with_token("t0ken-for-dbapi");
    let server = Server::start(&dir, SqlServiceOptions::default(), serving);
    let port = server.port.to_string();
    let args = [
        "127.0.0.1",
        port.as_str(),
        "t0ken-for-dbapi",
        out.to_str().unwrap(),
    ];
    run_script(
        &python,
        "flightsql_dbapi_client.py",
        &args,
        Duration::from_secs(120),
    );

    let facts = scratch.facts();
    let json = |value: &str| serde_json::from_str::<serde_json::Value>(value).unwrap();
    assert_eq!(
        facts["dbapi_rows"],
        json(r#"[[3, "Oslo"], [4, "Pune"], [6, "Oslo"]]"#)
    );
    assert_eq!(facts["dbapi_description"], json(r#"["id", "city"]"#));
    assert_eq!(
        facts["pandas"],
        json(r#"{"columns": ["id", "fare"], "ids": [1, 3, 6], "fares": [7.5, 3.25, 15.5]}"#)
    );
    assert_eq!(
        facts["tables"],
        json(r#"["cities", "events", "every_type", "trips"]"#)
    );
    assert_eq!(facts["schemas"], json(r#"["public"]"#));
    assert_eq!(
        facts["columns"],
        json(r#"[["id", "BIGINT"], ["fare", "FLOAT"], ["city", "TEXT"]]"#)
    );
    assert_eq!(facts["has_table"], json("[true, false]"));
    assert_eq!(facts["text_bound"], json("[6]"));
    assert_eq!(
        facts["core_select"],
        json(r#"[[1, "Oslo"], [3, "Oslo"], [5, "Lima"]]"#)
    );
}

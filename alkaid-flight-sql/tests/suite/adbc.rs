//! alkaid-flight-sql under clients no one here wrote: ADBC's Flight SQL driver (its
//! DB-API, from PyPI) and pyarrow's Flight client (`tests/adbc_client.py`), against a
//! server with basic authentication over a directory of IPC, Parquet and CSV tables.
//! Every query's result is compared with DataFusion's own answer over the same files
//! (what `alkaid sql` prints).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use alkaid_arrow::arrow59::{batch_from_arrow, batch_to_arrow};
use alkaid_datafusion::open_table;
use alkaid_flight::ServerOptions;
use alkaid_flight_sql::SqlServiceOptions;
use alkaid_ipc::{FileReader, FileWriter, ReadOptions, Seekable, WriteOptions};
use datafusion::arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DictionaryArray,
    Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, LargeStringArray,
    ListArray, RecordBatch, StringArray, StructArray, Time64MicrosecondArray,
    TimestampMicrosecondArray, UInt8Array, UInt16Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Int32Type};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::SessionContext;

use crate::measured::run_script;
use crate::python::python_with;
use crate::server::Server;

/// A batch of the types the peers share, nulls in every column.
fn every_type() -> RecordBatch {
    let list = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1), None]),
        None,
        Some(vec![]),
        Some(vec![Some(4)]),
    ]);
    let inner = StructArray::from(vec![
        (
            Arc::new(Field::new("a", DataType::Int32, true)),
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3), Some(4)])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("b", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec![
                Some("x"),
                Some("y"),
                None,
                Some("ü"),
            ])) as ArrayRef,
        ),
    ]);
    let dictionary: DictionaryArray<Int32Type> = vec![Some("red"), None, Some("blue"), Some("red")]
        .into_iter()
        .collect();
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "i64",
            Arc::new(Int64Array::from(vec![Some(1), Some(2), Some(3), None])),
        ),
        (
            "i8",
            Arc::new(Int8Array::from(vec![Some(-128), None, Some(0), Some(127)])),
        ),
        (
            "i16",
            Arc::new(Int16Array::from(vec![Some(-1), None, Some(0), Some(1)])),
        ),
        (
            "i32",
            Arc::new(Int32Array::from(vec![
                Some(i32::MIN),
                None,
                Some(0),
                Some(i32::MAX),
            ])),
        ),
        (
            "u8",
            Arc::new(UInt8Array::from(vec![Some(255), None, Some(0), Some(1)])),
        ),
        (
            "u16",
            Arc::new(UInt16Array::from(vec![Some(65535), None, Some(0), Some(1)])),
        ),
        (
            "u32",
            Arc::new(UInt32Array::from(vec![
                Some(u32::MAX),
                None,
                Some(0),
                Some(1),
            ])),
        ),
        (
            "u64",
            Arc::new(UInt64Array::from(vec![
                Some(u64::MAX),
                None,
                Some(0),
                Some(1),
            ])),
        ),
        (
            "f32",
            Arc::new(Float32Array::from(vec![
                Some(1.5),
                None,
                Some(-0.0),
                Some(f32::INFINITY),
            ])),
        ),
        (
            "f64",
            Arc::new(Float64Array::from(vec![
                Some(2.25),
                None,
                Some(f64::NAN),
                Some(-1e300),
            ])),
        ),
        (
            "flag",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                None,
                Some(false),
                Some(true),
            ])),
        ),
        (
            "text",
            Arc::new(StringArray::from(vec![
                Some("a"),
                None,
                Some(""),
                Some("longer than twelve bytes"),
            ])),
        ),
        (
            "large_text",
            Arc::new(LargeStringArray::from(vec![
                Some("l"),
                None,
                Some("ß"),
                Some(""),
            ])),
        ),
        (
            "bytes",
            Arc::new(BinaryArray::from(vec![
                Some(&b"\x00\xff"[..]),
                None,
                Some(b""),
                Some(b"xyz"),
            ])),
        ),
        (
            "day",
            Arc::new(Date32Array::from(vec![
                Some(0),
                None,
                Some(20_000),
                Some(-365),
            ])),
        ),
        (
            "at",
            Arc::new(
                TimestampMicrosecondArray::from(vec![
                    Some(0),
                    None,
                    Some(1_700_000_000_000_000),
                    Some(-1),
                ])
                .with_timezone("UTC"),
            ),
        ),
        (
            "clock",
            Arc::new(Time64MicrosecondArray::from(vec![
                Some(0),
                None,
                Some(86_399_999_999),
                Some(1),
            ])),
        ),
        (
            "money",
            Arc::new(
                Decimal128Array::from(vec![Some(12_345), None, Some(-1), Some(0)])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
        ),
        ("list", Arc::new(list)),
        ("record", Arc::new(inner)),
        ("colour", Arc::new(dictionary)),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

/// Writes `batches` as an Alkaid IPC file at `path`.
fn write_ipc(path: &Path, batches: &[RecordBatch]) {
    let ours: Vec<_> = batches
        .iter()
        .map(|b| batch_from_arrow(b).unwrap())
        .collect();
    let file = std::fs::File::create(path).unwrap();
    let schema = ours[0].schema().clone();
    let mut writer = FileWriter::try_new(file, schema, WriteOptions::default()).unwrap();
    for batch in &ours {
        writer.write(batch).unwrap();
    }
    writer.finish().unwrap();
}

/// The tables: one IPC file of every type, a Parquet file, a CSV file, a directory of IPC
/// files.
fn tables(dir: &Path) {
    write_ipc(&dir.join("every_type.arrow"), &[every_type()]);
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(1..=6));
    let fares: ArrayRef = Arc::new(Float64Array::from(vec![7.5, 12.0, 3.25, 40.0, 9.0, 15.5]));
    let cities: ArrayRef = Arc::new(StringArray::from(vec![
        "Oslo", "Lima", "Oslo", "Pune", "Lima", "Oslo",
    ]));
    let trips =
        RecordBatch::try_from_iter([("id", ids), ("fare", fares), ("city", cities)]).unwrap();
    let trips = batch_from_arrow(&trips).unwrap();
    let options = alkaid_formats::parquet::WriteOptions::default();
    alkaid_formats::parquet::write(
        dir.join("trips.parquet"),
        trips.schema().clone(),
        [trips],
        &options,
    )
    .unwrap();
    std::fs::write(
        dir.join("cities.csv"),
        "city,country\nOslo,Norway\nLima,Peru\nPune,India\n",
    )
    .unwrap();
    std::fs::create_dir(dir.join("events")).unwrap();
    for (part, first) in [(0, 0i64), (1, 100)] {
        let id: ArrayRef = Arc::new(Int64Array::from_iter_values(first..first + 3));
        let kind: ArrayRef = Arc::new(StringArray::from(vec![Some("open"), None, Some("close")]));
        let batch = RecordBatch::try_from_iter([("id", id), ("kind", kind)]).unwrap();
        write_ipc(&dir.join(format!("events/part-{part}.arrow")), &[batch]);
    }
    // Not tables: hidden files and markers.
    std::fs::write(dir.join("_SUCCESS"), "").unwrap();
    std::fs::write(dir.join(".hidden.arrow"), "not IPC").unwrap();
}

/// A scratch folder for a client script: the tables in `dir`, and `out` for what the
/// script saves (its facts in `out/facts.json`).
pub struct Scratch {
    _root: tempfile::TempDir,
    pub dir: std::path::PathBuf,
    pub out: std::path::PathBuf,
}

impl Scratch {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let (dir, out) = (root.path().join("tables"), root.path().join("out"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        tables(&dir);
        Self {
            _root: root,
            dir,
            out,
        }
    }

    /// The facts the script saved.
    pub fn facts(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.out.join("facts.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

/// DataFusion's own answer to `query` over the tables of `dir`, as `alkaid sql` gives it.
async fn datafusion_answer(dir: &Path, query: &str) -> Vec<RecordBatch> {
    let ctx = SessionContext::new();
    for (name, path) in [
        ("every_type", "every_type.arrow"),
        ("trips", "trips.parquet"),
        ("cities", "cities.csv"),
        ("events", "events/"),
    ] {
        let url = format!("{}/{path}", dir.display());
        ctx.register_table(name, open_table(&ctx.state(), &url).await.unwrap())
            .unwrap();
    }
    ctx.sql(query).await.unwrap().collect().await.unwrap()
}

/// The batches of the IPC file the client saved.
fn saved(out: &Path, name: &str) -> Vec<RecordBatch> {
    let file = std::fs::File::open(out.join(format!("{name}.arrow"))).unwrap();
    let reader = FileReader::open(Seekable(file), ReadOptions::default()).unwrap();
    reader.map(|b| batch_to_arrow(&b.unwrap())).collect()
}

/// Rows and column names, as text: equal when the values are, whatever the batches.
fn shown(batches: &[RecordBatch]) -> String {
    pretty_format_batches(batches).unwrap().to_string()
}

#[test]
fn adbc_and_pyarrow_clients_query_ingest_and_list_as_datafusion_answers() {
    let Some(python) = python_with("adbc_driver_flightsql.dbapi, pyarrow.flight") else {
        return;
    };
    let scratch = Scratch::new();
    let (dir, out) = (scratch.dir.clone(), scratch.out.clone());

    let serving = ServerOptions::default()
        .with_token("t0ken-for-tests")
        .with_basic_auth("analyst", "s3cret");
    let options = SqlServiceOptions::default()
        .with_writes(true)
        .with_replace(true);
    let server = Server::start(&dir, options, serving);
    let (runtime, port) = (&server.runtime, server.port);

    let uri = format!("grpc://127.0.0.1:{port}");
    let args = [uri.as_str(), "analyst", "s3cret", out.to_str().unwrap()];
    run_script(&python, "adbc_client.py", &args, Duration::from_secs(300));

    // Every result equals DataFusion's own answer over the same files.
    for (name, query) in [
        ("every_type", "SELECT * FROM every_type ORDER BY i64"),
        ("parquet", "SELECT * FROM trips ORDER BY id"),
        ("csv", "SELECT * FROM cities ORDER BY city"),
        ("dir", "SELECT * FROM events ORDER BY id"),
        (
            "join",
            "SELECT t.id, c.city FROM trips t JOIN cities c ON t.city = c.city ORDER BY t.id",
        ),
        ("empty", "SELECT * FROM trips WHERE id < 0"),
        (
            "parameters",
            "SELECT id, fare FROM trips WHERE id > 3 ORDER BY id",
        ),
        (
            "text_parameter",
            "SELECT id FROM trips WHERE city = 'Oslo' ORDER BY id",
        ),
        (
            "qmark_parameters",
            "SELECT id, fare FROM trips WHERE id > 3 AND city <> '?' ORDER BY id",
        ),
        (
            "qmark_two_parameters",
            "SELECT id FROM trips WHERE city = 'Oslo' AND id >= 0 ORDER BY id",
        ),
    ] {
        let expected = runtime.block_on(datafusion_answer(&dir, query));
        let got = saved(&out, name);
        assert_eq!(shown(&got), shown(&expected), "{name}: {query}");
        if let (Some(got), Some(expected)) = (got.first(), expected.first()) {
            let names = |b: &RecordBatch| -> Vec<String> {
                b.schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect()
            };
            assert_eq!(names(got), names(expected), "{name}");
        }
    }

    let facts = scratch.facts();
    let fact = |key: &str| facts[key].to_string();
    assert_eq!(facts["ingest_create"], 3);
    assert_eq!(facts["ingest_append"], 3);
    assert!(
        fact("ingest_create_again").contains("exists"),
        "{}",
        fact("ingest_create_again")
    );
    assert_eq!(
        facts["ingested_counts"],
        serde_json::json!([{"n": 6, "v": 4}])
    );
    assert_eq!(facts["replaced_count"], serde_json::json!([{"n": 1}]));
    assert!(
        fact("missing_table").contains("no_such_table"),
        "{}",
        fact("missing_table")
    );
    assert!(
        fact("ddl").to_lowercase().contains("ddl"),
        "{}",
        fact("ddl")
    );
    assert_eq!(facts["after_errors"], serde_json::json!([{"one": 1}]));
    assert_eq!(facts["catalogs"], serde_json::json!(["alkaid"]));
    assert_eq!(facts["schemas"], serde_json::json!(["public"]));
    assert_eq!(
        facts["tables"],
        serde_json::json!([
            "cities",
            "events",
            "every_type",
            "ingested",
            "replaced",
            "trips"
        ])
    );
    assert_eq!(
        facts["trips_columns"],
        serde_json::json!(["id", "fare", "city"])
    );
    assert!(
        fact("trips_schema").contains("fare: double"),
        "{}",
        fact("trips_schema")
    );
    assert_eq!(facts["table_types"], serde_json::json!(["TABLE"]));
    assert_eq!(facts["vendor_name"], "Alkaid");
    assert_eq!(facts["concurrent_errors"], serde_json::json!([]));
    assert_eq!(facts["after_disconnect"], serde_json::json!([{"n": 6}]));
    assert!(
        fact("anonymous").to_lowercase().contains("unauthenticated"),
        "{}",
        fact("anonymous")
    );
    assert!(
        fact("malformed_command").contains("not a Flight SQL command"),
        "{}",
        fact("malformed_command")
    );
    assert!(
        fact("malformed_ticket").contains("Flight SQL"),
        "{}",
        fact("malformed_ticket")
    );

    // The ingested tables are directories of whole IPC files, and nothing was left aside.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.') && name != ".hidden.arrow")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert_eq!(std::fs::read_dir(dir.join("ingested")).unwrap().count(), 2);
}

#[test]
fn adbc_sessions_info_objects_and_schemas_as_the_driver_asks() {
    let Some(python) = python_with("adbc_driver_flightsql.dbapi") else {
        return;
    };
    let scratch = Scratch::new();
    let (dir, out) = (scratch.dir.clone(), scratch.out.clone());
    let server = Server::plain(&dir);
    let uri = format!("grpc://127.0.0.1:{}", server.port);
    let args = [uri.as_str(), out.to_str().unwrap()];
    // Built with Substrait: a plan for the driver to send.
    #[cfg(feature = "substrait")]
    {
        use prost::Message;
        let sql = "SELECT id FROM trips WHERE fare > 9 ORDER BY id";
        let plan = server
            .runtime
            .block_on(crate::substrait::produced(&dir, sql));
        std::fs::write(out.join("plan.substrait"), plan.encode_to_vec()).unwrap();
    }
    run_script(&python, "adbc_sessions.py", &args, Duration::from_secs(120));

    let facts = scratch.facts();
    let fact = |key: &str| facts[key].to_string();
    for key in ["connection", "cookies"] {
        assert_eq!(facts[format!("{key}_catalog")], "alkaid", "{key}");
        assert_eq!(facts[format!("{key}_schema")], "public", "{key}");
        let other = fact(&format!("{key}_other_schema"));
        assert!(other.contains("invalid value"), "{key}: {other}");
        assert_eq!(facts[format!("{key}_zone")], "+05:30", "{key}");
        for typed in ["typed", "prepared_typed"] {
            let got = fact(&format!("{key}_{typed}"));
            assert!(got.contains("+05:30"), "{key} {typed}: {got}");
        }
        // Another connection keeps the server's settings.
        let other = fact(&format!("{key}_other_typed"));
        assert!(!other.contains("+05:30"), "{key}: {other}");
        let forbidden = fact(&format!("{key}_forbidden"));
        assert!(forbidden.contains("invalid name"), "{key}: {forbidden}");
    }
    assert_eq!(
        facts["info"],
        serde_json::json!({
            "vendor_name": "Alkaid",
            "vendor_version": env!("CARGO_PKG_VERSION"),
            "vendor_arrow_version": "1.5.0",
        })
    );
    let tables = ["cities", "events", "every_type", "trips"];
    let depths = &facts["depths"];
    assert_eq!(
        depths["catalogs"]["catalogs"],
        serde_json::json!(["alkaid"])
    );
    assert_eq!(depths["catalogs"]["schemas"], serde_json::json!([]));
    assert_eq!(
        depths["db_schemas"]["schemas"],
        serde_json::json!(["public"])
    );
    assert_eq!(depths["db_schemas"]["tables"], serde_json::json!([]));
    assert_eq!(depths["tables"]["tables"], serde_json::json!(tables));
    assert_eq!(depths["tables"]["columns"], 0);
    let columns = depths["columns"]["columns"].as_u64().unwrap();
    assert!(columns >= 10, "{columns}");
    assert_eq!(depths["all"], depths["columns"]);
    assert_eq!(facts["filtered"], serde_json::json!([["trips", ["fare"]]]));
    assert_eq!(facts["int_for_float"], serde_json::json!([1, 3, 5]));
    if cfg!(feature = "substrait") {
        assert_eq!(facts["substrait"], serde_json::json!([2, 4, 6]));
    }
    assert_eq!(
        facts["execute_schema"],
        serde_json::json!([["id", "int64"], ["fare", "double"]])
    );
}

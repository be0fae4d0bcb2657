//! The Parquet project's Variant cases (`shredded_variant/` of the pinned parquet-testing):
//! every case's file read as `arrow.parquet.variant`, each row put back together from
//! its shredded columns and compared byte for byte with the case's `.variant.bin`
//! (metadata then value), and every case the corpus marks as an error refused with an
//! error that says what is wrong.

use std::path::PathBuf;

use alkaid_array::variant::{Variant, VariantArray, VariantMetadata, encoded_len};
use alkaid_array::{AsArray, StructArray};
use alkaid_formats::parquet::{self, ParquetReadOptions};
use alkaid_schema::extension::{CanonicalExtension, ParquetVariant};
use alkaid_schema::json::{JsonValue, parse_json};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/parquet-testing/shredded_variant")
}

/// One case of `cases.json`: its number, file, and per row the expected bytes (`None` for
/// a null row), or the error the corpus expects.
struct Case {
    number: i64,
    file: String,
    rows: Result<Vec<Option<String>>, String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus().join("cases.json")).unwrap();
    let JsonValue::Array(cases) = parse_json(&text).unwrap() else {
        panic!("cases.json is a list");
    };
    let get = |case: &JsonValue, key: &str| -> Option<JsonValue> {
        match case {
            JsonValue::Object(members) => members
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone()),
            _ => None,
        }
    };
    let text = |v: JsonValue| match v {
        JsonValue::String(s) => Some(s),
        _ => None,
    };
    let mut out = Vec::new();
    for case in &cases {
        let Some(JsonValue::Number(number)) = get(case, "case_number") else {
            panic!("a case without a number");
        };
        // Case 3 is listed with nothing but its number (the corpus has no file for it).
        let Some(file) = get(case, "parquet_file").and_then(text) else {
            continue;
        };
        let rows = if let Some(message) = get(case, "error_message").and_then(text) {
            Err(message)
        } else if let Some(file) = get(case, "variant_file").and_then(text) {
            Ok(vec![Some(file)])
        } else {
            let Some(JsonValue::Array(files)) = get(case, "variant_files") else {
                panic!("case {number} has neither a variant file nor an error");
            };
            Ok(files.into_iter().map(text).collect())
        };
        out.push(Case {
            number: number.parse().unwrap(),
            file,
            rows,
        });
    }
    out
}

/// A row's metadata and value bytes; `None` for a null row.
type Row = Option<(Vec<u8>, Vec<u8>)>;

/// Every row of the case's file, or the first error.
fn read(file: &str) -> Result<Vec<Row>, String> {
    let batches = parquet::read_with(corpus().join(file), ParquetReadOptions::default())
        .and_then(|b| b.collect_all())
        .map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for batch in batches {
        let index = batch.schema().index_of("var").map_err(|e| e.to_string())?;
        let field = &batch.schema().fields()[index];
        assert_eq!(
            CanonicalExtension::of(field).unwrap(),
            Some(CanonicalExtension::ParquetVariant),
            "{file}: the var column is read as arrow.parquet.variant"
        );
        let storage: &StructArray = batch.column(index).as_typed().unwrap();
        let variants = VariantArray::try_new(storage).map_err(|e| e.to_string())?;
        for i in 0..variants.len() {
            let row = variants.value(i).map_err(|e| e.to_string())?;
            rows.push(row.map(|(m, v)| (m.into_owned(), v.into_owned())));
        }
    }
    Ok(rows)
}

#[test]
fn every_case_reads_to_its_expected_bytes_or_is_refused() {
    let cases = cases();
    assert_eq!(cases.len(), 137, "the corpus's cases with a file");
    let (mut rows_compared, mut refused) = (0, 0);
    for case in &cases {
        let found = read(&case.file);
        match (&case.rows, found) {
            (Ok(expected), Ok(found)) => {
                assert_eq!(expected.len(), found.len(), "case {}: rows", case.number);
                for (row, (expected, found)) in expected.iter().zip(found).enumerate() {
                    let place = format!("case {} ({}) row {row}", case.number, case.file);
                    let (Some(expected), Some((metadata, value))) = (expected, found.clone())
                    else {
                        assert!(expected.is_none() && found.is_none(), "{place}: null");
                        continue;
                    };
                    let bytes = std::fs::read(corpus().join(expected)).unwrap();
                    let split = VariantMetadata::read_prefix(&bytes).unwrap().encoded_len();
                    assert_eq!(metadata, &bytes[..split], "{place}: metadata");
                    assert_eq!(value, &bytes[split..], "{place}: value");
                    // And the value reads whole.
                    let metadata = VariantMetadata::try_new(&metadata).unwrap();
                    Variant::try_new(metadata, &value).unwrap();
                    assert_eq!(encoded_len(&value).unwrap(), value.len());
                    rows_compared += 1;
                }
            }
            (Err(message), Err(found)) => {
                // The corpus's words for the two kinds of error, and Alkaid's.
                let expected_words = if message.starts_with("Unsupported shredded value type") {
                    "is not a shredded Variant type"
                } else {
                    message.as_str()
                };
                assert!(
                    found.contains(expected_words),
                    "case {} ({}): expected {message:?}, found {found:?}",
                    case.number,
                    case.file
                );
                refused += 1;
            }
            (Ok(_), Err(found)) => panic!("case {} ({}): {found}", case.number, case.file),
            (Err(message), Ok(_)) => {
                panic!(
                    "case {} ({}) read; expected {message:?}",
                    case.number, case.file
                )
            }
        }
    }
    assert_eq!(refused, 6);
    assert!(rows_compared >= 131, "{rows_compared} rows compared");
}

/// A Variant column written by Alkaid is marked `VARIANT` in the file and reads back as
/// the same extension and bytes, shredded or not.
#[test]
fn variant_columns_are_written_back_with_their_logical_type() {
    use ::parquet::basic::LogicalType;
    use ::parquet::file::reader::{FileReader, SerializedFileReader};

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("variant_corpus");
    std::fs::create_dir_all(&dir).unwrap();
    for file in [
        "case-001.parquet",
        "case-046.parquet",
        "case-083.parquet",
        "case-134.parquet",
    ] {
        let batches = parquet::read_with(corpus().join(file), ParquetReadOptions::default())
            .unwrap()
            .collect_all()
            .unwrap();
        let schema = batches[0].schema();
        let out = dir.join(file);
        parquet::write(&out, schema.clone(), batches.clone(), &Default::default()).unwrap();

        let footer = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
        let root = footer
            .metadata()
            .file_metadata()
            .schema_descr()
            .root_schema();
        let var = root
            .get_fields()
            .iter()
            .find(|t| t.name() == "var")
            .unwrap();
        assert!(
            matches!(
                var.get_basic_info().logical_type_ref(),
                Some(LogicalType::Variant(_))
            ),
            "{file}: var is marked VARIANT"
        );
        let again = parquet::read(&out).unwrap().collect_all().unwrap();
        assert_eq!(again[0].schema(), schema, "{file}");
        let rows = |batches: &[alkaid_array::RecordBatch]| -> Vec<Option<Vec<u8>>> {
            batches
                .iter()
                .flat_map(|b| {
                    let storage: &StructArray =
                        b.column_by_name("var").unwrap().as_typed().unwrap();
                    let variants = VariantArray::try_new(storage).unwrap();
                    (0..variants.len())
                        .map(|i| variants.value(i).unwrap().map(|(_, v)| v.into_owned()))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        assert_eq!(rows(&again), rows(&batches), "{file}");
    }
    // The storage rules are Alkaid's own.
    assert!(ParquetVariant::storage_type().children().len() == 2);
}

/// The Variant Parquet Alkaid writes, read by the peers as far as each reads the type:
/// DuckDB reads `VARIANT` as its own Variant type (compared as JSON, shredded and not);
/// pyarrow 26 reads the storage struct (the bytes compared with Alkaid's); Polars 2.1
/// refuses a file with the `VARIANT` logical type at all, which the test checks it still
/// does (so that the day it reads them, this test says so), and reads the storage struct
/// of a file written without it (`with_variant_logical_type(false)`).
#[test]
fn peers_read_the_variant_parquet_alkaid_writes() {
    use std::sync::Arc;

    use alkaid_array::{Array, ArrayRef, RecordBatch};
    use alkaid_compute::variant::shred;
    use alkaid_schema::extension::Namespace;
    use alkaid_schema::{DataType, Field, Schema};

    let Some(python) = crate::python::python_with("pyarrow, polars, duckdb") else {
        return;
    };
    let rows = [
        Some(r#"{"id": 1, "name": "ada", "tags": ["x", "y"], "price": 2.50}"#),
        Some(r#"{"id": "two", "nested": {"deep": [1, {"er": true}]}}"#),
        None,
        Some("[1, 2.5, null, \"three\"]"),
        Some("-7"),
    ];
    let plain = VariantArray::from_json(rows).unwrap();
    let shape = DataType::Struct(
        vec![
            Field::new("id", DataType::Int8, true),
            Field::new("name", DataType::Utf8, true),
            Field::new("tags", DataType::list(DataType::Utf8), true),
        ]
        .into(),
    );
    let shredded = shred(plain.storage(), &shape).unwrap();
    let variant = |name: &str, storage: &StructArray| {
        Field::new(name, storage.data_type().clone(), true)
            .with_extension_type(&ParquetVariant, Namespace::Arrow)
            .unwrap()
    };
    let schema = Arc::new(Schema::new(vec![
        variant("plain", plain.storage()),
        variant("shredded", &shredded),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(plain.storage().clone()) as ArrayRef,
            Arc::new(shredded),
        ],
    )
    .unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("variant_peers");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("v.parquet");
    parquet::write(
        &file,
        schema.clone(),
        vec![batch.clone()],
        &Default::default(),
    )
    .unwrap();
    // The same without the logical type, for readers that refuse it.
    let unmarked = dir.join("unmarked.parquet");
    let options = parquet::WriteOptions::default().with_variant_logical_type(false);
    parquet::write(&unmarked, schema.clone(), vec![batch], &options).unwrap();
    let back = parquet::read(&unmarked).unwrap().collect_all().unwrap();
    for field in back[0].schema().fields().iter() {
        assert_eq!(
            CanonicalExtension::of(field).unwrap(),
            Some(CanonicalExtension::ParquetVariant),
            "{}: the annotation comes back from the Arrow schema",
            field.name()
        );
    }

    let script = r#"
import json, sys
import duckdb, polars, pyarrow.parquet as pq
path = sys.argv[1]
out = {}
rows = duckdb.sql(f"SELECT plain::JSON, shredded::JSON FROM read_parquet('{path}')").fetchall()
out["duckdb"] = [[None if v is None else json.loads(v) for v in row] for row in rows]
table = pq.read_table(path)
plain = table.column("plain").combine_chunks()
out["pyarrow_type"] = str(table.schema.field("plain").type)
out["pyarrow"] = [None if not plain.is_valid().to_pylist()[i] else
    [plain.field("metadata")[i].as_py().hex(), plain.field("value")[i].as_py().hex()]
    for i in range(len(plain))]
try:
    polars.read_parquet(path)
    out["polars"] = "read"
except Exception as e:
    out["polars"] = str(e)
unmarked = polars.read_parquet(sys.argv[2])
out["polars_unmarked"] = [None if v is None else v["metadata"].hex() + ":" + v["value"].hex()
    for v in unmarked["plain"].to_list()]
print(json.dumps(out))
"#;
    let output = std::process::Command::new(&python)
        .args([
            "-c",
            script,
            file.to_str().unwrap(),
            unmarked.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found = parse_json(std::str::from_utf8(&output.stdout).unwrap().trim()).unwrap();
    let JsonValue::Object(found) = found else {
        panic!("an object")
    };
    let get = |key: &str| found.iter().find(|(k, _)| k == key).unwrap().1.clone();

    // DuckDB: each row's value, the same from the shredded column as from the plain one.
    let JsonValue::Array(duck) = get("duckdb") else {
        panic!("rows")
    };
    assert_eq!(duck.len(), rows.len());
    for (row, text) in duck.iter().zip(rows) {
        let JsonValue::Array(pair) = row else {
            panic!("a pair")
        };
        let expected = match text {
            Some(text) => {
                // Alkaid's own reading of the JSON, as JSON values.
                let (m, v) = alkaid_array::variant::json_to_variant(text).unwrap();
                let metadata = VariantMetadata::try_new(&m).unwrap();
                let json =
                    alkaid_array::variant::variant_to_json(Variant::try_new(metadata, &v).unwrap())
                        .unwrap();
                parse_json(&json).unwrap()
            }
            None => JsonValue::Null,
        };
        assert_eq!(
            pair[0], pair[1],
            "DuckDB reads the shredded column as the plain one"
        );
        assert_eq!(
            numbers_as_floats(&pair[0]),
            numbers_as_floats(&expected),
            "{text:?}"
        );
    }
    // pyarrow: the storage struct, its bytes Alkaid's.
    let JsonValue::String(pyarrow_type) = get("pyarrow_type") else {
        panic!("a type")
    };
    assert!(
        pyarrow_type.starts_with("struct<metadata: binary"),
        "{pyarrow_type}"
    );
    let JsonValue::Array(bytes) = get("pyarrow") else {
        panic!("rows")
    };
    for (i, row) in bytes.iter().enumerate() {
        match plain.value(i).unwrap() {
            None => assert_eq!(row, &JsonValue::Null),
            Some((m, v)) => {
                let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
                let expected =
                    JsonValue::Array(vec![JsonValue::String(hex(&m)), JsonValue::String(hex(&v))]);
                assert_eq!(row, &expected, "row {i}");
            }
        }
    }
    // Polars: not yet; without the logical type, the storage struct, its bytes Alkaid's.
    let JsonValue::String(polars) = get("polars") else {
        panic!("a verdict")
    };
    assert!(
        polars.contains("LogicalType union has no variant set"),
        "Polars: {polars}"
    );
    let JsonValue::Array(unmarked_rows) = get("polars_unmarked") else {
        panic!("rows")
    };
    for (i, row) in unmarked_rows.iter().enumerate() {
        let expected = plain.value(i).unwrap().map(|(m, v)| {
            let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
            JsonValue::String(format!("{}:{}", hex(&m), hex(&v)))
        });
        assert_eq!(row, &expected.unwrap_or(JsonValue::Null), "row {i}");
    }
}

/// JSON numbers compared by value: DuckDB writes `2.50` as `2.5`.
fn numbers_as_floats(value: &JsonValue) -> JsonValue {
    match value {
        JsonValue::Number(n) => JsonValue::Number(n.parse::<f64>().unwrap().to_string()),
        JsonValue::Array(items) => JsonValue::Array(items.iter().map(numbers_as_floats).collect()),
        JsonValue::Object(members) => JsonValue::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), numbers_as_floats(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The writer's shredding option: the file holds the typed columns asked for, and reads
/// back to the same values; a column that is not a Variant is refused by name.
#[test]
fn the_writer_shreds_the_columns_it_is_asked_to() {
    use std::sync::Arc;

    use alkaid_array::{Array, ArrayRef, RecordBatch};
    use alkaid_formats::parquet::WriteOptions;
    use alkaid_schema::extension::Namespace;
    use alkaid_schema::{DataType, Field, Schema};

    let rows = [
        Some(r#"{"id": 1, "tags": ["a"], "rest": {"x": 1}}"#),
        None,
        Some(r#"{"id": "not a number"}"#),
        Some("7"),
    ];
    let plain = VariantArray::from_json(rows).unwrap();
    let field = Field::new("v", plain.storage().data_type().clone(), true)
        .with_extension_type(&ParquetVariant, Namespace::Arrow)
        .unwrap();
    let schema = Arc::new(Schema::new(vec![
        field,
        Field::new("n", DataType::Int32, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(plain.storage().clone()) as ArrayRef,
            Arc::new(alkaid_array::Int32Array::from(vec![1, 2, 3, 4])),
        ],
    )
    .unwrap();
    let shape = DataType::Struct(
        vec![
            Field::new("id", DataType::Int64, true),
            Field::new("tags", DataType::list(DataType::Utf8), true),
        ]
        .into(),
    );
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("variant_shredding");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("shredded.parquet");
    let options = WriteOptions::default().with_variant_shredding("v", shape);
    parquet::write(&file, schema.clone(), vec![batch.clone()], &options).unwrap();

    let read = parquet::read(&file).unwrap().collect_all().unwrap();
    let storage: &StructArray = read[0].column(0).as_typed().unwrap();
    let typed = storage
        .column_by_name("typed_value")
        .expect("typed columns were written");
    assert_eq!(
        typed.data_type().children().len(),
        2,
        "{}",
        typed.data_type()
    );
    let again = VariantArray::try_new(storage).unwrap();
    for i in 0..rows.len() {
        assert_eq!(
            again.to_json(i).unwrap(),
            plain.to_json(i).unwrap(),
            "row {i}"
        );
    }
    let refused = WriteOptions::default().with_variant_shredding("n", DataType::Int64);
    let error = parquet::write(dir.join("no.parquet"), schema, vec![batch], &refused)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("shredding \"n\": not an arrow.parquet.variant column"),
        "{error}"
    );
}
